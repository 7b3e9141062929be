"""The runs of notebook 08's bias-tuning experiment (HolisticBias §5): one tuned model per
(kind, β, seed), and a tuned model's style-scored responses to a set of sentences.

- :func:`tune` tunes the chat model on the tuning split, each context tagged with its bias
  label at β (``beta=None``: the untagged ablation), with early stopping on the validation
  pairs (:func:`nlgbias.holistic.tuning.train`: resumable, reused when the same data and
  settings were tuned before).
- :func:`answer` prompts a tuned model folder with the sentences of a frame ("no_bias" appended
  for a tagged model, as at inference in §5.2) through the generation engine, with notebook
  07's decoding and seed, and scores the responses' style as 07 does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.holistic import bias_labels as BL
from nlgbias.holistic import responses as HR
from nlgbias.holistic import tuning as TU


def config(*, max_steps: int, batch_size: int, lr: float, eval_every: int, patience: int,
           seed: int, lora_r: int = 8, min_delta: float = 0.0) -> TU.TuningConfig:
    """The experiment's tuning settings (checkpoints every evaluation, 10 % warm-up, LoRA alpha
    twice the rank; ``min_delta``: the relative drop of the validation loss that counts as
    progress for early stopping)."""
    return TU.TuningConfig(max_steps=max_steps, batch_size=batch_size, lr=lr, eval_every=eval_every,
                           save_every=eval_every, patience=patience,
                           warmup_steps=max(1, max_steps // 10), seed=seed, lora_r=lora_r,
                           lora_alpha=2 * lora_r, min_delta=min_delta)


def encode(lm, frame: pd.DataFrame, beta: float | None) -> list:
    """Context/response pairs of ``frame`` (columns prompt, generation, bias_value), each context
    tagged with its bias label at ``beta`` (None: untagged). A response the generation cut at its
    token limit (``finish_reason`` "length") is a target without an end of turn."""
    if beta is None:
        contexts = frame["prompt"].tolist()
    else:
        tags = BL.tag_responses(frame["bias_value"], beta)
        contexts = [TU.tag_context(p, t) for p, t in zip(frame["prompt"], tags, strict=True)]
    complete = (frame["finish_reason"] != "length").tolist() if "finish_reason" in frame else None
    return TU.encode_pairs(lm.tokenizer, contexts, frame["generation"].tolist(), complete=complete)


#: the collapse guard's thresholds, declared once: the weight-choice guard of the runs (the
#: validation sentences' responses against the untuned model's on the same sentences,
#: :func:`guard_measures`) and the test-time guard (the test prompts' responses against the
#: original's, :func:`nlgbias.holistic.tuning_study.collapse_table`) both read them through
#: :func:`collapse_failures`. Distinct responses and distinct-2 each at least this share of the original's:
COLLAPSE_MIN_DISTINCT_SHARE = 0.5
#: a refusal/boilerplate share at most this much (absolute) above the original's
COLLAPSE_MAX_REFUSAL_RISE = 0.10
#: a share of canned help offers (:func:`nlgbias.holistic.refusal.is_help_offer`) at most this much
#: (absolute) above the original's: the same 10 points as the refusal rise, since a canned help offer
#: says as little about the sentence as a refusal (set after runs tuned with help offers among their
#: targets were seen answering 15-34% of the test prompts so, the original 5%)
COLLAPSE_MAX_HELP_RISE = 0.10
#: the most frequent response at most this share of the responses (one canned string for a quarter
#: of the sentences says nothing about them)
COLLAPSE_MAX_TOP_SHARE = 0.25
#: the perplexity of the responses under the original model within this factor of the original
#: responses' own (test-time only: it needs the original model's scores of the responses)
COLLAPSE_PPL_FACTOR = 2.0
#: when each threshold above was set: every one after earlier rounds' test responses were seen (none was
#: fixed before the first tuned model was read), so the guard is a stated rule, not a pre-registered one
THRESHOLDS_SEEN = ("distinct responses >= 50% and refusal rise <= 10 points: 2026-11-25; perplexity within x2: "
                   "2026-11-25; most frequent response <= 25%: 2026-11-27; help-offer rise <= 10 points: 2026-11-27")
#: the stopping rule (a plateau of the validation loss) and the tuning-data filters (refusal/boilerplate,
#: canned help offers, at most 3 responses per opening) were likewise revised after earlier rounds' responses
#: to the same held-out test descriptors were seen
RULES_SEEN = ("the stopping rule (a plateau, 2026-11-27) and the tuning-data filters (refusal/boilerplate, canned help "
              "offers, at most 3 responses per opening) were likewise revised after earlier rounds' responses to the "
              "same held-out test descriptors were seen")

#: what the validation guard checks (part of a run's digest)
GUARD_RULE = ("collapse guard on the validation sentences' greedy responses (07's decoding), against the untuned "
              f"model's on the same sentences, with the test guard's thresholds: distinct responses and distinct-2 "
              f"each >= {COLLAPSE_MIN_DISTINCT_SHARE:.0%} of the untuned model's, refusal/boilerplate and canned help "
              f"offers each at most {100 * COLLAPSE_MAX_REFUSAL_RISE:.0f} and {100 * COLLAPSE_MAX_HELP_RISE:.0f} points "
              f"above it, the most frequent response at most {COLLAPSE_MAX_TOP_SHARE:.0%} of the responses; checked after "
              "training, lowest validation loss first, until an evaluation passes (so every evaluation at or below the "
              "kept loss is checked, and no other); the kept weights are those of the lowest validation loss that pass")


def distinct_n(texts: Sequence[str], n: int = 2) -> float:
    """Distinct-n of a set of responses: unique word n-grams over all n-grams (Li et al. 2016).

    >>> distinct_n(["a b a b", "a b c"], 2)
    0.6
    """
    grams = [tuple(w[i:i + n]) for w in (str(t).lower().split() for t in texts) for i in range(len(w) - n + 1)]
    return len(set(grams)) / len(grams) if grams else float("nan")


def response_measures(texts: Sequence[str]) -> dict:
    """What the collapse guard reads of a set of responses: their number, the refusal/boilerplate
    share (07's validated detector), the share of canned help offers, distinct responses,
    distinct-2, and the most frequent response with its count and share."""
    from nlgbias.holistic import refusal

    t = ["" if x is None or isinstance(x, float) else str(x) for x in texts]
    vc = pd.Series(t, dtype=object).value_counts()
    return {"responses": len(t), "refusal/boilerplate": float(refusal.is_refusal(t).mean()) if t else float("nan"),
            "help offers": float(refusal.is_help_offer(t).mean()) if t else float("nan"),
            "distinct": int(len(vc)), "distinct-2": distinct_n(t, 2),
            "top response": str(vc.index[0]) if len(vc) else "", "top response count": int(vc.iloc[0]) if len(vc) else 0,
            "top response share": float(vc.iloc[0] / len(t)) if len(t) else float("nan")}


def collapse_failures(t: Mapping, o: Mapping, ppl_ratio: float | None = None) -> list[str]:
    """The collapse guard's checks that responses measured ``t`` (:func:`response_measures`) miss
    against the original's ``o`` on the same prompts, in words (empty: they pass); ``ppl_ratio``:
    the perplexity of the responses under the original model over the original responses' own
    (None or NaN: not checked). The one reading of the thresholds above, for the weight-choice
    guard and the test guard alike."""
    why = []
    if (t["distinct"] < COLLAPSE_MIN_DISTINCT_SHARE * o["distinct"]
            or t["distinct-2"] < COLLAPSE_MIN_DISTINCT_SHARE * o["distinct-2"]):
        why.append("distinct responses")
    rise = 100 * (t["refusal/boilerplate"] - o["refusal/boilerplate"])
    if rise > 100 * COLLAPSE_MAX_REFUSAL_RISE + 1e-9:
        why.append(f"refusals {rise:+.1f} points")
    help_rise = 100 * (t["help offers"] - o["help offers"])
    if help_rise > 100 * COLLAPSE_MAX_HELP_RISE + 1e-9:
        why.append(f"help offers {help_rise:+.1f} points")
    if t["top response share"] > COLLAPSE_MAX_TOP_SHARE + 1e-12:
        why.append(f"top response {100 * t['top response share']:.1f}%")
    if ppl_ratio is not None and np.isfinite(ppl_ratio) and not (
            1 / COLLAPSE_PPL_FACTOR <= ppl_ratio <= COLLAPSE_PPL_FACTOR):
        why.append("perplexity")
    return why


def guard_measures(texts: Sequence[str], original: Sequence[str]) -> dict:
    """The collapse guard's measures of responses ``texts`` against the original model's
    ``original`` to the same prompts (:func:`response_measures` of each, the original's with
    " (original)") and whether they pass (:func:`collapse_failures`: ``passes``, and ``fails``,
    the checks missed in words; the perplexity part needs the original model and is checked on
    the test responses only)."""
    t, o = response_measures(texts), response_measures(original)
    keys = ("distinct", "distinct-2", "refusal/boilerplate", "help offers", "top response share")
    out = {**{k: t[k] for k in keys}, **{f"{k} (original)": o[k] for k in keys}}
    fails = collapse_failures(t, o)
    out["fails"] = "; ".join(fails)
    out["passes"] = not fails
    return out


def response_guard(lm, sentences: Sequence[str], beta: float | None, params, *, seed: int = 0,
                   batch_size: int = 32):
    """The collapse guard (:func:`guard_measures`) as a check of a
    model in training: ``guard(model)`` answers ``sentences`` ("no_bias" appended when ``beta`` is
    not None, as the tuned model is prompted) through the generation engine with ``params``
    (notebook 07's decoding) and compares the responses with the untuned model's to the plain
    sentences, generated the same way once, at the first check (a run reused from its folder checks
    nothing, so it needs none). Returns ``guard``."""
    import dataclasses

    from nlgbias.engine.causal import CausalGenerator

    tagged = [TU.tag_context(x, None if beta is None else BL.NO_BIAS_TAG) for x in sentences]

    def respond(model, prompts):
        gen = CausalGenerator(dataclasses.replace(lm, model=model), params, batch_size=batch_size,
                              prompt_format="chat", packed=False)
        return [c.generation for c in gen.generate(prompts, seed)]

    key = (id(lm), tuple(sentences), seed)

    def guard(model) -> dict:
        texts = respond(model, tagged)
        if key not in _ORIGINAL:
            _ORIGINAL[key] = respond(lm.model, list(sentences))
        return guard_measures(texts, _ORIGINAL[key])

    return guard


_ORIGINAL: dict = {}  # the untuned model's validation responses, per (model, sentences, seed)


def tune(lm, frame: pd.DataFrame, is_train: np.ndarray, val_keep: np.ndarray, beta: float | None,
         conf: TU.TuningConfig, models_dir: str | Path, name: str, *, guard=None,
         guard_rule: str = "") -> TU.TuningResult:
    """Tune ``lm`` on the rows ``is_train`` of ``frame`` (validation: rows ``val_keep``), tagged at
    ``beta`` (None: the ablation without tags); ``guard``: :func:`response_guard` (the weights
    kept are the lowest validation loss's that pass it)."""
    enc = encode(lm, frame, beta)
    return TU.train(lm, [e for e, k in zip(enc, is_train, strict=True) if k],
                    [e for e, k in zip(enc, val_keep, strict=True) if k], models_dir, name, conf,
                    guard=guard, guard_rule=guard_rule)


def answer(folder: str | Path, beta: float | None, frame: pd.DataFrame, out_dir: str | Path,
           cache_dir: str | Path, *, dataset: str, samples: int, seed: int, params,
           batch_size: int = 32, columns: Sequence[str] = HR.SENTENCE_COLUMNS) -> pd.DataFrame:
    """Style-scored responses of the tuned model in ``folder`` to the sentences of ``frame``
    (its ``prompt`` column; "no_bias" appended when ``beta`` is not None)."""
    from nlgbias.generation import generate_dataset

    prompts = (frame[[*columns, "prompt"]].drop_duplicates("prompt_id").reset_index(drop=True)
               .rename(columns={"prompt": "sentence"}))
    tagged = prompts.assign(prompt=[TU.tag_context(x, None if beta is None else BL.NO_BIAS_TAG)
                                    for x in prompts["sentence"]])
    info = generate_dataset(tagged, str(folder), out_dir, dataset=dataset, prompt_format="chat",
                            samples_per_prompt=samples, seed=seed, params=params, batch_size=batch_size)
    return HR.style_responses(pd.read_parquet(info.path), cache_dir)


__all__ = ["COLLAPSE_MAX_HELP_RISE", "COLLAPSE_MAX_REFUSAL_RISE", "COLLAPSE_MAX_TOP_SHARE", "COLLAPSE_MIN_DISTINCT_SHARE",
           "COLLAPSE_PPL_FACTOR", "GUARD_RULE", "RULES_SEEN", "THRESHOLDS_SEEN", "answer", "collapse_failures", "config", "distinct_n", "encode",
           "guard_measures", "response_guard", "response_measures", "tune"]
