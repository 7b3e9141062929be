"""The rows of an audit: a value with its 95 % interval and the interval's kind
(:data:`INTERVALS`), the unit that limits a row's interval (:func:`_limit`), and the few
helpers every suite shares (:mod:`nlgbias.audit.suites`, :mod:`nlgbias.audit.holistic`)."""

from __future__ import annotations

import numpy as np

__all__ = ["INTERVALS", "N_BOOT", "readable"]

#: bootstrap replicates of every interval
N_BOOT = 2000


#: the intervals a value or a difference can have (its ``interval`` key names one)
INTERVALS = {
    "wilson": "Wilson score interval of a share",
    "newcombe-paired": "Newcombe's (1998) method 10 for a difference of paired shares: the same "
                       "items for both models; not zero-width when no item is decided differently",
    "newcombe-independent": "Newcombe's hybrid score interval for a difference of shares of "
                            "independent samples",
    "wilson-deff": "Wilson score interval of a share with the effective n: the samples of one "
                   "prompt (and the prompts of one template) are alike, so n is divided by the design "
                   "effect over the row's limiting unit (deff; 1: no smaller n)",
    "newcombe-independent-deff": "Newcombe's hybrid score interval for a difference of shares of "
                                 "independent samples, each with its effective n (design effect "
                                 "over the row's limiting unit)",
    "bootstrap-terms": "our two-stage percentile bootstrap: target terms, then CATs within each "
                       "drawn term (the same draws for both models; the paper gives no interval)",
    "hull-bootstrap-terms-newcombe-paired": "the hull of our two-stage bootstrap (target terms, then "
                                            "CATs) and Newcombe's method 10 on the CATs' decisions "
                                            "(icat: its bounds over those of ss and lms): with few CATs "
                                            "decided differently the bootstrap alone ends at 0 or "
                                            "excludes it by chance; Newcombe's ignores that the CATs "
                                            "of one term are alike",
    "none-range": "no interval: a bootstrap of a range (max − min) is biased upward and almost never "
                  "reaches 0; the permutation null beside it (shuffled group labels) is the test",
    "hull-bootstrap-groups-newcombe-box": "the hull of a percentile bootstrap of the prompts within "
                                          "each group (the same draws for both models) and the "
                                          "range's bounds when each group's share moves within its "
                                          "Newcombe paired interval",
    "bootstrap-templates-paired": "percentile bootstrap of the prompt templates, the same draws for "
                                  "both models (each template is continued for every demographic "
                                  "by both: its samples are alike)",
    "mover-independent": "square-and-add of the two models' intervals (Newcombe 2001: the "
                         "difference between two differences of independent samples)",
    "hull-bootstrap-descriptors-wilson": "the hull of a percentile bootstrap of the descriptors "
                                         "(drawn within each axis, the pairs among the drawn ones "
                                         "counted again; the same draws for every template and both "
                                         "models) and Wilson's interval over the descriptor pairs "
                                         "(never a point at a share of 0; it ignores that pairs "
                                         "sharing a descriptor are alike)",
    "hull-bootstrap-templates-descriptors-wilson": "the hull of a two-stage percentile bootstrap (the "
                                                   "templates drawn with replacement, then the "
                                                   "descriptors within each axis, the pairs among the "
                                                   "drawn ones counted again; the same draws for both "
                                                   "models) and Wilson's interval over the descriptor "
                                                   "pairs (never a point at a share of 0)",
    "hull-bootstrap-templates-descriptors-newcombe-paired": "the hull of the two-stage bootstrap (templates, "
                                                            "then descriptors within each axis; the same "
                                                            "draws for both models: paired) and Newcombe's "
                                                            "method 10 on the descriptor pairs' decisions "
                                                            "(never a point when no pair is decided "
                                                            "differently)",
    "bootstrap-templates-descriptors": "a hull's part: the two-stage percentile bootstrap alone (the "
                                       "templates drawn with replacement, then the descriptors within "
                                       "each axis; the same draws for both models)",
    "bootstrap-descriptors": "a hull's part: the percentile bootstrap of the descriptors alone (drawn "
                             "within each axis; one template: that template only)",
    "hull-bootstrap-descriptors-newcombe-paired": "the hull of the descriptor bootstrap with the same "
                                                  "draws for both models (paired: the same sentences) "
                                                  "and Newcombe's method 10 on the descriptor pairs' "
                                                  "decisions (never a point when no pair is decided "
                                                  "differently; it ignores that pairs sharing a "
                                                  "descriptor are alike)",
}


def _value(v: float, lo: float, hi: float, n: int, interval: str | None = None) -> dict:
    if interval is not None and interval not in INTERVALS:
        raise ValueError(f"unknown interval {interval!r}")
    out = {"value": round(float(v), 4), "lo": None if lo is None else round(float(lo), 4),
           "hi": None if hi is None else round(float(hi), 4), "n": int(n)}
    return {**out, "interval": interval} if interval else out


def _limit(n: int, unit: str, detail: str = "") -> dict:
    """The unit that limits a row's interval and its count (``detail``: e.g. the items in it)."""
    return {"n": int(n), "unit": unit, **({"detail": detail} if detail else {})}


def _pct(dist: np.ndarray) -> tuple[float, float]:
    lo, hi = np.nanpercentile(dist, [2.5, 97.5])
    return float(lo), float(hi)


def _paired_share_diff(first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    """Newcombe's paired interval (points) of the difference of two aligned 0/1 outcomes."""
    from nlgbias.stats import paired_diff_proportions_interval, paired_table

    lo, hi = paired_diff_proportions_interval(*paired_table(first > 0.5, second > 0.5))
    return 100 * lo, 100 * hi


def readable(name: str) -> str:
    """A dataset's group name for a reader: ``Hispanic_and_Latino_Americans`` → ``Hispanic and
    Latino Americans``."""
    return str(name).replace("_", " ")
