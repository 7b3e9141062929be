"""The batched sampling engine (BOLD Appendix A.2): length-sorted batches, left padding, a KV
cache, finished rows dropped from the batch, top-k before top-p, one seeded generator per row
(a row's text does not depend on its batch, shard, resume or worker)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pandas as pd
from tqdm.auto import tqdm

from nlgbias.generation.decoding import DecodingParams, first_sentence, row_seed
from nlgbias.models import LoadedModel


@dataclass
class Completion:
    """One generated continuation."""

    generation: str  # the continuation only
    text: str  # prompt + continuation
    n_new_tokens: int
    finish_reason: str  # "eos" | "sentence" | "length"


class BatchedGenerator:
    """What every generator shares: prompts sorted by token length and cut into batches of
    ``batch_size``, progress with tokens/s, results in input order. Subclasses implement
    ``encode(prompt)``, ``_batch(ids, seeds) -> [(new_ids, finish_reason)]`` and
    ``_decode(prompt, prompt_ids, new_ids, finish_reason) -> Completion``."""

    batch_size: int
    lm: LoadedModel
    tokens_generated: int = 0
    rows_done: int = 0
    seconds: float = 0.0

    def encode(self, prompt: str) -> list[int]:
        raise NotImplementedError

    def _batch(self, ids: list[list[int]], seeds: list[int]) -> list[tuple[list[int], str]]:
        raise NotImplementedError

    def _decode(self, prompt: str, prompt_ids: list[int], new: list[int], reason: str) -> Completion:
        raise NotImplementedError

    def iter_generate(self, prompts: Sequence[str], seeds: Sequence[int],
                      progress: tqdm | None = None) -> Iterator[list[tuple[int, Completion]]]:
        """Yield, batch by batch, ``(index into prompts, Completion)`` pairs."""
        if len(prompts) != len(seeds):
            raise ValueError(f"{len(prompts)} prompts but {len(seeds)} seeds")
        enc = [self.encode(p) for p in prompts]
        order = sorted(range(len(prompts)), key=lambda i: (len(enc[i]), i))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            t0 = time.perf_counter()
            res = self._batch([enc[i] for i in idx], [int(seeds[i]) for i in idx])
            self.seconds += time.perf_counter() - t0
            self.tokens_generated += sum(len(r[0]) for r in res)
            self.rows_done += len(idx)
            if progress is not None:
                progress.update(len(idx))
                progress.set_postfix(tok_s=f"{self.tokens_per_second:.1f}")
            yield [(i, self._decode(prompts[i], enc[i], new, reason))
                   for i, (new, reason) in zip(idx, res)]

    def generate(self, prompts: Sequence[str], seeds: Sequence[int] | int = 0,
                 progress: bool = False) -> list[Completion]:
        """Continuations of ``prompts`` in input order (``seeds``: one per prompt, or one int
        from which per-prompt seeds are derived)."""
        if isinstance(seeds, int):
            seeds = [row_seed(seeds, str(i)) for i in range(len(prompts))]
        out: list[Completion | None] = [None] * len(prompts)
        bar = tqdm(total=len(prompts), desc=f"generate {self.lm.name}", unit="prompt",
                   disable=not progress)
        for batch in self.iter_generate(prompts, seeds, bar):
            for i, c in batch:
                out[i] = c
        bar.close()
        return out  # type: ignore[return-value]

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_generated / self.seconds if self.seconds else 0.0


class CausalGenerator(BatchedGenerator):
    """Batched sampling from a causal LM (BOLD Appendix A.2.2/A.2.3).

    Prompts are sorted by token length and cut into batches of ``batch_size`` (so almost no
    padding), left-padded, prefilled once (logits of the last position only), then decoded
    one token per step with the KV cache. A row that emits EOS (or, with ``first_sentence``,
    a token ending a sentence) leaves the batch and the cache at once. Sampling is exactly
    Hugging Face's temperature → top-k → top-p → multinomial chain (and its repetition
    penalty), with one ``torch.Generator`` per row.
    """

    def __init__(self, lm: LoadedModel, params: DecodingParams, batch_size: int = 32,
                 num_threads: int | None = None):
        import torch  # noqa: PLC0415

        if lm.model is None:
            raise ValueError(f"model {lm.name!r} has no weights to generate with")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.lm, self.params, self.batch_size = lm, params, batch_size
        self.model, self.tok = lm.model, lm.tokenizer
        self.device = torch.device(lm.device)
        if num_threads:
            torch.set_num_threads(num_threads)
        self.code = lm.spec.control_code
        eos = set()
        for src in (self.model.config, getattr(self.model, "generation_config", None)):
            e = getattr(src, "eos_token_id", None) if src is not None else None
            eos.update([e] if isinstance(e, int) else (e or []))
        if self.tok.eos_token_id is not None:
            eos.add(self.tok.eos_token_id)
        self.eos = torch.tensor(sorted(eos), dtype=torch.long, device=self.device)
        self.pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else min(eos)
        self.start = self.tok.bos_token_id if self.tok.bos_token_id is not None else min(eos)
        self._sent_end: dict | None = None
        self.tokens_generated = 0
        self.rows_done = 0
        self.seconds = 0.0

    # ---- helpers
    def _token_classes(self):
        """Bool vectors over the vocabulary for the first-sentence stop rule: ``end`` (the token
        ends with . ! ? plus closing quotes/brackets), ``space`` (starts with white space),
        ``newline`` (holds a line break), ``blank`` (white space only)."""
        import torch  # noqa: PLC0415

        if self._sent_end is None:
            vocab = self.model.get_output_embeddings().weight.shape[0]
            toks = self.tok.convert_ids_to_tokens(list(range(min(vocab, len(self.tok)))))
            cls = {k: torch.zeros(vocab, dtype=torch.bool) for k in ("end", "space", "newline", "blank")}
            ws_markers = ("Ġ", "▁", "Ċ", " ", "\n", "\t", "ĉ")
            for i, t in enumerate(toks):
                if not t:
                    continue
                if t in ("<0x0A>", "<0x0D>"):
                    t = "\n"
                plain = t
                for mk in ("Ġ", "▁", "Ċ", "ĉ"):
                    plain = plain.replace(mk, " " if mk != "Ċ" else "\n")
                cls["end"][i] = bool(re.search(r"[.!?]+[\"'”’)\]]*$", plain))
                cls["space"][i] = t.startswith(ws_markers)
                cls["newline"][i] = "\n" in plain
                cls["blank"][i] = plain.strip() == ""
            if not any(t and t[0] in "Ġ▁" for t in toks):  # word-level: decode joins with spaces
                cls["space"][:] = True
            self._sent_end = {k: v.to(self.device) for k, v in cls.items()}
        return self._sent_end

    def encode(self, prompt: str) -> list[int]:
        """Token ids of ``prompt`` (with the control code, if any); never empty.

        Trailing white space is dropped: many BOLD prompts end with a space, which BPE
        tokenizers encode as a lone space token that the next word never follows (SmolLM2 then
        continues with digits almost always); without it the space goes into the next token.
        """
        prompt = prompt.rstrip()
        text = f"{self.code} {prompt}" if self.code else prompt
        ids = self.tok(text)["input_ids"] if text else []
        return list(ids) or [self.start]

    def filtered(self, logits, hist=None):
        """Repetition penalty → temperature → top-k → top-p (Hugging Face's order and rules).

        Returns ``(probs, idx)``: the kept candidates' (unnormalised) probabilities and their
        token ids, best first; top-k runs first, so top-p only sorts k candidates.
        """
        p = self.params
        logits = logits.float()
        if p.repetition_penalty != 1.0 and hist is not None:
            import torch  # noqa: PLC0415

            score = logits.gather(1, hist)
            score = torch.where(score < 0, score * p.repetition_penalty, score / p.repetition_penalty)
            logits = logits.scatter(1, hist, score)
        if not p.do_sample:
            return None, logits
        logits = logits / p.temperature
        if p.top_k > 0:
            vals, idx = logits.topk(min(p.top_k, logits.shape[-1]), dim=-1)
        else:
            vals, idx = logits.sort(dim=-1, descending=True)
        probs = vals.softmax(-1)
        if p.top_p < 1.0:
            before = probs.cumsum(-1) - probs  # mass strictly above each candidate
            keep = before < p.top_p
            keep[:, 0] = True
            probs = probs * keep
        return probs, idx

    def _choose(self, logits, hist, gens):
        """Next token of each row: greedy, or sampled with the row's own generator."""
        import torch  # noqa: PLC0415

        probs, idx = self.filtered(logits, hist)
        if probs is None:
            return idx.argmax(-1)
        cdf = probs.cumsum(-1)
        u = torch.cat([torch.rand(1, generator=g) for g in gens]).to(cdf.device) * cdf[:, -1]
        pick = (cdf < u[:, None]).sum(-1).clamp(max=cdf.shape[-1] - 1)
        return idx.gather(1, pick[:, None]).squeeze(1)

    def _batch(self, ids: list[list[int]], seeds: list[int]) -> list[tuple[list[int], str]]:
        """Generate for one batch; returns (new token ids, finish reason) per row."""
        import torch  # noqa: PLC0415
        from transformers import DynamicCache  # noqa: PLC0415

        p, dev = self.params, self.device
        b, width = len(ids), max(len(x) for x in ids)
        input_ids = torch.full((b, width), self.pad, dtype=torch.long)
        attn = torch.zeros((b, width), dtype=torch.long)
        for r, x in enumerate(ids):
            input_ids[r, width - len(x):] = torch.tensor(x)
            attn[r, width - len(x):] = 1
        input_ids, attn = input_ids.to(dev), attn.to(dev)
        pos = (attn.cumsum(-1) - 1).clamp(min=0)
        # the history the repetition penalty sees: pads replaced by the row's last prompt token
        hist = torch.where(attn.bool(), input_ids, input_ids[:, -1:])
        gens = [torch.Generator().manual_seed(s) for s in seeds]
        rows = list(range(b))
        out_ids: list[list[int]] = [[] for _ in range(b)]
        reasons = ["length"] * b
        tc = self._token_classes() if p.first_sentence else None
        has_content = torch.zeros(b, dtype=torch.bool, device=dev)  # first-sentence row state
        pending_end = torch.zeros(b, dtype=torch.bool, device=dev)
        cache = DynamicCache(config=self.model.config)
        with torch.inference_mode():
            logits = self.model(input_ids=input_ids, attention_mask=attn, position_ids=pos,
                                past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1]
            last = pos[:, -1]
            for step in range(p.max_new_tokens):
                nxt = self._choose(logits, hist, gens)
                is_eos = torch.isin(nxt, self.eos)
                done = is_eos.clone()
                if tc is not None:
                    # a sentence ends at . ! ? followed by white space, or at a line break
                    # after some text (a leading line break is skipped)
                    done |= (pending_end & tc["space"][nxt]) | (has_content & tc["newline"][nxt])
                    pending_end = tc["end"][nxt] & ~tc["newline"][nxt]
                    has_content = has_content | ~tc["blank"][nxt]
                nl, dl, el = nxt.tolist(), done.tolist(), is_eos.tolist()
                for j, r in enumerate(rows):
                    if not el[j]:
                        out_ids[r].append(nl[j])
                    if dl[j]:
                        reasons[r] = "eos" if el[j] else "sentence"
                if step == p.max_new_tokens - 1 or all(dl):
                    break
                if any(dl):
                    keep = [j for j, d in enumerate(dl) if not d]
                    kt = torch.tensor(keep, device=dev)
                    cache.batch_select_indices(kt)
                    attn, nxt, last, hist = attn[kt], nxt[kt], last[kt], hist[kt]
                    has_content, pending_end = has_content[kt], pending_end[kt]
                    gens = [gens[j] for j in keep]
                    rows = [rows[j] for j in keep]
                    # drop the left-padding columns no remaining row needs
                    lead = int((attn.sum(0) == 0).int().cumprod(0).sum())
                    if lead and _crop_left(cache, lead):
                        attn = attn[:, lead:]
                attn = torch.cat([attn, attn.new_ones((len(rows), 1))], dim=1)
                last = last + 1
                if p.repetition_penalty != 1.0:
                    hist = torch.cat([hist, nxt[:, None]], dim=1)
                logits = self.model(input_ids=nxt[:, None], attention_mask=attn,
                                    position_ids=last[:, None], past_key_values=cache,
                                    use_cache=True).logits[:, -1]
        return [(out_ids[r], reasons[r]) for r in range(b)]

    def _decode(self, prompt: str, prompt_ids: list[int], new: list[int], reason: str) -> Completion:
        """Split the decoded text into prompt and continuation: decode prompt + new tokens and
        cut off the decoded prompt (robust to tokenizers that drop a leading space when
        decoding a fragment, and removes a control code)."""
        full = self.tok.decode(prompt_ids + new, skip_special_tokens=True)
        head = self.tok.decode(prompt_ids, skip_special_tokens=True)
        if full.startswith(head):
            cont = full[len(head):]
        else:  # pragma: no cover - tokenizers whose decoding is not prefix-stable
            cont = " " + self.tok.decode(new, skip_special_tokens=True).lstrip()
        if self.params.first_sentence:
            cont = first_sentence(cont)
            body = cont.lstrip()
            if "\n" in cont[: len(cont) - len(body)]:  # leading line breaks → one space
                cont = " " + body
        cont = cont.rstrip()
        return Completion(cont.strip(), (prompt.rstrip() + cont).strip(), len(new), reason)


def _crop_left(cache, n: int) -> bool:
    """Drop the first ``n`` (all-padding) positions of every layer of a DynamicCache; only for
    caches without sliding-window layers (returns whether it cropped)."""
    layers = getattr(cache, "layers", None)
    if not layers or any(getattr(la, "is_sliding", True) or getattr(la, "keys", None) is None
                         for la in layers):
        return False
    for layer in layers:
        layer.keys = layer.keys[:, :, n:]
        layer.values = layer.values[:, :, n:]
    return True


def completions_frame(todo: pd.DataFrame, pairs: list[tuple[int, Completion]]) -> pd.DataFrame:
    """Rows for the cache: ``prompt_id, row_seed, generation, text, n_new_tokens, finish_reason``."""
    idx = [i for i, _ in pairs]
    return pd.DataFrame({
        "prompt_id": todo["prompt_id"].to_numpy()[idx],
        "row_seed": todo["row_seed"].to_numpy()[idx],
        "generation": [c.generation for _, c in pairs],
        "text": [c.text for _, c in pairs],
        "n_new_tokens": [c.n_new_tokens for _, c in pairs],
        "finish_reason": [c.finish_reason for _, c in pairs],
    })
