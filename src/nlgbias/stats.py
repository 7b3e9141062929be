"""Significance tests used by BOLD (Dhamala et al. 2021, §6.1.2, §6.1.3, §6.2).

- §6.1.2 compares the share of positive (negative) texts for male and female prompts with a
  "binomial proportion test": the two-sided two-proportion z-test with the pooled variance
  (``statsmodels.stats.proportion.proportions_ztest``). With the paper's pooled counts
  (2,094 / 12,288 male and 1,232 / 6,936 female positive texts: its six sources x 2,048 and
  x 1,156 prompts) this test gives the paper's p = 0.204.
- §6.1.3 and §6.2 use a chi-square test of independence on a contingency table (groups x
  outcome), without continuity correction by default (no correction applies when dof > 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

ALTERNATIVES = ("two-sided", "larger", "smaller")


@dataclass(frozen=True)
class ProportionTest:
    """Result of :func:`two_proportion_ztest`."""

    statistic: float
    pvalue: float
    p1: float
    p2: float
    count1: int
    n1: int
    count2: int
    n2: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ChiSquareTest:
    """Result of :func:`chi2_independence`: ``proportions`` are the row-normalised table."""

    statistic: float
    pvalue: float
    dof: int
    proportions: pd.DataFrame
    expected: pd.DataFrame

    def as_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "dof": self.dof}


def _check_count(count: float, n: float, what: str) -> None:
    if n <= 0:
        raise ValueError(f"{what}: sample size must be positive, got {n}")
    if not 0 <= count <= n:
        raise ValueError(f"{what}: count {count} is not between 0 and n = {n}")


def two_proportion_ztest(count1: int, n1: int, count2: int, n2: int,
                         alternative: str = "two-sided") -> ProportionTest:
    """Two-proportion z-test, pooled variance (BOLD §6.1.2 "binomial proportion test").

    ``z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2))`` with ``p = (count1 + count2) / (n1 + n2)``;
    the p-value is two-sided unless ``alternative`` is ``"larger"`` (p1 > p2) or ``"smaller"``.
    If both samples are all successes or all failures the z statistic is undefined: NaN.
    """
    _check_count(count1, n1, "sample 1")
    _check_count(count2, n2, "sample 2")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    p1, p2 = count1 / n1, count2 / n2
    pool = (count1 + count2) / (n1 + n2)
    se = np.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    if se == 0:
        z, p = float("nan"), float("nan")
    else:
        z = (p1 - p2) / se
        if alternative == "two-sided":
            p = 2 * sps.norm.sf(abs(z))
        elif alternative == "larger":
            p = sps.norm.sf(z)
        else:
            p = sps.norm.cdf(z)
    return ProportionTest(float(z), float(p), p1, p2, int(count1), int(n1), int(count2), int(n2))


def chi2_independence(table: pd.DataFrame | np.ndarray | Sequence[Sequence[float]],
                      correction: bool = False) -> ChiSquareTest:
    """Pearson chi-square test of independence on a contingency table (BOLD §6.1.3, §6.2).

    ``table``: counts, rows = groups (e.g. races or sources), columns = outcomes (e.g.
    negative / not negative). ``chi2 = sum (O - E)^2 / E`` with ``E = row total x column
    total / N``, ``dof = (r - 1)(c - 1)``. Rows or columns that are all zero are dropped
    (they carry no information and would make ``E = 0``). ``correction`` applies Yates'
    continuity correction to a 2x2 table (scipy's default; off here, as in
    ``statsmodels`` ``proportions_chisquare``).
    """
    df = pd.DataFrame(table).astype(float)
    if (df.to_numpy() < 0).any():
        raise ValueError("contingency table has negative counts")
    df = df.loc[df.sum(axis=1) > 0, df.sum(axis=0) > 0]
    if df.shape[0] < 2 or df.shape[1] < 2:
        raise ValueError(f"chi-square test needs at least a 2x2 table of non-zero margins, "
                         f"got {df.shape[0]}x{df.shape[1]}")
    res = sps.chi2_contingency(df.to_numpy(), correction=correction)
    props = df.div(df.sum(axis=1), axis=0)
    expected = pd.DataFrame(res.expected_freq, index=df.index, columns=df.columns)
    return ChiSquareTest(float(res.statistic), float(res.pvalue), int(res.dof), props, expected)


def chi2_proportions(counts: Sequence[int] | pd.Series, totals: Sequence[int] | pd.Series,
                     correction: bool = False) -> ChiSquareTest:
    """Chi-square test that k groups share one proportion ``counts / totals`` (BOLD §6.1.3).

    Builds the k x 2 table (successes, failures); ``proportions["success"]`` are the groups'
    proportions. Same statistic as ``statsmodels`` ``proportions_chisquare``.
    """
    counts = pd.Series(counts, dtype=float)
    totals = pd.Series(totals, dtype=float, index=counts.index)
    for i in counts.index:
        _check_count(counts[i], totals[i], f"group {i}")
    table = pd.DataFrame({"success": counts, "failure": totals - counts})
    return chi2_independence(table, correction=correction)


def format_p(p: float, digits: int = 3) -> str:
    """A p-value for a table: ``< 0.001`` below 10^-digits, else rounded."""
    if p is None or not np.isfinite(p):
        return "n/a"
    floor = 10.0 ** -digits
    return f"< {floor:g}" if p < floor else f"{p:.{digits}f}"


def wilson_interval(count: int | np.ndarray, n: int | np.ndarray, level: float = 0.95,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion ``count / n`` (vectorised; NaN where n = 0).

    Used for the error bars of BOLD's proportion figures: one toxic text out of 50 gives
    0.35%-10.5%, not a point.

    >>> lo, hi = wilson_interval(1, 50)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0035, 0.105)
    """
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    z = sps.norm.ppf(0.5 + level / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = count / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


# --------------------------------------------------------------------------- beyond the papers
#: the multiple-comparison corrections reported beside every family of group comparisons
CORRECTIONS = ("holm", "fdr_bh")


def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """p-values of one family of comparisons corrected for multiplicity: ``"holm"`` (Holm 1979,
    family-wise error) or ``"fdr_bh"`` (Benjamini-Hochberg 1995, false discovery rate), as in
    ``statsmodels.stats.multitest.multipletests``. NaNs stay NaN and do not count.

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    from statsmodels.stats.multitest import multipletests  # noqa: PLC0415

    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method=method)[1]
    return out


def bootstrap_interval(values: Sequence[float] | np.ndarray, statistic=np.mean, *,
                       groups: Sequence | np.ndarray | None = None, n_boot: int = 2000,
                       level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Seeded percentile-bootstrap interval of ``statistic(values)``.

    Without ``groups`` the values are resampled with replacement; with ``groups`` (e.g. the
    StereoSet target of each CAT, the descriptor of each response) whole groups are resampled
    (a cluster bootstrap), and ``statistic`` is applied to the pooled values of the drawn
    groups.

    >>> lo, hi = bootstrap_interval([0, 1] * 50, seed=1)
    >>> round(lo, 2), round(hi, 2)
    (0.4, 0.6)
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (float("nan"), float("nan"))
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    if groups is None:
        idx = rng.integers(0, x.size, size=(n_boot, x.size))
        stats = np.array([statistic(x[i]) for i in idx])
    else:
        g = pd.Series(np.asarray(groups)).astype("category").cat.codes.to_numpy()
        members = [np.flatnonzero(g == k) for k in range(g.max() + 1)]
        draws = rng.integers(0, len(members), size=(n_boot, len(members)))
        stats = np.array([statistic(x[np.concatenate([members[k] for k in d])]) for d in draws])
    a = (1 - level) / 2
    lo, hi = np.nanquantile(stats, [a, 1 - a])
    return float(lo), float(hi)


def bootstrap_means(values: Sequence[float] | np.ndarray, *, n_boot: int = 2000, seed: int = 0,
                    chunk: int = 200) -> np.ndarray:
    """The bootstrap distribution of the column means of ``values`` (n texts x k columns, or n
    values): an ``(n_boot, k)`` array (``(n_boot,)`` for 1-D input), texts resampled with
    replacement, the same rows for every column. Vectorised (resample counts times values) and
    drawn exactly as :func:`bootstrap_interval` draws them, so the percentile interval of a
    column equals ``bootstrap_interval(column, n_boot=n_boot, seed=seed)``; used for many
    group proportions (BOLD) at once and for differences of two groups' means.

    >>> x = np.array([0, 1] * 50)
    >>> lo, hi = np.quantile(bootstrap_means(x, seed=1), [0.025, 0.975])
    >>> (float(lo), float(hi)) == bootstrap_interval(x, seed=1)
    True
    """
    x = np.asarray(values, dtype=float)
    flat = x.ndim == 1
    x = x.reshape(len(x), -1)
    n = len(x)
    if n == 0:
        out = np.full((n_boot, x.shape[1]), np.nan)
        return out[:, 0] if flat else out
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    out = np.empty((n_boot, x.shape[1]))
    for s in range(0, n_boot, chunk):
        i = idx[s:s + chunk]
        rows = (np.arange(len(i))[:, None] * n + i).ravel()
        w = np.bincount(rows, minlength=len(i) * n).reshape(len(i), n)
        out[s:s + chunk] = (w @ x) / n
    return out[:, 0] if flat else out


def percentile_interval(dist: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval (``level``) of a bootstrap distribution, per column (axis 0), as
    :func:`bootstrap_interval` takes it."""
    a = (1 - level) / 2
    lo, hi = np.nanquantile(np.asarray(dist, dtype=float), [a, 1 - a], axis=0)
    return lo, hi
