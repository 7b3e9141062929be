"""Claims and their verdicts: one rule set for every paper.

A reproduction's product is its verdicts, so a verdict is never typed: each paper package
declares its claims in ``<paper>/claims.py`` and builds each one with a **rule** from this
module, which computes the verdict from the paper's value, this run's estimate, its 95 %
interval and n. The scorecard (:mod:`nlgbias.scorecard`) reads the resulting tables and
counts :class:`Verdict` values; nothing maps free text to a verdict.

Three tallies, never mixed (:data:`TALLIES`); a claim's tally follows from what it compares:

- **reproduction** (the headline): like-for-like, the paper's own data and method on our side
  (a released dataset recounted, the official scorer, the paper's own samples, WIKI with the
  paper's scorer) against the paper's number. Verdicts:

  - ``reproduced``: the paper's value lies inside this run's interval; for a directional
    claim the same direction, significant at the paper's level where the paper claims
    significance (else: an interval that excludes no effect), after the Holm adjustment of
    its family where it has one; for a ranking, agreement whose interval clears a bound;
  - ``differs``: the interval excludes the paper's value, or the effect is significant in the
    opposite direction, or the test had >= 80 % power to detect the paper's effect and found
    none;
  - ``inconclusive``: the interval holds both the paper's value (or effect) and no effect. The
    row gives the minimum detectable effect (``mde``) and the n that 80 % power needs
    (``n_needed``, in ``unit``), never above the ``population`` the sample is drawn from:
    where it would be, the row says that this dataset cannot decide it;
  - ``not tested``: the claim needs a model, scorer or data not available offline (the row
    says which);
  - ``paper inconsistent``: the paper's text, tables or released data disagree among
    themselves (a finding about the paper, with the evidence).

- **replication on a stand-in**: whatever a stand-in model or a stand-in scorer measured, or
  another pool, or a contrast of two arms of our own experiment (``grades="direction within
  run"``: tuned vs original). A direction or a ranking is graded with the same rule and its
  own words: ``holds`` / ``does not hold`` / ``undecided``; a magnitude on a stand-in, or a
  row whose method differs from the paper's, is ``not comparable`` (what the rule would say is
  kept as context).

- **calibration of a stand-in scorer**: the stand-in scorer against the paper's scorer's
  printed output on the same texts (``calibrates="<scorer>"``), graded by
  :func:`calibration_recount`: the texts are the ones the paper's scorer scored, so nothing is
  sampled: ``agrees`` within the stated margin, ``disagrees`` beyond it, ``undecided`` where a
  stand-in with training seeds is within for some seeds and beyond for others (or, only where
  this run's texts are a sample of the paper's, where the sampling interval reaches both);
  ``not tested`` where the paper prints no output of that scorer on texts we have. Every replication row that uses a stand-in scorer names it (``scorer``), and the
  scorecard shows that scorer's calibration outcome beside it.

Order matters: where an interval holds both the paper's value and no effect the verdict is
``inconclusive``, whatever else holds. A claim with no natural "no effect" (a count, a length,
a recount of identical data) is decided by a stated tolerance (:func:`tolerance`), never by a
bootstrap over the same texts.

**Families** (:class:`Family`): the directional rows of one table or one figure form a stated
family; their p-values are Holm-adjusted together before a direction is graded, and each row
names its family.

**Checks** (:func:`check`): what holds by construction, diagnostics, data counts and derived
restatements of recounted cells are listed apart and never counted as claims.

**Comparability** (:class:`Comparability`): ``like-for-like``, ``stand-in`` (naming it),
``different pool`` (saying which) or ``different method`` (saying how).

Power: from the run's interval the standard error is ``se = (hi - lo) / (2 z_0.975)``; the
minimum detectable effect at 80 % power and two-sided alpha is ``(z_(1-alpha/2) + z_0.8) se``
and, as ``se`` scales with ``1 / sqrt(n)``, the n that detects an effect ``d`` is
``n (mde / d)^2`` (:func:`nlgbias.stats.mde_from_interval`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path

import pandas as pd

from nlgbias import stats

log = logging.getLogger(__name__)


class Verdict(str, Enum):
    """The verdict of a claim (see the module docstring for the rules)."""

    REPRODUCED = "reproduced"
    DIFFERS = "differs"
    INCONCLUSIVE = "inconclusive"
    NOT_TESTED = "not tested"
    PAPER_INCONSISTENT = "paper inconsistent"
    HOLDS = "holds"
    DOES_NOT_HOLD = "does not hold"
    UNDECIDED = "undecided"
    NOT_COMPARABLE = "not comparable"
    AGREES = "agrees"
    DISAGREES = "disagrees"

    def __str__(self) -> str:
        return self.value


class Tally(str, Enum):
    """Which count a claim belongs to (see the module docstring)."""

    REPRODUCTION = "reproduction"
    REPLICATION = "replication"
    CALIBRATION = "calibration"

    def __str__(self) -> str:
        return self.value


#: each tally's outcome words, in the order the scorecard shows them
TALLIES: dict[str, tuple[str, ...]] = {
    Tally.REPRODUCTION.value: ("reproduced", "differs", "inconclusive", "not tested",
                               "paper inconsistent"),
    Tally.REPLICATION.value: ("holds", "does not hold", "undecided", "not comparable",
                              "not tested"),
    Tally.CALIBRATION.value: ("agrees", "disagrees", "undecided", "not tested"),
}
#: one line per tally: what it counts
TALLY_MEANING: dict[str, str] = {
    "reproduction": "the paper's own data and method on our side (a released "
                    "dataset recounted, the official scorer, the paper's own samples, WIKI with "
                    "the paper's scorer) against the paper's number",
    "replication": "what a stand-in model or scorer, another pool or a contrast "
                   "of two arms of our own experiment shows about the paper's finding (a "
                   "direction or ranking holds / does not hold / is undecided; a magnitude on a "
                   "stand-in or a different method is not comparable)",
    "calibration": "a stand-in scorer against the paper's scorer's printed output on the same "
                   "texts, a recount graded by the stated margin (agrees / disagrees; undecided "
                   "where it depends on the stand-in's training seed or, on a sample of the "
                   "paper's texts, where the sampling interval reaches both; not tested where "
                   "the paper prints none)",
}
TALLY_NAMES: dict[str, str] = {"reproduction": "Reproduction (like-for-like)",
                               "replication": "Replication on a stand-in",
                               "calibration": "Calibration of stand-in scorers"}

VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)
#: the rule's outcome (in the reproduction's words) in a replication's and a calibration's words
_AS_REPLICATION = {Verdict.REPRODUCED: Verdict.HOLDS, Verdict.DIFFERS: Verdict.DOES_NOT_HOLD,
                   Verdict.INCONCLUSIVE: Verdict.UNDECIDED}
_AS_CALIBRATION = {Verdict.REPRODUCED: Verdict.AGREES, Verdict.DIFFERS: Verdict.DISAGREES,
                   Verdict.INCONCLUSIVE: Verdict.UNDECIDED}


class Comparability(str, Enum):
    """How this run's number relates to the paper's."""

    LIKE_FOR_LIKE = "like-for-like"
    STAND_IN = "stand-in"
    DIFFERENT_POOL = "different pool"
    DIFFERENT_METHOD = "different method"

    def __str__(self) -> str:
        return self.value


#: the fixed rule set; ``Claim.rule`` is one of these
RULES: dict[str, str] = {
    "value in interval": "the paper's value inside this run's 95% interval reproduces it; outside, "
                         "it differs; an interval holding both the paper's value and no effect is "
                         "inconclusive",
    "direction": "the same direction with an interval (or test) that excludes no effect at the "
                 "paper's level reproduces it; a significant opposite direction, or >= 80% power "
                 "to detect the paper's effect and none found, differs; else inconclusive",
    "ranking": "an agreement statistic whose 95% interval lies above the stated bound reproduces "
               "it; below it, differs; an interval across the bound is inconclusive",
    "tolerance": "for a claim with no natural 'no effect' (a count, a length): within the "
                 "stated tolerance of the paper's value reproduces it, else it differs",
    "non-inferiority": "'A is not worse than B' (better than or comparable with): the 95% interval "
                       "of A - B wholly above -margin (a stated margin) reproduces it; wholly "
                       "below -margin, it differs; across -margin, inconclusive",
    "calibration recount": "a stand-in scorer on the same texts the paper's scorer scored (no "
                           "sampling: no interval, no n needed): within the stated margin of the "
                           "paper's value agrees, beyond it disagrees; with training seeds, every "
                           "seed within agrees, every seed beyond on one side disagrees, else "
                           "undecided (it depends on the training seed); where our texts are a "
                           "sample of the paper's, the sampling interval decides as for value in "
                           "interval",
    "paper consistency": "the paper's own numbers (text, tables, released data) disagree",
    "not tested": "the claim needs a model, scorer or data that is not available offline; the "
                  "row says which",
}

#: the columns of every claims table (``results/<paper>_claims_*.csv``)
CLAIM_COLUMNS: tuple[str, ...] = (
    "id", "section", "claim", "paper", "this run", "statistic", "estimate", "estimate_lo",
    "estimate_hi", "n", "comparability", "stand-in", "rule", "grades", "tally", "verdict",
    "reason", "family", "scorer", "mde", "n_needed", "unit", "population")
#: the columns of every checks table (``results/<paper>_checks_*.csv``)
CHECK_COLUMNS: tuple[str, ...] = ("id", "section", "check", "kind", "expected", "this run",
                                  "passed")
CHECK_KINDS = ("by construction", "diagnostic", "data count", "recount")
#: an optional column of a claims table, written only where some row has it: the analysis
#: choices inside whose stated range the row's outcome changes (:attr:`Claim.sensitive_to`)
SENSITIVE_COLUMN = "sensitive to"

Z975 = stats.Z975
_NAN = float("nan")
#: fewer independent units than this (descriptors, targets, seeds) behind a resampling interval
#: and the interval cannot decide: a bootstrap over 3 descriptors has 10 distinct draws
MIN_UNITS = 5


@dataclass(frozen=True)
class Claim:
    """One claim of a paper with this run's evidence and its computed verdict.

    Build it with a rule (:func:`value_in_interval`, :func:`direction`, :func:`ranking`,
    :func:`tolerance`, :func:`paper_inconsistent`), never directly.
    """

    id: str
    section: str
    claim: str
    paper: str  # the paper's value as printed (from the paper package's paper.py)
    this_run: str  # this run's value as printed, with its interval
    statistic: str  # what ``estimate`` is (e.g. "negative share, male - female")
    estimate: float
    estimate_lo: float
    estimate_hi: float
    n: str  # the sample size(s) behind the estimate, e.g. "1,204 / 1,077 texts"
    comparability: Comparability
    stand_in: str  # the stand-in or the other pool, named ("" for like-for-like)
    rule: str
    grades: str  # which part of the claim the rule grades: "value", "direction", ...
    verdict: Verdict
    reason: str  # the rule's computation, in one line with its numbers
    mde: float = _NAN
    n_needed: float = _NAN
    tally: Tally = Tally.REPRODUCTION
    family: str = ""  # the stated family whose p-values were Holm-adjusted together
    scorer: str = ""  # the stand-in scorer this row's number comes from (its calibration key)
    unit: str = ""  # the unit n_needed is counted in (texts, descriptors, seeds, ...)
    population: float = _NAN  # how many of that unit exist to be drawn
    #: the analysis choices (ours, each graded over a stated range) inside whose range this
    #: row's outcome changes ("" where none does); written as :data:`SENSITIVE_COLUMN`
    sensitive_to: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    def row(self) -> dict:
        d = asdict(self)
        d.pop("extra")
        d["this run"] = d.pop("this_run")
        d["stand-in"] = d.pop("stand_in")
        d["comparability"] = str(self.comparability)
        d["verdict"] = str(self.verdict)
        d["tally"] = str(self.tally)
        return {c: d[c] for c in CLAIM_COLUMNS}


@dataclass(frozen=True)
class Check:
    """A statement that holds by construction, a diagnostic or a data count: listed apart from
    the claims and never counted as one."""

    id: str
    section: str
    check: str
    kind: str
    expected: str
    this_run: str
    passed: bool

    def row(self) -> dict:
        return {"id": self.id, "section": self.section, "check": self.check, "kind": self.kind,
                "expected": self.expected, "this run": self.this_run, "passed": bool(self.passed)}


@dataclass(frozen=True)
class Family:
    """A stated family of directional rows (one table, one figure) whose p-values are
    Holm-adjusted together before a direction is graded.

    >>> f = Family("BOLD Table 4 (4 emotions)", {"anger": 0.015, "sad": 0.021, "fear": 0.02,
    ...            "disgust": 0.017})
    >>> round(f.p("anger"), 3), f.label
    (0.06, 'BOLD Table 4 (4 emotions): 4 rows, Holm')
    """

    name: str
    pvalues: dict

    def __post_init__(self):
        if not self.pvalues:
            raise ValueError(f"family {self.name!r} has no rows")
        bad = {k: v for k, v in self.pvalues.items() if not (0 <= float(v) <= 1)}
        if bad:
            raise ValueError(f"family {self.name!r}: p-values outside [0, 1]: {bad}")

    @property
    def label(self) -> str:
        return f"{self.name}: {len(self.pvalues)} rows, Holm"

    def p(self, key) -> float:
        """The Holm-adjusted p-value of row ``key``."""
        keys = list(self.pvalues)
        if key not in self.pvalues:
            raise KeyError(f"{key!r} is not a row of family {self.name!r} ({keys})")
        adj = stats.adjust_pvalues([float(self.pvalues[k]) for k in keys], "holm")
        return float(adj[keys.index(key)])


# --------------------------------------------------------------------------- helpers
def fmt_interval(estimate: float, lo: float, hi: float, digits: int = 3) -> str:
    """``"0.046 [0.037, 0.055]"``."""
    return f"{estimate:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _tally(comparability: Comparability, grades: str, calibrates: str) -> Tally:
    if calibrates:
        return Tally.CALIBRATION
    if comparability is Comparability.LIKE_FOR_LIKE and grades != "direction within run":
        return Tally.REPRODUCTION
    return Tally.REPLICATION


def _comparability(comparability: Comparability | str, stand_in: str) -> Comparability:
    c = Comparability(comparability)
    if c is not Comparability.LIKE_FOR_LIKE and not stand_in.strip():
        raise ValueError(f"a {c} claim must name its stand-in or pool (stand_in='...')")
    if c is Comparability.LIKE_FOR_LIKE and stand_in.strip():
        raise ValueError("a like-for-like claim has no stand-in; use Comparability.STAND_IN")
    return c


def _check_interval(estimate: float, lo: float, hi: float) -> bool:
    """Whether the estimate and its interval are defined (finite); raise on ``lo > hi``."""
    if not all(map(math.isfinite, (estimate, lo, hi))):
        return False
    if lo > hi:
        raise ValueError(f"interval [{lo}, {hi}] has lo > hi")
    return True


def _undefined(*, id: str, section: str, claim: str, paper: str, statistic: str, estimate: float,
               lo: float, hi: float, n: int | str, comparability: Comparability, stand_in: str,
               rule: str, grades: str) -> Claim:
    """A claim this run gives no finite estimate for (e.g. a change relative to a zero base):
    it cannot decide, and says why."""
    log.warning("claim %s: no finite estimate (%s [%s, %s]): inconclusive", id, estimate, lo, hi)
    return Claim(id=id, section=section, claim=claim, paper=paper,
                 this_run=f"undefined: {estimate} [{lo}, {hi}]", statistic=statistic,
                 estimate=float(estimate), estimate_lo=float(lo), estimate_hi=float(hi),
                 n=_n_text(n), comparability=comparability, stand_in=stand_in, rule=rule,
                 grades=grades, verdict=Verdict.INCONCLUSIVE,
                 reason=(f"this run gives no finite estimate ({estimate} [{lo}, {hi}]; e.g. a "
                         "change relative to a zero base), so it cannot decide"),
                 mde=_NAN, n_needed=_NAN)


def _inside(x: float, lo: float, hi: float) -> bool:
    return lo <= x <= hi


def _power(lo: float, hi: float, n: float | None, effect: float | None,
           alpha: float) -> tuple[float, float, float]:
    """(mde, n_needed, power to detect ``effect``) from the interval's standard error."""
    se = (hi - lo) / (2 * Z975)
    if se <= 0:
        return _NAN, _NAN, _NAN
    mde = stats.mde_from_se(se, alpha=alpha)
    if effect is None or effect == 0 or not math.isfinite(effect):
        return mde, _NAN, _NAN
    power = stats.power_from_se(abs(effect), se, alpha=alpha)
    n_needed = stats.n_needed_from_se(abs(effect), se, n, alpha=alpha) if n else _NAN
    return mde, n_needed, power


def _reachable(c: Claim, population: float | None, unit: str,
               needs: str = "80% power needs") -> Claim:
    """An inconclusive row's n needed against the population it is drawn from: above it, the
    row says that this dataset cannot decide the claim (and keeps no n needed). Also an undecided
    one: a row graded after :func:`_finish` (an equivalence / non-inferiority row given its
    replication verdict by its own rule) is checked the same way."""
    if c.verdict not in (Verdict.INCONCLUSIVE, Verdict.UNDECIDED) or not math.isfinite(c.n_needed):
        return c
    if population is None:
        raise ValueError(f"claim {c.id}: an {c.verdict} row with an n needed "
                         f"({c.n_needed:,.0f}) must state the population it is drawn from "
                         "(population=..., unit=...)")
    if c.n_needed <= population:
        return c
    reason = (f"{c.reason}; {needs} {c.n_needed:,.0f} {unit}, more than the "
              f"{population:,.0f} that exist: this dataset cannot decide it")
    return Claim(**{**asdict(c), "reason": reason, "n_needed": _NAN})


def _finish(c: Claim, comparability: Comparability, stand_in: str, grades: str, *,
            calibrates: str = "", scorer: str = "", family: Family | None = None,
            population: float | None = None, unit: str = "",
            needs: str = "80% power needs") -> Claim:
    """Put the rule's outcome into its tally's words (see the module docstring): a
    calibration's agrees / disagrees, a replication's holds / does not hold for a direction or
    a ranking, not comparable for a magnitude on a stand-in or a different method. ``needs``:
    what an n needed above the population is the n for (:func:`_reachable`)."""
    scorer = scorer or calibrates
    if scorer and comparability is Comparability.LIKE_FOR_LIKE:
        raise ValueError(f"claim {c.id}: a row scored by the stand-in scorer {scorer!r} is not "
                         "like-for-like; use Comparability.STAND_IN")
    extra = {"tally": _tally(comparability, grades, calibrates), "scorer": scorer,
             "family": family.label if family is not None else "", "unit": unit,
             "population": float(population) if population is not None else _NAN}
    c = _reachable(Claim(**{**asdict(c), **extra}), population, unit, needs)
    if c.tally is Tally.REPRODUCTION:
        return c
    if c.tally is Tally.CALIBRATION:
        return Claim(**{**asdict(c), "verdict": _AS_CALIBRATION.get(c.verdict, c.verdict)})
    if comparability is not Comparability.DIFFERENT_METHOD and (
            grades in ("direction", "direction within run", "ranking", "non-inferiority")):
        return Claim(**{**asdict(c), "verdict": _AS_REPLICATION.get(c.verdict, c.verdict)})
    what = {Comparability.STAND_IN: "a magnitude on a stand-in",
            Comparability.DIFFERENT_POOL: "a magnitude on a different pool",
            Comparability.DIFFERENT_METHOD: "a different method"}[comparability]
    # what the rule would say, in this row's tally's words (a replication's holds / does not hold)
    would = _AS_REPLICATION.get(c.verdict, c.verdict) if c.tally is Tally.REPLICATION else c.verdict
    reason = f"{what} ({stand_in}): not graded; the rule would say {would}: {c.reason}"
    return Claim(**{**asdict(c), "verdict": Verdict.NOT_COMPARABLE, "reason": reason,
                    "n_needed": _NAN})


# --------------------------------------------------------------------------- the rules
def value_in_interval(*, id: str, section: str, claim: str, paper_value: float, estimate: float,
                      interval: tuple[float, float], n: int | str, statistic: str,
                      paper: str | None = None, this_run: str | None = None,
                      null: float | None = None, n_effective: float | None = None,
                      comparability: Comparability | str = Comparability.LIKE_FOR_LIKE,
                      stand_in: str = "", scorer: str = "", calibrates: str = "",
                      population: float | None = None, unit: str = "",
                      margin: float | None = None, spread: tuple[float, float] | None = None,
                      spread_what: str = "the estimates no n narrows", digits: int = 3) -> Claim:
    """Rule ``value in interval``: the paper's value against this run's 95 % interval.

    ``null``: the value of "no effect" (0 for a difference, 1 for a ratio, 50 for a
    StereoSet ss), or None where the statistic has none. If the interval holds both the
    paper's value and ``null`` the claim is ``inconclusive`` (with the n that 80 % power to
    tell the paper's value from ``null`` needs). ``n_effective``: the n that the interval's
    width scales with, if ``n`` is not one number. ``population`` / ``unit``: how many units
    (texts, descriptors, ...) exist to be drawn, which an n needed may not exceed (required
    where the row is inconclusive with an n needed). ``scorer``: the stand-in scorer the
    number comes from; ``calibrates="<scorer>"`` makes the row that scorer's calibration
    against the paper's scorer on the same texts. ``margin``: for a statistic with no "no
    effect" (``null=None``, e.g. a calibration's share), the largest distance from the paper's
    value that still counts as agreement, read as an equivalence test: the row agrees
    (``reproduced``) when the whole interval lies within ``paper_value +/- margin``, differs when
    it lies wholly beyond, and is ``inconclusive`` (a calibration's ``undecided``) when it
    reaches both, with the n at which an interval of this width around this estimate would
    decide; state the margin where the row is shown. ``spread``: the (lowest, highest) of
    estimates that more units do not narrow (e.g. each classifier seed's own estimate); the
    row's interval is ``interval`` (the sampling interval) widened to hold it. With a margin,
    an undecided row whose spread alone already reaches both within and beyond the margin
    says that more ``unit`` do not help (``spread_what`` names the spread) and gives no n
    needed; otherwise its n needed counts the sampling interval only.

    >>> c = value_in_interval(id="x", section="T11", claim="anger share", paper_value=0.20,
    ...     estimate=0.18, interval=(0.12, 0.25), n=195, statistic="share", margin=0.05,
    ...     population=195, unit="texts")
    >>> str(c.verdict), c.reason.endswith("this dataset cannot decide it")
    ('inconclusive', True)

    >>> c = value_in_interval(id="x", section="6.2", claim="ratio", paper_value=2.29,
    ...     estimate=1.89, interval=(1.29, 3.69), n=4, null=1.0, statistic="ratio")
    >>> str(c.verdict)
    'reproduced'
    >>> c = value_in_interval(id="x", section="6.2", claim="ratio", paper_value=2.29,
    ...     estimate=1.5, interval=(0.9, 3.0), n=4, null=1.0, statistic="ratio",
    ...     population=17, unit="professions")
    >>> str(c.verdict), round(c.n_needed)
    ('inconclusive', 6)
    >>> c = value_in_interval(id="x", section="6.2", claim="ratio", paper_value=2.29,
    ...     estimate=1.5, interval=(0.9, 3.0), n=4, null=1.0, statistic="ratio",
    ...     population=5, unit="professions")
    >>> c.reason.endswith("more than the 5 that exist: this dataset cannot decide it")
    True
    """
    lo, hi = map(float, interval)
    comp = _comparability(comparability, stand_in)
    se_sampling = (hi - lo) / (2 * Z975)
    if spread is not None:
        s_lo, s_hi = sorted(float(v) for v in spread)
        lo, hi = min(lo, s_lo), max(hi, s_hi)
    if not _check_interval(estimate, lo, hi):
        return _finish(_undefined(id=id, section=section, claim=claim,
                                  paper=paper if paper is not None else f"{paper_value:.{digits}f}",
                                  statistic=statistic, estimate=estimate, lo=lo, hi=hi, n=n,
                                  comparability=comp, stand_in=stand_in, rule="value in interval",
                                  grades="value"),
                       comp, stand_in, "value", calibrates=calibrates, scorer=scorer)
    n_num = _as_number(n) if n_effective is None else n_effective
    mde = n_needed = _NAN
    p_in = _inside(paper_value, lo, hi)
    if margin is not None and not margin > 0:
        raise ValueError(f"claim {id}: margin must be > 0, got {margin}")
    if null is not None:
        mde, n_needed, _ = _power(lo, hi, n_num, paper_value - null, 0.05)
    if margin is not None:
        # an equivalence reading: the interval decides only when it lies wholly within the
        # margin around the paper's value (agreement) or wholly beyond it (a gap)
        near, far = paper_value - margin, paper_value + margin
        gap = abs(float(estimate) - paper_value)
        se = (hi - lo) / (2 * Z975)
        n_num_ = n_num or _NAN
        if near <= lo and hi <= far:
            verdict = Verdict.REPRODUCED
            reason = (f"[{lo:.{digits}f}, {hi:.{digits}f}] lies within the stated margin "
                      f"+/-{margin:g} of the paper's {paper_value:.{digits}f}")
        elif hi < near or lo > far:
            verdict = Verdict.DIFFERS
            side = "below" if hi < near else "above"
            reason = (f"[{lo:.{digits}f}, {hi:.{digits}f}] lies wholly {side} the paper's "
                      f"{paper_value:.{digits}f} +/-{margin:g}")
        else:
            verdict = Verdict.INCONCLUSIVE
            reason = (f"[{lo:.{digits}f}, {hi:.{digits}f}] reaches both within and beyond the "
                      f"stated margin +/-{margin:g} of the paper's {paper_value:.{digits}f}: it "
                      "cannot tell agreement from a gap of that size")
            # the n at which an interval of this width around this estimate would decide
            room = abs(margin - gap)
            if spread is not None:
                se = se_sampling
            stuck = spread is not None and not (near <= s_lo and s_hi <= far) and not (
                s_hi < near or s_lo > far)
            n_needed = n_num_ * (Z975 * se / room) ** 2 if se > 0 and room > 0 else _NAN
            if stuck:
                n_needed = _NAN
                reason += (f"; more {unit or 'units'} do not help: {spread_what} alone span "
                           f"[{s_lo:.{digits}f}, {s_hi:.{digits}f}], which reaches both within "
                           "and beyond the margin")
            if null is not None:
                mde, _, _ = _power(lo, hi, n_num, paper_value - null, 0.05)
    elif p_in and null is not None and _inside(null, lo, hi):
        verdict = Verdict.INCONCLUSIVE
        reason = (f"the interval [{lo:.{digits}f}, {hi:.{digits}f}] holds both the paper's "
                  f"{paper_value:.{digits}f} and no effect ({null:g})")
    elif p_in:
        verdict = Verdict.REPRODUCED
        reason = f"the paper's {paper_value:.{digits}f} is inside [{lo:.{digits}f}, {hi:.{digits}f}]"
    else:
        verdict = Verdict.DIFFERS
        side = "below" if paper_value < lo else "above"
        reason = (f"the paper's {paper_value:.{digits}f} is {side} [{lo:.{digits}f}, "
                  f"{hi:.{digits}f}]")
        mde = _NAN
    if verdict is not Verdict.INCONCLUSIVE:
        n_needed = _NAN
    c = Claim(id=id, section=section, claim=claim,
              paper=paper if paper is not None else f"{paper_value:.{digits}f}",
              this_run=this_run if this_run is not None else fmt_interval(estimate, lo, hi, digits),
              statistic=statistic, estimate=float(estimate), estimate_lo=lo, estimate_hi=hi,
              n=_n_text(n), comparability=comp, stand_in=stand_in, rule="value in interval",
              grades="value", verdict=verdict, reason=reason, mde=mde, n_needed=n_needed)
    return _finish(c, comp, stand_in, "value", calibrates=calibrates, scorer=scorer,
                   population=population, unit=unit,
                   needs="a decision needs" if margin is not None else "80% power needs")


def direction(*, id: str, section: str, claim: str, paper: str, sign: int, estimate: float,
              interval: tuple[float, float], n: int | str, statistic: str,
              pvalue: float | None = None, paper_alpha: float | None = None,
              paper_effect: float | None = None, this_run: str | None = None,
              n_effective: float | None = None, units: int | None = None,
              comparability: Comparability | str = Comparability.LIKE_FOR_LIKE,
              stand_in: str = "", grades: str = "direction", family: Family | None = None,
              scorer: str = "", calibrates: str = "", population: float | None = None,
              unit: str = "", family_power: bool = False, digits: int = 3) -> Claim:
    """Rule ``direction``: the paper says the effect ``estimate`` is positive (``sign=+1``) or
    negative (``sign=-1``).

    ``interval``: this run's 95 % interval of the effect. ``paper_alpha``: the level at which
    the paper claims significance (e.g. 0.01 for "p < 0.01"); then ``pvalue`` (this run's
    test) must be below it to reproduce. Without ``paper_alpha`` the 95 % interval must
    exclude 0. ``paper_effect``: the paper's effect size on this statistic's scale, where it
    gives one: it decides the power (>= 80 % power and nothing found is ``differs``) and the
    n needed. ``grades="direction within run"``: a contrast of two arms of our own experiment
    (tuned vs original), a replication. ``units``: how many independent units (descriptors,
    targets) a resampling interval rests on; below :data:`MIN_UNITS` the interval cannot
    decide and the claim is inconclusive whatever its bounds. ``family``: the
    :class:`Family` this row belongs to (keyed by ``id``): its Holm-adjusted p-value decides
    significance (``pvalue``, if given, must be the raw one the family holds).
    ``population`` / ``unit`` / ``scorer`` / ``calibrates``: as for
    :func:`value_in_interval`. ``family_power``: with a family, the power, MDE and n needed
    are at the level the row must pass after the correction (two-sided ``alpha`` over the
    family's rows, Holm's strictest step), not at ``alpha``; and a row significant before the
    correction but not after it says that the correction decides it.

    >>> c = direction(id="x", section="6.1.2", claim="male > female", paper="p < 0.01", sign=1,
    ...     estimate=0.017, interval=(0.003, 0.031), pvalue=0.022, paper_alpha=0.01, n=2000,
    ...     statistic="share difference", paper_effect=0.022, population=10034, unit="texts")
    >>> str(c.verdict), round(c.n_needed)
    ('inconclusive', 2463)
    >>> c = direction(id="x", section="T4", claim="sadness: women > men", paper="p < 0.05",
    ...     sign=1, estimate=1.6, interval=(0.3, 2.8), n=2048, statistic="points",
    ...     comparability="stand-in", stand_in="norms lexicon", scorer="norms-lexicon")
    >>> str(c.tally), str(c.verdict)
    ('replication', 'holds')
    """
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign}")
    lo, hi = map(float, interval)
    comp = _comparability(comparability, stand_in)
    if grades not in ("direction", "direction within run"):
        raise ValueError(f"direction grades 'direction' or 'direction within run', not {grades!r}")
    if not _check_interval(estimate, lo, hi):
        return _finish(_undefined(id=id, section=section, claim=claim, paper=paper,
                                  statistic=statistic, estimate=estimate, lo=lo, hi=hi, n=n,
                                  comparability=comp, stand_in=stand_in, rule="direction",
                                  grades=grades),
                       comp, stand_in, grades, calibrates=calibrates, scorer=scorer, family=family)
    raw_p = pvalue
    if family is not None:
        if pvalue is not None and not math.isclose(float(pvalue), float(family.pvalues[id])):
            raise ValueError(f"claim {id}: pvalue {pvalue} is not the raw p-value its family "
                             f"{family.name!r} holds ({family.pvalues[id]})")
        pvalue = family.p(id)
    n_num = _as_number(n) if n_effective is None else n_effective
    alpha = paper_alpha if paper_alpha is not None else 0.05
    power_alpha = alpha / len(family.pvalues) if family_power and family is not None else alpha
    mde, n_needed, power = _power(lo, hi, n_num, paper_effect, power_alpha)
    excludes_zero = lo > 0 or hi < 0
    same = estimate * sign > 0
    if paper_alpha is not None and pvalue is None:
        raise ValueError("a claim of significance at paper_alpha needs this run's pvalue")
    if paper_alpha is not None:
        significant = pvalue < paper_alpha
    elif family is not None:
        significant = excludes_zero and pvalue < 0.05
    else:
        significant = excludes_zero
    paper_in = paper_effect is not None and _inside(paper_effect, lo, hi)
    ptxt = f", {stats.p_text(pvalue)}" if pvalue is not None else ""
    if family is not None:
        ptxt = f", {stats.p_text(raw_p if raw_p is not None else family.pvalues[id])} " \
               f"(Holm over {len(family.pvalues)}: {stats.format_p(pvalue)})"
    if paper_alpha is not None:
        level = f"p < {paper_alpha:g}" + (" (Holm-adjusted)" if family is not None else "")
    elif family is not None:
        level = ("a 95% interval excluding 0 and a Holm-adjusted p < 0.05"
                 if excludes_zero else "a 95% interval excluding 0")
    else:
        level = "a 95% interval excluding 0"
    iv = f"[{lo:+.{digits}f}, {hi:+.{digits}f}]"
    if units is not None and units < MIN_UNITS:
        verdict = Verdict.INCONCLUSIVE
        reason = (f"{'same' if same else 'opposite'} direction, {iv}{ptxt}, but the interval "
                  f"resamples {units} units (< {MIN_UNITS}): it cannot decide")
    elif same and significant and excludes_zero:
        verdict, reason = Verdict.REPRODUCED, f"same direction, {iv}{ptxt}: {level} holds"
    elif not same and excludes_zero and (family is None or pvalue < 0.05):
        verdict, reason = Verdict.DIFFERS, f"opposite direction, {iv}{ptxt} excludes 0"
    elif paper_in or (paper_effect is None):
        verdict = Verdict.INCONCLUSIVE
        reason = (f"{'same' if same else 'opposite'} direction, {iv}{ptxt}: {level} not met "
                  f"at this n")
        if paper_in and not excludes_zero:
            reason += f"; the interval holds both the paper's effect ({paper_effect:+.{digits}f}) and 0"
        elif paper_in:
            reason += f"; the interval holds the paper's effect ({paper_effect:+.{digits}f})"
    elif math.isfinite(power) and power >= 0.8:
        verdict = Verdict.DIFFERS
        reason = (f"{iv}{ptxt}: {level} not met although the test had {power:.0%} power to "
                  f"detect the paper's effect ({paper_effect:+.{digits}f})")
    else:
        verdict = Verdict.INCONCLUSIVE
        reason = (f"{'same' if same else 'opposite'} direction, {iv}{ptxt}: {level} not met; "
                  f"{power:.0%} power to detect the paper's effect ({paper_effect:+.{digits}f})")
    if verdict is not Verdict.INCONCLUSIVE:
        n_needed = _NAN
    elif family_power and family is not None:
        raw = raw_p if raw_p is not None else float(family.pvalues[id])
        if same and excludes_zero and raw < alpha:
            reason += (f"; significant before the Holm correction ({stats.p_text(raw)}): "
                       "the correction decides it")
        reason += (f"; power and n needed at the corrected level {power_alpha:.3g} "
                   f"({alpha:g} over {len(family.pvalues)} rows)")
    c = Claim(id=id, section=section, claim=claim, paper=paper,
              this_run=this_run if this_run is not None else f"{estimate:+.{digits}f} {iv}{ptxt}",
              statistic=statistic, estimate=float(estimate), estimate_lo=lo, estimate_hi=hi,
              n=_n_text(n), comparability=comp, stand_in=stand_in, rule="direction",
              grades=grades, verdict=verdict, reason=reason, mde=mde, n_needed=n_needed)
    return _finish(c, comp, stand_in, grades, calibrates=calibrates, scorer=scorer,
                   family=family, population=population, unit=unit)


def n_needed_at_estimate(c: Claim, *, n: float, population: float, unit: str,
                         alpha: float = 0.05, family_size: int = 1) -> Claim:
    """An inconclusive (undecided) directional row whose paper gives no effect size: the n that
    80 % power needs to detect this run's own estimate, from the row's interval (its standard
    error at ``n``), at two-sided ``alpha`` over ``family_size`` rows (Holm's strictest step,
    as ``direction(family_power=True)``), against the ``population`` of ``unit`` that exist:
    above it, the row says that this dataset cannot decide it. Any other row is returned as is.

    >>> c = direction(id="x", section="F2", claim="c", paper="no test stated", sign=1,
    ...     estimate=0.048, interval=(-0.047, 0.127), n=266, statistic="gap")
    >>> c = n_needed_at_estimate(c, n=266, population=266, unit="samples", family_size=6)
    >>> c.reason.endswith("this dataset cannot decide it"), "80% power at this run's estimate" in c.reason
    (True, True)
    """
    if c.verdict not in (Verdict.INCONCLUSIVE, Verdict.UNDECIDED) or math.isfinite(c.n_needed):
        return c
    se = (c.estimate_hi - c.estimate_lo) / (2 * Z975)
    a = alpha / family_size
    need = stats.n_needed_from_se(abs(c.estimate), se, n, alpha=a)
    if not math.isfinite(need):
        return c
    at = f" at the corrected level {a:.3g} ({alpha:g} over {family_size} rows)" \
        if family_size > 1 and f"corrected level {a:.3g}" not in c.reason else ""
    head = (f"{c.reason}; the paper gives no effect size: 80% power at this run's estimate "
            f"({c.estimate:+.3g}){at} needs {need:,.0f} {unit}")
    if need > population:
        return Claim(**{**asdict(c), "reason": f"{head}, more than the {population:,.0f} that exist: "
                        "this dataset cannot decide it", "n_needed": _NAN, "unit": unit,
                        "population": float(population)})
    return Claim(**{**asdict(c), "reason": f"{head} (reachable: {population:,.0f} exist)",
                    "n_needed": float(need), "unit": unit, "population": float(population)})


def non_inferiority(*, id: str, section: str, claim: str, paper: str, estimate: float,
                    interval: tuple[float, float], margin: float, n: int | str, statistic: str,
                    this_run: str | None = None, n_effective: float | None = None,
                    comparability: Comparability | str = Comparability.LIKE_FOR_LIKE,
                    stand_in: str = "", scorer: str = "", population: float | None = None,
                    unit: str = "", digits: int = 3) -> Claim:
    """Rule ``non-inferiority``: the paper says A is not worse than B ("better than or
    comparable with"); ``estimate`` is A - B (higher is better) and ``margin`` (> 0, stated
    where the row is shown) the largest shortfall that still counts as comparable. The interval
    wholly above ``-margin`` reproduces it; wholly below ``-margin``, it differs; across
    ``-margin``, inconclusive, with the n at which an interval of this width around this
    estimate would clear ``-margin`` (none where the estimate itself is below it).

    >>> c = non_inferiority(id="x", section="F1", claim="A >= B", paper="comparable",
    ...     estimate=0.0, interval=(-0.238, 0.238), margin=0.1, n=30, statistic="accuracy",
    ...     population=30, unit="test texts")
    >>> str(c.verdict), c.reason.endswith("this dataset cannot decide it")
    ('inconclusive', True)
    >>> str(non_inferiority(id="x", section="F1", claim="A >= B", paper="comparable",
    ...     estimate=0.02, interval=(-0.03, 0.07), margin=0.05, n=900, statistic="accuracy").verdict)
    'reproduced'
    """
    if not margin > 0:
        raise ValueError(f"claim {id}: a non-inferiority margin must be > 0, got {margin}")
    lo, hi = map(float, interval)
    comp = _comparability(comparability, stand_in)
    if not _check_interval(estimate, lo, hi):
        return _finish(_undefined(id=id, section=section, claim=claim, paper=paper,
                                  statistic=statistic, estimate=estimate, lo=lo, hi=hi, n=n,
                                  comparability=comp, stand_in=stand_in, rule="non-inferiority",
                                  grades="non-inferiority"),
                       comp, stand_in, "non-inferiority", scorer=scorer)
    iv = f"[{lo:+.{digits}f}, {hi:+.{digits}f}]"
    n_needed = _NAN
    if lo > -margin:
        verdict = Verdict.REPRODUCED
        reason = f"{iv} lies wholly above -{margin:g} (the stated margin): not worse"
    elif hi < -margin:
        verdict = Verdict.DIFFERS
        reason = f"{iv} lies wholly below -{margin:g} (the stated margin): worse"
    else:
        verdict = Verdict.INCONCLUSIVE
        reason = (f"{iv} reaches below -{margin:g} (the stated margin): 'not worse' is not "
                  "shown at this n")
        se = (hi - lo) / (2 * Z975)
        room = float(estimate) + margin
        n_num = _as_number(n) if n_effective is None else n_effective
        if se > 0 and room > 0 and n_num:
            n_needed = n_num * (Z975 * se / room) ** 2
    c = Claim(id=id, section=section, claim=claim, paper=paper,
              this_run=this_run if this_run is not None else f"{estimate:+.{digits}f} {iv}",
              statistic=statistic, estimate=float(estimate), estimate_lo=lo, estimate_hi=hi,
              n=_n_text(n), comparability=comp, stand_in=stand_in, rule="non-inferiority",
              grades="non-inferiority", verdict=verdict, reason=reason, n_needed=n_needed)
    return _finish(c, comp, stand_in, "non-inferiority", scorer=scorer, population=population,
                   unit=unit, needs="a decision needs")


def ranking(*, id: str, section: str, claim: str, paper: str, estimate: float,
            interval: tuple[float, float], n: int | str, statistic: str, bound: float = 0.0,
            this_run: str | None = None,
            comparability: Comparability | str = Comparability.LIKE_FOR_LIKE,
            stand_in: str = "", scorer: str = "", digits: int = 2) -> Claim:
    """Rule ``ranking``: an agreement statistic between this run's ranking and the paper's
    (e.g. Spearman's rho over groups, with a bootstrap interval) against a stated ``bound``.

    The interval above ``bound`` reproduces the ranking; below it, it differs; across it
    (or holding 0, no agreement), inconclusive.

    >>> str(ranking(id="x", section="T3", claim="axes ordered", paper="GPT-2 order",
    ...     estimate=0.54, interval=(-0.3, 0.95), n=6, statistic="Spearman rho").verdict)
    'inconclusive'
    """
    lo, hi = map(float, interval)
    comp = _comparability(comparability, stand_in)
    if not _check_interval(estimate, lo, hi):
        return _finish(_undefined(id=id, section=section, claim=claim, paper=paper,
                                  statistic=statistic, estimate=estimate, lo=lo, hi=hi, n=n,
                                  comparability=comp, stand_in=stand_in, rule="ranking",
                                  grades="ranking"),
                       comp, stand_in, "ranking", scorer=scorer)
    iv = f"[{lo:.{digits}f}, {hi:.{digits}f}]"
    if lo > bound:
        verdict, reason = Verdict.REPRODUCED, f"{statistic} {estimate:.{digits}f} {iv} is above {bound:g}"
    elif hi < bound:
        verdict, reason = Verdict.DIFFERS, f"{statistic} {estimate:.{digits}f} {iv} is below {bound:g}"
    else:
        verdict = Verdict.INCONCLUSIVE
        reason = f"{statistic} {estimate:.{digits}f} {iv} spans the bound {bound:g}"
    c = Claim(id=id, section=section, claim=claim, paper=paper,
              this_run=this_run if this_run is not None else f"{estimate:.{digits}f} {iv}",
              statistic=statistic, estimate=float(estimate), estimate_lo=lo, estimate_hi=hi,
              n=_n_text(n), comparability=comp, stand_in=stand_in, rule="ranking",
              grades="ranking", verdict=verdict, reason=reason)
    return _finish(c, comp, stand_in, "ranking", scorer=scorer)


def tolerance(*, id: str, section: str, claim: str, paper_value: float, estimate: float,
              tol: float, n: int | str, statistic: str, paper: str | None = None,
              this_run: str | None = None, interval: tuple[float, float] | None = None,
              comparability: Comparability | str = Comparability.LIKE_FOR_LIKE,
              stand_in: str = "", scorer: str = "", calibrates: str = "",
              digits: int = 2) -> Claim:
    """Rule ``tolerance``: a claim with no natural "no effect" (a count, an average length):
    ``|estimate - paper_value| <= tol`` reproduces it, else it differs. State ``tol`` where
    the claim is shown (it is in ``reason``). This is also the one rule for a recount of
    identical data (the paper's texts counted again): a tolerance, never a bootstrap over the
    same texts.

    >>> str(tolerance(id="x", section="T1", claim="mean length", paper_value=8.02,
    ...     estimate=7.94, tol=0.2, n=2106, statistic="words").verdict)
    'reproduced'
    """
    if tol < 0:
        raise ValueError(f"tolerance must be >= 0, got {tol}")
    comp = _comparability(comparability, stand_in)
    lo, hi = (estimate, estimate) if interval is None else map(float, interval)
    gap = estimate - paper_value
    ok = abs(gap) <= tol + 1e-12
    verdict = Verdict.REPRODUCED if ok else Verdict.DIFFERS
    reason = f"|{estimate:.{digits}f} - {paper_value:.{digits}f}| = {abs(gap):.{digits}f} " \
             f"{'<=' if ok else '>'} the tolerance {tol:g}"
    c = Claim(id=id, section=section, claim=claim,
              paper=paper if paper is not None else f"{paper_value:.{digits}f}",
              this_run=this_run if this_run is not None else f"{estimate:.{digits}f}",
              statistic=statistic, estimate=float(estimate), estimate_lo=float(lo),
              estimate_hi=float(hi), n=_n_text(n), comparability=comp, stand_in=stand_in,
              rule="tolerance", grades="value", verdict=verdict, reason=reason)
    return _finish(c, comp, stand_in, "value", calibrates=calibrates, scorer=scorer)


def calibration_recount(*, id: str, section: str, claim: str, paper_value: float,
                        estimate: float, n: int | str, statistic: str, scorer: str,
                        stand_in: str, margin: float | None = None, sign: bool = False,
                        seeds: Sequence[float] | None = None, seed_what: str = "training seed",
                        n_texts: float | None = None, population: float | None = None,
                        sampled: bool | None = None,
                        interval: tuple[float, float] | None = None, unit: str = "",
                        paper: str | None = None, this_run: str | None = None,
                        paper_resolution: float | None = None, digits: int = 3) -> Claim:
    """Rule ``calibration recount``: a stand-in scorer (``scorer``) against the paper's scorer's
    printed value on the **same texts** the paper's scorer scored. Nothing is sampled, so no
    sampling interval is the basis and no n is needed (more texts cannot change a recount):

    - a scorer without training seeds agrees when ``|estimate - paper_value| <= margin`` (the
      stated margin), else it disagrees;
    - a scorer with training seeds (``seeds``: each seed's own value; the graded ``estimate``,
      e.g. the seeds' vote, counts with them) agrees when every value is within the margin,
      disagrees when every value is beyond it on the same side, and is undecided otherwise:
      the outcome depends on the training seed;
    - ``sign=True``: ``paper_value`` is a signed difference (e.g. male - female) and "within"
      means the paper's sign (no margin): agrees when every value has it, disagrees when every
      value has the opposite one, else undecided.

    The paper's printed value is rounded: ``paper_resolution`` (one unit of its last printed
    digit, in the estimate's units, e.g. ``0.0001`` for a share printed as a percentage with 2
    decimals) widens the margin by half that unit, so a value within the margin of some number
    the paper's print could stand for agrees (``|estimate - paper_value| <= margin +
    paper_resolution / 2``); ``0`` states that the paper prints the value exactly (a whole
    count), and no widening without it.

    Only where this run's texts are a sample of the texts the paper scored (``n_texts`` below
    ``population``, or ``sampled=True`` where one number cannot say it, e.g. two groups) is
    the sampling ``interval`` the basis, as :func:`value_in_interval` with
    the margin (or :func:`direction` with ``sign``) grades it, its n needed capped at the
    population.

    >>> kw = dict(section="T9", claim="joy share", paper_value=0.9525, n=7657, statistic="share",
    ...           scorer="norms-lexicon", stand_in="norms lexicon", margin=0.0119)
    >>> str(calibration_recount(id="x", estimate=1.0, **kw).verdict)
    'disagrees'
    >>> str(calibration_recount(id="x", estimate=0.96, **kw).verdict)
    'agrees'
    >>> c = calibration_recount(id="x", section="T5", claim="positive regard", paper_value=0.378,
    ...     estimate=0.525, seeds=[0.417, 0.45, 0.5, 0.55, 0.605], n=2048, statistic="share",
    ...     scorer="regard-minilm", stand_in="MiniLM", margin=0.0945)
    >>> str(c.verdict), "depends on the training seed" in c.reason
    ('undecided', True)
    >>> kw.update(paper_value=0.0354, margin=0.00885, n=113)  # 3.54% printed: 4.0002 of 113
    >>> str(calibration_recount(id="x", estimate=3 / 113, **kw).verdict)
    'disagrees'
    >>> c = calibration_recount(id="x", estimate=3 / 113, paper_resolution=0.0001, **kw)
    >>> str(c.verdict), "half the paper's printed unit" in c.reason
    ('agrees', True)
    >>> str(calibration_recount(id="x", section="T5", claim="male > female", paper_value=0.067,
    ...     estimate=-0.03, seeds=[-0.063, -0.029], sign=True, n=1156, statistic="difference",
    ...     scorer="regard-minilm", stand_in="MiniLM").verdict)
    'disagrees'
    """
    comp = _comparability(Comparability.STAND_IN, stand_in)
    if not sign and not (margin is not None and margin > 0):
        raise ValueError(f"claim {id}: a calibration recount needs a stated margin > 0")
    if paper_resolution is not None and not paper_resolution >= 0:
        raise ValueError(f"claim {id}: paper_resolution is one unit of the paper's last printed "
                         "digit (>= 0; 0 for a value printed exactly)")
    half = paper_resolution / 2 if paper_resolution is not None else 0.0
    stated = margin
    if not sign and half:
        margin = margin + half
    plus = f" + {half:g} (half the paper's printed unit)" if half and not sign else ""
    seeds = [float(v) for v in seeds] if seeds is not None else []
    values = [float(estimate), *seeds]
    n_num = _as_number(n) if n_texts is None else float(n_texts)
    if sampled is None:
        sampled = population is not None and n_num is not None and n_num < population
    if sampled:
        # our texts are a sample of the texts the paper scored: sampling is the variation
        if interval is None:
            raise ValueError(f"claim {id}: a sample of the paper's texts is graded by its "
                             "sampling interval (interval=...)")
        spread = (min(values), max(values)) if seeds else None
        if sign:
            lo, hi = map(float, interval)
            if spread is not None:
                lo, hi = min(lo, spread[0]), max(hi, spread[1])
            c = direction(id=id, section=section, claim=claim,
                          paper=paper if paper is not None else f"{paper_value:+.{digits}f}",
                          sign=1 if paper_value > 0 else -1, estimate=estimate, interval=(lo, hi),
                          n=n, statistic=statistic, paper_effect=paper_value, this_run=this_run,
                          n_effective=n_num, comparability=comp, stand_in=stand_in,
                          calibrates=scorer, population=population, unit=unit, digits=digits)
        else:
            c = value_in_interval(id=id, section=section, claim=claim, paper_value=paper_value,
                                  estimate=estimate, interval=interval, n=n, statistic=statistic,
                                  paper=paper, this_run=this_run, n_effective=n_num,
                                  comparability=comp, stand_in=stand_in, calibrates=scorer,
                                  population=population, unit=unit, margin=margin, spread=spread,
                                  spread_what=f"the {len(seeds)} {seed_what}s' own values",
                                  digits=digits)
        part = f"{n_num:,.0f} of {population:,.0f} {unit or 'texts'}" if population is not None \
            and n_num is not None and n_num < population else _n_text(n)
        why = f"this run's texts are a sample of those the paper scored ({part}): graded by the " \
              "sampling interval; "
        return Claim(**{**asdict(c), "reason": why + c.reason})
    if not all(map(math.isfinite, values)):
        return _finish(_undefined(id=id, section=section, claim=claim,
                                  paper=paper if paper is not None else f"{paper_value:.{digits}f}",
                                  statistic=statistic, estimate=estimate, lo=min(values),
                                  hi=max(values), n=n, comparability=comp, stand_in=stand_in,
                                  rule="calibration recount", grades="value"),
                       comp, stand_in, "value", calibrates=scorer)
    what = (f"the graded value and all {len(seeds)} {seed_what}s' values "
            f"({min(seeds):.{digits}f} to {max(seeds):.{digits}f})" if seeds else "")
    of = (f"of the graded value and the {len(seeds)} {seed_what}s' values "
          f"({min(seeds):.{digits}f} to {max(seeds):.{digits}f}), " if seeds else "")
    if sign:
        ok = [v * paper_value > 0 for v in values]
        against = [v * paper_value < 0 for v in values]
        target = f"the paper's sign ({paper_value:+.{digits}f})"
        if all(ok):
            verdict = Verdict.REPRODUCED
            reason = f"{what or f'{estimate:+.{digits}f}'} {'have' if seeds else 'has'} {target}"
        elif all(against):
            verdict = Verdict.DIFFERS
            reason = (f"{what or f'{estimate:+.{digits}f}'} {'have' if seeds else 'has'} the "
                      f"sign opposite to {target}")
        else:
            verdict = Verdict.INCONCLUSIVE
            reason = (f"depends on the {seed_what}: {of}{sum(ok)} of {len(values)} have {target}"
                      if seeds else f"{estimate:+.{digits}f} has no sign")
    else:
        near, far = paper_value - margin, paper_value + margin
        tol = 1e-12
        inside = [near - tol <= v <= far + tol for v in values]
        below = [v < near - tol for v in values]
        above = [v > far + tol for v in values]
        band = f"the paper's {paper_value:.{digits}f} +/-{stated:g}{plus}"
        gap = estimate - paper_value
        # enough digits that a gap beyond the margin never prints equal to it
        d = digits
        while d < digits + 4 and f"{abs(gap):.{d}f}" == f"{margin:.{d}f}" and abs(abs(gap) - margin) > 1e-12:
            d += 1
        if all(inside):
            verdict = Verdict.REPRODUCED
            reason = (f"{what} lie within {band}" if seeds else
                      f"|{estimate:.{d}f} - {paper_value:.{d}f}| = {abs(gap):.{d}f} "
                      f"<= the stated margin {stated:g}{plus}")
        elif all(below) or all(above):
            verdict = Verdict.DIFFERS
            side = "below" if all(below) else "above"
            reason = (f"{what} lie {side} {band}" if seeds else
                      f"|{estimate:.{d}f} - {paper_value:.{d}f}| = {abs(gap):.{d}f} "
                      f"> the stated margin {stated:g}{plus} ({side})")
        else:
            verdict = Verdict.INCONCLUSIVE
            reason = (f"depends on the {seed_what}: {of}{sum(inside)} of {len(values)} lie "
                      f"within {band}, {sum(below) + sum(above)} beyond it")
    reason = ("a recount of the texts the paper's scorer scored (no sampling interval: more "
              f"texts cannot change it): {reason}")
    lo, hi = min(values), max(values)
    c = Claim(id=id, section=section, claim=claim,
              paper=paper if paper is not None else f"{paper_value:.{digits}f}",
              this_run=this_run if this_run is not None else (
                  f"{estimate:.{digits}f}" + (f"; {seed_what}s {lo:.{digits}f}-{hi:.{digits}f}"
                                              if seeds else "")),
              statistic=statistic, estimate=float(estimate), estimate_lo=lo, estimate_hi=hi,
              n=_n_text(n), comparability=comp, stand_in=stand_in, rule="calibration recount",
              grades="value", verdict=verdict, reason=reason)
    return _finish(c, comp, stand_in, "value", calibrates=scorer,
                   population=population, unit=unit)


def not_tested(*, id: str, section: str, claim: str, paper: str, why: str,
               tally: Tally | str = Tally.REPRODUCTION, scorer: str = "") -> Claim:
    """Rule ``not tested``: a claim of the paper this run cannot test offline (its model,
    scorer or data is not available here); ``why`` names what is missing. It is counted, so a
    reader sees what was not tested.

    >>> str(not_tested(id="x", section="6", claim="CTRL-THT more polar", paper="Table 7",
    ...     why="CTRL is not available offline").verdict)
    'not tested'
    """
    if not why.strip():
        raise ValueError(f"{id}: say why the claim is not tested (why='...')")
    tally = Tally(tally)
    if tally is Tally.CALIBRATION and not scorer:
        raise ValueError(f"{id}: a calibration row names its scorer (scorer='...')")
    return Claim(id=id, section=section, claim=claim, paper=paper, this_run="not tested",
                 statistic="", estimate=_NAN, estimate_lo=_NAN, estimate_hi=_NAN, n="none",
                 comparability=Comparability.LIKE_FOR_LIKE if tally is Tally.REPRODUCTION
                 else Comparability.STAND_IN, stand_in="" if tally is Tally.REPRODUCTION
                 else (scorer or "none available offline"),
                 rule="not tested", grades="value", verdict=Verdict.NOT_TESTED, reason=why,
                 tally=tally, scorer=scorer)


def paper_inconsistent(*, id: str, section: str, claim: str, paper: str, evidence: str,
                       consistent: bool, this_run: str = "", n: int | str = "") -> Claim:
    """Rule ``paper consistency``: ``consistent`` is the computed comparison of the paper's
    own numbers (e.g. its table rows summed against its stated total). If they disagree the
    verdict is ``paper inconsistent``; if they agree, the claim is a check and must be built
    with :func:`check` instead (this raises).

    >>> str(paper_inconsistent(id="x", section="T1", claim="rows sum to the total",
    ...     paper="8,498", evidence="rows sum to 8,853", consistent=False).verdict)
    'paper inconsistent'
    """
    if consistent:
        raise ValueError(f"{id}: the paper's numbers agree; record that with check(...), not as a claim")
    return Claim(id=id, section=section, claim=claim, paper=paper, this_run=this_run or evidence,
                 statistic="the paper's own numbers", estimate=_NAN, estimate_lo=_NAN,
                 estimate_hi=_NAN, n=_n_text(n), comparability=Comparability.LIKE_FOR_LIKE,
                 stand_in="", rule="paper consistency", grades="the paper",
                 verdict=Verdict.PAPER_INCONSISTENT, reason=evidence)


def check(*, id: str, section: str, check: str, kind: str, expected: str, this_run: str,
          passed: bool) -> Check:
    """A check (``kind``: by construction, diagnostic or data count), listed apart from claims.

    >>> check(id="x", section="T4", check="IdealLM has ss 50", kind="by construction",
    ...       expected="50.0", this_run="50.0", passed=True).passed
    True
    """
    if kind not in CHECK_KINDS:
        raise ValueError(f"check kind must be one of {CHECK_KINDS}, got {kind!r}")
    return Check(id=id, section=section, check=check, kind=kind, expected=str(expected),
                 this_run=str(this_run), passed=bool(passed))


# --------------------------------------------------------------------------- tables
def _as_number(n: int | str | float | None) -> float | None:
    if n is None:
        return None
    if isinstance(n, int | float):
        return float(n)
    digits = "".join(ch for ch in str(n).split("/")[0] if ch.isdigit() or ch == ".")
    return float(digits) if digits else None


def _n_text(n: int | str) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


def frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The claims table: one row per claim, :data:`CLAIM_COLUMNS` (ids must be unique), and
    :data:`SENSITIVE_COLUMN` after them where some row's outcome changes inside the stated range
    of an analysis choice."""
    claims = list(claims)
    rows = [c.row() for c in claims]
    cols = list(CLAIM_COLUMNS)
    if any(c.sensitive_to for c in claims):
        cols.append(SENSITIVE_COLUMN)
        for r, c in zip(rows, claims, strict=True):
            r[SENSITIVE_COLUMN] = c.sensitive_to
    df = pd.DataFrame(rows, columns=cols)
    dup = df["id"][df["id"].duplicated()].tolist()
    if dup:
        raise ValueError(f"claim ids must be unique; repeated: {dup}")
    return df


def checks_frame(checks: Iterable[Check]) -> pd.DataFrame:
    """The checks table: :data:`CHECK_COLUMNS`."""
    return pd.DataFrame([c.row() for c in checks], columns=list(CHECK_COLUMNS))


def validate(df: pd.DataFrame, where: str = "claims table") -> pd.DataFrame:
    """Raise unless ``df`` is a claims table whose every row has an id, n, comparability,
    rule and a verdict from :class:`Verdict` (and, when inconclusive, the n it needs or why
    not). Returns ``df``."""
    missing = [c for c in CLAIM_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{where}: missing columns {missing}")
    bad = df[~df["verdict"].isin(VERDICTS)]
    if len(bad):
        raise ValueError(f"{where}: verdicts not in {VERDICTS}: {bad['verdict'].unique().tolist()}")
    bad = df[~df["comparability"].isin([c.value for c in Comparability])]
    if len(bad):
        raise ValueError(f"{where}: unknown comparability {bad['comparability'].unique().tolist()}")
    bad = df[~df["rule"].isin(list(RULES))]
    if len(bad):
        raise ValueError(f"{where}: unknown rules {bad['rule'].unique().tolist()}")
    bad = df[[v not in TALLIES.get(t, ()) for t, v in zip(df["tally"], df["verdict"], strict=True)]]
    if len(bad):
        raise ValueError(f"{where}: verdicts outside their tally's words: "
                         + ", ".join(f"{i} ({t}: {v})" for i, t, v in
                                     zip(bad["id"], bad["tally"], bad["verdict"], strict=True)))
    lfl = df["comparability"] == Comparability.LIKE_FOR_LIKE.value
    bad = df[(df["tally"] == Tally.REPRODUCTION.value) & ~lfl]
    if len(bad):
        raise ValueError(f"{where}: only like-for-like rows count as reproductions: "
                         f"{bad['id'].tolist()}")
    need = pd.to_numeric(df["n_needed"], errors="coerce")
    pop = pd.to_numeric(df["population"], errors="coerce")
    bad = df[need.notna() & ~(need <= pop)]
    if len(bad):
        raise ValueError(f"{where}: an n needed above (or without) its population: "
                         f"{bad['id'].tolist()}")
    for col in ("id", "claim", "rule", "reason"):
        empty = df[df[col].astype(str).str.strip().isin(["", "nan"])]
        if len(empty):
            raise ValueError(f"{where}: empty {col!r} in rows {empty['id'].tolist()}")
    graded = df[df["verdict"] != Verdict.PAPER_INCONSISTENT.value]
    no_n = graded[graded["n"].astype(str).str.strip().isin(["", "nan"])]
    if len(no_n):
        raise ValueError(f"{where}: claims without n: {no_n['id'].tolist()}")
    return df


def tally_counts(df: pd.DataFrame, *, keep_empty: bool = False) -> dict[str, tuple[int, list[tuple[str, int]]]]:
    """A claims table counted per tally: ``{tally: (rows, [(outcome, count), ...])}`` in
    :data:`TALLIES` order, outcomes in their tally's order; ``keep_empty`` keeps tallies with no
    row and outcomes with a zero count (the notebooks' prose words these counts its own way).

    >>> df = frame([tolerance(id="a", section="s", claim="c", paper_value=1, estimate=1, tol=0,
    ...                       n=3, statistic="x")])
    >>> tally_counts(df)
    {'reproduction': (1, [('reproduced', 1)])}
    """
    out = {}
    for tally, words in TALLIES.items():
        sub = df[df["tally"] == tally]
        if not len(sub) and not keep_empty:
            continue
        vc = sub["verdict"].value_counts()
        out[tally] = (len(sub), [(w, int(vc.get(w, 0))) for w in words if keep_empty or w in vc])
    return out


def save(claims: Sequence[Claim], name: str, *, checks: Sequence[Check] = (),
         results: Path | str, save_table=None) -> pd.DataFrame:
    """Write ``results/<name>.csv`` (+ .md) with the claims and, if any,
    ``results/<name>_checks.csv`` with the checks, through ``save_table`` (the notebook's
    writer, :func:`nlgbias.tables.save_table` by default). ``name`` must contain
    ``_claims``. Returns the claims table."""
    if "_claims" not in name:
        raise ValueError(f"a claims table's name contains '_claims', got {name!r}")
    if save_table is None:
        from nlgbias.tables import save_table as _save

        save_table = _save
    df = validate(frame(claims), name)
    save_table(df, results, name)
    if checks:
        save_table(checks_frame(checks), results, name.replace("_claims", "_checks"))
    return df
