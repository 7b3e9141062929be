"""The claims of Sheng et al. 2019 (and BOLD's Table 5 / §6.1.3 on regard) that notebook 06
grades, each built with a rule of :mod:`nlgbias.claims`; the papers' numbers come from
:mod:`nlgbias.regard.paper`.

What each row compares decides its tally (:mod:`nlgbias.claims`):

- **checks**: the released annotations recounted (Table 4's counts, Table 5's correlation of
  the two annotations, Table 5's "both" column, which pools the two contexts' rows), footnote
  12's count on the paper's samples: no method of ours, or a restatement of graded rows;
- **reproduction** (like-for-like): the paper's own texts with the paper's own tools: VADER
  against the annotations (Table 5), Figure 2 row (3) on the annotated samples (the regard
  annotations against the sentiment annotations);
- **calibration** of the stand-in regard classifier (``scorer`` :data:`SCORER`, a frozen MiniLM
  encoder with MLP heads, a soft vote of the seeds, for the paper's BERT): against the paper's
  classifier's printed output on the same texts: its test accuracy (Figure 1, the paper's 30
  test texts; the seeds' vote, the classifier every later step uses) and BOLD Table 5's WIKI
  row (BOLD's own Wikipedia sentences, every text of the four groups, anonymised as BOLD §3.3
  states: the person's name reads "Person", :data:`nlgbias.bold.choices.REGARD_PLACEHOLDER`;
  graded again with the classifier's training placeholder "XYZ" in its place, and each row whose
  outcome changes says so in its *sensitive to* column). The texts are the
  paper's own, so each is a recount (:func:`nlgbias.claims.calibration_recount`): the seeds'
  vote and every seed within the margin of :func:`calibration_margin` (BOLD's one rule for a
  stand-in's share) agrees, all beyond it on one side disagrees, else it depends on the seed;
- **replication on the stand-in**: everything the stand-in classifier measures on the paper's
  GPT-2 and LM 1B samples (Figure 2, §5) and on BOLD's texts: directions hold / do not hold /
  are undecided, magnitudes are not comparable.

Every regard interval holds each classifier seed's own estimate (the labels are the seeds'
vote; the interval is widened to every seed's value), so a rerun that trains other heads stays
inside it. The directional rows of one figure form a stated :class:`~nlgbias.claims.Family`
(Holm). The paper's generators (GPT-2, LM 1B for new samples; BOLD's BERT, GPT-2, CTRL) and its
BERT regard classifier are not available offline: rows that need them are ``not tested``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from nlgbias import claims as C
from nlgbias import stats
from nlgbias.bold.claims import note_sensitivity, verdict_sensitivity
from nlgbias.bold.paper import CALIBRATION_FLOOR, CALIBRATION_RELATIVE
from nlgbias.bold.paper import calibration_margin as _calibration_margin
from nlgbias.claims import Comparability
from nlgbias.regard import paper
from nlgbias.regard.analysis import (
    PAIR_TEST,
    SHORT,
    gap_difference,
    label_share_contrast,
    mean_abs_gap,
    metric_gap_contrast,
    per_seed,
    share_difference,
    spearman_interval,
    template_permutation_p,
    widen,
)

#: the stand-in regard classifier's calibration key (every row it scores names it)
SCORER = "regard-minilm"
CLASSIFIER_STAND_IN = ("MiniLM-L6 (frozen) + MLP heads, the seeds' soft vote, for the paper's BERT "
                       "regard classifier")
#: Table 5's correlation of the two annotations, recounted on the texts that carry both: the
#: check passes within this distance of the paper's printed value (the paper used all 302
#: texts, the released files join on fewer; the printed value has two decimals)
T5_RECOUNT_TOL = 0.05
#: VADER's compound thresholds for its labels (ours, VADER's documented cut: the paper states
#: none)
VADER_THRESHOLD = 0.05
#: the calibration rows' margin (accuracy or label share): the one rule of every stand-in
#: scorer's share calibration, declared once in :func:`nlgbias.bold.paper.calibration_margin` (a
#: quarter of the paper's share, of its complement above one half, at least a quarter of a
#: point), with its reason there: the stand-in is used to measure gaps of about a quarter of a
#: share (Sheng Figure 2's negative-share gaps, +0.03 to +0.25 on shares of 0.1-0.4; BOLD's
#: male - female positive regard on WIKI, +0.067 on 0.31-0.38), so a stand-in whose share is
#: off by more than a quarter of the paper's share (the vote or any seed) cannot vouch for them.
#: The same rule grades the norms lexicon's calibration (BOLD Tables 9-11)
calibration_margin = _calibration_margin
def _rule(relative: float = CALIBRATION_RELATIVE) -> str:
    return (f"margin {relative:.0%} of min(p, 1 - p) of the paper's p, at least "
            f"{100 * CALIBRATION_FLOOR * relative / CALIBRATION_RELATIVE:g} points "
            "(nlgbias.bold.paper.calibration_margin)")


CALIBRATION_RULE = _rule()
#: one unit of the last digit the papers print, in the estimate's units (the calibration margin is
#: widened by half of it, :func:`nlgbias.claims.calibration_recount`): Sheng's footnote 9 prints
#: whole percents (78 % respect, 79 % occupation; their midpoint 0.785 is ours), BOLD Table 5
#: prints shares with three decimals (WIKI 0.378)
FIGURE1_PAPER_RESOLUTION = 0.01
BOLD_TABLE5_PAPER_RESOLUTION = 0.001
#: the band Figure 1's test accuracy is graded in at the stated margin: the paper's 0.785 +/- this
FIGURE1_MARGIN_GRADED = round(_calibration_margin(paper.FIGURE1_BERT_TEST), 4) + FIGURE1_PAPER_RESOLUTION / 2
#: the analysis choice whose stated range the calibration rows are graded over (their *sensitive
#: to* label): :data:`nlgbias.bold.choices.CALIBRATION_RELATIVE_RANGE`
MARGIN_CHOICE = "calibration margin"
#: "VADER does better than or comparable with the LSTMs" (Sheng §4): "comparable" read as at most
#: this many accuracy points worse (ours: the paper states none; 3 of the 30 test texts, below the
#: 20-point lead the paper gives its classifier over every other model in the same figure)
VADER_LSTM_MARGIN = 0.10
#: footnote 12's "appears frequently", as a count: "prostitute" is among this many most
#: frequent occupation words (the first word after "as a(n)") of the paper's GPT-2 occupation
#: samples
FN12_TOP = 10
FIG2_FAMILY = "Sheng Figure 2: §5 findings on GPT-2 samples"
FIG2_SENT_FAMILY = "Sheng Figure 2: regard against sentiment (§5)"


def table4_claims(table4: pd.DataFrame) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 4: the annotated data's size and negatives per split (data counts: checks)."""
    tot, ptot = int(table4["total"].sum()), int(table4["total (paper)"].sum())
    counts = C.check(id="regard.t4.counts", section="§4 Table 4", kind="data count",
                     check="annotated regard data: train / dev / test texts equal the paper's",
                     expected=" / ".join(str(v) for v in table4["total (paper)"]) + f" ({ptot})",
                     this_run=" / ".join(str(v) for v in table4["total"]) + f" ({tot})",
                     passed=bool((table4["total"] == table4["total (paper)"]).all()))
    same = bool((table4["negative"] == table4["negative (paper)"]).all())
    neg = C.check(id="regard.t4.negative_counts", section="§4 Table 4", kind="data count",
                  check="negative texts per split equal the paper's",
                  expected=" / ".join(str(v) for v in table4["negative (paper)"]),
                  this_run=" / ".join(str(v) for v in table4["negative"]), passed=same)
    return [], [counts, neg]


def figure1_claims(seeds: pd.DataFrame, ours: str, vote_correct: int, vote_n: int,
                   relative: float = CALIBRATION_RELATIVE,
                   ) -> tuple[list[C.Claim], list[C.Check]]:
    """Figure 1 / footnote 9. The stand-in's test accuracy against the paper's BERT's on the same
    30 test texts (the paper's whole test split, Table 4) is a **calibration** of the stand-in
    and a recount (:func:`nlgbias.claims.calibration_recount`): nothing is sampled, the five
    classifier seeds are the variation. It grades the classifier every later step uses, the
    seeds' soft vote (``vote_correct`` of ``vote_n`` test texts right), with each seed's own
    accuracy (``seeds``' ``test_per_seed``; the paper's 0.785 is its runs' mean): agrees when
    all are within :func:`calibration_margin` of the paper's accuracy, disagrees when all are
    beyond it on one side, else it depends on the seed. Where the test texts are fewer than the
    paper's 30 the Wilson interval of the vote decides. ``relative``: the margin's relative size
    (:func:`calibration_margin`; the graded quarter unless a sensitivity run says otherwise);
    the paper's whole percents widen it by half a point. "It beats
    every other model (by > 20 points)" compares the stand-in with the comparison models (means
    over seeds, as Figure 1 draws them): a replication on the stand-in."""
    s = seeds.set_index("model")
    o = s.loc[ours]
    n = int(o["n_test"])
    if vote_n != n:
        raise ValueError(f"the vote was scored on {vote_n} test texts, the seeds on {n}")
    vacc = vote_correct / vote_n
    vlo, vhi = (float(v) for v in stats.proportion_interval(vote_correct, vote_n))
    margin = round(calibration_margin(paper.FIGURE1_BERT_TEST, relative), 4)
    per = [float(v) for v in str(o.get("test_per_seed", "")).split()]
    out = [C.calibration_recount(
        id="regard.fig1.test_accuracy", section="§4 Figure 1, fn. 9",
        claim="the regard classifier's test accuracy on the paper's 30 test texts (this run: the "
              "seeds' vote, the classifier every later step uses, and each seed's head)",
        paper_value=paper.FIGURE1_BERT_TEST, paper=f"{paper.FIGURE1_BERT_TEST:.3f} (BERT, mean of 5 runs)",
        estimate=vacc, seeds=per or None, seed_what="classifier seed", margin=margin,
        n=f"{vote_n} test texts", n_texts=vote_n,
        population=int(paper.TABLE4.set_index("split").loc["test", "total"]),
        interval=(vlo, vhi), paper_resolution=FIGURE1_PAPER_RESOLUTION,
        statistic=f"test accuracy of the seeds' vote and of each seed (the paper's own test "
                  f"texts: a recount, no sampling interval; margin +/-{margin:g}: "
                  f"{_rule(relative)}, + half the paper's printed unit "
                  f"({FIGURE1_PAPER_RESOLUTION / 2:g}: footnote 9 prints whole percents))",
        this_run=f"{vacc:.3f} ({vote_correct} of {vote_n}; Wilson interval [{vlo:.3f}, {vhi:.3f}], "
                 f"context only); the seeds alone {o['test_min']:.3f}-{o['test_max']:.3f}, mean "
                 f"{o['test_mean']:.3f}",
        stand_in=CLASSIFIER_STAND_IN, scorer=SCORER, unit="test texts")]
    # the vote's Wilson interval, drawn in Figure 1 as context (not the grading basis)
    out[0] = replace(out[0], extra={"interval": (vlo, vhi)})
    others = s.drop(index=[m for m in s.index if m == ours or "train_other" in m])
    best = others["test_mean"].idxmax()
    b = others.loc[best]
    # the classifier is the seeds' vote (one model); the comparison model's accuracy is its
    # mean over seeds, the interval widened to its seeds' range
    k2 = int(round(b["test_mean"] * n))
    lo, hi = stats.diff_proportions_interval(vote_correct, n, k2, n)
    est = float(vacc - b["test_mean"])
    lo = min(lo, float(vacc - b["test_max"]))
    hi = max(hi, float(vacc - b["test_min"]))
    out.append(C.direction(
        id="regard.fig1.beats_other_models", section="§4 Figure 1",
        claim="the regard classifier beats every other model on test (the paper: by > 20 points)",
        paper=f"> {paper.FIGURE1_MARGIN:.2f} above every other model", sign=1, estimate=est,
        interval=(lo, hi), n=f"{n} test texts", n_effective=n, paper_effect=paper.FIGURE1_MARGIN,
        statistic=f"test accuracy, the classifier (seeds' vote) - best other ({best}, mean over "
                  "seeds); Newcombe interval widened to the other model's seeds",
        this_run=f"{est * 100:+.1f} points [{lo * 100:+.1f}, {hi * 100:+.1f}] above {best} "
                 f"(vote {vacc:.3f} vs {float(b['test_mean']):.3f})",
        comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN, scorer=SCORER,
        population=n, unit="test texts"))
    if any(m.startswith("VADER") for m in s.index) and any("LSTM" in m for m in s.index):
        out.append(_vader_vs_lstms(s, n))
    return out, []


def _vader_vs_lstms(s: pd.DataFrame, n: int) -> C.Claim:
    """Sheng §4: "VADER does better than or comparable with the LSTMs" (Figure 1's test
    accuracies). VADER (the paper's tool, ±0.05 thresholds ours) on the paper's 30 test texts
    against the best of our retrained LSTMs (the paper's architecture; our training runs and
    the GoogleNews subset embedding): a replication on a stand-in, graded by the
    non-inferiority rule (:func:`nlgbias.claims.non_inferiority`) with the declared margin
    :data:`VADER_LSTM_MARGIN`: holds where VADER - best LSTM's interval lies wholly above
    -margin."""
    vader = [m for m in s.index if m.startswith("VADER")]
    lstms = [m for m in s.index if "LSTM" in m]
    v = s.loc[vader[0]]
    best = s.loc[lstms, "test_mean"].idxmax()
    b = s.loc[best]
    kv, kb = int(round(v["test_mean"] * n)), int(round(b["test_mean"] * n))
    lo, hi = stats.diff_proportions_interval(kv, n, kb, n)
    est = float(v["test_mean"] - b["test_mean"])
    lo = min(lo, float(v["test_min"] - b["test_max"]))
    hi = max(hi, float(v["test_max"] - b["test_min"]))
    m = VADER_LSTM_MARGIN
    return C.non_inferiority(
        id="regard.fig1.vader_ge_lstms", section="§4 Figure 1",
        claim=f"VADER does better than or comparable with the LSTMs (test accuracy; 'comparable' "
              f"read as at most {m * 100:g} points worse, a margin of ours: the paper states none)",
        paper="VADER >= the LSTMs (§4, Figure 1)", estimate=est, interval=(lo, hi), margin=m,
        n=f"{n} test texts", n_effective=n,
        statistic=f"test accuracy, VADER (±0.05 thresholds, ours) - best LSTM ({best}, mean over "
                  f"{int(b['runs'])} seeds); Newcombe interval widened to the LSTM's seeds; "
                  f"non-inferiority margin {m:g}",
        this_run=f"{float(v['test_mean']):.3f} vs {float(b['test_mean']):.3f}: {est * 100:+.1f} "
                 f"points [{lo * 100:+.1f}, {hi * 100:+.1f}]; non-inferiority at -{m * 100:g} "
                 + ("shown" if lo > -m else "not shown"),
        comparability=Comparability.STAND_IN,
        stand_in="the LSTMs retrained here (the paper's architecture; our runs, GoogleNews-subset "
                 "word2vec) for the paper's LSTMs",
        population=n, unit="test texts")


def table5_claims(both: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0,
                  ) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 5: Spearman's rho by context (``both``: columns ``context, sentiment, regard,
    vader``). The two annotations against each other are the released data recounted (checks,
    within :data:`T5_RECOUNT_TOL`); the "both" column pools the respect and occupation texts, so
    its VADER rows restate the two context rows (checks, kind "recount"); VADER (the paper's
    tool; thresholds +-0.05 ours: the paper states none) against the annotations, with a
    bootstrap interval over the texts, is computed on the texts the released files join (fewer
    than the paper's 302, the missing ones unknown): the paper's own texts and tool, so its values
    and its direction are graded like for like, the subset and the cut stated in each row (the
    same rule as Figure 2's row 3, on 294 of the paper's texts with the same cut)."""
    cols = {"sentiment ann. vs regard ann.": ("sentiment", "regard"),
            "VADER pred. vs sentiment ann.": ("vader", "sentiment"),
            "VADER pred. vs regard ann.": ("vader", "regard")}
    pap = paper.TABLE5.set_index("comparison")
    out, checks = [], []
    for name, (a, b) in cols.items():
        for ctx in ("respect", "occupation", "both"):
            sub = both if ctx == "both" else both[both["context"] == ctx]
            rho, lo, hi, n = spearman_interval(sub, a, b, n_boot=n_boot, seed=seed)
            slug = name.split(" vs ")[0].split()[0].lower() + "_" + name.split(" vs ")[1].split()[0].lower()
            pv = float(pap.loc[name, ctx])
            if a == "sentiment":
                checks.append(C.check(
                    id=f"regard.t5.{slug}_{ctx}", section="§4 Table 5", kind="recount",
                    check=f"Spearman's rho, {name}, {ctx}: the released annotations recounted "
                          f"(within {T5_RECOUNT_TOL:g} of the paper's value)",
                    expected=f"{pv:.2f} ({paper.N_ANNOTATED} texts)",
                    this_run=f"{rho:.3f} ({n} texts that carry both annotations)",
                    passed=bool(abs(rho - pv) <= T5_RECOUNT_TOL)))
                continue
            if ctx == "both":
                # the two contexts' texts pooled: it re-counts the respect and occupation rows
                checks.append(C.check(
                    id=f"regard.t5.{slug}_{ctx}", section="§4 Table 5", kind="recount",
                    check=f"Spearman's rho, {name}, both contexts pooled (restates the respect and "
                          "occupation rows): the paper's value inside this run's 95% interval",
                    expected=f"{pv:.2f}", this_run=f"{rho:.2f} [{lo:.2f}, {hi:.2f}] ({n} texts)",
                    passed=bool(lo <= pv <= hi)))
                continue
            out.append(C.value_in_interval(
                id=f"regard.t5.{slug}_{ctx}", section="§4 Table 5",
                claim=f"Spearman's rho, {name}, {ctx} ({len(both)} of the paper's "
                      f"{paper.N_ANNOTATED} texts; VADER labels at ±{VADER_THRESHOLD:g}, ours)",
                paper_value=pv, estimate=rho, interval=(lo, hi),
                n=f"{n} texts ({ctx}; {len(both)} of {paper.N_ANNOTATED} doubly annotated)",
                n_effective=n, null=0.0,
                statistic=f"Spearman's rho (texts resampled); VADER compound thresholds "
                          f"±{VADER_THRESHOLD:g} (ours: the paper states none); the released "
                          f"files join {len(both)} of the paper's {paper.N_ANNOTATED} texts",
                population=paper.N_ANNOTATED, unit="annotated texts", digits=2))
    out.append(_respect_above_occupation(both, pap, n_boot=n_boot, seed=seed))
    return out, checks


def _respect_above_occupation(both: pd.DataFrame, pap: pd.DataFrame, *, n_boot: int, seed: int,
                              ) -> C.Claim:
    """§4's reading of Table 5: "sentiment is a better proxy for bias in respect contexts than in
    occupation contexts": VADER against the regard annotations correlates more in respect than in
    occupation (the paper: 0.69 vs 0.54). The difference of the two contexts' rho, each context's
    texts resampled apart (seeded percentile bootstrap)."""
    from scipy import stats as sps

    rng = np.random.default_rng(seed)
    rhos, boots, ns = {}, {}, {}
    for ctx in ("respect", "occupation"):
        sub = both[both["context"] == ctx].dropna(subset=["vader", "regard"])
        x, y = sub["vader"].to_numpy(dtype=float), sub["regard"].to_numpy(dtype=float)
        ns[ctx] = len(sub)
        rhos[ctx] = float(sps.spearmanr(x, y).statistic)
        idx = rng.integers(0, len(sub), size=(n_boot, len(sub)))
        boots[ctx] = np.array([sps.spearmanr(x[i], y[i]).statistic for i in idx])
    d = boots["respect"] - boots["occupation"]
    lo, hi = (float(v) for v in np.nanquantile(d, [0.025, 0.975]))
    est = rhos["respect"] - rhos["occupation"]
    peff = float(pap.loc["VADER pred. vs regard ann.", "respect"]
                 - pap.loc["VADER pred. vs regard ann.", "occupation"])
    return C.direction(
        id="regard.t5.vader_regard_respect_gt_occupation", section="§4 Table 5",
        claim="sentiment (VADER) is a better proxy for regard in respect than in occupation contexts",
        paper=f"{pap.loc['VADER pred. vs regard ann.', 'respect']:.2f} vs "
              f"{pap.loc['VADER pred. vs regard ann.', 'occupation']:.2f} ({peff:+.2f})",
        sign=1, estimate=est, interval=(lo, hi), paper_effect=peff,
        n=f"{ns['respect']} / {ns['occupation']} texts ({len(both)} of {paper.N_ANNOTATED})",
        n_effective=min(ns.values()),
        statistic=f"Spearman's rho (VADER at ±{VADER_THRESHOLD:g}, ours, vs regard annotations), "
                  f"respect - occupation, on {len(both)} of the paper's {paper.N_ANNOTATED} texts",
        this_run=f"{rhos['respect']:.2f} vs {rhos['occupation']:.2f}: {est:+.2f} [{lo:+.2f}, {hi:+.2f}]",
        population=paper.N_ANNOTATED // 2, unit="annotated texts per context", digits=2)


def _seed_note(values: list[float]) -> str:
    return f"; seeds {min(values):+.3f} to {max(values):+.3f}" if values else ""


def figure2_claims(scored: pd.DataFrame, source: str, lm1b: str,
                   *, seed: int = 0) -> tuple[list[C.Claim], list[C.Check]]:
    """§5 / Figure 2 on the paper's own GPT-2 samples, scored by the stand-in (replications):
    the six written findings (more negative regard for one demographic than its pair, per
    context) as one Holm family, each with the Newcombe interval of the negative-share
    difference widened to every seed's difference and the p-value of
    :func:`~nlgbias.regard.analysis.template_permutation_p` (the samples cluster by prompt
    template, which both demographics of a pair share); and "LM 1B is less biased than GPT-2" (mean
    absolute gap between paired demographics, bootstrap interval widened to every seed), its own
    row: it compares two generators on another statistic, not a demographic pair, and has no
    p-value of the findings' kind."""
    neg = scored[scored["source"] == source]
    rows = []
    for ctx, worse, than in paper.FIGURE2_FINDINGS.itertuples(index=False):
        s = neg[neg["context"] == ctx]
        a, b = s[s["demographic"] == worse], s[s["demographic"] == than]
        if not len(a) or not len(b):
            continue
        c1, n1 = int((a["regard"] == "negative").sum()), len(a)
        c2, n2 = int((b["regard"] == "negative").sum()), len(b)
        # the samples cluster by prompt template (both demographics get the same templates):
        # the demographic labels are permuted within each template
        p, test = template_permutation_p(s, "regard", "negative", worse, than), "permutation within template"
        rows.append((f"regard.fig2.{ctx}_{SHORT[worse].lower()}_vs_{SHORT[than].lower()}",
                     ctx, worse, than, c1, n1, c2, n2, p, test))
    fam = C.Family(FIG2_FAMILY, {r[0]: r[8] for r in rows}) if rows else None
    out = []
    for cid, ctx, worse, than, c1, n1, c2, n2, p, test in rows:
        lo, hi = stats.diff_proportions_interval(c1, n1, c2, n2)
        seeds = per_seed(scored, lambda f, ctx=ctx, w=worse, t=than: share_difference(
            f, source, ctx, w, t))
        lo, hi = widen(lo, hi, seeds)
        est = c1 / n1 - c2 / n2
        out.append(C.direction(
            id=cid, section="§5 Figure 2 (1)",
            claim=f"GPT-2 samples, {ctx}: more negative regard for {SHORT[worse]} than {SHORT[than]}",
            paper="more negative (Figure 2, §5; no test stated)", sign=1, estimate=est,
            interval=(lo, hi), pvalue=p, family=fam, n=f"{n1} / {n2} samples", n_effective=min(n1, n2),
            statistic="negative-regard share difference (seeds' vote; Newcombe interval widened "
                      f"to hold every seed; p: {PAIR_TEST})",
            this_run=f"{c1 / n1:.3f} vs {c2 / n2:.3f}: {est:+.3f} [{lo:+.3f}, {hi:+.3f}], "
                     f"{stats.p_text(p)} ({test}), Holm over {len(rows)}: "
                     f"{stats.format_p(fam.p(cid))}{_seed_note(seeds)}",
            comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN, scorer=SCORER,
            population=n1 + n2, unit="samples"))
    if lm1b in set(scored["source"]) and source in set(scored["source"]):
        g = gap_difference(scored, "regard", lm1b, source, seed=seed)
        seeds = per_seed(scored, lambda f: mean_abs_gap(f, lm1b) - mean_abs_gap(f, source))
        lo, hi = widen(g["lo"], g["hi"], seeds)
        out.append(C.direction(
            id="regard.fig2.lm1b_less_biased", section="§5 Figure 2 (2)",
            claim=paper.FINDING_LM1B_LESS_BIASED + " (mean |gap| between paired demographics)",
            paper="less biased (§5)", sign=-1, estimate=g["estimate"], interval=(lo, hi),
            n=f"{g['n_a']:,} / {g['n_b']:,} samples", n_effective=min(g["n_a"], g["n_b"]),
            statistic="mean |share gap|, LM 1B - GPT-2 (negative and positive, 3 pairs x 2 contexts)",
            this_run=f"{g['gap_a']:.3f} vs {g['gap_b']:.3f}: {g['estimate']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                     + _seed_note(seeds),
            comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN, scorer=SCORER,
            population=g["n_a"] + g["n_b"], unit="samples"))
    return out, []


#: Sheng §5's readings of regard against sentiment (VADER) on the same samples:
#: (id suffix, source key, statistic kind, label, contexts, sign, the paper's words)
SENTIMENT_READINGS = (
    ("neg_gap_regard_gt_vader", "gpt2", "gap", "negative", ("respect", "occupation"), 1,
     "sentiment under-states regard's negative gaps between paired demographics (§5, §6: "
     "'we may be underestimating the magnitude of biases')"),
    ("respect_neg_gap_regard_gt_vader", "gpt2", "gap", "negative", ("respect",), 1,
     "respect: the negative regard gaps across demographic pairs are more pronounced than "
     "sentiment's (charts 1a vs 1b)"),
    ("occupation_more_neutral", "gpt2", "share", "neutral", ("occupation",), 1,
     "occupation: the regard classifier labels more samples neutral than VADER (1c vs 1d)"),
    ("occupation_neg_gap_regard_gt_vader", "gpt2", "gap", "negative", ("occupation",), 1,
     "occupation: regard increases the gap between the negative scores (1c vs 1d)"),
    ("occupation_pos_gap_regard_lt_vader", "gpt2", "gap", "positive", ("occupation",), -1,
     "occupation: regard decreases the gap between the positive scores (1c vs 1d)"),
    ("lm1b_neg_gap_regard_gt_vader", "lm1b", "gap", "negative", ("respect", "occupation"), 1,
     "regard increases the negative gaps across pairs as for GPT-2 (row 2)"),
)


#: readings that pool other readings of the family (both contexts): checks, not claims
POOLED_READINGS = ("neg_gap_regard_gt_vader",)


def sentiment_claims(scored: pd.DataFrame, sources: dict[str, str], *, seed: int = 0,
                     n_boot: int = 1000, row3: pd.DataFrame | None = None,
                     ) -> tuple[list[C.Claim], list[C.Check]]:
    """Sheng §5 on regard against sentiment: the stand-in's regard and VADER (±0.05) on the same
    samples of the paper (:data:`SENTIMENT_READINGS`), one Holm family with bootstrap p-values;
    each interval (texts resampled within context x demographic) widened to every seed's
    estimate. ``sources``: source key (gpt2, lm1b) -> its name in ``scored``. ``row3``: the
    annotated samples of Figure 2 row (3) (:func:`row3_claims`): §5 states its reading in the
    same sentence as LM 1B's ("similar trends of the regard scores increasing the gap in
    negative scores ... in both the LM 1B-generated samples in row (2) and the annotated samples
    in row (3)"), so it is a test of the same statement and a member of the family; its row and
    check are returned with the family's."""
    res = {}
    for suffix, src, kind, label, ctxs, _sign, _words in SENTIMENT_READINGS:
        if sources.get(src) not in set(scored["source"]):
            continue
        name = sources[src]
        if kind == "gap":
            r = metric_gap_contrast(scored, name, label=label, contexts=ctxs, n_boot=n_boot, seed=seed)
            seeds = per_seed(scored, lambda f, name=name, label=label, ctxs=ctxs: metric_gap_contrast(
                f, name, label=label, contexts=ctxs, n_boot=0)["estimate"])
        else:
            r = label_share_contrast(scored, name, ctxs[0], label=label, n_boot=n_boot, seed=seed)
            seeds = per_seed(scored, lambda f, name=name, label=label, ctxs=ctxs: label_share_contrast(
                f, name, ctxs[0], label=label, n_boot=0)["estimate"])
        res[f"regard.fig2.{suffix}"] = (r, seeds)
    r3 = _row3_contrast(row3, seed=seed, n_boot=n_boot) if row3 is not None and len(row3) else None
    if not res and r3 is None:
        return [], []
    pvals = {k: v[0]["p"] for k, v in res.items()
             if k.removeprefix("regard.fig2.") not in POOLED_READINGS}
    if r3 is not None:
        pvals[ROW3_ID] = r3["p"]
    fam = C.Family(FIG2_SENT_FAMILY, pvals)
    out, checks = [], []
    for suffix, src, kind, label, ctxs, sign, words in SENTIMENT_READINGS:
        cid = f"regard.fig2.{suffix}"
        if cid not in res:
            continue
        r, seeds = res[cid]
        lo, hi = widen(r["lo"], r["hi"], seeds)
        if suffix in POOLED_READINGS:
            # the mean of the respect and occupation rows of the same family: a restatement
            checks.append(C.check(
                id=cid, section="§5 Figure 2 (1)", kind="diagnostic",
                check=f"GPT-2 samples, {words}: the mean over both contexts, which restates the "
                      "respect and occupation rows of the family; passes when regard - VADER "
                      "is above 0 with an interval (holding every seed) above 0",
                expected="regard's mean |negative gap| above VADER's",
                this_run=f"{r['gap_a']:.3f} (regard) vs {r['gap_b']:.3f} (VADER): "
                         f"{r['estimate']:+.3f} [{lo:+.3f}, {hi:+.3f}], {r['n']:,} samples"
                         + _seed_note(seeds),
                passed=bool(sign * lo > 0)))
            continue
        if kind == "gap":
            stat = (f"mean |{label} share gap| over 3 pairs x {len(ctxs)} context(s), regard - "
                    "VADER (same samples)")
            vals = f"{r['gap_a']:.3f} (regard) vs {r['gap_b']:.3f} (VADER)"
        else:
            stat = f"{label} share, regard - VADER ({ctxs[0]} samples; paired)"
            vals = f"{r['share_a']:.3f} (regard) vs {r['share_b']:.3f} (VADER)"
        src_name = "GPT-2" if src == "gpt2" else "LM 1B"
        released = paper.N_PER_CELL * len(SHORT) * len(ctxs)
        claim = C.direction(
            id=cid, section="§5 Figure 2 (2)" if src == "lm1b" else "§5 Figure 2 (1)",
            claim=f"{src_name} samples, {words}", paper="stated from the bars (§5; no test stated)",
            sign=sign, estimate=r["estimate"], interval=(lo, hi), pvalue=r["p"], family=fam,
            n=f"{r['n']:,} samples", n_effective=r["n"], statistic=stat,
            this_run=f"{vals}: {r['estimate']:+.3f} [{lo:+.3f}, {hi:+.3f}], bootstrap "
                     f"{stats.p_text(r['p'])}, Holm over {len(fam.pvalues)}: "
                     f"{stats.format_p(fam.p(cid))}{_seed_note(seeds)}",
            comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN, scorer=SCORER,
            population=released, unit="samples")
        claim = _holm_boundary(claim, float(r["p"]), fam.p(cid), n_boot)
        # the paper gives no effect size: as row (3), the n at this run's estimate at the
        # family's level, against the paper's released samples of the cells (every one scored
        # in the quick and paper profiles)
        out.append(_released(C.n_needed_at_estimate(
            claim, n=r["n"], population=released, unit="samples",
            family_size=len(fam.pvalues)), f"{released:,} {src_name} samples the paper released "
            + ("for both contexts" if len(ctxs) > 1 else f"for the {ctxs[0]} context")))
    if r3 is not None:
        cl, ck = _row3_claims(r3, fam)
        out += cl
        checks += ck
    return out, checks


ROW3_ID = "regard.fig2.row3_neg_gap_regard_gt_sentiment"


def _holm_boundary(c: C.Claim, p: float, holm: float, n_boot: int, level: float = 0.05,
                   ) -> C.Claim:
    """A bootstrap p (a multiple of 1 / ``n_boot``) whose Holm-adjusted value lies within one
    draw's step (times Holm's multiplier) of ``level``: the reason says the verdict sits on the
    boundary, with the numbers."""
    if not (p > 0 and n_boot):
        return c
    mult = holm / p
    if abs(holm - level) > mult / n_boot + 1e-12:
        return c
    note = (f"; on the boundary: bootstrap p {p:.3f} from {n_boot:,} draws x {mult:.0f} (Holm) "
            f"= {holm:.3f}, {'not below' if holm >= level else 'below'} {level:g}; one draw moves "
            f"p by {1 / n_boot:.3f}, the adjusted p by {mult / n_boot:.3f}")
    return replace(c, reason=c.reason + note)


def _released(c: C.Claim, what: str) -> C.Claim:
    """An n needed above the population, said of what that population is (``what``, with its
    count)."""
    pop = f"{c.population:,.0f}"
    return replace(c, reason=c.reason.replace(f"more than the {pop} that exist",
                                              f"more than the {what}"))


def _row3_contrast(annotated: pd.DataFrame, *, seed: int, n_boot: int) -> dict:
    if annotated["sentiment"].isna().any():
        raise ValueError("row (3) compares the two annotations: pass row3_samples(annotated), "
                         "the texts that carry a sentiment annotation")
    src = annotated["source"].iloc[0]
    return metric_gap_contrast(annotated, src, label="negative", n_boot=n_boot, seed=seed)


def _row3_claims(r: dict, fam: C.Family | None) -> tuple[list[C.Claim], list[C.Check]]:
    n = int(r["n"])
    holm = f", Holm over {len(fam.pvalues)}: {stats.format_p(fam.p(ROW3_ID))}" if fam else ""
    claim = C.direction(
        id=ROW3_ID, section="§5 Figure 2 (3)",
        claim="annotated samples: regard (annotations) increases the negative gaps across "
              "demographic pairs relative to sentiment (annotations)",
        paper="stated from the bars (§5; no test stated)", sign=1, estimate=r["estimate"],
        interval=(r["lo"], r["hi"]), pvalue=r["p"], family=fam, family_power=fam is not None,
        n=f"{n} usable of the paper's {paper.N_ANNOTATED} annotated samples (demographic found, "
          "both annotations)", n_effective=n,
        statistic="mean |negative share gap| over 3 pairs x 2 contexts, regard annotations - "
                  "sentiment annotations (the samples were chosen by VADER, 3 positive and 3 "
                  "negative per template, so VADER is not the comparison)",
        this_run=f"{r['gap_a']:.3f} (regard) vs {r['gap_b']:.3f} (sentiment): {r['estimate']:+.3f} "
                 f"[{r['lo']:+.3f}, {r['hi']:+.3f}], bootstrap {stats.p_text(r['p'])}{holm}",
        population=n, unit="annotated samples with both annotations")
    # the paper gives no effect size: the n needed is at this run's estimate, at the family's
    # corrected level; every annotated sample that carries both annotations is already used
    claim = _released(C.n_needed_at_estimate(claim, n=n, population=n,
                                              unit="annotated samples with both annotations",
                                              family_size=len(fam.pvalues) if fam else 1),
                      f"{n} usable of the paper's {paper.N_ANNOTATED} (those whose demographic "
                      "is found in the paper's GPT-2 samples and that carry both annotations)")
    k = C.check(id="regard.fig2.row3_demographics_found", section="§5 Figure 2 (3)",
                kind="data count",
                check="annotated samples whose demographic is found in the paper's GPT-2 samples "
                      "and that carry both a regard and a sentiment annotation (row (3)'s texts)",
                expected=f"{paper.N_ANNOTATED}", this_run=f"{n}", passed=n == paper.N_ANNOTATED)
    return [claim], [k]


def row3_claims(annotated: pd.DataFrame, *, seed: int = 0, n_boot: int = 1000,
                ) -> tuple[list[C.Claim], list[C.Check]]:
    """Figure 2 row (3): on the annotated samples, regard widens the negative gaps between paired
    demographics relative to sentiment. Like-for-like: the released regard annotations against
    the released sentiment annotations on the paper's annotated texts that carry both, whose
    demographic is read from the paper's own GPT-2 samples (``annotated``:
    :func:`~nlgbias.regard.experiments.row3_samples`, columns ``source, context, demographic,
    regard, sentiment`` with label names). Not VADER: Sheng §4 selected these samples per
    template as three positive and three negative by VADER, so VADER's label shares on them are
    about one half each by design and its negative gap about 0 (the row would test whether the
    regard annotations show any gap). Graded alone here (no family); the claims table grades it
    inside §5's regard-against-sentiment family (:func:`sentiment_claims` with ``row3``), whose
    statement it tests, with the n needed at this run's estimate at the family's level."""
    if not len(annotated):
        return [], []
    return _row3_claims(_row3_contrast(annotated, seed=seed, n_boot=n_boot), None)


def annotation_claims(annotated: pd.DataFrame, gpt2: pd.DataFrame,
                      ) -> tuple[list[C.Claim], list[C.Check]]:
    """§4's inter-annotator agreement, footnote 11 and footnote 12, on the paper's released data.

    - Agreement (Fleiss' kappa 0.5 / 0.49 on all categories, 0.60 / 0.67 on the original three,
      Spearman 0.76 / 0.80, sentiment / regard): the released files hold only the majority
      label of each text, not each annotator's: ``not tested``.
    - Footnote 11: in chart (3c) (the annotated occupation samples, regard annotations) Black is
      both more positive and more negative than White: the released annotations recounted
      (a recount check of released labels: both comparisons must hold as the paper says).
    - Footnote 12: "prostitute" appears frequently (in the GPT-2 occupation samples): a count
      with its rule (:data:`FN12_TOP`), a check on the paper's released samples.
    ``annotated``: :func:`~nlgbias.regard.experiments.annotated_samples`; ``gpt2``: the paper's
    GPT-2 samples (columns ``context, text``)."""
    out = [C.not_tested(
        id="regard.s4.inter_annotator_agreement", section="§4 Annotation results",
        claim="inter-annotator agreement: Fleiss' kappa 0.5 (sentiment) / 0.49 (regard) on all "
              "categories, 0.60 / 0.67 on the original three; Spearman 0.76 / 0.80",
        paper="kappa 0.5 / 0.49, 0.60 / 0.67; Spearman 0.76 / 0.80",
        why="the released annotations (nlg-bias data/regard, data/sentiment) hold one majority "
            "label per text, not each annotator's label: agreement cannot be computed")]
    occ = annotated[annotated["context"] == "occupation"]
    b, w = occ[occ["demographic"] == "The Black person"], occ[occ["demographic"] == "The White person"]
    checks = []
    if len(b) and len(w):
        share = {(g, lab): float((f["regard"] == lab).mean()) for g, f in (("Black", b), ("White", w))
                 for lab in ("positive", "negative")}
        holds = [share[("Black", lab)] > share[("White", lab)] for lab in ("positive", "negative")]
        checks.append(C.check(
            id="regard.fig2.row3_fn11_black_more_positive_and_negative", section="§5 fn. 11 (chart 3c)",
            kind="recount",
            check="annotated occupation samples (chart 3c): Black is both more positive and more "
                  f"negative than White: the released regard labels of {len(b)} / {len(w)} "
                  "samples counted again; passes when both comparisons hold",
            expected="both (fn. 11; no numbers)",
            this_run=f"positive {share[('Black', 'positive')]:.3f} vs {share[('White', 'positive')]:.3f}, "
                     f"negative {share[('Black', 'negative')]:.3f} vs {share[('White', 'negative')]:.3f}: "
                     f"{sum(holds)} of 2 hold ({len(b)} / {len(w)} samples)",
            passed=all(holds)))
    o = gpt2[gpt2["context"] == "occupation"]
    words = o["text"].str.extract(r"\bas an? ([A-Za-z]+)")[0].str.lower().dropna()
    counts = words.value_counts()
    k = int(o["text"].str.contains("prostitut", case=False).sum())
    rank = int((counts > counts.get("prostitute", 0)).sum()) + 1 if "prostitute" in counts else None
    top = ", ".join(f"{w} {c}" for w, c in counts.head(3).items())
    checks.append(C.check(
        id="regard.fig2.fn12_prostitute_frequent", section="§5 fn. 12", kind="data count",
        check=f"'prostitute' is among the {FN12_TOP} most frequent occupation words (the first "
              f"word after 'as a(n)') of the paper's GPT-2 occupation samples",
        expected=f"frequent (fn. 12): in the top {FN12_TOP}",
        this_run=(f"rank {rank} of {len(counts)} words ({int(counts.get('prostitute', 0))} of "
                  f"{len(words)} samples with such a word; top: {top}); {k} of {len(o)} occupation "
                  "samples contain 'prostitut'"),
        passed=rank is not None and rank <= FN12_TOP))
    return out, checks


def _wiki_cells(bold_scored: pd.DataFrame, wiki: str) -> list[dict]:
    """BOLD Table 5's WIKI cells (label share per group) with the interval holding every seed."""
    groups = {**paper.BOLD_GROUPS["gender"], **paper.BOLD_GROUPS["race"]}
    w = bold_scored[(bold_scored["model"] == wiki) & bold_scored["group"].isin(groups)]
    cells = []
    for grp, g in groups.items():
        sub = w[w["group"] == grp]
        for lab in ("positive", "negative"):
            k, n = int((sub["regard"] == lab).sum()), len(sub)
            if not n:
                continue
            wlo, whi = (float(v) for v in stats.proportion_interval(k, n))
            seeds = per_seed(sub, lambda f, lab=lab: float((f["regard"] == lab).mean()))
            lo, hi = widen(wlo, whi, seeds)
            cells.append({"group": grp, "g": g, "label": lab, "count": k, "n": n, "share": k / n,
                          "lo": lo, "hi": hi, "wilson": (wlo, whi), "seeds": seeds})
    return cells


def wiki_seed_spread(bold_scored: pd.DataFrame, wiki: str) -> dict[str, tuple[float, float]]:
    """BOLD Table 5's WIKI cells: "<group> <label>" -> (lowest, highest) seed's share."""
    return {f"{c['group'].replace('_', ' ')} {c['label']}": (min(c["seeds"]), max(c["seeds"]))
            for c in _wiki_cells(bold_scored, wiki) if c["seeds"]}


def bold_claims(bold_scored: pd.DataFrame, bold_t5: pd.DataFrame, wiki: str,
                wiki_population: dict[str, int], chi: dict,
                relative: float = CALIBRATION_RELATIVE,
                ) -> tuple[list[C.Claim], list[C.Check]]:
    """BOLD Table 5 and §6.1.3 / §6.3 on regard. On WIKI (BOLD's own Wikipedia sentences) the
    paper prints its BERT classifier's output: the stand-in's shares there are its
    **calibration** (8 cells, and the direction male > female for positive regard). The claims
    over the paper's generators (GPT-2, CTRL, BERT), which are not available offline, are
    replications on a ``different pool`` (WIKI and notebook 02's offline models) or ``not
    tested``. ``wiki_population``: WIKI texts that exist per group (the sample is drawn from
    them). ``chi``: :func:`~nlgbias.regard.analysis.bold_chi2` over this run's sources.
    ``relative``: the calibration margin's relative size (:func:`calibration_margin`); the
    paper's three decimals widen it by half a unit (0.0005)."""
    out, checks = [], []
    pw = paper.BOLD_TABLE5.set_index("source").loc["WIKI"]
    cells = _wiki_cells(bold_scored, wiki)
    for c in cells:
        col = f"{c['label']}_{c['g']}"
        pv = float(pw[col])
        margin = round(calibration_margin(pv, relative), 4)
        pop = wiki_population.get(c["group"], c["n"])
        out.append(C.calibration_recount(
            id=f"regard.bold.calib.wiki_{col}", section="BOLD Table 5 (WIKI)",
            claim=f"WIKI, {c['group'].replace('_', ' ')}: share of {c['label']} regard",
            paper_value=pv, estimate=c["share"], seeds=c["seeds"] or None,
            seed_what="classifier seed", margin=margin, interval=c["wilson"],
            n=f"{c['n']} of {pop} WIKI texts", n_texts=c["n"], population=pop,
            paper_resolution=BOLD_TABLE5_PAPER_RESOLUTION,
            statistic=f"{c['label']} regard share, the seeds' vote and each seed (every WIKI "
                      "text of the group: a recount, no sampling interval; margin "
                      f"+/-{margin:g}: {_rule(relative)}, + half the paper's printed unit "
                      f"({BOLD_TABLE5_PAPER_RESOLUTION / 2:g}))",
            this_run=f"{c['share']:.3f}"
                     + (f"; seeds {min(c['seeds']):.3f}-{max(c['seeds']):.3f}" if c["seeds"] else "")
                     + (f" [{c['lo']:.3f}, {c['hi']:.3f}] (a sample)" if c["n"] < pop else ""),
            stand_in=CLASSIFIER_STAND_IN, scorer=SCORER, unit="WIKI texts"))
    by = {(c["g"], c["label"]): c for c in cells}
    if ("male", "positive") in by and ("female", "positive") in by:
        m, f = by[("male", "positive")], by[("female", "positive")]
        lo, hi = stats.diff_proportions_interval(m["count"], m["n"], f["count"], f["n"])
        seeds = [a - b for a, b in zip(m["seeds"], f["seeds"], strict=True)]
        lo, hi = widen(lo, hi, seeds)
        eff = float(pw["positive_male"] - pw["positive_female"])
        pops = (wiki_population.get(m["group"], m["n"]), wiki_population.get(f["group"], f["n"]))
        sample = m["n"] < pops[0] or f["n"] < pops[1]
        out.append(C.calibration_recount(
            id="regard.bold.calib.wiki_male_gt_female_positive", section="BOLD Table 5 (WIKI)",
            claim="WIKI: positive regard higher for male than female (actors vs actresses)",
            paper=f"{pw['positive_male']:.3f} vs {pw['positive_female']:.3f} ({eff:+.3f})",
            paper_value=eff, sign=True, estimate=m["share"] - f["share"], seeds=seeds or None,
            seed_what="classifier seed", interval=(lo, hi),
            n=f"{m['n']} / {f['n']} WIKI texts", n_texts=min(m["n"], f["n"]),
            population=min(pops), sampled=sample,
            statistic="positive regard share, male - female, the seeds' vote and each seed "
                      + ("(a sample of WIKI's texts: graded on its interval's sign)" if sample else
                         "(every WIKI text of both groups: a recount, no sampling interval; graded "
                         "on its sign)"),
            this_run=f"{m['share']:.3f} vs {f['share']:.3f}: {m['share'] - f['share']:+.3f}"
                     + _seed_note(seeds) + (f" [{lo:+.3f}, {hi:+.3f}] (a sample)" if sample else ""),
            paper_resolution=BOLD_TABLE5_PAPER_RESOLUTION,
            stand_in=CLASSIFIER_STAND_IN, scorer=SCORER, unit="WIKI texts per group"))
    pool = ("WIKI and the offline generators of notebook 02 (the paper: BERT, GPT-2, CTRL), "
            "scored by " + CLASSIFIER_STAND_IN)
    out.append(_eu_ge_af_claim(bold_scored, wiki, wiki_population, pool))
    pos = [c for c in paper.BOLD_TABLE5.columns if c.startswith("positive_")]
    t = bold_t5.set_index("source")
    if wiki in t.index and len(t) > 1:
        top = sum(bool(t[c].idxmax() == wiki) for c in pos)
        nw = int(t.loc[wiki, [c for c in t.columns if c.startswith("n_")]].sum())
        out.append(C.tolerance(
            id="regard.bold.wiki_highest_positive", section="BOLD Table 5",
            claim="WIKI has the highest positive regard in every column",
            paper_value=1.0, paper=f"{len(pos)} of {len(pos)} columns", estimate=top / len(pos), tol=0,
            n=f"{nw} WIKI texts; {len(t) - 1} generator(s)", statistic="share of columns",
            this_run=f"{top} of {len(pos)} columns",
            comparability=Comparability.DIFFERENT_POOL, stand_in=pool, scorer=SCORER))
    out.append(C.not_tested(
        id="regard.bold.t5_generators", section="BOLD Table 5",
        claim="positive / negative regard of BERT, GPT-2, CTRL-WIKI, CTRL-OPN and CTRL-THT texts",
        paper="Table 5's five generator rows",
        why="the paper's generators (BERT, GPT-2, CTRL) and its BERT regard classifier are not "
            "available offline; the offline generators' rows are in regard_bold_table5, unscored "
            "against the paper"))
    out.append(C.not_tested(
        id="regard.bold.chi2_generators", section="BOLD §6.3",
        claim="positive regard differs across CTRL-THT, CTRL-WIKI, CTRL-OPN and GPT-2 (chi-square)",
        paper=f"p < {paper.BOLD_CHI2_P_BELOW}",
        why="the four generators are not available offline (this run's chi-square over its own "
            "sources is the check regard.bold.chi2_this_run)"))
    if chi.get("dof"):
        checks.append(C.check(
            id="regard.bold.chi2_this_run", section="BOLD §6.3", kind="diagnostic",
            check="chi-square test of positive regard across this run's sources (stand-in "
                  "classifier; not the paper's generators)",
            expected="no expectation (the paper's sources are not here)",
            this_run=f"{stats.p_text(chi['p'], 4) if 'p' in chi else 'p = n/a'} (dof {chi['dof']}; "
                     + ", ".join(f"{k}: {v:.3f}" for k, v in chi.get("shares", {}).items()) + ")",
            passed=True))
    return out, checks


#: BOLD §6.1.3's "in five out of six models", read with a tolerance on the share of sources:
#: within 0.2 of 5/6 (with three sources: two or three of them)
EU_GE_AF_TOL = 0.2


def eu_ge_af_signs(bold_scored: pd.DataFrame, wiki: str, wiki_population: Mapping[str, int],
                   ) -> list[dict]:
    """Per source of ``bold_scored`` (``model``): European American minus African American
    positive regard share (the seeds' vote), each seed's own difference, and the sign it
    shows: ``">="`` where the vote, every seed and (for texts sampled from a larger pool: a
    generator's samples, or a WIKI sample) the difference's 95% Newcombe interval are all >= 0,
    ``"<"`` where all are < 0, else ``"either"`` (it depends on the classifier seed or on the
    texts sampled). WIKI's whole groups (every text of ``wiki_population``) are a recount: the
    vote and the seeds only."""
    eu, af = "European_Americans", "African_Americans"
    out = []
    for src, sub in bold_scored.groupby("model", sort=False):
        a, b = sub[sub["group"] == eu], sub[sub["group"] == af]
        if not len(a) or not len(b):
            continue
        ka, kb = int((a["regard"] == "positive").sum()), int((b["regard"] == "positive").sum())
        est = ka / len(a) - kb / len(b)
        seeds = [x - y for x, y in zip(
            per_seed(a, lambda f: float((f["regard"] == "positive").mean())),
            per_seed(b, lambda f: float((f["regard"] == "positive").mean())), strict=True)]
        whole = src == wiki and len(a) >= wiki_population.get(eu, np.inf) \
            and len(b) >= wiki_population.get(af, np.inf)
        lo, hi = (est, est) if whole else stats.diff_proportions_interval(ka, len(a), kb, len(b))
        lo, hi = widen(lo, hi, seeds)
        sign = ">=" if lo >= 0 else "<" if hi < 0 else "either"
        out.append({"source": src, "estimate": est, "lo": lo, "hi": hi, "seeds": seeds,
                    "whole": whole, "sign": sign, "n": (len(a), len(b))})
    return out


def _eu_ge_af_claim(bold_scored: pd.DataFrame, wiki: str, wiki_population: Mapping[str, int],
                    pool: str) -> C.Claim:
    """BOLD §6.1.3: European American positive regard >= African American in five of six
    sources. Each source's sign (:func:`eu_ge_af_signs`: the vote, every classifier seed and, on
    sampled texts, the 95% interval); the share of sources with ">=" is at least the sources
    whose sign is ">=" for all of them and at most those plus the ones where it depends
    (``"either"``): graded against 5/6 with :data:`EU_GE_AF_TOL` on that range (the seeds and
    samples cannot narrow it further; another pool than the paper's generators, so the row is
    not comparable and says what the rule would)."""
    signs = eu_ge_af_signs(bold_scored, wiki, wiki_population)
    n = len(signs)
    ge = sum(r["sign"] == ">=" for r in signs)
    either = sum(r["sign"] == "either" for r in signs)
    vote = sum(r["estimate"] >= 0 for r in signs)
    pv = paper.BOLD_EU_GE_AF_POSITIVE[0] / paper.BOLD_EU_GE_AF_POSITIVE[1]
    per = "; ".join(
        f"{r['source']} {r['estimate']:+.4f}"
        + (f" [{r['lo']:+.3f}, {r['hi']:+.3f}]" if not r["whole"] else "")
        + (f", seeds {min(r['seeds']):+.3f} to {max(r['seeds']):+.3f}" if r["seeds"] else "")
        + f": {'>= 0' if r['sign'] == '>=' else '< 0' if r['sign'] == '<' else 'either sign'}"
        for r in signs)
    lo, hi = (ge / n, (ge + either) / n) if n else (np.nan, np.nan)
    ns = ", ".join(f"{r['source']}: {r['n'][1]} / {r['n'][0]}" for r in signs)
    return C.value_in_interval(
        id="regard.bold.eu_ge_af_positive", section="BOLD §6.1.3",
        claim="European American positive regard >= African American in most sources",
        paper_value=pv,
        paper=f"{paper.BOLD_EU_GE_AF_POSITIVE[0]} of {paper.BOLD_EU_GE_AF_POSITIVE[1]} sources",
        estimate=vote / max(n, 1), interval=(lo, hi), margin=EU_GE_AF_TOL, spread=(lo, hi),
        spread_what="the shares of sources the classifier seeds and the samples' intervals allow",
        n=f"{n} sources ({ns} African / European American texts)", n_effective=n,
        statistic="share of sources with European American >= African American positive regard "
                  "(each source's sign from the seeds' vote, every seed and, on sampled texts, "
                  f"the 95% Newcombe interval; tolerance {EU_GE_AF_TOL:g} around 5/6)",
        this_run=f"the vote: {vote} of {n} sources; by the seeds and intervals {ge} to "
                 f"{ge + either} of {n} (EA - AA positive: {per})",
        comparability=Comparability.DIFFERENT_POOL, stand_in=pool, scorer=SCORER,
        population=n, unit="sources", digits=2)


#: the analysis choice graded beside the stated one on BOLD's texts (its *sensitive to* label)
PLACEHOLDER_CHOICE = "regard placeholder"


def bold_claims_by_placeholder(scored: Mapping[str, pd.DataFrame], stated: str, wiki: str,
                               wiki_population: dict[str, int],
                               ) -> tuple[tuple[list[C.Claim], list[C.Check]], pd.DataFrame]:
    """:func:`bold_claims` graded once per person placeholder of the texts the classifier
    scores (``scored``: placeholder -> :func:`~nlgbias.regard.experiments.classify_placeholders`'
    scored texts; ``stated``: :data:`nlgbias.bold.choices.REGARD_PLACEHOLDER`, BOLD §3.3's
    "Person"). Returns the claims and checks at the stated placeholder, each row whose verdict
    changes inside the range with the verdicts per placeholder in its reason and its *sensitive
    to* column (:func:`nlgbias.bold.claims.note_sensitivity`), and the verdict table
    (:func:`nlgbias.bold.claims.verdict_sensitivity`: estimate and verdict per placeholder)."""
    from nlgbias.regard.analysis import bold_chi2, bold_regard_table

    if stated not in scored:
        raise ValueError(f"the stated placeholder {stated!r} was not scored ({list(scored)})")
    parts = {p: bold_claims(sc, bold_regard_table(sc), wiki, wiki_population, bold_chi2(sc))
             for p, sc in scored.items()}
    sens = verdict_sensitivity({f"placeholder {p}": parts[p][0] for p in scored},
                               f"placeholder {stated}", would_say=True)
    sens = sens[~sens["id"].isin([c.id for c in parts[stated][0]
                                  if c.verdict is C.Verdict.NOT_TESTED])].reset_index(drop=True)
    cl = note_sensitivity(parts[stated][0], sens,
                          "person placeholder the regard classifier sees", label=PLACEHOLDER_CHOICE)
    return (cl, parts[stated][1]), sens


def calibration_margin_claims(parts_fig1: tuple[list[C.Claim], list[C.Check]],
                              parts_bold: tuple[list[C.Claim], list[C.Check]],
                              seeds: pd.DataFrame, ours: str, vote_correct: int, vote_n: int,
                              bold_scored: pd.DataFrame, wiki: str,
                              wiki_population: dict[str, int],
                              relatives: Sequence[float] | None = None,
                              ) -> tuple[tuple[list[C.Claim], list[C.Check]],
                                         tuple[list[C.Claim], list[C.Check]], pd.DataFrame]:
    """The calibration rows (Figure 1's test accuracy and BOLD Table 5's WIKI rows, graded at
    the stated placeholder) graded again over the calibration margin's stated range
    (``relatives``, default :data:`nlgbias.bold.choices.CALIBRATION_RELATIVE_RANGE`, the floor
    scaled with it), as notebook 04 grades its calibration rows. Returns ``parts_fig1`` and
    ``parts_bold`` with each row whose verdict changes inside the range noted
    (:func:`nlgbias.bold.claims.note_sensitivity`, label :data:`MARGIN_CHOICE`) and the verdict
    table (estimate and verdict per margin; ``depends``)."""
    from nlgbias.bold.choices import CALIBRATION_RELATIVE_RANGE
    from nlgbias.regard.analysis import bold_chi2, bold_regard_table

    relatives = CALIBRATION_RELATIVE_RANGE if relatives is None else relatives
    t5, chi = bold_regard_table(bold_scored), bold_chi2(bold_scored)
    graded = [c for c in (*parts_fig1[0], *parts_bold[0]) if c.tally is C.Tally.CALIBRATION]
    runs = {"as graded": graded}
    for r in relatives:
        if r != CALIBRATION_RELATIVE:
            runs[f"margin {r:.0%}"] = [
                *figure1_claims(seeds, ours, vote_correct, vote_n, relative=r)[0],
                *bold_claims(bold_scored, t5, wiki, wiki_population, chi, relative=r)[0]]
    sens = verdict_sensitivity(runs, "as graded", [c.id for c in graded], would_say=True)
    what = "calibration margin (a fifth to a third of the paper's share)"
    return ((note_sensitivity(parts_fig1[0], sens, what, label=MARGIN_CHOICE), parts_fig1[1]),
            (note_sensitivity(parts_bold[0], sens, what, label=MARGIN_CHOICE), parts_bold[1]),
            sens)


def not_tested_claims() -> tuple[list[C.Claim], list[C.Check]]:
    """Sheng's claims that need the paper's BERT regard classifier (like-for-like Figure 2)."""
    return [C.not_tested(
        id="regard.fig2.paper_classifier", section="§5 Figure 2 (1)-(2)",
        claim="Figure 2's regard shares and §5's findings with the paper's own BERT regard "
              "classifier on its GPT-2 and LM 1B samples",
        paper="Figure 2 rows (1)-(2)",
        why="the paper's BERT regard classifier (and its repository's ensembles) are not available "
            "offline; the paper's samples are here, so the same findings are replicated with the "
            "stand-in classifier (replication rows regard.fig2.*, scorer regard-minilm)")], []


def claims_text(df: pd.DataFrame) -> str:
    """The claims table as prose: counts per tally and verdict, then one line per claim."""
    lines = [f"**{len(df)} claims**, counted in three tallies never mixed:", ""]
    for tally, (n, counts) in C.tally_counts(df, keep_empty=True).items():
        lines.append(f"- *{C.TALLY_NAMES[tally]}* ({n}): " + ", ".join(f"{k} {v}" for v, k in counts))
    lines.append("")
    for r in df.to_dict("records"):
        extra = ""
        if r["verdict"] in ("inconclusive", "undecided") and np.isfinite(float(r["n_needed"] or np.nan)):
            extra = f" (n for 80% power: {float(r['n_needed']):,.0f} {r['unit']})"
        scorer = f", scorer {r['scorer']}" if r["scorer"] else ""
        lines.append(f"- **{r['verdict']}** ({r['tally']}{scorer}) · {r['claim']} ({r['section']}): "
                     f"paper {r['paper']}; this run {r['this run']} (n {r['n']}) — {r['reason']}{extra}")
    return "\n".join(lines)


def collect(parts: list[tuple[list[C.Claim], list[C.Check]]], reload_ok: bool,
            ) -> tuple[list[C.Claim], list[C.Check]]:
    """The claims and checks of every part (in order), and the check that the saved classifier
    reloads with identical predictions."""
    claim_list = [c for cl, _ in parts for c in cl]
    check_list = [k for _, ck in parts for k in ck] + [C.check(
        id="regard.fig1.saved_classifier_reloads", section="§4", kind="diagnostic",
        check="the saved classifier reloads with identical predictions", expected="True",
        this_run=str(reload_ok), passed=bool(reload_ok))]
    return claim_list, check_list
