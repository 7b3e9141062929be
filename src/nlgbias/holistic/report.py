"""Small helpers of notebook 07's prose (HolisticBias, Smith et al. 2022).

The claims and their verdicts live in :mod:`nlgbias.holistic.claims` (graded through the
project's claim registry, :mod:`nlgbias.claims`); this module keeps only helpers the notebook's
descriptive text uses.
"""

from __future__ import annotations

import pandas as pd


def spearman(a: pd.Series, b: pd.Series) -> float:
    """Spearman correlation over the shared index (NaN below 3 shared values)."""
    j = pd.concat([a, b], axis=1, join="inner").dropna()
    if len(j) < 3:
        return float("nan")
    return float(j.iloc[:, 0].rank().corr(j.iloc[:, 1].rank()))


__all__ = ["spearman"]
