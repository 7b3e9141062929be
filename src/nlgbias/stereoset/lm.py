"""Scoring StereoSet sentences with language models (Nadeem et al. 2021, §7).

The log-likelihood machinery is :mod:`nlgbias.likelihood` (shared with HolisticBias
perplexities and CrowS-Pairs); this module says WHAT is scored for a CAT:

- Causal LMs (§7.4, GPT-2): a sentence's score is its average token log-probability. As in the
  official ``eval_generative_models.py`` the sentence follows an unconditional start token
  (:func:`~nlgbias.likelihood.start_token_id`), so every sentence token is scored, and the
  written score is the geometric-mean probability ``exp(mean log p)`` (the official
  ``2 ** mean(log2 p)``). Intrasentence: the filled sentence. Intersentence: the attribute
  sentence given ``start + context`` (the paper trained an NSP head for GPT-2 instead, §7.4 /
  App. A.4; those weights are not public, so the conditional likelihood stands in: the method of
  the paper's footnote 3, GPT-2 intersentence lms 61.5). The three sentences of a CAT share
  their token prefix, which runs once.
- Masked LMs (§7.1, BERT): intrasentence, the attribute word of the blank (the official
  ``template_word``) is split into subwords; subword ``i`` is predicted at a single mask with
  subwords ``< i`` filled in (official ``IntrasentenceLoader``); the score averages the subword
  log-probabilities (§7.1; the official code averages probabilities instead:
  ``masked_aggregate="prob"``). Intersentence: the next-sentence-prediction head's
  P(is next) (§7.1); a masked LM WITHOUT an NSP head (RoBERTa, §7.2, whose NSP head was trained
  by the authors and is not public) gets the pseudo-log-likelihood of the attribute sentence
  given the context (each attribute token masked in turn), averaged per token.

Models are reached through :mod:`nlgbias.lm` (any backend: causal CATs need only
log-likelihoods); how a model is scored (causal / masked) comes from its kind. :func:`score_sentences` caches
finished sentences resumably (:func:`nlgbias.scoring.score_texts`).
"""

from __future__ import annotations

import logging
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.datasets import DataFormatError
from nlgbias.likelihood import (
    encode,
    masked_positions_logprobs,
    masked_token_logprobs,
)

log = logging.getLogger(__name__)

_encode = encode


def _torch():
    import torch

    return torch


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


def has_nsp_head(model) -> bool:
    """Whether ``model`` carries BERT's next-sentence-prediction head (``cls.seq_relationship``)."""
    head = getattr(model, "cls", None)
    return head is not None and hasattr(head, "seq_relationship")


def nsp_is_next(model, tokenizer, contexts: Sequence[str], sentences: Sequence[str], *,
                batch_size: int = 32, device: str = "cpu", progress: bool = False) -> np.ndarray:
    """P(sentence follows context) from the NSP head (StereoSet §7.1): softmax index 0."""
    from nlgbias.progress import tqdm

    torch = _torch()
    lengths = np.array([len(c) + len(s) for c, s in zip(contexts, sentences)])
    order = np.argsort(-lengths, kind="stable").tolist()
    out = np.full(len(contexts), np.nan)
    bar = tqdm(total=len(order), desc="NSP scoring", disable=not progress, leave=False)
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
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
    """Scores StereoSet sentences with one model of :mod:`nlgbias.lm` (``lm``: any backend;
    causal CATs go through :meth:`~nlgbias.lm.LM.sentence_logprobs`). ``kind`` is "causal" or
    "masked" (None: the model's). A masked LM's CATs need its weights in this process (its
    ``model`` and ``tokenizer``); ``nsp_model`` (default: the model's own NSP head, where it
    has one) scores masked intersentence CATs."""

    lm: object
    kind: str | None = None
    batch_size: int = 32
    nsp_model: object | None = None
    masked_aggregate: str = "logprob"  # "logprob" (paper §7.1) | "prob" (official code)
    progress: bool = False
    share_prefix: bool = True  # causal: run a CAT's shared token prefix once (same numbers)

    def __post_init__(self):
        if self.kind is None:
            self.kind = {"masked": "masked", "causal": "causal", None: "causal"}.get(self.lm.kind)
        if self.kind not in ("causal", "masked"):
            raise ValueError(f"kind must be 'causal' or 'masked', not {self.kind!r} "
                             f"(model {getattr(self.lm, 'name', '?')!r})")
        if self.masked_aggregate not in ("logprob", "prob"):
            raise ValueError("masked_aggregate must be 'logprob' or 'prob'")
        if self.kind == "masked":
            if getattr(self.lm, "model", None) is None:
                from nlgbias.lm import UnsupportedCapabilityError

                raise UnsupportedCapabilityError(
                    f"{self.lm!r}: a masked LM's CATs need its weights in this process")
            if self.tokenizer.mask_token is None:
                raise ValueError("a masked LM scorer needs a tokenizer with a mask token")
            if self.nsp_model is None and has_nsp_head(self.model):
                self.nsp_model = self.model

    @property
    def model(self):
        return self.lm.model

    @property
    def tokenizer(self):
        return self.lm.tokenizer

    @property
    def device(self) -> str:
        return getattr(self.lm, "device", "cpu")

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
        contexts = [c if t == "intersentence" else None
                    for t, c in zip(sents["task"], sents["context"])]
        groups = None
        if self.share_prefix and "cat_id" in sents.columns:
            pos = pd.Series(range(len(sents)))
            groups = pos.groupby([sents["task"].to_numpy(), sents["cat_id"].to_numpy()],
                                 sort=False).agg(list).tolist()
        df = self.lm.sentence_logprobs(list(sents["sentence"]), contexts, groups=groups,
                                       batch_size=self.batch_size)
        n = df["n_tokens"].to_numpy()
        lp = df["logprob"].to_numpy() / np.maximum(n, 1)
        return pd.DataFrame({"id": sents["id"].to_numpy(), "mean_logprob": lp,
                             "n_tokens": n, "score": np.exp(lp)})

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
        lp = masked_positions_logprobs(self.model, self.tokenizer, enc, pos, tgt,
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


def load_scorer(spec, batch_size: int = 32, **kw) -> CATScorer:
    """A :class:`CATScorer` for a model spec (:func:`nlgbias.lm.parse_model_spec`: a string or
    an :class:`~nlgbias.lm.LMSpec` with its options, e.g. ``dtype`` (default float32),
    ``device``), built by
    :func:`nlgbias.lm.get_lm`; causal or masked scoring follows the model's kind. A masked
    model also gets its NSP head where the checkpoint has one (BERT)."""
    from nlgbias.lm import get_lm, parse_model_spec

    lm = get_lm(parse_model_spec(spec).with_defaults(dtype="float32"))
    if lm.kind not in (None, "causal", "masked"):
        raise ValueError(f"model {lm.name!r} is of kind {lm.kind!r}, which has no likelihood "
                         "scorer: StereoSet needs a causal or masked language model")
    nsp = None
    if lm.kind == "masked":
        nsp = lm.next_sentence_model()
        if nsp is None:
            log.info("%s has no next-sentence-prediction head; intersentence CATs use the "
                     "pseudo-log-likelihood", lm.name)
    return CATScorer(lm, batch_size=batch_size, nsp_model=nsp, **kw)


def score_sentences(scorer: CATScorer, sents: pd.DataFrame, cache_dir: str | Path,
                    chunk: int = 384, desc: str = "StereoSet", progress: bool | None = None,
                    ) -> pd.DataFrame:
    """Score every sentence of ``sents`` (a ``sentence_table``) through the resumable cache of
    :func:`nlgbias.scoring.score_texts` (keyed by sentence id; a chunk cached for exactly these
    sentences is skipped on a rerun, since a score depends on its batch-mates). Returns
    ``sents`` with ``mean_logprob, n_tokens, score`` joined, same order."""
    from nlgbias.scoring import score_texts

    def fn(chunk_df: pd.DataFrame) -> pd.DataFrame:
        return scorer.score(chunk_df).drop(columns="id")

    out = score_texts(sents, "id", fn, cache_dir, chunk_size=chunk, desc=desc, progress=progress,
                      batch_dependent=True)
    return out.reset_index(drop=True)
