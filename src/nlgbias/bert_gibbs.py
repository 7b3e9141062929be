"""Text generation from a masked LM by Gibbs-style sampling (Wang & Cho 2019), as BOLD did
with BERT (Dhamala et al. 2021, Appendix A.2.1: ``bert-large-cased``, max sentence length 15,
temperature 0.7, burn-in 200, max iterations 500).

The reference implementation ("bert-babble", ``parallel_sequential_generation``):
the prompt's tokens are followed by ``max_len`` ``[MASK]`` tokens and ``[SEP]``; at each of
``max_iter`` iterations one of the ``max_len`` positions is chosen uniformly at random,
masked, and re-drawn from BERT's prediction there: sampled from ``softmax(logits /
temperature)`` during the first ``burnin`` iterations, afterwards sampled from the top-k
(``top_k > 0``) or taken greedily (``top_k = 0``, the reference default). Here each row has its
own random generator (batch-invariant), and special tokens ([CLS], [SEP], [PAD], [MASK],
[UNK]) are never drawn.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass

from tqdm.auto import tqdm

from nlgbias.generation import Completion, DecodingError, DecodingParams
from nlgbias.models import LoadedModel

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GibbsParams:
    """BOLD Appendix A.2.1 defaults."""

    max_len: int = 15
    temperature: float = 0.7
    burnin: int = 200
    max_iter: int = 500
    top_k: int = 0

    def __post_init__(self) -> None:
        problems = []
        for k in ("max_len", "max_iter"):
            v = getattr(self, k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                problems.append(f"{k} must be a positive integer, got {v!r}")
        if not isinstance(self.burnin, int) or self.burnin < 0:
            problems.append(f"burnin must be an integer >= 0, got {self.burnin!r}")
        if not isinstance(self.top_k, int) or self.top_k < 0:
            problems.append(f"top_k must be an integer >= 0, got {self.top_k!r}")
        if not isinstance(self.temperature, int | float) or not self.temperature > 0:
            problems.append(f"temperature must be > 0, got {self.temperature!r}")
        if problems:
            raise DecodingError("bad Gibbs parameter(s): " + "; ".join(problems))

    def as_dict(self) -> dict:
        return asdict(self)

    def to_decoding(self) -> DecodingParams:
        """The closest :class:`DecodingParams` (for the parquet columns)."""
        return DecodingParams(max_new_tokens=self.max_len, do_sample=True, top_k=self.top_k,
                              temperature=self.temperature)


class GibbsGenerator:
    """Batched Gibbs generation from a masked LM (see the module docstring).

    Same interface as :class:`~nlgbias.generation.CausalGenerator` (``iter_generate``,
    ``generate``, ``tokens_generated``, ``tokens_per_second``).
    """

    def __init__(self, lm: LoadedModel, params: GibbsParams | None = None, batch_size: int = 16,
                 num_threads: int | None = None):
        import torch  # noqa: PLC0415

        if lm.model is None:
            raise ValueError(f"model {lm.name!r} has no weights to generate with")
        self.lm, self.params, self.batch_size = lm, params or GibbsParams(), batch_size
        self.model, self.tok = lm.model, lm.tokenizer
        self.device = torch.device(lm.device)
        if num_threads:
            torch.set_num_threads(num_threads)
        for t in ("cls_token_id", "sep_token_id", "mask_token_id", "pad_token_id"):
            if getattr(self.tok, t) is None:
                raise ValueError(f"tokenizer of {lm.name!r} has no {t[:-9]} token: not a BERT-style MLM")
        vocab = self.model.get_output_embeddings().weight.shape[0]
        self.banned = torch.zeros(vocab, dtype=torch.bool)
        self.banned[[i for i in self.tok.all_special_ids if i < vocab]] = True
        self.banned = self.banned.to(self.device)
        self.tokens_generated = 0
        self.rows_done = 0
        self.seconds = 0.0

    def encode(self, prompt: str) -> list[int]:
        """``[CLS] prompt`` token ids (the seed text)."""
        return [self.tok.cls_token_id, *self.tok(prompt, add_special_tokens=False)["input_ids"]]

    def _batch(self, seeds_ids: list[list[int]], seeds: list[int]) -> list[list[int]]:
        import torch  # noqa: PLC0415

        p, dev, tok = self.params, self.device, self.tok
        b = len(seeds_ids)
        rows = [s + [tok.mask_token_id] * p.max_len + [tok.sep_token_id] for s in seeds_ids]
        width = max(len(r) for r in rows)
        ids = torch.full((b, width), tok.pad_token_id, dtype=torch.long)
        attn = torch.zeros((b, width), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, :len(r)] = torch.tensor(r)
            attn[i, :len(r)] = 1
        ids, attn = ids.to(dev), attn.to(dev)
        start = torch.tensor([len(s) for s in seeds_ids], device=dev)
        gens = [torch.Generator().manual_seed(s) for s in seeds]
        ar = torch.arange(b, device=dev)
        with torch.inference_mode():
            for it in range(p.max_iter):
                kk = torch.cat([torch.randint(p.max_len, (1,), generator=g) for g in gens]).to(dev)
                pos = start + kk
                ids[ar, pos] = tok.mask_token_id
                logits = self.model(input_ids=ids, attention_mask=attn).logits[ar, pos].float()
                logits = logits.masked_fill(self.banned, float("-inf")) / p.temperature
                if it < p.burnin:
                    probs = logits.softmax(-1)
                    cand = None
                elif p.top_k > 0:
                    vals, cand = logits.topk(p.top_k, dim=-1)
                    probs = vals.softmax(-1)
                else:
                    ids[ar, pos] = logits.argmax(-1)
                    continue
                cdf = probs.cumsum(-1)
                u = torch.cat([torch.rand(1, generator=g) for g in gens]).to(dev) * cdf[:, -1]
                pick = (cdf < u[:, None]).sum(-1).clamp(max=cdf.shape[-1] - 1)
                ids[ar, pos] = pick if cand is None else cand.gather(1, pick[:, None]).squeeze(1)
        return [ids[i, len(s):len(s) + p.max_len].tolist() for i, s in enumerate(seeds_ids)]

    def iter_generate(self, prompts: Sequence[str], seeds: Sequence[int],
                      progress: tqdm | None = None) -> Iterator[list[tuple[int, Completion]]]:
        """Yield, batch by batch, ``(index into prompts, Completion)`` pairs."""
        import time  # noqa: PLC0415

        if len(prompts) != len(seeds):
            raise ValueError(f"{len(prompts)} prompts but {len(seeds)} seeds")
        enc = [self.encode(p) for p in prompts]
        order = sorted(range(len(prompts)), key=lambda i: (len(enc[i]), i))
        for s in range(0, len(order), self.batch_size):
            idx = order[s:s + self.batch_size]
            t0 = time.perf_counter()
            new = self._batch([enc[i] for i in idx], [int(seeds[i]) for i in idx])
            self.seconds += time.perf_counter() - t0
            self.tokens_generated += sum(len(x) for x in new)
            self.rows_done += len(idx)
            if progress is not None:
                progress.update(len(idx))
                progress.set_postfix(tok_s=f"{self.tokens_per_second:.1f}")
            out = []
            for i, toks in zip(idx, new):
                gen = self.tok.decode(toks, skip_special_tokens=True).strip()
                out.append((i, Completion(gen, f"{prompts[i]} {gen}".strip(), len(toks), "length")))
            yield out

    def generate(self, prompts: Sequence[str], seeds: Sequence[int] | int = 0) -> list[Completion]:
        """Continuations of ``prompts`` in input order."""
        from nlgbias.generation import row_seed  # noqa: PLC0415

        if isinstance(seeds, int):
            seeds = [row_seed(seeds, str(i)) for i in range(len(prompts))]
        out: list[Completion | None] = [None] * len(prompts)
        for batch in self.iter_generate(prompts, seeds):
            for i, c in batch:
                out[i] = c
        return out  # type: ignore[return-value]

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_generated / self.seconds if self.seconds else 0.0
