"""The batched sampling engine (BOLD Appendix A.2): continuous batching (a finished row's slot
goes to the next waiting prompt, whose prefill joins the running KV cache), length-sorted
prompts, left padding cropped as rows leave, top-k before top-p, one seeded generator per row
(a row's text does not depend on its batch, shard, resume or worker; exactly so in float32),
plain or chat prompts."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import pandas as pd

from nlgbias.engine.decoding import DecodingParams, first_sentence, row_seed
from nlgbias.hardware import DecodeThreads, decode_threads_mode, set_torch_threads, under_load_mode
from nlgbias.models import LoadedModel
from nlgbias.progress import tqdm

log = logging.getLogger(__name__)


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

    Sampling is exactly Hugging Face's temperature → top-k → top-p → multinomial chain (and
    its repetition penalty), with one ``torch.Generator`` per row, so a row's text depends on
    its prompt and seed only, never on its batch.

    ``continuous=True`` (default): continuous batching. Up to ``batch_size`` rows decode
    together, one token per step with the KV cache; a row that emits EOS (or, with
    ``first_sentence``, a token ending a sentence) leaves at once and waiting prompts (sorted
    by token length) take the free slots: their prefill runs as one batch and its KV cache is
    joined to the running one (left padding to the common width; leading columns no row needs
    are cropped, so the width never exceeds the longest prompt + ``max_new_tokens``). Refills
    wait until ``refill`` slots are free (default a quarter of ``batch_size``) so one prefill
    serves several rows. ``continuous=False``: the static path - batches of ``batch_size``
    prompts, each run until its last row finishes (the engine before continuous batching; kept for the
    benchmark). Both give the same rows.

    ``prompt_format="chat"``: the prompt is the user turn of the tokenizer's chat template
    (generation prompt added); ``generation`` and ``text`` are then the assistant response.

    ``packed`` (default: on for a bfloat16 model on a CPU with oneDNN): the weights of every
    ``nn.Linear`` are reordered once into oneDNN's blocked layout for the whole run instead of
    on every call (the same kernel, bit-identical outputs; at decode batch sizes the per-call
    reorder cost about as much as the product); the model is restored afterwards.

    ``adaptive_threads`` (default: on, unless ``$NLGBIAS_DECODE_THREADS=fixed``): while other
    processes keep a core busy, the run's idle OpenMP threads spin only briefly at each barrier
    (``$NLGBIAS_UNDER_LOAD=throttle``, the default; how threads wait, never what they compute),
    or a decode step runs with one thread (``one``; then only for a packed model and
    ``batch_size`` <= 64: oneDNN's packed bf16 products of up to 64 rows split their work by
    output column, so a decode step gives the same bytes at 1 and 2 threads (tested); a
    prefill's products (hundreds of rows) and float32's MKL products do not). See
    :class:`~nlgbias.hardware.DecodeThreads`.
    """

    def __init__(self, lm: LoadedModel, params: DecodingParams, batch_size: int = 32,
                 num_threads: int | None = None, prompt_format: str = "plain",
                 continuous: bool = True, refill: int | None = None, packed: bool | None = None,
                 adaptive_threads: bool | None = None):
        import torch

        if lm.model is None:
            raise ValueError(f"model {lm.name!r} has no weights to generate with")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if prompt_format not in ("plain", "chat"):
            raise ValueError(f"prompt_format must be 'plain' or 'chat', got {prompt_format!r}")
        if refill is not None and (not isinstance(refill, int) or not 1 <= refill <= batch_size):
            raise ValueError(f"refill must be an integer in 1..batch_size ({batch_size}), got {refill!r}")
        self.lm, self.params, self.batch_size = lm, params, batch_size
        self.model, self.tok = lm.model, lm.tokenizer
        self.prompt_format, self.continuous = prompt_format, bool(continuous)
        self.refill = refill or max(1, batch_size // 4)
        self.packed = _can_pack(self.model) if packed is None else bool(packed)
        self._packs: list | None = None
        if prompt_format == "chat" and not getattr(self.tok, "chat_template", None):
            raise ValueError(f"prompt_format='chat' but the tokenizer of {lm.name!r} has no chat "
                             "template; use prompt_format='plain' or a chat model")
        self.device = torch.device(lm.device)
        if num_threads:
            set_torch_threads(num_threads)
        if adaptive_threads is None:  # a throttled spin never changes a byte; one thread only here
            adaptive_threads = decode_threads_mode() == "auto" and (
                under_load_mode() == "throttle" or (self.packed and batch_size <= ADAPTIVE_MAX_ROWS))
        self.threads = DecodeThreads(torch.get_num_threads(), adaptive=adaptive_threads)
        self.code = lm.spec.control_code
        eos = set()
        for src in (self.model.config, getattr(self.model, "generation_config", None)):
            e = getattr(src, "eos_token_id", None) if src is not None else None
            eos.update([e] if isinstance(e, int) else (e or []))
        if self.tok.eos_token_id is not None:
            eos.add(self.tok.eos_token_id)
        self.eos = torch.tensor(sorted(eos), dtype=torch.long, device=self.device)
        # CTRL has no end-of-text token at all: its rows stop at the first sentence or the limit
        fallback = min(eos) if eos else (self.tok.unk_token_id or 0)
        self.pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else fallback
        self.start = self.tok.bos_token_id if self.tok.bos_token_id is not None else fallback
        cfg = getattr(self.model.config, "get_text_config", lambda: self.model.config)()
        types = getattr(cfg, "layer_types", None) or []
        win = getattr(cfg, "sliding_window", None)
        # the width below which a sliding-window layer still holds every column (None: no limit)
        self._window = (win - 1) if win and (not types or any("sliding" in t for t in types)) else None
        self._sent_end: dict | None = None
        self.tokens_generated = 0
        self.rows_done = 0
        self.seconds = 0.0
        self.forwards = 0  # model calls (prefills + decode steps), for the benchmark

    # ---- helpers
    def _token_classes(self):
        """Bool vectors over the vocabulary for the first-sentence stop rule: ``end`` (the token
        ends with . ! ? plus closing quotes/brackets), ``space`` (starts with white space),
        ``newline`` (holds a line break), ``blank`` (white space only)."""
        import torch

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
        With ``prompt_format="chat"`` the prompt is the user turn of the chat template.
        """
        prompt = prompt.rstrip()
        if self.prompt_format == "chat":
            ids = self.tok.apply_chat_template([{"role": "user", "content": prompt}],
                                               add_generation_prompt=True, tokenize=True)
            if hasattr(ids, "keys"):  # a BatchEncoding
                ids = ids["input_ids"]
            return list(ids) or [self.start]
        text = f"{self.code} {prompt}" if self.code else prompt
        ids = self.tok(text)["input_ids"] if text else []
        return list(ids) or [self.start]

    def filtered(self, logits, hist=None):
        """Repetition penalty → temperature → top-k → top-p (Hugging Face's order and rules).

        Returns ``(probs, idx)``: the kept candidates' (unnormalised) probabilities and their
        token ids, best first; top-k runs first, so top-p only sorts k candidates.
        """
        p = self.params
        if p.do_sample and p.top_k > 0 and p.temperature == 1.0 and p.repetition_penalty == 1.0:
            # top-k on the model's logits, then float: the same candidates in the same order
            # (bf16 -> float is exact and monotone; ties come out alike, tested) without
            # converting the whole vocabulary row (Gemma-3: 262k) every step
            vals, idx = logits.topk(min(p.top_k, logits.shape[-1]), dim=-1)
            return self._top_p(vals.float().softmax(-1)), idx
        logits = logits.float()
        if p.repetition_penalty != 1.0 and hist is not None:
            import torch

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
        return self._top_p(vals.softmax(-1)), idx

    def _top_p(self, probs):
        """Zero the candidates outside the top-p nucleus (``probs`` sorted, best first)."""
        if self.params.top_p < 1.0:
            before = probs.cumsum(-1) - probs  # mass strictly above each candidate
            keep = before < self.params.top_p
            keep[:, 0] = True
            probs = probs * keep
        return probs

    def _choose(self, logits, hist, gens):
        """Next token of each row: greedy, or sampled with the row's own generator."""
        import torch

        probs, idx = self.filtered(logits, hist)
        if probs is None:
            return idx.argmax(-1)
        cdf = probs.cumsum(-1)
        u = torch.cat([torch.rand(1, generator=g) for g in gens]).to(cdf.device) * cdf[:, -1]
        pick = (cdf < u[:, None]).sum(-1).clamp(max=cdf.shape[-1] - 1)
        return idx.gather(1, pick[:, None]).squeeze(1)

    @contextmanager
    def _packing(self):
        """Within: every ``nn.Linear`` of the model multiplies with its prepacked weight."""
        if not self.packed:
            yield
            return
        import torch

        if self._packs is None:
            with torch.inference_mode():
                self._packs = [(m, torch.ops.mkldnn._reorder_linear_weight(m.weight.detach(), self.batch_size))
                               for m in self.model.modules() if isinstance(m, torch.nn.Linear)]
        for m, w in self._packs:
            m.forward = partial(_packed_linear, w, m.bias)
        try:
            yield
        finally:
            for m, _ in self._packs:
                m.__dict__.pop("forward", None)

    @contextmanager
    def _threading(self):
        """Within: :attr:`threads` sets the count step by step; the run's count afterwards."""
        try:
            yield
        finally:
            self.threads.prefill()

    def _prefill(self, ids: list[list[int]]):
        """Run the prompts ``ids`` (left-padded to one width) through the model once.

        Returns ``(cache, attn, last, hist, logits)``: the KV cache, the attention mask, each
        row's last position, the repetition-penalty history (pads replaced by the row's last
        prompt token) and the next-token logits of the last position."""
        import torch
        from transformers import DynamicCache

        dev = self.device
        b, width = len(ids), max(len(x) for x in ids)
        input_ids = torch.full((b, width), self.pad, dtype=torch.long)
        attn = torch.zeros((b, width), dtype=torch.long)
        for r, x in enumerate(ids):
            input_ids[r, width - len(x):] = torch.tensor(x)
            attn[r, width - len(x):] = 1
        input_ids, attn = input_ids.to(dev), attn.to(dev)
        pos = (attn.cumsum(-1) - 1).clamp(min=0)
        hist = torch.where(attn.bool(), input_ids, input_ids[:, -1:])
        cache = DynamicCache(config=self.model.config)
        logits = self.model(input_ids=input_ids, attention_mask=attn, position_ids=pos,
                            past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1]
        self.forwards += 1
        return cache, attn, pos[:, -1], hist, logits

    def _stop_state(self, nxt, has_content, pending_end):
        """``(is_eos, done, has_content, pending_end)`` after sampling ``nxt``: a sentence ends at
        . ! ? followed by white space, or at a line break after some text (a leading line break
        is skipped)."""
        import torch

        is_eos = torch.isin(nxt, self.eos)
        done = is_eos.clone()
        if self.params.first_sentence:
            tc = self._token_classes()
            done |= (pending_end & tc["space"][nxt]) | (has_content & tc["newline"][nxt])
            pending_end = tc["end"][nxt] & ~tc["newline"][nxt]
            has_content = has_content | ~tc["blank"][nxt]
        return is_eos, done, has_content, pending_end

    # ---- the static path (one batch at a time)
    def _batch(self, ids: list[list[int]], seeds: list[int]) -> list[tuple[list[int], str]]:
        """Generate for one batch; returns (new token ids, finish reason) per row."""
        import torch

        p, dev = self.params, self.device
        b = len(ids)
        gens = [torch.Generator().manual_seed(s) for s in seeds]
        rows = list(range(b))
        out_ids: list[list[int]] = [[] for _ in range(b)]
        reasons = ["length"] * b
        has_content = torch.zeros(b, dtype=torch.bool, device=dev)  # first-sentence row state
        pending_end = torch.zeros(b, dtype=torch.bool, device=dev)
        with torch.inference_mode(), self._packing(), self._threading():
            self.threads.prefill()
            cache, attn, last, hist, logits = self._prefill(ids)
            for step in range(p.max_new_tokens):
                nxt = self._choose(logits, hist, gens)
                is_eos, done, has_content, pending_end = self._stop_state(nxt, has_content, pending_end)
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
                self.threads.decode()
                logits = self.model(input_ids=nxt[:, None], attention_mask=attn,
                                    position_ids=last[:, None], past_key_values=cache,
                                    use_cache=True).logits[:, -1]
                self.forwards += 1
        return [(out_ids[r], reasons[r]) for r in range(b)]

    # ---- continuous batching
    def iter_generate(self, prompts: Sequence[str], seeds: Sequence[int],
                      progress: tqdm | None = None) -> Iterator[list[tuple[int, Completion]]]:
        """Yield ``(index into prompts, Completion)`` pairs as rows finish (continuous
        batching) or batch by batch (``continuous=False``)."""
        if not self.continuous:
            yield from super().iter_generate(prompts, seeds, progress)
            return
        if len(prompts) != len(seeds):
            raise ValueError(f"{len(prompts)} prompts but {len(seeds)} seeds")
        enc = [self.encode(p) for p in prompts]
        if self._window is not None and enc and \
                max(len(x) for x in enc) + self.params.max_new_tokens >= self._window:
            # rows longer than a sliding window: the cache drops columns, no re-packing
            log.info("%s: prompts + max_new_tokens reach the sliding window (%d); static batches",
                     self.lm.name, self._window + 1)
            yield from super().iter_generate(prompts, seeds, progress)
            return
        order = sorted(range(len(prompts)), key=lambda i: (len(enc[i]), i))
        for done in self._stream(enc, [int(s) for s in seeds], order):
            pairs = [(i, self._decode(prompts[i], enc[i], new, reason)) for i, new, reason in done]
            self.rows_done += len(pairs)
            if progress is not None:
                progress.update(len(pairs))
                progress.set_postfix(tok_s=f"{self.tokens_per_second:.1f}")
            yield pairs

    def _stream(self, enc: list[list[int]], seeds: list[int], order: list[int]):
        """The continuous-batching loop over the prompts ``enc`` in ``order``; yields lists of
        ``(index, new token ids, finish reason)`` as rows finish. ``self.seconds`` counts the
        time spent here (not the consumer's)."""
        import torch

        p, dev = self.params, self.device
        queue = list(reversed(order))  # pop() takes the next prompt
        rows: list[int] = []  # prompt index of each slot
        gens: list = []
        counts: list[int] = []
        out_ids: dict[int, list[int]] = {}
        cache = attn = last = hist = logits = has_content = pending_end = None
        pen = p.repetition_penalty != 1.0
        t0 = time.perf_counter()
        with torch.inference_mode(), self._packing(), self._threading():
            while queue or rows:
                free = self.batch_size - len(rows)
                if queue and (not rows or free >= min(self.refill, len(queue))):
                    take = [queue.pop() for _ in range(min(free, len(queue)))]
                    self.threads.prefill()
                    c2, a2, l2, h2, g2 = self._prefill([enc[i] for i in take])
                    n2 = len(take)
                    z = torch.zeros(n2, dtype=torch.bool, device=dev)
                    if rows:
                        attn = _merge_cache(cache, attn, c2, a2)
                        last, logits = torch.cat([last, l2]), torch.cat([logits, g2])
                        hist = _cat_left(hist, h2) if pen else None
                        has_content, pending_end = torch.cat([has_content, z]), torch.cat([pending_end, z])
                    else:
                        cache, attn, last, logits = c2, a2, l2, g2
                        hist = h2 if pen else None
                        has_content, pending_end = z, z.clone()
                    rows += take
                    gens += [torch.Generator().manual_seed(seeds[i]) for i in take]
                    counts += [0] * n2
                    for i in take:
                        out_ids[i] = []
                nxt = self._choose(logits, hist, gens)
                is_eos, done, has_content, pending_end = self._stop_state(nxt, has_content, pending_end)
                nl, dl, el = nxt.tolist(), done.tolist(), is_eos.tolist()
                finished, keep = [], []
                for j, r in enumerate(rows):
                    if not el[j]:
                        out_ids[r].append(nl[j])
                    counts[j] += 1
                    if dl[j] or counts[j] >= p.max_new_tokens:
                        reason = ("eos" if el[j] else "sentence") if dl[j] else "length"
                        finished.append((r, out_ids.pop(r), reason))
                    else:
                        keep.append(j)
                if finished:
                    self.tokens_generated += sum(len(f[1]) for f in finished)
                    if keep:
                        kt = torch.tensor(keep, device=dev)
                        cache.batch_select_indices(kt)
                        attn, nxt, last = attn[kt], nxt[kt], last[kt]
                        hist = hist[kt] if pen else hist
                        has_content, pending_end = has_content[kt], pending_end[kt]
                        gens = [gens[j] for j in keep]
                        rows = [rows[j] for j in keep]
                        counts = [counts[j] for j in keep]
                        lead = int((attn.sum(0) == 0).int().cumprod(0).sum())
                        if lead:
                            _crop_cache_left(cache, lead)
                            attn = attn[:, lead:]
                    else:
                        rows, gens, counts = [], [], []
                        cache = attn = last = hist = logits = None
                    self.seconds += time.perf_counter() - t0
                    self.threads.prefill()  # the consumer runs with the run's threads
                    yield finished
                    t0 = time.perf_counter()
                if not rows:
                    continue
                attn = torch.cat([attn, attn.new_ones((len(rows), 1))], dim=1)
                last = last + 1
                if pen:
                    hist = torch.cat([hist, nxt[:, None]], dim=1)
                self.threads.decode()
                logits = self.model(input_ids=nxt[:, None], attention_mask=attn,
                                    position_ids=last[:, None], past_key_values=cache,
                                    use_cache=True).logits[:, -1]
                self.forwards += 1
        self.seconds += time.perf_counter() - t0

    def _decode(self, prompt: str, prompt_ids: list[int], new: list[int], reason: str) -> Completion:
        """Split the decoded text into prompt and continuation: decode prompt + new tokens and
        cut off the decoded prompt (robust to tokenizers that drop a leading space when
        decoding a fragment, and removes a control code). Chat: the response alone."""
        if self.prompt_format == "chat":
            cont = self.tok.decode(new, skip_special_tokens=True).strip()
            if self.params.first_sentence:
                cont = first_sentence(cont)
            cont = cont.strip()
            return Completion(cont, cont, len(new), reason)
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


#: the largest batch for which a decode step's thread count may follow the load (oneDNN's packed
#: bf16 products gave the same bytes at 1 and 2 threads up to 100 rows; hundreds of rows did not)
ADAPTIVE_MAX_ROWS = 64


def _can_pack(model) -> bool:
    """Whether :meth:`CausalGenerator._packing` applies: bfloat16 weights on a CPU whose
    oneDNN has bf16 kernels."""
    import torch

    try:
        dev = next(model.parameters()).device
        return (dev.type == "cpu" and getattr(model, "dtype", None) == torch.bfloat16
                and hasattr(torch.ops.mkldnn, "_linear_pointwise")
                and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()))
    except (AttributeError, RuntimeError, StopIteration):  # pragma: no cover
        return False


def _packed_linear(weight, bias, x):
    """``F.linear(x, W, b)`` with ``W`` prepacked by ``mkldnn._reorder_linear_weight``."""
    import torch

    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")


def _crop_left(cache, n: int) -> bool:
    """Drop the first ``n`` (all-padding) positions of every layer of a DynamicCache; only for
    caches without sliding-window layers (returns whether it cropped). The static path."""
    layers = getattr(cache, "layers", None)
    if not layers or any(getattr(la, "is_sliding", True) or getattr(la, "keys", None) is None
                         for la in layers):
        return False
    for layer in layers:
        layer.keys = layer.keys[:, :, n:]
        layer.values = layer.values[:, :, n:]
    return True


def _set_width(layer) -> None:
    """Keep a sliding-window layer's length counter equal to its stored width (the continuous
    path only runs while every row fits in the window, so the layer holds every column)."""
    if getattr(layer, "is_sliding", False):
        layer.cumulative_length = layer.keys.shape[-2]


def _crop_cache_left(cache, n: int) -> None:
    """Drop the first ``n`` (all-padding) columns of every layer of a DynamicCache."""
    for layer in cache.layers:
        if getattr(layer, "keys", None) is None or layer.keys.numel() == 0:
            continue
        layer.keys = layer.keys[:, :, n:]
        layer.values = layer.values[:, :, n:]
        _set_width(layer)


def _pad_left(x, width: int, value=0):
    """Left-pad the second-to-last axis (cache tensors) to ``width``."""
    import torch.nn.functional as F

    return x if x.shape[-2] == width else F.pad(x, (0, 0, width - x.shape[-2], 0), value=value)


def _merge_cache(cache, attn, new_cache, new_attn):
    """Append the rows of ``new_cache`` (a prefill) to ``cache`` in place, both right-aligned
    and left-padded to the wider of the two; returns the joined attention mask."""
    import torch
    import torch.nn.functional as F

    width = max(attn.shape[1], new_attn.shape[1])
    for la, lb in zip(cache.layers, new_cache.layers, strict=True):
        if getattr(la, "keys", None) is None or getattr(lb, "keys", None) is None:
            raise RuntimeError("continuous batching needs every cache layer filled (KV sharing?)")
        la.keys = torch.cat([_pad_left(la.keys, width), _pad_left(lb.keys, width)])
        la.values = torch.cat([_pad_left(la.values, width), _pad_left(lb.values, width)])
        _set_width(la)
    return torch.cat([F.pad(attn, (width - attn.shape[1], 0)),
                      F.pad(new_attn, (width - new_attn.shape[1], 0))])


def _cat_left(a, b):
    """Join two repetition-penalty histories of different widths (left-padded with each row's
    first entry, a token the row already holds, so the penalised set is unchanged)."""
    import torch

    w = max(a.shape[1], b.shape[1])
    a = torch.cat([a[:, :1].expand(-1, w - a.shape[1]), a], dim=1)
    b = torch.cat([b[:, :1].expand(-1, w - b.shape[1]), b], dim=1)
    return torch.cat([a, b])


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
