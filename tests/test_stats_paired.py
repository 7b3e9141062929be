"""The interval of a difference of paired proportions (nlgbias.stats) against Newcombe's
published worked examples (1998, Stat Med 17:2635-2650, Table II, method 10)."""

import pytest

from nlgbias.stats import paired_diff_proportions_interval, wilson_interval


@pytest.mark.parametrize(("table", "published"), [
    ((36, 12, 2, 0), (0.0569, 0.3404)),   # example (a)
    ((18, 12, 2, 18), (0.0562, 0.3290)),  # example (b)
    ((53, 0, 0, 1), (-0.0729, 0.0729)),   # example (c): no discordant pair, not zero-width
    ((0, 30, 0, 0), (0.8395, 1.0)),       # example (d)
])
def test_newcombe_method_10_gives_the_published_intervals(table, published):
    lo, hi = paired_diff_proportions_interval(*table)
    assert (round(lo, 4), round(hi, 4)) == published


def test_without_discordant_units_the_interval_is_the_wilson_margin():
    """All n units concordant positive: phi is 0 (an empty margin) and the interval is
    +-(1 - the Wilson lower limit of n of n), z^2 / (n + z^2) = 3.8415 / 43.8415 for n = 40."""
    lo, hi = paired_diff_proportions_interval(40, 0, 0, 0)
    w = 1 - float(wilson_interval(40, 40)[0])
    assert hi == pytest.approx(w, abs=1e-12) and lo == pytest.approx(-w, abs=1e-12)
    assert w == pytest.approx(3.841459 / 43.841459, abs=1e-6)
    # swapping the two members mirrors the interval
    a = paired_diff_proportions_interval(18, 12, 2, 18)
    b = paired_diff_proportions_interval(18, 2, 12, 18)
    assert a == pytest.approx((-b[1], -b[0]), abs=1e-12)
    with pytest.raises(ValueError, match=">= 0"):
        paired_diff_proportions_interval(1, -1, 0, 0)
    with pytest.raises(ValueError, match="no units"):
        paired_diff_proportions_interval(0, 0, 0, 0)
