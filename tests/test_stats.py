"""Proportion tests of BOLD §6.1-6.2 (nlgbias.stats) against hand-computed values, scipy,
statsmodels, and the paper's own numbers."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportions_chisquare, proportions_ztest

from nlgbias.stats import (
    chi2_independence,
    chi2_proportions,
    format_p,
    two_proportion_ztest,
)


def test_ztest_hand_computed():
    # 30/100 vs 20/100: pooled p = 0.25, se = sqrt(.25 * .75 * (1/100 + 1/100)) = 0.0612372
    t = two_proportion_ztest(30, 100, 20, 100)
    assert t.p1 == 0.3 and t.p2 == 0.2
    assert t.statistic == pytest.approx(0.1 / math.sqrt(0.25 * 0.75 * 0.02), abs=1e-12)
    assert t.statistic == pytest.approx(1.632993, abs=1e-6)
    assert t.pvalue == pytest.approx(0.102470, abs=1e-6)
    assert two_proportion_ztest(30, 100, 20, 100, "larger").pvalue == pytest.approx(0.051235,
                                                                                   abs=1e-6)
    assert two_proportion_ztest(30, 100, 20, 100, "smaller").pvalue == pytest.approx(
        1 - 0.051235, abs=1e-6)


@pytest.mark.parametrize("c1,n1,c2,n2", [(5, 40, 17, 60), (848, 12288, 326, 6936), (0, 10, 3, 12)])
def test_ztest_matches_statsmodels(c1, n1, c2, n2):
    z, p = proportions_ztest([c1, c2], [n1, n2])
    t = two_proportion_ztest(c1, n1, c2, n2)
    assert t.statistic == pytest.approx(z, rel=1e-10)
    assert t.pvalue == pytest.approx(p, rel=1e-10)


def test_ztest_reproduces_paper_6_1_2():
    # BOLD §6.1.2: positive proportions male 0.17041, female 0.17763 pooled over six sources
    # (6 x 2,048 actor and 6 x 1,156 actress prompts), "p-value in binomial proportion test: 0.204"
    t = two_proportion_ztest(2094, 6 * 2048, 1232, 6 * 1156)
    assert round(t.p1, 5) == 0.17041 and round(t.p2, 5) == 0.17762  # paper rounds up: 0.17763
    assert round(t.pvalue, 3) == 0.204
    # negative: 0.069 vs 0.047, "p-value < 0.01"
    t = two_proportion_ztest(round(0.069 * 12288), 12288, round(0.047 * 6936), 6936)
    assert t.pvalue < 0.01


def test_ztest_degenerate_and_errors():
    t = two_proportion_ztest(0, 10, 0, 20)
    assert math.isnan(t.statistic) and math.isnan(t.pvalue)
    with pytest.raises(ValueError, match="count 11"):
        two_proportion_ztest(11, 10, 1, 10)
    with pytest.raises(ValueError, match="sample size"):
        two_proportion_ztest(0, 0, 1, 10)
    with pytest.raises(ValueError, match="alternative"):
        two_proportion_ztest(1, 10, 1, 10, "bigger")


def test_chi2_hand_computed():
    # expected 15 in every cell: chi2 = 4 * 25 / 15 = 6.6667, dof 1
    r = chi2_independence([[10, 20], [20, 10]])
    assert r.statistic == pytest.approx(20 / 3, abs=1e-12)
    assert r.dof == 1
    assert r.pvalue == pytest.approx(sps.chi2.sf(20 / 3, 1), rel=1e-12)
    assert r.pvalue == pytest.approx(0.0098232, abs=1e-7)
    np.testing.assert_allclose(r.proportions.to_numpy(), [[1 / 3, 2 / 3], [2 / 3, 1 / 3]])
    np.testing.assert_allclose(r.expected.to_numpy(), 15.0)
    # Yates: (|O - E| - 0.5)^2 -> 4 * 4.5^2 / 15 = 5.4
    assert chi2_independence([[10, 20], [20, 10]], correction=True).statistic == pytest.approx(5.4)


def test_chi2_matches_scipy_3x3():
    table = np.array([[12, 30, 8], [20, 25, 5], [9, 40, 11]])
    r = chi2_independence(pd.DataFrame(table, index=["a", "b", "c"]))
    ref = sps.chi2_contingency(table)
    assert r.statistic == pytest.approx(ref.statistic) and r.pvalue == pytest.approx(ref.pvalue)
    assert r.dof == 4
    assert list(r.proportions.index) == ["a", "b", "c"]


def test_chi2_proportions_reproduces_paper_6_1_3():
    # BOLD §6.1.3 pooled over six sources: race sizes 6 x (1854, 861, 4839, 103)
    n = pd.Series([11124, 5166, 29034, 618], index=["African", "Asian", "European", "Hispanic"])
    neg = pd.Series([907, 254, 2173, 43], index=n.index)  # 0.08154, 0.04917, 0.07484, 0.06958
    tox = pd.Series([33, 4, 56, 1], index=n.index)  # 0.00297, 0.00077, 0.00193, 0.00162
    r = chi2_proportions(neg, n)
    np.testing.assert_allclose(r.proportions["success"].round(5),
                               [0.08154, 0.04917, 0.07484, 0.06958])
    assert r.pvalue < 0.001  # paper: "chi-square test p-value < 0.001"
    chi2, p, _ = proportions_chisquare(neg.to_numpy(), n.to_numpy())
    assert r.statistic == pytest.approx(chi2) and r.pvalue == pytest.approx(p)
    r = chi2_proportions(tox, n)
    np.testing.assert_allclose(r.proportions["success"].round(5),
                               [0.00297, 0.00077, 0.00193, 0.00162])
    # the paper states < 0.001, but its own proportions give p = 0.030
    assert r.statistic == pytest.approx(8.959219, abs=1e-5)
    assert r.pvalue == pytest.approx(0.029838, abs=1e-5)


def test_chi2_errors_and_zero_margins():
    with pytest.raises(ValueError, match="2x2"):
        chi2_proportions([0, 0, 0], [10, 20, 30])  # nothing toxic anywhere
    with pytest.raises(ValueError, match="negative"):
        chi2_independence([[1, -1], [2, 3]])
    # an all-zero row is dropped, not an error
    r = chi2_independence([[10, 20], [0, 0], [20, 10]])
    assert r.statistic == pytest.approx(20 / 3)


def test_format_p():
    assert format_p(0.2041) == "0.204"
    assert format_p(3.5e-12) == "< 0.001"
    assert format_p(float("nan")) == "n/a"


def test_adjust_pvalues_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    from nlgbias.stats import adjust_pvalues

    p = np.array([0.001, 0.02, 0.03, 0.2, 0.04, np.nan])
    for method in ("holm", "fdr_bh"):
        got = adjust_pvalues(p, method)
        want = multipletests(p[:-1], method=method)[1]
        assert np.allclose(got[:-1], want) and np.isnan(got[-1])
    # by hand: Holm multiplies the k-th smallest by (m - k + 1), monotone
    assert np.allclose(adjust_pvalues([0.01, 0.04, 0.03], "holm"), [0.03, 0.06, 0.06])
    with pytest.raises(ValueError, match="unknown correction 'bonf'"):
        adjust_pvalues([0.1], "bonf")


def test_holm_equals_statsmodels_bit_for_bit(monkeypatch):
    """The in-house Holm (no garbage collection per call) gives multipletests' bytes: random
    families of 1-300 p-values, with ties, exact 0 and 1, and adjusted values capped at 1."""
    import gc

    from statsmodels.stats.multitest import multipletests

    # multipletests' Holm collects garbage on every call: in a test session's heap that is most
    # of a second per call, and it touches no value
    monkeypatch.setattr(gc, "collect", lambda *a, **k: 0)

    from nlgbias.stats import adjust_pvalues

    rng = np.random.default_rng(0)
    for i in range(400):
        m = int(rng.integers(1, 300))
        p = rng.uniform(0, 1, m) ** rng.uniform(0.5, 8)
        if i % 3 == 0:
            p = np.round(p, 2)  # ties
        if i % 5 == 0:
            p[rng.integers(0, m)], p[rng.integers(0, m)] = 0.0, 1.0
        got = adjust_pvalues(p, "holm")
        assert got.tobytes() == multipletests(p, method="holm")[1].tobytes()


def test_bootstrap_interval_covers_a_known_proportion_about_95_percent():
    from nlgbias.stats import bootstrap_interval

    rng = np.random.default_rng(0)
    true_p, n, hits, trials = 0.3, 200, 0, 200
    for s in range(trials):
        x = rng.random(n) < true_p
        lo, hi = bootstrap_interval(x, n_boot=400, seed=s)
        hits += lo <= true_p <= hi
    assert 0.90 <= hits / trials <= 0.99, hits / trials


def test_cluster_bootstrap_is_wider_when_groups_are_correlated():
    from nlgbias.stats import bootstrap_interval

    groups = np.repeat(np.arange(20), 10)
    values = np.repeat(np.random.default_rng(1).random(20), 10)  # identical within a group
    lo_i, hi_i = bootstrap_interval(values, seed=0)
    lo_c, hi_c = bootstrap_interval(values, groups=groups, seed=0)
    assert hi_c - lo_c > 2 * (hi_i - lo_i)
    assert bootstrap_interval(values, groups=groups, seed=0) == (lo_c, hi_c)  # seeded


def test_bootstrap_means_equals_bootstrap_interval_per_column():
    from nlgbias.stats import bootstrap_interval, bootstrap_means, percentile_interval

    rng = np.random.default_rng(5)
    for n in (1, 9, 250, 1001):
        x = (rng.random((n, 3)) < [0.1, 0.5, 0.9]).astype(float)
        dist = bootstrap_means(x, n_boot=500, seed=3, chunk=64)
        assert dist.shape == (500, 3)
        lo, hi = percentile_interval(dist)
        for j in range(3):
            assert (lo[j], hi[j]) == bootstrap_interval(x[:, j], n_boot=500, seed=3)
    # 1-D input, real values; a constant sample has a zero-width interval
    y = rng.normal(size=40)
    assert np.allclose(percentile_interval(bootstrap_means(y, n_boot=300, seed=1)),
                       bootstrap_interval(y, n_boot=300, seed=1))
    assert percentile_interval(bootstrap_means(np.ones(7), n_boot=50)) == (1.0, 1.0)


def test_wilson_interval_published_and_statsmodels_values():
    """Wilson score interval: 1 of 50 gives [0.0035, 0.1050]; every row equals statsmodels'
    proportion_confint(method="wilson"); vectorised, NaN where n = 0; proportion_interval takes
    it away from 0 and 1 and Clopper-Pearson where the count or its complement is below 5."""
    from statsmodels.stats.proportion import proportion_confint

    from nlgbias.stats import clopper_pearson, proportion_interval, wilson_interval

    lo, hi = wilson_interval(1, 50)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.0035, 0.105)
    counts, ns = np.array([0, 1, 15, 81, 263, 7]), np.array([10, 50, 40, 263, 263, 0])
    lo, hi = wilson_interval(counts, ns)
    for k, n, a, b in zip(counts[:-1], ns[:-1], lo[:-1], hi[:-1], strict=True):
        assert (a, b) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)
    assert np.isnan(lo[-1]) and np.isnan(hi[-1])
    plo, phi = proportion_interval(counts[:-1], ns[:-1])
    clo, chi = clopper_pearson(counts[:-1], ns[:-1])
    rare = np.array([True, True, False, False, True])  # count or complement below 5
    assert np.array_equal(plo, np.where(rare, clo, lo[:-1]))
    assert np.array_equal(phi, np.where(rare, chi, hi[:-1]))


def _k_proportions_loop(counts, totals, *, n_perm: int = 10000, seed: int = 0) -> tuple[float, str]:
    """The permutation test one permutation at a time (a bincount each): the reference the
    block form of ``k_proportions_test`` is tested against."""
    from nlgbias import stats

    res = stats.chi2_proportions(counts, totals)
    if (res.expected.to_numpy() >= 5).all():
        return res.pvalue, "chi-square"
    counts = np.asarray(counts, dtype=int)
    totals = np.asarray(totals, dtype=int)
    keep = totals > 0
    counts, totals = counts[keep], totals[keep]
    outcomes = np.concatenate([np.r_[np.ones(c), np.zeros(t - c)] for c, t in zip(counts, totals)])
    labels = np.repeat(np.arange(len(totals)), totals)
    rng = np.random.default_rng(seed)
    p_all = outcomes.mean()
    exp1 = totals * p_all
    exp0 = totals * (1 - p_all)

    def stat(o: np.ndarray) -> float:
        c1 = np.bincount(labels, weights=o, minlength=len(totals))
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (c1 - exp1) ** 2 / exp1 + ((totals - c1) - exp0) ** 2 / exp0
        return float(np.nansum(s))

    obs = stat(outcomes)
    hits = sum(stat(rng.permutation(outcomes)) >= obs - 1e-12 for _ in range(n_perm))
    return (hits + 1) / (n_perm + 1), "permutation chi-square"


def test_permutation_chi2_in_blocks_equals_one_at_a_time():
    """k_proportions_test's permutation p (statistics a block of permutations at a time,
    answers remembered) equals the one-permutation-at-a-time loop: small and rare counts,
    12 groups."""
    from nlgbias import stats

    rng = np.random.default_rng(5)
    cases = [([0, 1, 17], [500, 400, 600]), ([10, 2, 14, 1], [100, 50, 200, 10]),
             ([3, 0, 2, 1, 0, 4, 1, 0, 2, 1, 0, 0], [300, 120, 200, 90, 50, 400, 70, 12, 150, 100, 29, 60]),
             ([1, 0, 0], [40, 25, 30])]
    for _ in range(8):
        tot = rng.integers(5, 300, int(rng.integers(2, 8)))
        cases.append((rng.binomial(tot, 0.02).tolist(), tot.tolist()))
    for counts, totals in cases:
        for n_perm in (999, 300):
            want = _k_proportions_loop(counts, totals, n_perm=n_perm, seed=3)
            assert stats.k_proportions_test(counts, totals, n_perm=n_perm, seed=3) == want
            assert stats.k_proportions_test(pd.Series(counts), pd.Series(totals), n_perm=n_perm,
                                            seed=3) == want  # remembered


def test_spearman_rows_is_scipys_spearmanr_on_every_row():
    from nlgbias.stats import spearman_rows

    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, size=(400, 9)).astype(float)  # many ties, some constant rows
    y = rng.normal(size=(400, 9)).round(1)
    x[5] = 2.0
    got = spearman_rows(x, y)
    for k in range(len(x)):
        if (x[k] == x[k, 0]).all() or (y[k] == y[k, 0]).all():
            assert np.isnan(got[k])
        else:
            assert got[k] == pytest.approx(sps.spearmanr(x[k], y[k])[0], abs=1e-12)
    assert np.isnan(got[5]) and np.isfinite(got).sum() > 350
