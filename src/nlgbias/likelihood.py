"""Log-likelihood of texts under a language model: one engine for every notebook.

- **Causal LMs** (StereoSet §7.4; HolisticBias §3.3 perplexity; CrowS-Pairs with a causal LM):
  the sum of the token log-probabilities ``Σ_i log p(x_i | x_<i)`` of a text (optionally given a
  context), after an unconditional start token (:func:`start_token_id`: ``<|endoftext|>`` as in
  StereoSet's official ``eval_generative_models.py``, else BOS, else EOS), so every token of the
  text is scored. Batched in length-sorted, right-padded batches; the vocabulary head runs only
  on scored positions; texts sharing a token prefix (the three sentences of a StereoSet CAT,
  HolisticBias sentences of one template) can run it once and copy its key/value cache
  (``shared_prefix``; same numbers, fewer FLOPs).
- **Masked LMs** (CrowS-Pairs, Nangia et al. 2020 §3; pseudo-log-likelihood, Salazar et al.
  2020): each scored token is masked in turn and predicted from the rest,
  ``PLL = Σ_i log p(x_i | x_\\i)``.

The public API takes a loaded model (``nlgbias.models.load_model``'s ``LoadedModel``, or any
object with ``model`` and ``tokenizer``, or a ``(model, tokenizer)`` pair):

- :func:`sentence_logprobs` → per text ``logprob`` (sum), ``n_tokens``, ``mean_logprob``;
- :func:`perplexity` → ``exp(−logprob / n_tokens)`` per text (pseudo-perplexity for masked LMs);
- :func:`load_lm` → a model loaded through ``nlgbias.models`` in the dtype that pays here
  (``"auto"``: bfloat16 on CPUs with bf16 matrix units, see :mod:`nlgbias.hardware`).

Lower level, on token ids: :func:`causal_logprobs` (prefix/continuation pairs, optional
groups sharing a prefix) and :func:`masked_positions_logprobs` (given masked inputs).

Examples:
    >>> import torch
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> _ = torch.manual_seed(0)
    >>> model = GPT2LMHeadModel(GPT2Config(vocab_size=10, n_embd=8, n_layer=1, n_head=2)).eval()
    >>> sums, n = causal_logprobs(model, None, [[0], [0, 3]], [[5, 6], [4]], pad_token_id=0)
    >>> n.tolist()
    [2, 1]
    >>> with torch.no_grad():
    ...     lp = torch.log_softmax(model(torch.tensor([[0, 5, 6]])).logits[0], -1)
    >>> round(float(sums[0]), 4) == round(float(lp[0, 5] + lp[1, 6]), 4)
    True
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from nlgbias.progress import tqdm

log = logging.getLogger(__name__)

__all__ = ["causal_items", "causal_logprobs", "load_lm", "lm_kind", "masked_positions_logprobs", "perplexity",
           "prefix_groups", "pseudo_log_likelihood", "sentence_logprobs", "start_token_id",
           "START_CONVENTIONS"]


def _torch():
    import torch

    return torch


# --------------------------------------------------------------------------- models
def load_lm(name: str, device: str = "cpu", dtype: str | None = "auto"):
    """Load ``name`` through :func:`nlgbias.models.load_model` for scoring, in ``dtype``
    (``"auto"``: :func:`nlgbias.hardware.resolve_dtype`; ``None``/``"float32"``: float32)."""
    import torch

    from nlgbias.hardware import resolve_dtype
    from nlgbias.models import load_model

    dt = resolve_dtype(dtype, device) if dtype is not None else "float32"
    return load_model(name, device=device, dtype=getattr(torch, dt))


def _unpack(lm):
    """(model, tokenizer, device, kind) of a LoadedModel-like object or a (model, tokenizer)."""
    if isinstance(lm, tuple):
        model, tok = lm
        spec, device = None, None
    else:
        model, tok = lm.model, lm.tokenizer
        spec, device = getattr(lm, "spec", None), getattr(lm, "device", None)
    if model is None:
        raise ValueError("this model has no weights to score with (e.g. the 'wiki' baseline)")
    if device is None:
        try:
            device = str(next(model.parameters()).device)
        except (StopIteration, AttributeError):
            device = "cpu"
    kind = getattr(spec, "kind", None) if spec is not None else None
    return model, tok, device, lm_kind(model, kind)


def lm_kind(model, kind: str | None = None) -> str:
    """``"causal"`` or ``"masked"``: how to score with ``model``. A registry kind
    (:data:`nlgbias.models.KINDS`, e.g. from ``LoadedModel.spec.kind``) decides when given;
    else the model's class (``...ForCausalLM`` / ``...LMHeadModel`` or a decoder config:
    causal; ``...ForMaskedLM`` / ``...ForPreTraining``: masked)."""
    if kind is not None:
        from nlgbias.models import KINDS

        if kind not in KINDS:
            raise ValueError(f"unknown model kind {kind!r}; known: {', '.join(KINDS)}")
        if KINDS[kind].scorer is None:
            raise ValueError(f"cannot compute text likelihoods with a model of kind {kind!r}")
        return KINDS[kind].scorer
    cfg = getattr(model, "config", None)
    name = type(model).__name__
    if getattr(cfg, "is_decoder", False) or name.endswith(("ForCausalLM", "LMHeadModel")):
        return "causal"
    if name.endswith(("ForMaskedLM", "ForPreTraining")):
        return "masked"
    raise ValueError(f"cannot tell whether {name} is a causal or a masked LM")


# --------------------------------------------------------------------------- token helpers
#: the start-token conventions of causal scoring (:func:`start_token_id`)
START_CONVENTIONS = ("endoftext", "bos")


def start_token_id(tokenizer) -> int | None:
    """The unconditional start token of causal scoring: ``<|endoftext|>`` when the vocabulary
    has it (StereoSet's official choice, GPT-2's document separator; also SmolLM2's), else BOS
    (Gemma's ``<bos>``), else EOS, else None. A tokenizer loaded with the ``bos`` convention
    (the ``hf`` backend's ``start_token=bos`` option: lm-evaluation-harness's choice) starts
    with its BOS token where it has one."""
    if getattr(tokenizer, "nlgbias_start_convention", "endoftext") == "bos" \
            and tokenizer.bos_token_id is not None:
        return int(tokenizer.bos_token_id)
    vocab = tokenizer.get_vocab()
    if "<|endoftext|>" in vocab:
        return int(vocab["<|endoftext|>"])
    for tid in (tokenizer.bos_token_id, tokenizer.eos_token_id):
        if tid is not None:
            return int(tid)
    return None


def encode(tokenizer, text: str) -> list[int]:
    """Token ids of ``text`` without special tokens."""
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def pad_id(tokenizer) -> int:
    """A token id to pad with (pad, else EOS, else 0); padded positions are never scored."""
    if tokenizer is None:
        return 0
    for tid in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if tid is not None:
            return int(tid)
    return 0


def _batches(order: Sequence[int], batch_size: int):
    for i in range(0, len(order), batch_size):
        yield order[i:i + batch_size]


def _right_padded(seqs: Sequence[Sequence[int]], idx: Sequence[int], pad: int):
    """The sequences ``seqs[k]`` for ``k`` in ``idx`` (longest first) right-padded with ``pad``:
    ``(ids, attention_mask, mask)``, ``mask`` marking the real target positions (from the 2nd)."""
    import torch

    width = len(seqs[idx[0]])
    ids = torch.full((len(idx), width), pad, dtype=torch.long)
    att = torch.zeros((len(idx), width), dtype=torch.long)
    for j, k in enumerate(idx):
        ids[j, :len(seqs[k])] = torch.tensor(seqs[k])
        att[j, :len(seqs[k])] = 1
    return ids, att, att[:, 1:].bool()


def lcp(seqs: Sequence[Sequence[int]]) -> int:
    """Longest common token prefix, leaving every sequence at least one token of its own."""
    cap = min(len(x) for x in seqs) - 1
    n = 0
    while n < cap and all(x[n] == seqs[0][n] for x in seqs):
        n += 1
    return n


def prefix_groups(seqs: Sequence[Sequence[int]], max_size: int = 8, min_shared: int = 2,
                  ) -> list[list[int]]:
    """Group sequences that share at least ``min_shared`` leading tokens (at most ``max_size``
    per group): sort them, then cut the sorted run where the shared prefix ends."""
    order = sorted(range(len(seqs)), key=lambda i: list(seqs[i]))
    groups: list[list[int]] = []
    for i in order:
        g = groups[-1] if groups else None
        if g is not None and len(g) < max_size and lcp([seqs[g[0]], seqs[i]]) >= min_shared:
            g.append(i)
        else:
            groups.append([i])
    return groups


# --------------------------------------------------------------------------- causal
def split_head(model):
    """(body, output head, final-logit softcap) of a causal LM, so the vocabulary projection can
    run on the scored positions only; None when the model does not expose them."""
    body = getattr(model, "base_model", None)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if body is None or body is model or head is None:
        return None
    cfg = getattr(model, "config", None)
    cap = getattr(cfg, "final_logit_softcapping", None)
    if any(getattr(cfg, k, None) not in (None, 1, 1.0) for k in ("logit_scale", "logits_scaling")):
        return None  # heads that rescale logits: use the model's own forward
    return body, head, cap


def _head_weights(parts):
    """(body, (weight, bias), softcap) of :func:`split_head` (the head keeps the model's dtype:
    a float32 copy of a 262k-token head makes bfloat16 Gemma slower than float32)."""
    if parts is None:
        return None
    body, head, cap = parts
    return body, (head.weight, getattr(head, "bias", None)), cap


#: rows of an output layer's logits taken to float32 at once. Eight rows of a 262k-token
#: vocabulary are about 8 MB, which a last-level cache can hold; a few hundred rows at once are a
#: few hundred MB, written to memory and read back in each of the log-softmax's passes (Gemma-3's
#: scoring: 1.1-1.3x). The numbers are the bytes of all rows at once (tested at 2 threads:
#: vocabularies of 4,096 and 50,257, six row counts), but a lone last row joins the chunk before
#: it: torch sums a reduction with a single output across threads, which rounds differently
#: (seen: 1e-6 nats).
LOGIT_ROWS = 8


def _row_chunks(n: int, rows: int = LOGIT_ROWS) -> list[slice]:
    """Slices of ``range(n)`` of ``rows`` rows each; a last chunk of one row joins the one
    before it (one row is one chunk only when ``n`` is 1).

    >>> _row_chunks(17, 8)
    [slice(0, 8, None), slice(8, 17, None)]
    >>> _row_chunks(3, 2)
    [slice(0, 3, None)]
    """
    starts = list(range(0, n, rows))
    if len(starts) > 1 and n - starts[-1] == 1:
        starts.pop()
    return [slice(a, b) for a, b in zip(starts, starts[1:] + [n])]


def _float_logits(logits, cap):
    torch = _torch()
    x = logits.float()
    return torch.tanh(x / cap) * cap if cap else x


def _target_logprobs(logits, tgt, cap=None, rows=None):
    """``logit[tgt] - logsumexp(logits)`` in float32 per row of ``logits`` [N, V] (the output
    layer's dtype; softcapped by ``cap``), for row ``rows[k]`` (default: row ``k``) and target
    ``tgt[k]``: the float32 copy is made :data:`LOGIT_ROWS` rows at a time."""
    torch = _torch()
    lse = torch.empty(len(logits), dtype=torch.float32, device=logits.device)
    for sl in _row_chunks(len(logits)):
        lse[sl] = torch.logsumexp(_float_logits(logits[sl], cap), dim=-1)
    if rows is None:
        return _float_logits(logits.gather(-1, tgt[:, None]).squeeze(-1), cap) - lse
    return _float_logits(logits[rows, tgt], cap) - lse[rows]


def _log_softmax_at(logits, tgt, cap=None):
    """``log_softmax(logits)[tgt]`` in float32 per row of ``logits`` [N, V] (softcapped by
    ``cap``), :data:`LOGIT_ROWS` rows at a time (it rounds unlike :func:`_target_logprobs`:
    each scoring path keeps the formula its numbers were made with)."""
    torch = _torch()
    out = [torch.log_softmax(_float_logits(logits[sl], cap), dim=-1).gather(-1, tgt[sl, None])[:, 0]
           for sl in _row_chunks(len(logits))]
    return torch.cat(out) if out else logits.new_zeros(0, dtype=torch.float32)


def _scored_logprobs(model, ids, att, score_mask, parts):
    """log p of each scored target (flat, in ``score_mask`` order)."""
    tgt = ids[:, 1:][score_mask]
    if parts is not None:
        body, (w, b), cap = parts
        h = body(input_ids=ids, attention_mask=att).last_hidden_state[:, :-1]
        return _target_logprobs(_torch().nn.functional.linear(h[score_mask], w, b), tgt, cap)
    logits = model(input_ids=ids, attention_mask=att).logits[:, :-1][score_mask]
    return _target_logprobs(logits, tgt)


def _check_pairs(prefixes, continuations):
    if len(prefixes) != len(continuations):
        raise ValueError("prefixes and continuations differ in length")
    for i, (p, c) in enumerate(zip(prefixes, continuations)):
        if not p or not c:
            raise ValueError(f"item {i}: causal scoring needs a non-empty prefix and continuation")


def _causal_plain(model, pad, prefixes, continuations, *, batch_size, device, progress):
    torch = _torch()
    lengths = np.array([len(p) + len(c) for p, c in zip(prefixes, continuations)])
    order = np.argsort(-lengths, kind="stable").tolist()
    sums = np.full(len(prefixes), np.nan)
    parts = _head_weights(split_head(model))
    checked = parts is None
    bar = tqdm(total=len(order), desc="causal scoring", disable=not progress, leave=False)
    for idx in _batches(order, batch_size):
        seqs = [list(prefixes[i]) + list(continuations[i]) for i in idx]
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), pad, dtype=torch.long)
        att = torch.zeros((len(seqs), width), dtype=torch.long)
        score_mask = torch.zeros((len(seqs), width - 1), dtype=torch.bool)
        for r, (i, s) in enumerate(zip(idx, seqs)):
            ids[r, :len(s)] = torch.tensor(s)
            att[r, :len(s)] = 1
            # target position t is predicted at t-1; continuation targets are t >= len(prefix)
            score_mask[r, len(prefixes[i]) - 1:len(s) - 1] = True
        ids, att, score_mask = ids.to(device), att.to(device), score_mask.to(device)
        with torch.inference_mode():
            flat = _scored_logprobs(model, ids, att, score_mask, parts)
            if not checked:  # the split head must reproduce the model's forward
                ref = _scored_logprobs(model, ids[:1], att[:1], score_mask[:1], None)
                n = int(score_mask[0].sum())
                low = next(model.parameters()).dtype != torch.float32  # bf16 logits: ~0.1 noise
                if not torch.allclose(flat[:n], ref, atol=0.5 if low else 2e-2, rtol=1e-3):
                    log.warning("%s: scoring via base model + head differs from its forward; "
                                "using full forward logits", type(model).__name__)
                    parts = None
                    flat = _scored_logprobs(model, ids, att, score_mask, None)
                checked = True
        lp = torch.zeros(score_mask.shape, dtype=flat.dtype, device=flat.device)
        lp[score_mask] = flat
        sums[idx] = lp.sum(1).cpu().numpy()
        bar.update(len(idx))
    bar.close()
    return sums


def _causal_shared(model, pad, parts, prefixes, continuations, groups, shared, *, batch_size,
                   device, progress):
    torch = _torch()
    body, (w, b), cap = parts
    seqs = [list(p) + list(c) for p, c in zip(prefixes, continuations)]
    sums = np.full(len(seqs), np.nan)
    gsize = max(1, batch_size // max(len(g) for g in groups))
    glen = np.array([max(len(seqs[i]) for i in g) for g in groups])
    order = np.argsort(-glen, kind="stable").tolist()
    bar = tqdm(total=len(seqs), desc="causal scoring (shared prefixes)", disable=not progress,
               leave=False)
    for gidx in _batches(order, gsize):
        ls = [shared[g] for g in gidx]
        ids1 = torch.full((len(gidx), max(ls)), pad, dtype=torch.long)
        att1 = torch.zeros_like(ids1)
        for r, g in enumerate(gidx):
            ids1[r, :ls[r]] = torch.tensor(seqs[groups[g][0]][:ls[r]])
            att1[r, :ls[r]] = 1
        rows = [(r, i) for r, g in enumerate(gidx) for i in groups[g]]
        rems = [seqs[i][ls[r]:] for r, i in rows]
        lr = max(len(x) for x in rems)
        ids2 = torch.full((len(rows), lr), pad, dtype=torch.long)
        att2 = torch.zeros_like(ids2)
        for k, x in enumerate(rems):
            ids2[k, :len(x)] = torch.tensor(x)
            att2[k, :len(x)] = 1
        src = torch.tensor([r for r, _ in rows])
        pos2 = torch.tensor([ls[r] for r, _ in rows])[:, None] + torch.arange(lr)[None, :]
        # which hidden state predicts each scored token: (0, group row, pos) in the shared pass,
        # (1, member row, pos) in the remainder pass; shared ones are computed once
        keys, index, tgt, owner = {}, [], [], []
        for k, (r, i) in enumerate(rows):
            for t in range(len(prefixes[i]), len(seqs[i])):
                key = (0, r, t - 1) if t - 1 < ls[r] else (1, k, t - 1 - ls[r])
                index.append(keys.setdefault(key, len(keys)))
                tgt.append(seqs[i][t])
                owner.append(k)
        with torch.inference_mode():
            o1 = body(input_ids=ids1.to(device), attention_mask=att1.to(device), use_cache=True)
            cache = o1.past_key_values
            cache.batch_select_indices(src.to(device))
            o2 = body(input_ids=ids2.to(device),
                      attention_mask=torch.cat([att1[src], att2], dim=1).to(device),
                      position_ids=pos2.to(device), past_key_values=cache, use_cache=True)
            h1, h2 = o1.last_hidden_state, o2.last_hidden_state
            sel = [h1[r, p] if s == 0 else h2[r, p] for (s, r, p) in keys]
            logits = torch.nn.functional.linear(torch.stack(sel), w, b)
            lp = _target_logprobs(logits, torch.tensor(tgt, device=logits.device), cap,
                                  rows=torch.tensor(index, device=logits.device)).cpu()
        tot = torch.zeros(len(rows), dtype=lp.dtype).index_add_(0, torch.tensor(owner), lp)
        for k, (_, i) in enumerate(rows):
            sums[i] = float(tot[k])
        bar.update(len(rows))
    bar.close()
    return sums


def causal_logprobs(model, tokenizer, prefixes: Sequence[Sequence[int]],
                    continuations: Sequence[Sequence[int]], *,
                    groups: Sequence[Sequence[int]] | None = None, batch_size: int = 32,
                    device: str = "cpu", progress: bool = False, pad_token_id: int | None = None,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(sum of log p, number of tokens) of each continuation given its prefix (token ids).

    ``log p(token) = logit − logsumexp(logits)`` at the previous position. Items run in
    length-sorted, right-padded batches (positions need no shift); the vocabulary projection
    runs only on scored positions, checked once per call against the model's own forward.
    ``groups`` (lists of item indices whose token sequences share a prefix): the shared prefix
    runs once per group and its key/value cache is copied to the members (same numbers, fewer
    FLOPs; falls back to plain batches when the model exposes no separate head).
    ``pad_token_id``: the padding id when ``tokenizer`` is None.
    """
    _check_pairs(prefixes, continuations)
    pad = pad_token_id if pad_token_id is not None else pad_id(tokenizer)
    counts = np.array([len(c) for c in continuations], dtype=np.int64)
    if groups is not None:
        seen = sorted(i for g in groups for i in g)
        if seen != list(range(len(prefixes))):
            raise ValueError("groups must hold every item index exactly once")
        parts = _head_weights(split_head(model))
        seqs = [list(p) + list(c) for p, c in zip(prefixes, continuations)]
        shared = [lcp([seqs[i] for i in g]) for g in groups]
        if parts is not None and min(shared, default=0) >= 1:
            return _causal_shared(model, pad, parts, prefixes, continuations, groups, shared,
                                  batch_size=batch_size, device=device, progress=progress), counts
    return _causal_plain(model, pad, prefixes, continuations, batch_size=batch_size,
                         device=device, progress=progress), counts


def causal_items(tokenizer, texts: Sequence[str], contexts: Sequence[str | None] | None = None,
                 start_token: bool = True, separator: str = " ",
                 ) -> tuple[list[list[int]], list[list[int]]]:
    """(prefix ids, continuation ids) per text: ``[start] + context`` and the text, encoded
    apart, the text after ``separator`` where it has a context (``" "``: a sentence after its
    context; ``""``: the continuation carries its own leading space, as the LM interface's
    ``loglikelihood`` requests do); without a start token the text's first token is the prefix."""
    start = start_token_id(tokenizer) if start_token else None
    prefixes, conts = [], []
    for k, text in enumerate(texts):
        if contexts is None or contexts[k] in (None, ""):
            pre, cont = [], encode(tokenizer, text)
        else:
            pre, cont = encode(tokenizer, contexts[k]), encode(tokenizer, separator + text)
        if start is not None:
            pre = [start, *pre]
        elif not pre:  # no start token: score tokens 1..N given token 0 (StereoSet §7.4)
            pre, cont = cont[:1], cont[1:]
        if not cont:
            raise ValueError(f"text #{k} {text!r} has no token to score")
        prefixes.append(pre)
        conts.append(cont)
    return prefixes, conts


# --------------------------------------------------------------------------- masked
def _mlm_logits(out):
    return out.prediction_logits if hasattr(out, "prediction_logits") else out.logits


def masked_positions_logprobs(model, tokenizer, enc: Sequence[Sequence[int]],
                              positions: Sequence[int], targets: Sequence[int], *,
                              batch_size: int = 32, device: str = "cpu", progress: bool = False,
                              token_type_ids: Sequence[Sequence[int]] | None = None,
                              ) -> np.ndarray:
    """log p(``targets[k]`` at ``positions[k]``) of each input ``enc[k]`` (token ids, usually
    with a mask token at that position), batched by length."""
    torch = _torch()
    order = np.argsort(-np.array([len(e) for e in enc]), kind="stable").tolist()
    out = np.full(len(enc), np.nan)
    pad = pad_id(tokenizer)
    bar = tqdm(total=len(order), desc="masked scoring", disable=not progress, leave=False)
    for idx in _batches(order, batch_size):
        width = max(len(enc[i]) for i in idx)
        ids = torch.full((len(idx), width), pad, dtype=torch.long)
        att = torch.zeros((len(idx), width), dtype=torch.long)
        tti = torch.zeros((len(idx), width), dtype=torch.long)
        for r, i in enumerate(idx):
            ids[r, :len(enc[i])] = torch.tensor(enc[i])
            att[r, :len(enc[i])] = 1
            if token_type_ids is not None:
                tti[r, :len(enc[i])] = torch.tensor(token_type_ids[i])
        kw = {"input_ids": ids.to(device), "attention_mask": att.to(device)}
        if "token_type_ids" in tokenizer.model_input_names:
            kw["token_type_ids"] = tti.to(device)
        with torch.inference_mode():
            logits = _mlm_logits(model(**kw))
            rows = torch.arange(len(idx), device=logits.device)
            pos = torch.tensor([positions[i] for i in idx], device=logits.device)
            tgt = torch.tensor([targets[i] for i in idx], device=logits.device)
            lp = _target_logprobs(logits[rows, pos], tgt)  # the masked position's row [B, V]
        out[idx] = lp.cpu().numpy()
        bar.update(len(idx))
    bar.close()
    return out


def masked_token_logprobs(model, tokenizer, texts: Sequence[str], targets: Sequence[int], *,
                          batch_size: int = 32, device: str = "cpu", progress: bool = False,
                          ) -> np.ndarray:
    """log p(target | text) at the single mask token of each text (batched, length-sorted)."""
    enc = [tokenizer(t)["input_ids"] for t in texts]
    mask_id = tokenizer.mask_token_id
    for t, e in zip(texts, enc):
        if sum(1 for x in e if x == mask_id) != 1:
            raise ValueError(f"text must hold exactly one mask token: {t!r}")
    return masked_positions_logprobs(model, tokenizer, enc, [e.index(mask_id) for e in enc],
                                     targets, batch_size=batch_size, device=device,
                                     progress=progress)


def _masked_items(tokenizer, encoded, positions):
    """One masked copy per (text, position): ``(inputs, positions, targets, owners)``."""
    inputs, pos, tgt, owner = [], [], [], []
    for k, ids in enumerate(encoded):
        for p in positions[k]:
            x = list(ids)
            x[p] = tokenizer.mask_token_id
            inputs.append(x)
            pos.append(p)
            tgt.append(ids[p])
            owner.append(k)
    return inputs, pos, tgt, owner


def pseudo_log_likelihood(model, tokenizer, encoded: Sequence[Sequence[int]],
                          score_positions: Sequence[Sequence[int]] | None = None, *,
                          batch_size: int = 32, device: str = "cpu", progress: bool = False,
                          ) -> tuple[np.ndarray, np.ndarray]:
    """(PLL, number of scored tokens) of each token sequence (Salazar et al. 2020): every
    position in ``score_positions[k]`` (default: every non-special token) is masked in turn and
    its log-probability given the rest summed. CrowS-Pairs (Nangia et al. 2020, §3) scores only
    the tokens a pair shares: pass their positions."""
    if tokenizer.mask_token_id is None:
        raise ValueError("pseudo-log-likelihood needs a tokenizer with a mask token")
    special = set(tokenizer.all_special_ids)
    positions = [score_positions[k] if score_positions is not None
                 else [p for p, t in enumerate(ids) if t not in special]
                 for k, ids in enumerate(encoded)]
    counts = np.array([len(ps) for ps in positions], dtype=np.int64)
    inputs, pos, tgt, owner = _masked_items(tokenizer, encoded, positions)
    lp = masked_positions_logprobs(model, tokenizer, inputs, pos, tgt, batch_size=batch_size,
                                   device=device, progress=progress)
    sums = np.zeros(len(encoded))
    np.add.at(sums, np.array(owner, dtype=np.int64), lp)
    return sums, counts


def encode_many(tokenizer, texts: Sequence[str]) -> list[list[int]]:
    """Token ids of each text without special tokens, in one tokenizer call (the same ids as
    :func:`encode` text by text)."""
    if not texts:
        return []
    return [list(x) for x in tokenizer(list(texts), add_special_tokens=False)["input_ids"]]


def _head_rows(parts, h, tgt, rows: int):
    """log p of each target from hidden states ``h`` [N, d] through the output head, ``rows``
    positions at a time (a 262k-token head's logits stay a few hundred MB)."""
    torch = _torch()
    _, (w, b), cap = parts
    out = [_log_softmax_at(torch.nn.functional.linear(h[k:k + rows], w, b), tgt[k:k + rows], cap)
           for k in range(0, len(h), rows)]
    return torch.cat(out) if out else h.new_zeros(0)


def _check_head(model, parts, seq, device) -> bool:
    """Whether the split head (:func:`split_head`) reproduces the model's own forward on one
    token sequence (a softcap or a rescaling the split misses would not)."""
    torch = _torch()
    ids = torch.tensor([seq], device=device)
    with torch.inference_mode():
        h = parts[0](input_ids=ids).last_hidden_state[0, :-1]
        got = _head_rows(parts, h, ids[0, 1:], len(h))
        ref = torch.log_softmax(model(input_ids=ids).logits[0, :-1].float(), -1)
        ref = ref.gather(-1, ids[0, 1:, None])[:, 0]
    low = next(model.parameters()).dtype != torch.float32  # bf16 logits: ~0.1 noise
    if torch.allclose(got, ref, atol=0.5 if low else 2e-2, rtol=1e-3):
        return True
    log.warning("%s: scoring via base model + head differs from its forward; using full "
                "forward logits", type(model).__name__)
    return False


def share_plan(seqs: Sequence[Sequence[int]], min_shared: int = 4, max_size: int = 8,
               ) -> dict[int, tuple[int, int]]:
    """Which sequences run only their own tail after another's prefix: ``{member: (rep,
    shared)}``. Sequences sharing at least ``min_shared`` leading tokens are grouped
    (:func:`prefix_groups`); each group's longest sequence (the first of equals) runs whole
    and every other member whose common prefix with it (:func:`lcp`, which leaves the member
    a token of its own) reaches ``min_shared`` reuses that prefix.

    >>> share_plan([[1, 2, 3, 4, 5], [1, 2, 3, 9], [7, 8]], min_shared=2)
    {1: (0, 3)}
    """
    plan: dict[int, tuple[int, int]] = {}
    for g in prefix_groups(seqs, max_size=max_size, min_shared=min_shared):
        rep = min(g, key=lambda i: (-len(seqs[i]), i))
        for i in g:
            n = lcp([seqs[rep], seqs[i]]) if i != rep else 0
            if n >= min_shared:
                plan[i] = (rep, n)
    return plan


def _causal_tokens_shared(body, parts, model, seqs, live, plan, *, pad, batch_size, device,
                          window, bar):
    """Per sequence of ``live``, each token's log-probability; a member of ``plan`` runs only
    its tail (after the shared prefix) on its representative's key/value cache. Sequences run
    ``window`` representatives at a time (longest first): the representatives whole, in
    right-padded batches, keeping the cache of their shared prefixes, then the members' tails,
    in batches sorted by their length."""
    torch = _torch()
    from transformers import DynamicCache

    res: dict[int, np.ndarray] = {}
    rows = max(256, (1 << 27) // int(parts[1][0].shape[0]))
    members: dict[int, list[int]] = {}
    for m, (r, _) in plan.items():
        members.setdefault(r, []).append(m)
    reps = sorted((k for k in live if k not in plan), key=lambda k: -len(seqs[k]))
    for w0 in range(0, len(reps), window):
        wreps = reps[w0:w0 + window]
        kv: dict[int, tuple[list, int]] = {}  # rep -> (per-layer (keys, values) rows, row)
        first: dict[int, float] = {}  # member -> log p of its first own token
        for idx in _batches(wreps, batch_size):
            ids, att, mask = _right_padded(seqs, idx, pad)
            keep = [j for j, k in enumerate(idx) if k in members]
            ext = [(j, m) for j in keep for m in members[idx[j]]]
            ids, att, mask = ids.to(device), att.to(device), mask.to(device)
            with torch.inference_mode():
                o = body(input_ids=ids, attention_mask=att, use_cache=bool(keep))
                h = o.last_hidden_state
                hx = torch.stack([h[j, plan[m][1] - 1] for j, m in ext]) if ext else h[:0, 0]
                tx = torch.tensor([seqs[m][plan[m][1]] for _, m in ext], dtype=torch.long,
                                  device=device)
                flat = _head_rows(parts, torch.cat([h[:, :-1][mask], hx]),
                                  torch.cat([ids[:, 1:][mask], tx]), rows)
                if keep:
                    need = max(plan[m][1] for _, m in ext)
                    sel = torch.tensor(keep, device=device)
                    layers = [(lay.keys[:, :, :need][sel], lay.values[:, :, :need][sel])
                              for lay in o.past_key_values.layers]
                    for r, j in enumerate(keep):
                        kv[idx[j]] = (layers, r)
            flat = flat.cpu().numpy().astype(float)
            pos = 0
            for k in idx:
                n = len(seqs[k]) - 1
                res[k] = flat[pos:pos + n]
                pos += n
            for _, m in ext:
                first[m] = flat[pos]
                pos += 1
            bar.update(len(idx))
        tails = sorted((m for r in wreps for m in members.get(r, ())),
                       key=lambda m: -(len(seqs[m]) - 1 - plan[m][1]))
        for m in tails:
            if len(seqs[m]) - 1 == plan[m][1]:
                r, n = plan[m]
                res[m] = np.concatenate([res[r][:n - 1], [first[m]]])
        tails = [m for m in tails if len(seqs[m]) - 1 > plan[m][1]]
        for idx in _batches(tails, batch_size):
            ls = [plan[m][1] for m in idx]
            rems = [seqs[m][n:-1] for m, n in zip(idx, ls)]
            lp, lr = max(ls), len(rems[0])
            ids = torch.full((len(idx), lr), pad, dtype=torch.long)
            att = torch.zeros((len(idx), lp + lr), dtype=torch.long)
            for j, (n, x) in enumerate(zip(ls, rems)):
                ids[j, :len(x)] = torch.tensor(x)
                att[j, :n] = 1
                att[j, lp:lp + len(x)] = 1
            posn = torch.tensor(ls)[:, None] + torch.arange(lr)[None, :]
            mask = att[:, lp:].bool()
            tgt = torch.tensor([t for m, n in zip(idx, ls) for t in seqs[m][n + 1:]],
                               dtype=torch.long, device=device)
            with torch.inference_mode():
                data = []
                for li in range(len(kv[plan[idx[0]][0]][0])):
                    ref = kv[plan[idx[0]][0]][0][li][0]
                    k_ = ref.new_zeros((len(idx), ref.shape[1], lp, ref.shape[3]))
                    v_ = ref.new_zeros((len(idx), ref.shape[1], lp, ref.shape[3]))
                    for j, (m, n) in enumerate(zip(idx, ls)):
                        layers, r = kv[plan[m][0]]
                        k_[j, :, :n] = layers[li][0][r, :, :n]
                        v_[j, :, :n] = layers[li][1][r, :, :n]
                    data.append((k_, v_))
                cache = DynamicCache(ddp_cache_data=data, config=model.config)
                o = body(input_ids=ids.to(device), attention_mask=att.to(device),
                         position_ids=posn.to(device), past_key_values=cache, use_cache=True)
                flat = _head_rows(parts, o.last_hidden_state[mask.to(device)], tgt, rows)
            flat = flat.cpu().numpy().astype(float)
            pos = 0
            for m, n in zip(idx, ls):
                k = len(seqs[m]) - 1 - n
                r = plan[m][0]
                res[m] = np.concatenate([res[r][:n - 1], [first[m]], flat[pos:pos + k]])
                pos += k
        bar.update(sum(len(members.get(r, ())) for r in wreps))
    return res


def causal_token_logprobs(model, tokenizer, texts: Sequence[str], *, batch_size: int = 32,
                          device: str = "cpu", progress: bool = False,
                          encoded: Sequence[Sequence[int]] | None = None,
                          shared_prefix: bool | None = None, min_shared: int = 4,
                          window: int | None = None) -> list[np.ndarray]:
    """Per text, the log-probability of each of its tokens (after a start token, as
    :func:`causal_items`; without one, tokens 1..N given token 0).

    The texts are tokenised in one call (or given as ``encoded`` ids); identical token
    sequences run once; sequences run in length-sorted (longest first), right-padded batches;
    the output head and the log-softmax run on the scored positions only (not on padding),
    checked once per call against the model's own forward.

    ``shared_prefix``: sequences sharing at least ``min_shared`` leading tokens with a longer
    one (:func:`share_plan`; a CrowS-Pairs pair up to its edit) run only their tail on its
    key/value cache: the same numbers to float rounding (~1e-6 nats in float32), fewer FLOPs.
    ``None``: on for float32 weights, off for lower precision, where the rounding of a split
    forward moves a score by ~1e-2 nats and bfloat16 results would then depend on it.
    ``window``: representatives held at once (their prefix caches; default 8 batches)."""
    torch = _torch()
    start = start_token_id(tokenizer)
    enc = [list(e) for e in encoded] if encoded is not None else encode_many(tokenizer, texts)
    out: list[np.ndarray] = [np.zeros(0)] * len(enc)
    uniq: dict[tuple[int, ...], list[int]] = {}
    for i, e in enumerate(enc):
        uniq.setdefault(tuple(([start] if start is not None else []) + e), []).append(i)
    seqs = list(uniq)
    for s, owners in zip(seqs, uniq.values()):  # a sequence of one token has nothing to score
        if len(s) < 2:
            for i in owners:
                out[i] = np.zeros(0)
    live = [k for k, s in enumerate(seqs) if len(s) >= 2]
    order = sorted(live, key=lambda k: -len(seqs[k]))
    pad = pad_id(tokenizer)
    parts = _head_weights(split_head(model))
    if shared_prefix is None:
        shared_prefix = next(model.parameters()).dtype == torch.float32
    cfg = getattr(model, "config", None)
    cfg = cfg.get_text_config(decoder=True) if hasattr(cfg, "get_text_config") else cfg
    win = getattr(cfg, "sliding_window", None)
    if win and order and 2 * len(seqs[order[0]]) > win:
        shared_prefix = False  # a window counts cache slots, and a tail's cache has padding
    if parts is not None and shared_prefix and order:
        plan = share_plan([seqs[k] for k in live], min_shared=min_shared)
        plan = {live[m]: (live[r], n) for m, (r, n) in plan.items()}
        if plan and _check_head(model, parts, seqs[order[0]], device):
            bar = tqdm(total=len(order), desc="causal token scoring (shared prefixes)",
                       disable=not progress, leave=False)
            res = _causal_tokens_shared(parts[0], parts, model, seqs, live, plan, pad=pad,
                                        batch_size=batch_size, device=device,
                                        window=window or 8 * batch_size, bar=bar)
            bar.close()
            for k, lp in res.items():
                for i in uniq[seqs[k]]:
                    out[i] = lp.copy()
            return out
    checked = parts is None
    vocab = int(getattr(getattr(model, "config", None), "vocab_size", 0) or 1)
    rows = max(256, (1 << 27) // vocab)
    bar = tqdm(total=len(order), desc="causal token scoring", disable=not progress, leave=False)
    for idx in _batches(order, batch_size):
        ids, att, mask = _right_padded(seqs, idx, pad)
        ids, att, mask = ids.to(device), att.to(device), mask.to(device)
        tgt = ids[:, 1:][mask]
        with torch.inference_mode():
            if parts is not None:
                h = parts[0](input_ids=ids, attention_mask=att).last_hidden_state[:, :-1][mask]
                flat = _head_rows(parts, h, tgt, rows)
            if not checked:  # the split head must reproduce the model's forward
                n = len(seqs[idx[0]]) - 1
                ref = torch.log_softmax(model(input_ids=ids[:1]).logits[0, :-1].float(), -1)
                ref = ref.gather(-1, ids[0, 1:, None])[:, 0]
                low = next(model.parameters()).dtype != torch.float32  # bf16 logits: ~0.1 noise
                if not torch.allclose(flat[:n], ref, atol=0.5 if low else 2e-2, rtol=1e-3):
                    log.warning("%s: scoring via base model + head differs from its forward; "
                                "using full forward logits", type(model).__name__)
                    parts = None
                checked = True
            if parts is None:
                flat = _log_softmax_at(model(input_ids=ids, attention_mask=att).logits[:, :-1][mask], tgt)
        flat = flat.cpu().numpy().astype(float)
        pos = 0
        for k in idx:
            n = len(seqs[k]) - 1
            for i in uniq[seqs[k]]:
                out[i] = flat[pos:pos + n].copy()
            pos += n
        bar.update(len(idx))
    bar.close()
    return out


def masked_token_scores(model, tokenizer, encoded: Sequence[Sequence[int]],
                        positions: Sequence[Sequence[int]], *, batch_size: int = 32,
                        device: str = "cpu", progress: bool = False) -> list[np.ndarray]:
    """Per encoded text, each token's log-probability masked in turn given the rest (the
    pseudo-log-likelihood's terms) at ``positions[k]``, ``nan`` at the other positions."""
    inputs, pos, tgt, owner = _masked_items(tokenizer, encoded, positions)
    lp = masked_positions_logprobs(model, tokenizer, inputs, pos, tgt, batch_size=batch_size,
                                   device=device, progress=progress)
    out = [np.full(len(ids), np.nan) for ids in encoded]
    for k, p, v in zip(owner, pos, lp):
        out[k][p] = v
    return out


# --------------------------------------------------------------------------- public API
def sentence_logprobs(lm, texts: Sequence[str], *, contexts: Sequence[str] | None = None,
                      batch_size: int = 32, shared_prefix: bool = True, start_token: bool = True,
                      groups: Sequence[Sequence[int]] | None = None,
                      progress: bool = False) -> pd.DataFrame:
    """Per text: ``logprob`` (sum of the token log-probabilities), ``n_tokens``,
    ``mean_logprob`` (their mean), in input order.

    Causal LMs: every token of the text after the start token (``start_token``) and, when
    ``contexts`` is given, the context (the text is then encoded with a leading space).
    ``shared_prefix``: texts sharing leading tokens (:func:`prefix_groups`, or the given
    ``groups`` of positions) run them once.
    Masked LMs: the pseudo-log-likelihood of the text (``contexts`` not supported).
    Metrics reach a model through :mod:`nlgbias.lm` (whose ``hf`` backend calls this); this
    is the forward-pass code over loaded weights.
    """
    if callable(getattr(lm, "loglikelihood_rolling", None)):
        raise TypeError("likelihood.sentence_logprobs is the forward-pass code over loaded weights "
                        "(a LoadedModel or (model, tokenizer)); a model of nlgbias.lm answers "
                        "its own sentence_logprobs")
    model, tok, device, kind = _unpack(lm)
    texts = list(texts)
    if contexts is not None and len(contexts) != len(texts):
        raise ValueError("contexts and texts differ in length")
    if kind == "masked":
        if contexts is not None:
            raise ValueError("contexts are supported for causal LMs only")
        enc = [list(tok(t)["input_ids"]) for t in texts]
        sums, counts = pseudo_log_likelihood(model, tok, enc, batch_size=batch_size,
                                             device=device, progress=progress)
    else:
        prefixes, conts = causal_items(tok, texts, contexts, start_token)
        if not shared_prefix:
            groups = None
        elif groups is None and texts:
            groups = prefix_groups([p + c for p, c in zip(prefixes, conts)])
        sums, counts = causal_logprobs(model, tok, prefixes, conts, groups=groups,
                                       batch_size=batch_size, device=device, progress=progress)
    return pd.DataFrame({"logprob": sums, "n_tokens": counts,
                         "mean_logprob": sums / np.maximum(counts, 1)})


def perplexity(lm, texts: Sequence[str], **kw) -> np.ndarray:
    """Per-text perplexity ``exp(−logprob / n_tokens)`` (:func:`sentence_logprobs`; masked LMs:
    pseudo-perplexity, Salazar et al. 2020). Keyword arguments go to
    :func:`sentence_logprobs`."""
    df = sentence_logprobs(lm, texts, **kw)
    return np.exp(-df["mean_logprob"].to_numpy())
