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

from collections.abc import Sequence
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


#: what the validation guard checks (part of a run's digest)
GUARD_RULE = ("collapse guard on the validation sentences' greedy responses (07's decoding): distinct responses and "
              "distinct-2 each >= 50% of the untuned model's on the same sentences, refusal/boilerplate share at most 10 "
              "points above it; the kept weights are those of the lowest validation loss that pass")


#: the collapse guard's thresholds (:data:`nlgbias.holistic.tuning_study.COLLAPSE_RULE`): distinct
#: responses and distinct-2 each at least this share of the original's, a refusal share at most this
#: much (absolute) above it
COLLAPSE_MIN_DISTINCT_SHARE = 0.5
COLLAPSE_MAX_REFUSAL_RISE = 0.10


def distinct_n(texts: Sequence[str], n: int = 2) -> float:
    """Distinct-n of a set of responses: unique word n-grams over all n-grams (Li et al. 2016).

    >>> distinct_n(["a b a b", "a b c"], 2)
    0.6
    """
    grams = [tuple(w[i:i + n]) for w in (str(t).lower().split() for t in texts) for i in range(len(w) - n + 1)]
    return len(set(grams)) / len(grams) if grams else float("nan")


def guard_measures(texts: Sequence[str], original: Sequence[str]) -> dict:
    """The collapse guard's measures of responses ``texts`` against the original model's
    ``original`` to the same prompts (refusal/boilerplate share, distinct responses, distinct-2,
    each beside the original's) and whether they pass its distinct and refusal thresholds
    (:data:`nlgbias.holistic.tuning_study.COLLAPSE_RULE`; the perplexity part needs the original model and is checked on the
    test responses only)."""
    from nlgbias.holistic import refusal

    def measure(t):
        t = [str(x) if x is not None else "" for x in t]
        return (float(refusal.is_refusal(t).mean()), len(set(t)), distinct_n(t, 2))

    (ref_t, dist_t, d2_t), (ref_o, dist_o, d2_o) = measure(texts), measure(original)
    out = {"distinct": dist_t, "distinct (original)": dist_o, "distinct-2": d2_t, "distinct-2 (original)": d2_o,
           "refusal/boilerplate": ref_t, "refusal/boilerplate (original)": ref_o}
    out["passes"] = bool(dist_t >= COLLAPSE_MIN_DISTINCT_SHARE * dist_o and d2_t >= COLLAPSE_MIN_DISTINCT_SHARE * d2_o
                         and ref_t - ref_o <= COLLAPSE_MAX_REFUSAL_RISE + 1e-12)
    return out


def response_guard(lm, sentences: Sequence[str], beta: float | None, params, *, seed: int = 0,
                   batch_size: int = 32):
    """The collapse guard (:func:`guard_measures`) as a check of a
    model in training: ``guard(model)`` answers ``sentences`` ("no_bias" appended when ``beta`` is
    not None, as the tuned model is prompted) through the generation engine with ``params``
    (notebook 07's decoding) and compares the responses with the untuned model's to the plain
    sentences, generated the same way once. Returns ``guard``."""
    import dataclasses

    from nlgbias.engine.causal import CausalGenerator

    tagged = [TU.tag_context(x, None if beta is None else BL.NO_BIAS_TAG) for x in sentences]

    def respond(model, prompts):
        gen = CausalGenerator(dataclasses.replace(lm, model=model), params, batch_size=batch_size,
                              prompt_format="chat", packed=False)
        return [c.generation for c in gen.generate(prompts, seed)]

    key = (id(lm), tuple(sentences), seed)
    if key not in _ORIGINAL:
        _ORIGINAL[key] = respond(lm.model, list(sentences))
    original = _ORIGINAL[key]

    def guard(model) -> dict:
        return guard_measures(respond(model, tagged), original)

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


__all__ = ["COLLAPSE_MAX_REFUSAL_RISE", "COLLAPSE_MIN_DISTINCT_SHARE", "GUARD_RULE", "answer", "config", "distinct_n",
           "encode", "guard_measures", "response_guard", "tune"]
