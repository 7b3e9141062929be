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
from dataclasses import asdict, dataclass

from nlgbias.engine.causal import BatchedGenerator, Completion
from nlgbias.engine.decoding import DecodingError, DecodingParams
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


class GibbsGenerator(BatchedGenerator):
    """Batched Gibbs generation from a masked LM (see the module docstring).

    Same interface as :class:`~nlgbias.generation.CausalGenerator` (``iter_generate``,
    ``generate``, ``tokens_generated``, ``tokens_per_second``).
    """

    def __init__(self, lm: LoadedModel, params: GibbsParams | None = None, batch_size: int = 16,
                 num_threads: int | None = None):
        import torch

        if lm.model is None:
            raise ValueError(f"model {lm.name!r} has no weights to generate with")
        self.lm, self.params, self.batch_size = lm, params or GibbsParams(), batch_size
        self.model, self.tok = lm.model, lm.tokenizer
        self.device = torch.device(lm.device)
        if num_threads:
            from nlgbias.hardware import set_torch_threads

            set_torch_threads(num_threads)
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

    def _batch(self, seeds_ids: list[list[int]], seeds: list[int]) -> list[tuple[list[int], str]]:
        import torch

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
        return [(ids[i, len(s):len(s) + p.max_len].tolist(), "length") for i, s in enumerate(seeds_ids)]

    def _decode(self, prompt: str, prompt_ids: list[int], new: list[int], reason: str) -> Completion:
        gen = self.tok.decode(new, skip_special_tokens=True).strip()
        return Completion(gen, f"{prompt} {gen}".strip(), len(new), reason)
