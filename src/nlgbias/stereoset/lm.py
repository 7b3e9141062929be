"""Scoring StereoSet sentences with language models (Nadeem et al. 2021, §7), batched.

- Causal LMs (§7.4, GPT-2): a sentence's score is its average token log-probability. As in the
  official ``eval_generative_models.py`` the sentence follows an unconditional start token (the
  tokenizer's BOS, else EOS: ``<|endoftext|>`` for GPT-2), so every sentence token is scored,
  and the written score is the geometric-mean probability ``exp(mean log p)`` (the official
  ``2 ** mean(log2 p)``). Intrasentence: the filled sentence. Intersentence: the attribute
  sentence given ``start + context`` (the paper trained an NSP head for GPT-2 instead, §7.4 /
  App. A.4; those weights are not public, so the conditional likelihood stands in).
- Masked LMs (§7.1, BERT): intrasentence, the attribute word of the blank (the official
  ``template_word``) is split into subwords; subword ``i`` is predicted at a single mask with
  subwords ``< i`` filled in (official ``IntrasentenceLoader``); the score averages the subword
  log-probabilities (§7.1; the official code averages probabilities instead:
  ``masked_aggregate="prob"``). Intersentence: the next-sentence-prediction head's
  P(is next) (§7.1); a masked LM WITHOUT an NSP head (RoBERTa, §7.2, whose NSP head was trained
  by the authors and is not public) gets the pseudo-log-likelihood of the attribute sentence
  given the context (each attribute token masked in turn), averaged per token.

Everything runs in length-sorted, right-padded batches; for causal LMs the token prefix the
three sentences of a CAT share runs once (its key/value cache is copied to the three), and the
vocabulary head runs only on scored positions. :func:`score_sentences` caches finished
sentences resumably (``nlgbias.io.ShardCache``).
"""

from __future__ import annotations

import logging
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from nlgbias.datasets import DataFormatError

log = logging.getLogger(__name__)

_MASKED_ARCH = ("ForMaskedLM", "ForPreTraining")


# --------------------------------------------------------------------------- helpers
def _torch():
    import torch  # noqa: PLC0415

    return torch


def start_token_id(tokenizer) -> int | None:
    """The unconditional start token of causal scoring: ``<|endoftext|>`` when the vocabulary
    has it (the official choice, GPT-2's document separator; also SmolLM2's), else BOS
    (Gemma's ``<bos>``), else EOS, else None."""
    vocab = tokenizer.get_vocab()
    if "<|endoftext|>" in vocab:
        return int(vocab["<|endoftext|>"])
    for tid in (tokenizer.bos_token_id, tokenizer.eos_token_id):
        if tid is not None:
            return int(tid)
    return None


def _encode(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _pad_id(tokenizer) -> int:
    for tid in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if tid is not None:
            return int(tid)
    return 0


def _batches(order: Sequence[int], batch_size: int):
    for i in range(0, len(order), batch_size):
        yield order[i:i + batch_size]


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


def _scored_logprobs(model, ids, att, score_mask, parts):
    """log p of each scored target (flat, in ``score_mask`` order)."""
    torch = _torch()
    tgt = ids[:, 1:][score_mask]
    if parts is not None:
        body, (w, b), cap = parts
        h = body(input_ids=ids, attention_mask=att).last_hidden_state[:, :-1]
        logits = torch.nn.functional.linear(h[score_mask], w, b).float()
        if cap:
            logits = torch.tanh(logits / cap) * cap
    else:
        logits = model(input_ids=ids, attention_mask=att).logits[:, :-1][score_mask].float()
    return logits.gather(-1, tgt[:, None]).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def causal_mean_logprobs(model, tokenizer, prefixes: Sequence[Sequence[int]],
                         continuations: Sequence[Sequence[int]], *, batch_size: int = 32,
                         device: str = "cpu", progress: bool = False) -> np.ndarray:
    """Mean log-probability of each continuation's tokens given its prefix (StereoSet §7.4).

    Batched: items sorted by length, right-padded (so positions need no shift), one forward
    per batch; the vocabulary projection and log-softmax run only on the scored
    positions (continuation tokens; not the context, not the padding), checked once per call
    against the model's own forward; log p(token) = logit − logsumexp(logits) at the previous
    position.
    """
    torch = _torch()
    if len(prefixes) != len(continuations):
        raise ValueError("prefixes and continuations differ in length")
    for i, (p, c) in enumerate(zip(prefixes, continuations)):
        if not p or not c:
            raise ValueError(f"item {i}: causal scoring needs a non-empty prefix and continuation")
    lengths = np.array([len(p) + len(c) for p, c in zip(prefixes, continuations)])
    order = np.argsort(-lengths, kind="stable").tolist()
    out = np.full(len(prefixes), np.nan)
    pad = _pad_id(tokenizer)
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
        means = (lp.sum(1) / score_mask.sum(1)).cpu().numpy()
        out[idx] = means
        bar.update(len(idx))
    bar.close()
    return out


def _lcp(seqs: Sequence[Sequence[int]]) -> int:
    """Longest common token prefix, leaving every sequence at least one token of its own."""
    cap = min(len(x) for x in seqs) - 1
    n = 0
    while n < cap and all(x[n] == seqs[0][n] for x in seqs):
        n += 1
    return n


def causal_mean_logprobs_shared(model, tokenizer, prefixes: Sequence[Sequence[int]],
                                continuations: Sequence[Sequence[int]],
                                groups: Sequence[Sequence[int]], *, batch_size: int = 32,
                                device: str = "cpu", progress: bool = False) -> np.ndarray:
    """:func:`causal_mean_logprobs` for items in groups sharing a token prefix (the three
    sentences of a CAT share the start token and the context, or the words before the blank):
    the shared prefix runs once per group, its key/value cache is copied to the members, and
    each member runs only its own remainder (same numbers, fewer FLOPs). Falls back to the
    plain batched path when a group shares no token or the model exposes no head."""
    torch = _torch()
    parts = _head_weights(split_head(model))
    seqs = [list(p) + list(c) for p, c in zip(prefixes, continuations)]
    shared = [_lcp([seqs[i] for i in g]) for g in groups]
    if parts is None or min(shared, default=0) < 1:
        return causal_mean_logprobs(model, tokenizer, prefixes, continuations,
                                    batch_size=batch_size, device=device, progress=progress)
    body, (w, b), cap = parts
    pad = _pad_id(tokenizer)
    out = np.full(len(seqs), np.nan)
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
            logits = torch.nn.functional.linear(torch.stack(sel), w, b).float()
            if cap:
                logits = torch.tanh(logits / cap) * cap
            lse = torch.logsumexp(logits, dim=-1)
            index_t = torch.tensor(index, device=logits.device)
            lp = (logits[index_t, torch.tensor(tgt, device=logits.device)] - lse[index_t]).cpu()
        sums = torch.zeros(len(rows), dtype=lp.dtype).index_add_(0, torch.tensor(owner), lp)
        cnt = torch.zeros(len(rows), dtype=lp.dtype).index_add_(0, torch.tensor(owner),
                                                                torch.ones_like(lp))
        for k, (_, i) in enumerate(rows):
            out[i] = float(sums[k] / cnt[k])
        bar.update(len(rows))
    bar.close()
    return out


# --------------------------------------------------------------------------- masked
def template_word(context: str, sentence: str) -> str:
    """The attribute word filling BLANK, exactly as the official dataloader: the word of
    ``sentence`` at the (last) whitespace position of ``context`` holding "BLANK", stripped of
    punctuation."""
    idx = None
    for i, word in enumerate(context.split(" ")):
        if "BLANK" in word:
            idx = i
    if idx is None:
        raise DataFormatError(f"intrasentence context has no BLANK: {context!r}")
    words = sentence.split(" ")
    if idx >= len(words):
        raise DataFormatError(f"sentence {sentence!r} has no word at the BLANK of {context!r}")
    return words[idx].translate(str.maketrans("", "", string.punctuation))


def _space_sensitive(tokenizer) -> bool:
    """True for byte-level BPE tokenizers where " word" and "word" differ (RoBERTa, GPT-2)."""
    return _encode(tokenizer, " a") != _encode(tokenizer, "a")


def masked_blank_items(tokenizer, context: str, sentence: str) -> list[tuple[str, int]]:
    """(masked text, target subword id) per subword of the attribute word (official
    ``IntrasentenceLoader``: subword i at one mask, subwords < i written out)."""
    word = template_word(context, sentence)
    spaced = _space_sensitive(tokenizer) and " BLANK" in context
    ins = _encode(tokenizer, (" " + word) if spaced else word)
    if not ins:
        raise DataFormatError(f"attribute word {word!r} of {sentence!r} encodes to no tokens")
    items = []
    for i in range(len(ins)):
        before = tokenizer.decode(ins[:i])
        if spaced:
            before = before.lstrip()
        items.append((context.replace("BLANK", f"{before}{tokenizer.mask_token}"), ins[i]))
    return items


def _mlm_logits(out):
    return out.prediction_logits if hasattr(out, "prediction_logits") else out.logits


def masked_token_logprobs(model, tokenizer, texts: Sequence[str], targets: Sequence[int], *,
                          batch_size: int = 32, device: str = "cpu", progress: bool = False,
                          ) -> np.ndarray:
    """log p(target | text) at the single mask token of each text (batched, length-sorted)."""
    enc = [tokenizer(t)["input_ids"] for t in texts]
    mask_id = tokenizer.mask_token_id
    for t, e in zip(texts, enc):
        if sum(1 for x in e if x == mask_id) != 1:
            raise ValueError(f"text must hold exactly one mask token: {t!r}")
    return _masked_positions_logprobs(model, tokenizer, enc, [e.index(mask_id) for e in enc],
                                      targets, batch_size=batch_size, device=device,
                                      progress=progress)


def _masked_positions_logprobs(model, tokenizer, enc, positions, targets, *, batch_size, device,
                               progress, token_type_ids=None):
    torch = _torch()
    order = np.argsort(-np.array([len(e) for e in enc]), kind="stable").tolist()
    out = np.full(len(enc), np.nan)
    pad = _pad_id(tokenizer)
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
            logits = _mlm_logits(model(**kw)).float()
            rows = torch.arange(len(idx), device=logits.device)
            pos = torch.tensor([positions[i] for i in idx], device=logits.device)
            sel = logits[rows, pos]  # [B, V]
            tgt = torch.tensor([targets[i] for i in idx], device=logits.device)
            lp = sel.gather(-1, tgt[:, None]).squeeze(-1) - torch.logsumexp(sel, dim=-1)
        out[idx] = lp.cpu().numpy()
        bar.update(len(idx))
    bar.close()
    return out


def has_nsp_head(model) -> bool:
    """Whether ``model`` carries BERT's next-sentence-prediction head (``cls.seq_relationship``)."""
    head = getattr(model, "cls", None)
    return head is not None and hasattr(head, "seq_relationship")


def nsp_is_next(model, tokenizer, contexts: Sequence[str], sentences: Sequence[str], *,
                batch_size: int = 32, device: str = "cpu", progress: bool = False) -> np.ndarray:
    """P(sentence follows context) from the NSP head (StereoSet §7.1): softmax index 0."""
    torch = _torch()
    lengths = np.array([len(c) + len(s) for c, s in zip(contexts, sentences)])
    order = np.argsort(-lengths, kind="stable").tolist()
    out = np.full(len(contexts), np.nan)
    bar = tqdm(total=len(order), desc="NSP scoring", disable=not progress, leave=False)
    for idx in _batches(order, batch_size):
        enc = tokenizer([contexts[i] for i in idx], [sentences[i] for i in idx],
                        padding=True, return_tensors="pt")
        with torch.inference_mode():
            res = model(**{k: v.to(device) for k, v in enc.items()})
            logits = res.seq_relationship_logits if hasattr(res, "seq_relationship_logits") else res.logits
            out[idx] = torch.softmax(logits.float(), dim=-1)[:, 0].cpu().numpy()
        bar.update(len(idx))
    bar.close()
    return out


def pll_items(tokenizer, context: str, sentence: str) -> tuple[list[list[int]], list[int], list[int]]:
    """Pseudo-log-likelihood items of ``sentence`` after ``context``: one copy of the input per
    attribute token, that token masked. Returns (inputs, mask positions, target ids)."""
    ctx = _encode(tokenizer, context)
    sent = _encode(tokenizer, " " + sentence)
    body = ctx + sent
    full = list(tokenizer(context + " " + sentence)["input_ids"])  # with special tokens
    off = next((i for i in range(len(full)) if full[i:i + len(body)] == body), None)
    if off is None:
        raise ValueError(f"cannot locate the tokens of {sentence!r} after {context!r}")
    inputs, pos, tgt = [], [], []
    for j in range(len(sent)):
        p = off + len(ctx) + j
        x = list(full)
        x[p] = tokenizer.mask_token_id
        inputs.append(x)
        pos.append(p)
        tgt.append(full[p])
    return inputs, pos, tgt


# --------------------------------------------------------------------------- a scorer
@dataclass
class CATScorer:
    """Scores StereoSet sentences with one model. ``kind`` is "causal" or "masked"; ``nsp_model``
    (default: ``model`` itself when it has an NSP head) scores masked intersentence CATs."""

    model: object
    tokenizer: object
    kind: str
    device: str = "cpu"
    batch_size: int = 32
    nsp_model: object | None = None
    masked_aggregate: str = "logprob"  # "logprob" (paper §7.1) | "prob" (official code)
    progress: bool = False
    share_prefix: bool = True  # causal: run a CAT's shared token prefix once (same numbers)

    def __post_init__(self):
        if self.kind not in ("causal", "masked"):
            raise ValueError(f"kind must be 'causal' or 'masked', not {self.kind!r}")
        if self.masked_aggregate not in ("logprob", "prob"):
            raise ValueError("masked_aggregate must be 'logprob' or 'prob'")
        if self.kind == "masked":
            if self.tokenizer.mask_token is None:
                raise ValueError("a masked LM scorer needs a tokenizer with a mask token")
            if self.nsp_model is None and has_nsp_head(self.model):
                self.nsp_model = self.model

    @property
    def intersentence_method(self) -> str:
        """How intersentence CATs are scored by this model (for the notebook's notes)."""
        if self.kind == "causal":
            return "mean log p(attribute sentence | context) (no NSP head)"
        if self.nsp_model is not None:
            return "NSP head P(is next)"
        return "pseudo-log-likelihood of the attribute sentence given the context (no NSP head)"

    # -- causal
    def _causal(self, sents: pd.DataFrame) -> pd.DataFrame:
        start = start_token_id(self.tokenizer)
        prefixes, conts = [], []
        for task, ctx, sent in sents[["task", "context", "sentence"]].itertuples(index=False):
            if task == "intrasentence":
                pre, cont = [], _encode(self.tokenizer, sent)
            else:
                pre, cont = _encode(self.tokenizer, ctx), _encode(self.tokenizer, " " + sent)
            if start is not None:
                pre = [start] + pre
            elif not pre:  # no start token: score tokens 1..N given token 0 (§7.4 formula)
                pre, cont = cont[:1], cont[1:]
            prefixes.append(pre)
            conts.append(cont)
        if self.share_prefix and "cat_id" in sents.columns:
            pos = pd.Series(range(len(sents)))
            groups = pos.groupby([sents["task"].to_numpy(), sents["cat_id"].to_numpy()],
                                 sort=False).agg(list).tolist()
            lp = causal_mean_logprobs_shared(self.model, self.tokenizer, prefixes, conts, groups,
                                             batch_size=self.batch_size, device=self.device,
                                             progress=self.progress)
        else:
            lp = causal_mean_logprobs(self.model, self.tokenizer, prefixes, conts,
                                      batch_size=self.batch_size, device=self.device,
                                      progress=self.progress)
        return pd.DataFrame({"id": sents["id"].to_numpy(), "mean_logprob": lp,
                             "n_tokens": [len(c) for c in conts], "score": np.exp(lp)})

    # -- masked
    def _masked_intra(self, sents: pd.DataFrame) -> pd.DataFrame:
        texts, targets, owner = [], [], []
        for k, (ctx, sent) in enumerate(sents[["context", "sentence"]].itertuples(index=False)):
            for text, tid in masked_blank_items(self.tokenizer, ctx, sent):
                texts.append(text)
                targets.append(tid)
                owner.append(k)
        lp = masked_token_logprobs(self.model, self.tokenizer, texts, targets,
                                   batch_size=self.batch_size, device=self.device,
                                   progress=self.progress)
        df = pd.DataFrame({"k": owner, "lp": lp})
        g = df.groupby("k")["lp"]
        mean_lp = g.mean().reindex(range(len(sents))).to_numpy()
        n = g.size().reindex(range(len(sents))).to_numpy()
        if self.masked_aggregate == "prob":
            score = df.assign(p=np.exp(df["lp"])).groupby("k")["p"].mean().reindex(
                range(len(sents))).to_numpy()
        else:
            score = np.exp(mean_lp)
        return pd.DataFrame({"id": sents["id"].to_numpy(), "mean_logprob": mean_lp,
                             "n_tokens": n, "score": score})

    def _masked_inter(self, sents: pd.DataFrame) -> pd.DataFrame:
        if self.nsp_model is not None:
            p = nsp_is_next(self.nsp_model, self.tokenizer, list(sents["context"]),
                            list(sents["sentence"]), batch_size=self.batch_size,
                            device=self.device, progress=self.progress)
            return pd.DataFrame({"id": sents["id"].to_numpy(), "mean_logprob": np.nan,
                                 "n_tokens": 0, "score": p})
        enc, pos, tgt, owner = [], [], [], []
        for k, (ctx, sent) in enumerate(sents[["context", "sentence"]].itertuples(index=False)):
            x, p, t = pll_items(self.tokenizer, ctx, sent)
            enc += x
            pos += p
            tgt += t
            owner += [k] * len(x)
        lp = _masked_positions_logprobs(self.model, self.tokenizer, enc, pos, tgt,
                                        batch_size=self.batch_size, device=self.device,
                                        progress=self.progress)
        g = pd.DataFrame({"k": owner, "lp": lp}).groupby("k")["lp"]
        mean_lp = g.mean().reindex(range(len(sents))).to_numpy()
        return pd.DataFrame({"id": sents["id"].to_numpy(), "mean_logprob": mean_lp,
                             "n_tokens": g.size().reindex(range(len(sents))).to_numpy(),
                             "score": np.exp(mean_lp)})

    def score(self, sents: pd.DataFrame) -> pd.DataFrame:
        """Scores for a :func:`~nlgbias.stereoset.evaluation.sentence_table` frame: columns
        ``id, mean_logprob, n_tokens, score`` in the input order."""
        parts = []
        for task in ("intrasentence", "intersentence"):
            sub = sents[sents["task"] == task]
            if not len(sub):
                continue
            if self.kind == "causal":
                parts.append(self._causal(sub))
            elif task == "intrasentence":
                parts.append(self._masked_intra(sub))
            else:
                parts.append(self._masked_inter(sub))
        if not parts:
            return pd.DataFrame(columns=["id", "mean_logprob", "n_tokens", "score"])
        out = pd.concat(parts, ignore_index=True).set_index("id").loc[sents["id"]].reset_index()
        return out


def _infer_kind(hub_id: str) -> str:
    from transformers import AutoConfig  # noqa: PLC0415

    from nlgbias.resources import ResourceNotFoundError  # noqa: PLC0415

    try:
        cfg = AutoConfig.from_pretrained(hub_id)
    except (OSError, ValueError) as exc:
        raise ResourceNotFoundError(
            f"model {hub_id!r} could not be found: a Hugging Face id needs internet or a local HF "
            "cache, a folder needs a config.json. Offline here: 'smollm2-135m', 'gemma3-270m'. "
            f"Cause: {exc}") from exc
    archs = cfg.architectures or []
    return "masked" if any(a.endswith(_MASKED_ARCH) for a in archs) and not cfg.is_decoder else "causal"


def load_scorer(name: str, device: str = "cpu", batch_size: int = 32, dtype: str | None = None,
                **kw) -> CATScorer:
    """A :class:`CATScorer` for a registered model (``nlgbias.models``) or any Hugging Face id /
    local checkpoint (``gpt2``, ``bert-base-cased``, ``roberta-base``...; needs internet or an HF
    cache). A BERT-style masked model also gets its NSP head when the checkpoint has one.
    ``dtype`` ("float32" default, "bfloat16": ~4x faster on CPUs with AMX, scores rounded)."""
    torch = _torch()
    tdtype = getattr(torch, dtype) if dtype else None
    from nlgbias.models import UnknownModelError, get_spec, load_model  # noqa: PLC0415

    try:
        spec = get_spec(name)
    except UnknownModelError:
        spec = None
    if spec is not None and spec.kind == "wiki":
        raise ValueError("the 'wiki' baseline is not a language model; use a StereoSet baseline")
    if spec is not None and spec.resource:  # offline GGUF models of the registry (causal)
        lm = load_model(name, device=device, dtype=tdtype)
        return CATScorer(lm.model, lm.tokenizer, spec.kind, device=device,
                         batch_size=batch_size, **kw)
    hub_id = spec.hub_id if spec is not None else name
    kind = _infer_kind(hub_id)
    if kind == "causal" and spec is not None:
        lm = load_model(name, device=device, dtype=tdtype)
        model, tok = lm.model, lm.tokenizer
    else:
        from transformers import (  # noqa: PLC0415
            AutoModelForCausalLM,
            AutoModelForMaskedLM,
            AutoTokenizer,
        )

        tok = AutoTokenizer.from_pretrained(hub_id)
        auto = AutoModelForMaskedLM if kind == "masked" else AutoModelForCausalLM
        model = auto.from_pretrained(hub_id).to(device).eval()
        if tdtype is not None:
            model = model.to(tdtype)
    nsp = None
    if kind == "masked":
        from transformers import AutoModelForNextSentencePrediction  # noqa: PLC0415

        try:
            nsp = AutoModelForNextSentencePrediction.from_pretrained(hub_id).to(device).eval()
            if tdtype is not None:
                nsp = nsp.to(tdtype)
        except (ValueError, OSError) as exc:  # RoBERTa & co. have no NSP head
            log.info("%s has no next-sentence-prediction head (%s); intersentence CATs use the "
                     "pseudo-log-likelihood", name, type(exc).__name__)
    return CATScorer(model, tok, kind, device=device, batch_size=batch_size, nsp_model=nsp, **kw)


def score_sentences(scorer: CATScorer, sents: pd.DataFrame, cache_dir: str | Path | None = None,
                    chunk: int = 384, desc: str = "StereoSet") -> pd.DataFrame:
    """Score every sentence of ``sents`` (a ``sentence_table``), resumably: finished chunks are
    appended to a :class:`~nlgbias.io.ShardCache` in ``cache_dir`` and skipped on a rerun."""
    from nlgbias.io import ShardCache  # noqa: PLC0415

    cache = ShardCache(cache_dir, key="id") if cache_dir is not None else None
    done = cache.done_keys() if cache else set()
    todo = sents[~sents["id"].isin(done)]
    new = []
    if len(todo):
        log.info("%s: scoring %d sentences (%d cached)", desc, len(todo), len(sents) - len(todo))
    for i in tqdm(range(0, len(todo), chunk), desc=desc, disable=not len(todo)):
        part = scorer.score(todo.iloc[i:i + chunk])
        part.insert(1, "task", todo["task"].iloc[i:i + chunk].to_numpy())
        if cache:
            cache.append(part)
        new.append(part)
    if cache:
        allp = cache.load()
    else:
        allp = pd.concat(new, ignore_index=True) if new else pd.DataFrame(columns=["id"])
    allp = allp.drop_duplicates("id", keep="last").set_index("id")
    return allp.loc[sents["id"]].reset_index()
