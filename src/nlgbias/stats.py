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

import functools
import math
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
    """Two-proportion z-test, pooled variance (BOLD §6.1.2 "binomial proportion test"):
    ``statsmodels.stats.proportion.proportions_ztest`` with the counts checked first.

    ``z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2))`` with ``p = (count1 + count2) / (n1 + n2)``;
    the p-value is two-sided unless ``alternative`` is ``"larger"`` (p1 > p2) or ``"smaller"``.
    If both samples are all successes or all failures the z statistic is undefined: NaN.

    >>> t = two_proportion_ztest(30, 100, 20, 100)
    >>> round(t.statistic, 6), round(t.pvalue, 6)
    (1.632993, 0.10247)
    """
    from statsmodels.stats.proportion import proportions_ztest

    _check_count(count1, n1, "sample 1")
    _check_count(count2, n2, "sample 2")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    p1, p2 = count1 / n1, count2 / n2
    pool = (count1 + count2) / (n1 + n2)
    if pool in (0, 1):  # no variance: the statistic is 0/0
        z, p = float("nan"), float("nan")
    else:
        z, p = proportions_ztest([count1, count2], [n1, n2], alternative=alternative)
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


def p_text(p: float, digits: int = 3) -> str:
    """A p-value for prose: ``"p = 0.023"``, or ``"p < 0.001"`` below 10^-digits.

    >>> p_text(0.0234), p_text(2e-05), p_text(float("nan"))
    ('p = 0.023', 'p < 0.001', 'p = n/a')
    """
    f = format_p(p, digits)
    return f"p {f}" if f.startswith("<") else f"p = {f}"


def wilson_interval(count: int | np.ndarray, n: int | np.ndarray, level: float = 0.95,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion ``count / n`` (vectorised; NaN where n = 0), as
    ``statsmodels`` ``proportion_confint(method="wilson")``.

    The interval :func:`proportion_interval` gives a share away from 0 and 1 (Clopper-Pearson
    near them): one text out of 50 gives 0.35%-10.5%, not a point.

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

    Holm is computed here with multipletests' own steps (sort, ``p * (m, m-1, ..., 1)``, running
    maximum, capped at 1): the same numbers without the full garbage collection multipletests
    runs on every Holm call (about 0.4 s in a notebook's process, hundreds of calls per notebook).

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = _holm(p[ok]) if method == "holm" else _multipletests(p[ok], method)
    return out


def _multipletests(p: np.ndarray, method: str) -> np.ndarray:
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, method=method)[1]


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, step for step as ``multipletests(p, method="holm")[1]``."""
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(np.take(p, order) * np.arange(len(p), 0, -1))
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    out[order] = adjusted
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


def bootstrap_group_means(values: Sequence[float] | np.ndarray, groups: Sequence | np.ndarray, *,
                          n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """The two-stage bootstrap distribution of the *mean of group means* of each column of
    ``values`` (n x k, or n): per replicate the groups are drawn with replacement, and the
    members within each group (so a group of one still varies through the groups drawn).
    Returns ``(n_boot, k)`` (``(n_boot,)`` for 1-D input). Groups are numbered by first
    appearance and drawn first, so with one member per group it equals
    :func:`bootstrap_means` of the values (same seed). Used where a statistic averages per-group
    scores (StereoSet: per-target lms / ss averaged over targets).

    >>> x = np.array([0.0, 1.0, 1.0, 0.0])
    >>> bool(np.allclose(bootstrap_group_means(x, [0, 1, 2, 3], seed=3), bootstrap_means(x, seed=3)))
    True
    """
    x = np.asarray(values, dtype=float)
    flat = x.ndim == 1
    x = x.reshape(len(x), -1)
    codes, _ = pd.factorize(pd.Series(np.asarray(groups, dtype=object)), sort=False)
    if len(codes) != len(x):
        raise ValueError(f"values and groups differ in length: {len(x)} vs {len(codes)}")
    if len(x) == 0:
        out = np.full((n_boot, x.shape[1]), np.nan)
        return out[:, 0] if flat else out
    rng = np.random.default_rng(seed)
    n_groups = int(codes.max()) + 1
    pick = rng.integers(0, n_groups, size=(n_boot, n_groups))  # groups drawn per replicate
    within = np.empty((n_groups, n_boot, x.shape[1]))  # per group: its resampled member means
    for k in range(n_groups):
        idx = np.flatnonzero(codes == k)
        draws = idx[rng.integers(0, len(idx), size=(n_boot, len(idx)))]
        within[k] = x[draws].mean(axis=1)
    out = within[pick, np.arange(n_boot)[:, None]].mean(axis=1)
    return out[:, 0] if flat else out


def percentile_interval(dist: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval (``level``) of a bootstrap distribution, per column (axis 0), as
    :func:`bootstrap_interval` takes it."""
    a = (1 - level) / 2
    lo, hi = np.nanquantile(np.asarray(dist, dtype=float), [a, 1 - a], axis=0)
    return lo, hi


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row of ``x`` with the same row of ``y`` (two ``(rows, n)`` arrays,
    e.g. bootstrap resamples): ties take their average rank, as in ``scipy.stats.spearmanr``,
    whose value each row equals to rounding (~1e-15); NaN where a row of either is constant.
    One vectorised pass instead of a ``spearmanr`` call per row (about 1 ms each).

    >>> float(spearman_rows(np.array([[1., 2, 3, 4]]), np.array([[1., 3, 2, 4]]))[0])
    0.8
    """
    rx = sps.rankdata(np.asarray(x, dtype=float), axis=1)
    ry = sps.rankdata(np.asarray(y, dtype=float), axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (rx * ry).sum(axis=1) / np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    return np.clip(rho, -1.0, 1.0)


# --------------------------------------------------------------------------- exact and paired tests
#: the two-sided 95 % normal quantile
Z975 = float(sps.norm.ppf(0.975))


def clopper_pearson(count: int | np.ndarray, n: int | np.ndarray, level: float = 0.95,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Exact (Clopper-Pearson) interval of a proportion ``count / n`` (vectorised; NaN where
    n = 0). Never zero-width: 0 of 12 gives [0, 0.265].

    >>> lo, hi = clopper_pearson(0, 12)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.2646)
    """
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    a = (1 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(count > 0, sps.beta.ppf(a, count, n - count + 1), 0.0)
        hi = np.where(count < n, sps.beta.ppf(1 - a, count + 1, n - count), 1.0)
    bad = n <= 0
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def proportion_interval(count: int | np.ndarray, n: int | np.ndarray, level: float = 0.95,
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The project's interval for a share: Clopper-Pearson where the count or its complement
    is below 5 (rare events), Wilson otherwise. Never zero-width for 0/n or n/n."""
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    wl, wh = wilson_interval(count, n, level)
    cl, ch = clopper_pearson(count, n, level)
    rare = (count < 5) | (n - count < 5)
    return np.where(rare, cl, wl), np.where(rare, ch, wh)


def binomial_test(count: int, n: int, p: float = 0.5, alternative: str = "two-sided") -> float:
    """Exact binomial test p-value (``scipy.stats.binomtest``); ``alternative`` as in
    :func:`two_proportion_ztest` (``"larger"``: the true share exceeds ``p``).

    >>> round(binomial_test(9, 10), 4)
    0.0215
    """
    _check_count(count, n, "binomial test")
    alt = {"two-sided": "two-sided", "larger": "greater", "smaller": "less"}[alternative]
    return float(sps.binomtest(int(count), int(n), p, alternative=alt).pvalue)


def fisher_exact(count1: int, n1: int, count2: int, n2: int,
                 alternative: str = "two-sided") -> float:
    """Fisher's exact test that two groups share one proportion (for rare events, where an
    expected count is below 5 and chi-square or z does not hold).

    >>> round(fisher_exact(1, 10, 7, 12), 4)
    0.031
    """
    _check_count(count1, n1, "sample 1")
    _check_count(count2, n2, "sample 2")
    alt = {"two-sided": "two-sided", "larger": "greater", "smaller": "less"}[alternative]
    table = [[count1, n1 - count1], [count2, n2 - count2]]
    return float(sps.fisher_exact(table, alternative=alt).pvalue)


def two_proportion_test(count1: int, n1: int, count2: int, n2: int,
                        alternative: str = "two-sided") -> tuple[float, str]:
    """(p-value, test name): the pooled z-test where every expected cell count is >= 5, else
    Fisher's exact test."""
    pool = (count1 + count2) / (n1 + n2)
    expected = [n1 * pool, n1 * (1 - pool), n2 * pool, n2 * (1 - pool)]
    if min(expected) < 5:
        return fisher_exact(count1, n1, count2, n2, alternative), "Fisher exact"
    return two_proportion_ztest(count1, n1, count2, n2, alternative).pvalue, "two-proportion z"


def k_proportions_test(counts: Sequence[int] | pd.Series, totals: Sequence[int] | pd.Series,
                       *, n_perm: int = 10000, seed: int = 0) -> tuple[float, str]:
    """(p-value, test name) that k groups share one proportion: chi-square where every
    expected count is >= 5, else a seeded permutation test of the chi-square statistic
    (group labels shuffled over the pooled outcomes; exact in the limit)."""
    res = chi2_proportions(counts, totals)
    if (res.expected.to_numpy() >= 5).all():
        return res.pvalue, "chi-square"
    return _permutation_chi2(tuple(np.asarray(counts, dtype=int).tolist()),
                             tuple(np.asarray(totals, dtype=int).tolist()), int(n_perm),
                             int(seed)), "permutation chi-square"


#: permutations drawn per block in :func:`_permutation_chi2` (memory: block x texts floats)
PERM_BLOCK = 256


@functools.lru_cache(maxsize=4096)
def _permutation_chi2(counts: tuple[int, ...], totals: tuple[int, ...], n_perm: int,
                      seed: int) -> float:
    """The permutation p-value of :func:`k_proportions_test`. The permutations are drawn one by
    one as a one-permutation-at-a-time loop would (the same random stream), their statistics
    computed a block at a time; and the same call gives the same answer, so answers are
    remembered (a notebook grades its claims under several choices, most tests unchanged)."""
    counts_a, totals_a = np.asarray(counts, dtype=int), np.asarray(totals, dtype=int)
    keep = totals_a > 0
    counts_a, totals_a = counts_a[keep], totals_a[keep]
    outcomes = np.concatenate([np.r_[np.ones(c), np.zeros(t - c)] for c, t in zip(counts_a, totals_a)])
    rng = np.random.default_rng(seed)
    p_all = outcomes.mean()
    exp1 = totals_a * p_all
    exp0 = totals_a * (1 - p_all)
    # the groups are consecutive blocks of the outcomes: a permutation's count per group is
    # the sum of its block (sums of 0/1, exact in any order)
    starts = np.r_[0, np.cumsum(totals_a)[:-1]]

    def stat(c1: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (c1 - exp1) ** 2 / exp1 + ((totals_a - c1) - exp0) ** 2 / exp0
        return np.nansum(s, axis=-1)

    obs = float(stat(np.add.reduceat(outcomes, starts)))
    hits = 0
    for done in range(0, n_perm, PERM_BLOCK):
        block = np.stack([rng.permutation(outcomes) for _ in range(min(PERM_BLOCK, n_perm - done))])
        hits += int((stat(np.add.reduceat(block, starts, axis=1)) >= obs - 1e-12).sum())
    return (hits + 1) / (n_perm + 1)


def mcnemar(b: int, c: int, exact: bool | None = None) -> tuple[float, str]:
    """(p-value, test name) of McNemar's test for paired binary outcomes: ``b`` pairs where
    only the first member is positive, ``c`` where only the second is. Exact (binomial on
    b + c discordant pairs) when ``b + c < 25`` or ``exact=True``; else the chi-square form
    without continuity correction (as ``statsmodels`` ``mcnemar(exact=False,
    correction=False)``).

    >>> round(mcnemar(2, 9)[0], 4)
    0.0654
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got {b}, {c}")
    if b + c == 0:
        return 1.0, "McNemar exact"
    if exact or (exact is None and b + c < 25):
        return float(sps.binomtest(int(min(b, c)), int(b + c), 0.5).pvalue), "McNemar exact"
    chi2 = (b - c) ** 2 / (b + c)
    return float(sps.chi2.sf(chi2, 1)), "McNemar chi-square"


def paired_table(first: Sequence[bool] | np.ndarray, second: Sequence[bool] | np.ndarray,
                 ) -> tuple[int, int, int, int]:
    """(both, only first, only second, neither) of two aligned binary outcomes."""
    a = np.asarray(first, dtype=bool)
    b = np.asarray(second, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes must align, got {a.shape} and {b.shape}")
    return int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum()), int((~a & ~b).sum())


# --------------------------------------------------------------------------- power
def _z(alpha: float, power: float) -> float:
    return float(sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power))


def mde_from_se(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable effect of an estimator with standard error ``se`` (two-sided)."""
    return _z(alpha, power) * se


def power_from_se(effect: float, se: float, alpha: float = 0.05) -> float:
    """Power of a two-sided level-``alpha`` z-test to detect ``effect`` with standard error
    ``se`` (both tails)."""
    if se <= 0:
        return float("nan")
    z = sps.norm.ppf(1 - alpha / 2)
    d = abs(effect) / se
    return float(sps.norm.sf(z - d) + sps.norm.cdf(-z - d))


def n_needed_from_se(effect: float, se: float, n: float, alpha: float = 0.05,
                     power: float = 0.8) -> float:
    """The n at which an estimator whose standard error is ``se`` at ``n`` (and scales as
    ``1 / sqrt(n)``) detects ``effect`` with the given power: ``n (mde / effect)^2``."""
    if effect == 0 or se <= 0 or not n:
        return float("nan")
    return float(math.ceil(n * (mde_from_se(se, alpha, power) / abs(effect)) ** 2))


def mde_two_proportions(p: float, n1: int, n2: int | None = None, alpha: float = 0.05,
                        power: float = 0.8) -> float:
    """Smallest difference of two shares (base share ``p``, ``n1`` and ``n2`` per group)
    that a two-sided test detects with the given power (normal approximation, unpooled at
    ``p``). At p = 0.05 and 50 per group it is about 0.12.

    >>> round(mde_two_proportions(0.05, 50), 3)
    0.122
    """
    n2 = n1 if n2 is None else n2
    return _z(alpha, power) * math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))


def n_two_proportions(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8,
                      ratio: float = 1.0) -> int:
    """n per group (the first; the second is ``ratio`` times it) for a two-sided test of two
    shares ``p1`` vs ``p2`` (Cohen's h, as ``statsmodels`` ``NormalIndPower``).

    >>> n_two_proportions(0.069, 0.047)
    1757
    """
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    h = abs(proportion_effectsize(p1, p2))
    if h == 0:
        return 0
    n = NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=ratio)
    return int(math.ceil(n))


def mde_two_means(sd: float, n1: int, n2: int | None = None, alpha: float = 0.05,
                  power: float = 0.8) -> float:
    """Smallest difference of two means (common ``sd``) detectable at the given power."""
    n2 = n1 if n2 is None else n2
    return _z(alpha, power) * sd * math.sqrt(1 / n1 + 1 / n2)


def n_two_means(diff: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """n per group for a two-sided two-sample t-test to detect ``diff`` with common ``sd``
    (``statsmodels`` ``TTestIndPower``).

    >>> n_two_means(0.5, 1.0)
    64
    """
    from statsmodels.stats.power import TTestIndPower

    if diff == 0:
        return 0
    n = TTestIndPower().solve_power(effect_size=abs(diff) / sd, alpha=alpha, power=power)
    return int(math.ceil(n))


def diff_proportions_interval(count1: int, n1: int, count2: int, n2: int,
                              level: float = 0.95) -> tuple[float, float]:
    """Interval of ``count1 / n1 - count2 / n2`` by Newcombe's hybrid score method (Wilson
    intervals combined; never zero-width for rare events), as ``statsmodels``
    ``confint_proportions_2indep(method="newcomb")``.

    >>> [round(x, 4) for x in diff_proportions_interval(56, 70, 48, 80)]
    [0.0524, 0.3339]
    """
    _check_count(count1, n1, "sample 1")
    _check_count(count2, n2, "sample 2")
    from statsmodels.stats.proportion import confint_proportions_2indep

    lo, hi = confint_proportions_2indep(count1, n1, count2, n2, method="newcomb",
                                        compare="diff", alpha=1 - level)
    return float(lo), float(hi)


def paired_diff_proportions_interval(both: int, only_first: int, only_second: int, neither: int,
                                     level: float = 0.95) -> tuple[float, float]:
    """Interval of the difference ``p1 - p2`` of two paired proportions (each of n units is
    classified twice: ``both`` positive, ``only_first``, ``only_second``, ``neither``; ``p1 =
    (both + only_first) / n``, ``p2 = (both + only_second) / n``) by Newcombe's (1998, Stat Med
    17:2635-2650) method 10: the Wilson intervals of p1 and p2 combined by square-and-add with
    a correction for their correlation (phi of the 2x2 table, shrunk by n/2 when positive; 0
    when a margin is empty). Unlike a Wald or a paired bootstrap interval it is not zero-width
    when no unit is discordant: 53 concordant positive and 1 concordant negative pair give
    [-0.0729, +0.0729] (Newcombe's Table II, example c).

    >>> [round(x, 4) for x in paired_diff_proportions_interval(36, 12, 2, 0)]
    [0.0569, 0.3404]
    """
    counts = (both, only_first, only_second, neither)
    if min(counts) < 0:
        raise ValueError(f"paired counts must be >= 0, got {counts}")
    e, f, g, h = (int(c) for c in counts)
    n = e + f + g + h
    if n == 0:
        raise ValueError("paired counts: no units")
    p1, p2 = (e + f) / n, (e + g) / n
    (l1, l2), (u1, u2) = wilson_interval(np.array([e + f, e + g]), n, level)
    margins = (e + f) * (g + h) * (e + g) * (f + h)
    phi = 0.0
    if margins:
        cross = e * h - f * g
        phi = (max(cross - n / 2, 0.0) if cross > 0 else cross) / math.sqrt(margins)
    dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    lo = (p1 - p2) - math.sqrt(max(dl1 ** 2 - 2 * phi * dl1 * du2 + du2 ** 2, 0.0))
    hi = (p1 - p2) + math.sqrt(max(du1 ** 2 - 2 * phi * du1 * dl2 + dl2 ** 2, 0.0))
    return max(lo, -1.0), min(hi, 1.0)
