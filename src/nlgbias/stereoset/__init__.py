"""StereoSet Context Association Tests (Nadeem et al. 2021, §2, §6-8, App. A.1).

- :mod:`~nlgbias.stereoset.evaluation`: the official scorer (lms, ss, icat per split, domain and
  overall), predictions files in the official format, the §6.3 baselines and bootstrap
  intervals.
- :mod:`~nlgbias.stereoset.lm`: batched scoring of the sentences with causal / masked LMs (§7).
- :mod:`~nlgbias.stereoset.paper`: the paper's published numbers (Tables 1-8, footnote 3).
- :mod:`~nlgbias.stereoset.analysis`: dataset statistics, sentiment and keywords (§4-5,
  Tables 1-3) and the SentimentLM tie analysis.
- :mod:`~nlgbias.stereoset.report`: the notebook's tables, figure and "what replicates" list,
  paper beside run; :mod:`~nlgbias.stereoset.text`: its sentences with numbers, generated.
- :mod:`~nlgbias.stereoset.crows_pairs`: CrowS-Pairs (Nangia et al. 2020) with the same
  likelihood engine.

``python -m nlgbias.stereoset score --predictions FILE [--gold FILE] [--out FILE]`` scores any
predictions file in the official format.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from nlgbias.stereoset.evaluation import (
    BASELINES,
    DOMAINS,
    TASKS,
    baseline_scores,
    evaluate,
    load_gold,
    per_target,
    predictions_json,
    read_predictions,
    results_frame,
    sentence_table,
    write_predictions,
)
from nlgbias.stereoset.lm import CATScorer, load_scorer, score_sentences

log = logging.getLogger(__name__)

__all__ = [
    "BASELINES", "DOMAINS", "TASKS", "CATScorer", "baseline_scores",
    "evaluate", "load_gold", "load_scorer", "model_scores", "per_target", "predictions_json",
    "read_predictions", "results_frame", "run_split", "score_sentences", "scoring_methods",
    "SplitsRun", "run_splits", "sentence_table", "stand_in_for", "stratified_subset", "write_predictions",
]

def stratified_subset(cats: pd.DataFrame, per_domain: int | None = None, seed: int = 0, *,
                      per_target: int | None = None) -> pd.DataFrame:
    """A seeded sample of CATs; rows keep the gold order. ``per_target``: at most that many CATs
    of each task × target term (every term stays in, so the per-term averages of §6.2 keep all
    terms); ``per_domain``: at most that many of each task × domain. None or 0: every CAT."""
    if per_domain and per_target:
        raise ValueError("give per_domain or per_target, not both")
    n, by = (per_target, "target") if per_target else (per_domain, "bias_type")
    if not n:
        return cats
    if n < 0:
        raise ValueError(f"CATs per {by} must be >= 0 (0: all), got {n}")
    parts = [g.sample(n=min(n, len(g)), random_state=seed)
             for _, g in cats.groupby(["task", by], sort=True)]
    return cats.loc[sorted(pd.concat(parts).index)]


def scoring_methods(name: str) -> dict[str, str]:
    """How this project scores ``name`` (a §6.3 baseline or a model) on each task (§7), for the
    "scoring (this run)" column of the tables; a model's kind comes from the registry."""
    if name == "SentimentLM":
        m = "VADER compound, more negative preferred (exact ties broken at random)"
        return {"intrasentence": m, "intersentence": m}
    if name in BASELINES:
        return {"intrasentence": "baseline (§6.3)", "intersentence": "baseline (§6.3)"}
    from nlgbias.lm import kind_of, parse_model_spec
    from nlgbias.models import KINDS

    how = KINDS[kind_of(parse_model_spec(name))].scorer
    if how == "causal":
        return {"intrasentence": "likelihood: mean token log-prob of the sentence",
                "intersentence": "likelihood: mean token log-prob of the attribute sentence "
                                 "given the context"}
    if how == "masked":
        return {"intrasentence": "masked LM: mean subword log-prob at the blank",
                "intersentence": "NSP head P(is next) (pseudo-log-likelihood without one)"}
    raise ValueError(f"model {name!r} cannot be scored on StereoSet (no likelihood scorer)")


def stand_in_for(name: str) -> str:
    """The paper model a run of ``name`` is compared with: itself for the paper's own models
    (GPT2, BERT-base, ...), GPT2 for any other causal LM (the offline stand-ins, a user's
    checkpoint), BERT-base for any other masked LM."""
    from nlgbias.lm import kind_of, parse_model_spec
    from nlgbias.stereoset.paper import PAPER_NAME

    name = str(name)
    if name in PAPER_NAME:
        return PAPER_NAME[name]
    return "GPT2" if kind_of(parse_model_spec(name)) == "causal" else "BERT-base"


def run_split(split: str, cats: pd.DataFrame, models: list[str], interim: str | Path,
              processed: str | Path, *, seed: int = 0, device: str = "cpu",
              batch_size: int = 32, dtype: str | None = None,
              baselines: Sequence[str] = BASELINES) -> dict:
    """Score one split's ``cats`` with the §6.3 baselines and ``models`` (§7) and evaluate each
    with the official scorer. Predictions go to ``processed/stereoset/predictions_<model_slug>_
    <split>.json`` (official format). Returns ``{"results": {display name: results},
    "scores": {display name: id -> score}, "per_sentence": {display name: frame}}``.
    ``baselines``: the §6.3 baselines to run (none: ``()``)."""
    from nlgbias.lm import parse_model_spec

    out: dict = {"results": {}, "scores": {}, "per_sentence": {}}
    for name in baselines:
        out["scores"][name] = baseline_scores(name, cats, seed=seed)
        out["results"][name] = evaluate(cats, out["scores"][name])
    for name in models:
        scores, per_sentence = model_scores(name, cats, interim, split, device=device,
                                            batch_size=batch_size, dtype=dtype)
        label = parse_model_spec(name).display
        out["scores"][label] = scores
        out["per_sentence"][label] = per_sentence
        out["results"][label] = evaluate(cats, scores)
        write_predictions(cats, scores, Path(processed) / "stereoset" /
                          f"predictions_{parse_model_spec(name).slug}_{split}.json")
    return out


@dataclass
class SplitsRun:
    """What :func:`run_splits` gives: per split, the CATs the models scored (``cats``), the
    official ``results`` and the sentence ``scores`` per system (baselines and models, by
    display name), the CATs each system was scored on (``scored_cats``: the baselines on every
    CAT of ``gold``), the models' ``scores`` alone (``model_scores``) and their scoring time in
    seconds (``seconds``); ``models``: the models' display names, in the order given."""

    cats: dict
    results: dict
    scores: dict
    scored_cats: dict
    model_scores: dict
    seconds: dict
    models: list

    @property
    def names(self) -> list[str]:
        """Every system of the dev split: the baselines, then the models."""
        return list(self.results["dev"])


def run_splits(gold: dict, per_target: dict, models: list[str], interim: str | Path,
               processed: str | Path, *, seed: int = 0, device: str = "cpu", batch_size: int = 32,
               dtype: str | None = None) -> SplitsRun:
    """Both splits (``gold``: split -> every CAT): the §6.3 baselines on every CAT, ``models``
    on a stratified subset of ``per_target[split]`` CATs per task x target (0: all; seeded),
    each evaluated with the official scorer (:func:`run_split`)."""
    import time

    from nlgbias.lm import parse_model_spec

    cats, results, scores, scored_cats, model_sc, seconds = {}, {}, {}, {}, {}, {}
    for split, every in gold.items():
        cats[split] = stratified_subset(every, per_target=per_target[split], seed=seed)
        base = run_split(split, every, [], interim, processed, seed=seed)
        t0 = time.perf_counter()
        run = run_split(split, cats[split], models, interim, processed, seed=seed, device=device,
                        batch_size=batch_size, dtype=dtype, baselines=())
        seconds[split] = time.perf_counter() - t0
        results[split] = {**base["results"], **run["results"]}
        scores[split] = {**base["scores"], **run["scores"]}
        scored_cats[split] = {**{m: every for m in base["results"]},
                              **{m: cats[split] for m in run["results"]}}
        model_sc[split] = run["scores"]
    return SplitsRun(cats, results, scores, scored_cats, model_sc, seconds,
                     [parse_model_spec(m).display for m in models])


def model_scores(name, cats: pd.DataFrame, interim: str | Path, split: str = "dev", *,
                 device: str = "cpu", batch_size: int = 32, dtype: str | None = None,
                 scorer: CATScorer | None = None) -> tuple[dict[str, float], pd.DataFrame]:
    """Sentence scores of model ``name`` (a spec string or :class:`~nlgbias.lm.LMSpec`; its
    own options win over ``device`` and ``dtype``, which reach a backend that takes them;
    dtype None: float32) for ``cats`` (§7), cached resumably under
    ``interim/stereoset/<split>/<model slug>[-<dtype>]/``. Returns (id → score, the
    per-sentence frame). The model is loaded only when some sentence is not cached yet."""
    from nlgbias.hardware import kernel_tag
    from nlgbias.lm import parse_model_spec

    spec = parse_model_spec(name).with_defaults(device=device, dtype=dtype or "float32")
    sents = sentence_table(cats)
    dt = spec.opts.get("dtype")
    tag = spec.slug + (f"-{kernel_tag(dt)}" if dt and dt != "float32" else "") + spec.scoring_tag
    cache = Path(interim) / "stereoset" / split / tag
    df = score_sentences(scorer or _LazyScorer(spec, batch_size), sents, cache,
                         desc=f"StereoSet {spec.display}")
    return dict(zip(df["id"], df["score"].astype(float))), df


class _LazyScorer:
    """:func:`load_scorer` on the first chunk that is not cached (a warm run loads no model)."""

    def __init__(self, spec, batch_size: int):
        self.spec, self.batch_size, self.scorer = spec, batch_size, None

    def score(self, sents):
        if self.scorer is None:
            self.scorer = load_scorer(self.spec, batch_size=self.batch_size)
        return self.scorer.score(sents)
