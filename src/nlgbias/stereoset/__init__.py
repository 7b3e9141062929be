"""StereoSet Context Association Tests (Nadeem et al. 2021, §2, §6-8, App. A.1).

- :mod:`~nlgbias.stereoset.evaluation`: the official scorer (lms, ss, icat per split, domain and
  overall), predictions files in the official format, and the §6.3 baselines.
- :mod:`~nlgbias.stereoset.lm`: batched scoring of the sentences with causal / masked LMs (§7).
- :mod:`~nlgbias.stereoset.paper`: the paper's published numbers (Tables 4, 5, 7).

``python -m nlgbias.stereoset score --predictions FILE [--gold FILE] [--out FILE]`` scores any
predictions file in the official format.
"""

from __future__ import annotations

import logging
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
    "read_predictions", "results_frame", "sentence_table", "stratified_subset",
    "write_predictions", "score_sentences",
]

def stratified_subset(cats: pd.DataFrame, per_domain: int | None, seed: int = 0) -> pd.DataFrame:
    """``per_domain`` CATs of each split × domain, drawn with ``seed`` (all when None or when a
    stratum is smaller); rows keep the gold order."""
    if per_domain is None:
        return cats
    if per_domain < 1:
        raise ValueError(f"cats_per_domain must be >= 1 or None, got {per_domain}")
    parts = [g.sample(n=min(per_domain, len(g)), random_state=seed)
             for _, g in cats.groupby(["task", "bias_type"], sort=True)]
    return cats.loc[sorted(pd.concat(parts).index)]


def model_scores(name: str, cats: pd.DataFrame, interim: str | Path, split: str = "dev", *,
                 device: str = "cpu", batch_size: int = 32, dtype: str | None = None,
                 scorer: CATScorer | None = None) -> tuple[dict[str, float], pd.DataFrame]:
    """Sentence scores of model ``name`` for ``cats`` (§7), cached resumably under
    ``interim/stereoset/<split>/<model_slug>[-<dtype>]/``. Returns (id → score, the
    per-sentence frame). The model is loaded only when some sentence is not cached yet."""
    from nlgbias.io import ShardCache  # noqa: PLC0415
    from nlgbias.models import model_slug  # noqa: PLC0415

    sents = sentence_table(cats)
    tag = model_slug(name) + (f"-{dtype}" if dtype and dtype != "float32" else "")
    cache = Path(interim) / "stereoset" / split / tag
    done = ShardCache(cache, key="id").done_keys()
    if scorer is None and not set(sents["id"]) <= done:
        scorer = load_scorer(name, device=device, batch_size=batch_size, dtype=dtype)
    df = score_sentences(scorer or _NoModel(), sents, cache, desc=f"StereoSet {name}")
    return dict(zip(df["id"], df["score"].astype(float))), df


class _NoModel:
    def score(self, sents):  # pragma: no cover - never called when all is cached
        raise RuntimeError("no model loaded")
