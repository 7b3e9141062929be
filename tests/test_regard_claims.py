"""Regard claims through the claims API: which tally each row counts in, the Holm families, the
seeds inside every regard interval, and the classifier's training giving the same bytes twice."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from nlgbias import claims as C
from nlgbias.datasets import regard as D
from nlgbias.paths import project_root
from nlgbias.regard import analysis as A
from nlgbias.regard import claims as RC
from nlgbias.regard import paper

RESULTS = project_root() / "results"


def test_table4_and_the_annotation_correlations_are_checks_vader_rows_reproductions():
    from nlgbias.regard import baselines as B

    cl, ck = RC.table4_claims(A.table4(D.load_regard_annotations(), paper.TABLE4))
    assert cl == [] and [k.id for k in ck] == ["regard.t4.counts", "regard.t4.negative_counts"]
    assert all(k.passed and k.kind == "data count" for k in ck)
    both = D.load_both_annotations()
    cl, ck = RC.table5_claims(both.assign(vader=B.vader_labels(both["text"])), n_boot=200)
    assert [k.id for k in ck] == [f"regard.t5.sentiment_regard_{c}" for c in ("respect", "occupation", "both")] + [
        "regard.t5.vader_sentiment_both", "regard.t5.vader_regard_both"]
    assert {k.kind for k in ck} == {"recount"}
    # the released annotations recounted: respect 0.945 vs 0.95, occupation 0.699 vs 0.70, both
    # 0.857 vs 0.82, each within the stated 0.05; the pooled VADER rows (0.74, 0.66) restate the
    # two contexts: checks with the paper's 0.74 / 0.61 inside their intervals
    assert [k.passed for k in ck] == [True] * 5
    # 273 of the paper's 302 texts (the released files join on fewer) with the paper's tool,
    # VADER, at its documented cut (ours: the paper states none): the paper's data and method,
    # like for like (as Figure 2's row 3 on 294 texts), the subset and the cut said in each row;
    # every value inside its interval
    assert len(cl) == 5 and {str(c.tally) for c in cl} == {"reproduction"}
    assert not any(c.id.endswith("_both") for c in cl)
    assert all(str(c.comparability) == "like-for-like" and not c.scorer for c in cl)
    assert all("273 of the paper's 302" in (c.claim + c.statistic + str(c.n)) for c in cl)
    assert all(str(c.verdict) == "reproduced" for c in cl[:-1])
    # §4's reading: VADER tracks regard better in respect (0.77) than occupation (0.53) contexts
    ctx = cl[-1]
    assert ctx.id == "regard.t5.vader_regard_respect_gt_occupation"
    assert ctx.estimate == pytest.approx(0.766 - 0.526, abs=0.002) and str(ctx.verdict) == "reproduced"


def test_figure2_row3_on_the_annotated_samples_is_like_for_like():
    from nlgbias.regard import experiments as X

    ann = X.annotated_samples(D.load_regard_annotations())
    assert len(ann) == 294 and set(ann["regard"]) == {"negative", "neutral", "positive"}
    # the paper chose these samples by VADER (3 positive, 3 negative per template): VADER labels
    # none neutral, so row (3) compares the two annotations, on the texts that carry both
    assert (ann["vader"] == "neutral").sum() == 0
    row3 = X.row3_samples(ann)
    assert len(row3) == 266 and row3["sentiment"].value_counts().to_dict() == {
        "negative": 113, "neutral": 78, "positive": 75}
    with pytest.raises(ValueError, match="row3_samples"):
        RC.row3_claims(ann, n_boot=300)
    cl, ck = RC.row3_claims(row3, n_boot=300)
    (c,) = cl
    assert c.id == "regard.fig2.row3_neg_gap_regard_gt_sentiment"
    assert str(c.tally) == "reproduction" and str(c.verdict) == "inconclusive"
    assert c.this_run.startswith("0.182 (regard) vs 0.134 (sentiment): +0.048")
    assert ck[0].this_run == "266" and not ck[0].passed
    # §5 states row (3)'s reading in one sentence with LM 1B's row (2): a member of the
    # regard-against-sentiment family, Holm-adjusted with it; the paper gives no effect size, so
    # the n needed is at this run's estimate at the family's level, above the 266 samples
    cl, ck = RC.sentiment_claims(_scored(), {"gpt2": "GPT-2 (paper's samples)"}, n_boot=200,
                                 row3=row3)
    by = {c.id: c for c in cl}
    c = by["regard.fig2.row3_neg_gap_regard_gt_sentiment"]
    assert c.family == f"{RC.FIG2_SENT_FAMILY}: 5 rows, Holm"
    assert {x.family for x in cl} == {c.family} and "Holm over 5:" in c.this_run
    assert str(c.tally) == "reproduction" and str(c.verdict) == "inconclusive"
    assert "power and n needed at the corrected level 0.01 (0.05 over 5 rows); the paper gives " \
           "no effect size: 80% power at this run's estimate (+0.048) needs" in c.reason
    # 302 annotated texts: 294 whose demographic is found, 266 of them with both annotations
    assert c.reason.endswith("more than the 266 usable of the paper's 302 (those whose demographic "
                             "is found in the paper's GPT-2 samples and that carry both "
                             "annotations): this dataset cannot decide it")
    assert c.n.startswith("266 usable of the paper's 302 annotated samples")
    assert c.population == 266 and np.isnan(c.n_needed)
    assert [k.id for k in ck][-1] == "regard.fig2.row3_demographics_found"
    # every undecided row of the family gets its n needed at its own estimate, against the
    # paper's released samples of its cells (500 per context x demographic)
    for x in cl:
        if x.id != c.id:
            assert x.population == 500 * 6 * (1 if "respect" in x.id or "occupation" in x.id
                                              else 2), x.id
        if str(x.verdict) == "undecided" and abs(x.estimate) > 0:
            assert "80% power at this run's estimate" in x.reason, x.id


def test_annotation_agreement_not_tested_footnotes_11_and_12_counted():
    from nlgbias.regard import experiments as X

    ann = X.annotated_samples(D.load_regard_annotations())
    cl, ck = RC.annotation_claims(ann, D.load_generated_samples("gpt2"))
    by = {c.id: c for c in cl}
    assert by["regard.s4.inter_annotator_agreement"].verdict is C.Verdict.NOT_TESTED
    assert "regard.fig2.row3_fn11_black_more_positive_and_negative" not in by
    fn11, k = ck
    # chart 3c on the released annotations: Black positive 0.292 vs White 0.083, negative 0.417
    # vs 0.292: both hold, as footnote 11 says (released labels counted again: a recount check)
    assert fn11.id == "regard.fig2.row3_fn11_black_more_positive_and_negative"
    assert fn11.kind == "recount" and fn11.passed
    assert fn11.this_run.startswith("positive 0.292 vs 0.083, negative 0.417 vs 0.292")
    # 'prostitute' is the second most frequent occupation word (155 of 2,299) after waitress
    assert k.kind == "data count" and k.passed and k.this_run.startswith("rank 2 of 149 words (155 of 2299")


def _scored(seeds_flip: int = 0) -> pd.DataFrame:
    """GPT-2-like samples: 100 per (context, demographic); the worse demographic of each of
    §5's findings gets 40 negatives, its pair 20; each seed column equals the vote except
    ``seeds_flip`` extra negatives for the worse demographic in seed 1."""
    rows = []
    for ctx in ("respect", "occupation"):
        worse = set(paper.FIGURE2_FINDINGS.loc[paper.FIGURE2_FINDINGS["context"] == ctx, "more_negative"])
        for demo in A.SHORT:
            k = 40 if demo in worse else 20
            labels = ["negative"] * k + ["neutral"] * (60 - k) + ["positive"] * 40
            sent = ["negative"] * 25 + ["neutral"] * 35 + ["positive"] * 40
            rows += [("GPT-2 (paper's samples)", ctx, demo, r, s) for r, s in zip(labels, sent, strict=True)]
    df = pd.DataFrame(rows, columns=["source", "context", "demographic", "regard", "sentiment"])
    for s in range(3):
        df[f"regard_seed{s}"] = df["regard"]
    if seeds_flip:
        idx = df.index[(df["regard"] == "neutral") & (df["demographic"] == "The gay person")][:seeds_flip]
        df.loc[idx, "regard_seed1"] = "negative"
    return df


def test_figure2_findings_are_one_holm_family_of_stand_in_replications_holding_every_seed():
    df = _scored(seeds_flip=15)
    cl, _ = RC.figure2_claims(df, "GPT-2 (paper's samples)", "LM 1B (paper's samples)")
    assert len(cl) == 6
    for c in cl:
        assert str(c.tally) == "replication" and c.scorer == RC.SCORER
        assert c.family == f"{RC.FIG2_FAMILY}: 6 rows, Holm" and str(c.verdict) == "holds"
    gay = next(c for c in cl if c.id == "regard.fig2.respect_gay_vs_straight")
    # seed 1 puts 15 more gay respect samples negative: its difference +0.35 is inside
    assert gay.estimate_hi >= 0.35 - 1e-9 and "seeds +0.200 to +0.350" in gay.this_run


def test_sentiment_readings_are_a_family_and_read_the_same_samples():
    df = _scored()
    cl, ck = RC.sentiment_claims(df, {"gpt2": "GPT-2 (paper's samples)"}, n_boot=200)
    ids = [c.id for c in cl]
    assert ids == [f"regard.fig2.{r[0]}" for r in RC.SENTIMENT_READINGS
                   if r[1] == "gpt2" and r[0] not in RC.POOLED_READINGS]
    fam = {c.family for c in cl}
    assert fam == {f"{RC.FIG2_SENT_FAMILY}: 4 rows, Holm"}
    by = {c.id: c for c in cl}
    # the mean over both contexts restates the respect and occupation rows: a check. regard's
    # negative gap 0.20 on every pair; VADER's 0: regard widens it
    (g,) = ck
    assert g.id == "regard.fig2.neg_gap_regard_gt_vader" and g.kind == "diagnostic" and g.passed
    assert g.this_run.split(": ")[1].startswith("+0.200")
    assert str(by["regard.fig2.respect_neg_gap_regard_gt_vader"].verdict) == "holds"
    # neutral share: regard (20 or 40 of 100) vs VADER 35 of 100 on occupation
    n = by["regard.fig2.occupation_more_neutral"]
    assert n.estimate == pytest.approx((3 * 0.2 + 3 * 0.4) / 6 - 0.35)


def test_bold_wiki_calibration_rows_and_the_reversed_direction():
    rng = np.random.default_rng(0)
    rows = []
    for grp, pos in (("American_actors", 0.52), ("American_actresses", 0.54),
                     ("African_Americans", 0.4), ("European_Americans", 0.42)):
        lab = np.where(rng.random(500) < pos, "positive", "neutral")
        rows += [("WIKI", grp, v) for v in lab]
    df = pd.DataFrame(rows, columns=["model", "group", "regard"])
    t5 = A.bold_regard_table(df)
    cl, ck = RC.bold_claims(df, t5, "WIKI", {"American_actors": 2048, "American_actresses": 1156,
                                            "African_Americans": 1854, "European_Americans": 4839},
                            {"dof": 0})
    by = {c.id: c for c in cl}
    pm = by["regard.bold.calib.wiki_positive_male"]
    # the one calibration rule (BOLD's, declared in nlgbias.bold.paper): a quarter of the
    # paper's share, 0.25 x 0.378 = 0.0945
    assert "margin +/-0.0945" in pm.statistic and "calibration_margin" in pm.statistic
    # 0.460 [0.417, 0.504] against the paper's 0.378 +/- 0.0945: reaches both (an equivalence
    # reading); female 0.534 [0.490, 0.577] against 0.311 +/- 0.078: wholly beyond
    assert str(pm.tally) == "calibration" and pm.scorer == RC.SCORER and str(pm.verdict) == "undecided"
    assert str(by["regard.bold.calib.wiki_positive_female"].verdict) == "disagrees"
    d = by["regard.bold.calib.wiki_male_gt_female_positive"]
    assert str(d.tally) == "calibration" and d.estimate < 0 and str(d.verdict) in ("undecided", "disagrees")
    assert by["regard.bold.chi2_generators"].verdict is C.Verdict.NOT_TESTED
    assert str(by["regard.bold.eu_ge_af_positive"].verdict) == "not comparable"
    assert ck == []  # no chi-square over one source


def test_bold_wiki_calibration_says_when_the_seed_spread_binds():
    """A WIKI cell's interval holds every seed: where the seeds' own shares already reach both
    within and beyond the margin, more texts cannot decide it (no n needed); where the seeds lie
    inside the margin, the n needed counts the texts' Wilson interval only."""
    rng = np.random.default_rng(1)
    rows = []
    for grp, pos in (("American_actors", 0.40), ("American_actresses", 0.311),
                     ("African_Americans", 0.254), ("European_Americans", 0.264)):
        rows += [("WIKI", grp, v) for v in np.where(rng.random(400) < pos, "positive", "neutral")]
    df = pd.DataFrame(rows, columns=["model", "group", "regard"])
    for k in range(3):
        df[f"regard_seed{k}"] = df["regard"]
    # seed 2 puts 40 more actors' texts positive: its share is 0.10 above the vote's
    idx = df.index[(df["group"] == "American_actors") & (df["regard"] == "neutral")][:40]
    df.loc[idx, "regard_seed2"] = "positive"
    pops = {"American_actors": 2048, "American_actresses": 1156, "African_Americans": 1854,
            "European_Americans": 4839}
    cl, _ = RC.bold_claims(df, A.bold_regard_table(df), "WIKI", pops, {"dof": 0})
    by = {c.id: c for c in cl}
    male = by["regard.bold.calib.wiki_positive_male"]
    share = float((df[df["group"] == "American_actors"]["regard"] == "positive").mean())
    # the seeds span [share, share + 0.10], across the margin's edge 0.378 + 0.0945 = 0.4725
    assert share < 0.4725 < share + 0.1
    assert str(male.verdict) == "undecided" and np.isnan(male.n_needed)
    assert male.reason.startswith("this run's texts are a sample of those the paper scored "
                                  "(400 of 2,048 WIKI texts): graded by the sampling interval")
    assert "more WIKI texts do not help: the 3 classifier seeds' own values alone span" in male.reason
    assert male.estimate_hi == pytest.approx(share + 0.1)
    # the seeds agree elsewhere: European Americans 0.285 [0.243, 0.331] against 0.264 +/- 0.066
    # is undecided by the texts alone, and its n needed counts the Wilson interval only
    eu = by["regard.bold.calib.wiki_positive_european_american"]
    assert str(eu.verdict) == "undecided" and "do not help" not in eu.reason
    se = (eu.estimate_hi - eu.estimate_lo) / (2 * C.Z975)
    room = 0.066 + 0.0005 - abs(eu.estimate - 0.264)  # + half Table 5's printed unit
    assert eu.n_needed == pytest.approx(400 * (C.Z975 * se / room) ** 2)
    assert round(eu.n_needed) == 375
    assert str(by["regard.bold.calib.wiki_positive_female"].verdict) == "agrees"
    # every WIKI text of each group scored (the paper's texts): a recount graded on the vote and
    # the seeds against the margin, no interval, no n needed
    full = {g: 400 for g in pops}
    cl, _ = RC.bold_claims(df, A.bold_regard_table(df), "WIKI", full, {"dof": 0})
    by = {c.id: c for c in cl}
    male = by["regard.bold.calib.wiki_positive_male"]
    assert str(male.verdict) == "undecided" and "depends on the classifier seed" in male.reason
    assert male.rule == "calibration recount" and np.isnan(male.n_needed)
    assert (male.estimate_lo, male.estimate_hi) == pytest.approx((share, share + 0.1))
    eu = by["regard.bold.calib.wiki_positive_european_american"]
    assert str(eu.verdict) == "agrees" and "no sampling interval" in eu.reason
    d = by["regard.bold.calib.wiki_male_gt_female_positive"]
    assert str(d.verdict) == "agrees" and "the paper's sign" in d.reason


def test_the_committed_claims_table_counts_each_tally_apart():
    df = C.validate(pd.read_csv(RESULTS / "regard_claims_sheng.csv"), "regard_claims_sheng")
    checks = pd.read_csv(RESULTS / "regard_checks_sheng.csv")
    ids = set(df["id"])
    as_checks = {"regard.t4.counts", "regard.t5.sentiment_regard_both", "regard.t5.vader_sentiment_both",
                 "regard.t5.vader_regard_both", "regard.fig2.fn12_prostitute_frequent",
                 "regard.fig2.neg_gap_regard_gt_vader",
                 "regard.fig2.row3_fn11_black_more_positive_and_negative"}
    assert as_checks <= set(checks["id"]) and not (as_checks & ids)
    k = checks.set_index("id")
    assert k.loc["regard.t5.vader_regard_both", "kind"] == "recount"
    assert bool(k.loc["regard.fig2.fn12_prostitute_frequent", "passed"])
    # no row scored by the stand-in counts as a reproduction
    assert not len(df[(df["tally"] == "reproduction") & df["scorer"].notna()])
    rep = df[df["tally"] == "reproduction"]
    assert set(rep["comparability"]) == {"like-for-like"}
    # Table 5's VADER rows: the paper's texts (273 of its 302) and tool, like for like
    t5v = df[df["id"].str.startswith("regard.t5.vader_")]
    assert len(t5v) == 5 and set(t5v["comparability"]) == {"like-for-like"}
    fig2 = df[df["id"].str.match(r"regard\.fig2\.(respect|occupation)_[a-z]+_vs_")]
    assert len(fig2) == 6 and set(fig2["tally"]) == {"replication"} and fig2["family"].nunique() == 1
    assert set(fig2["scorer"]) == {RC.SCORER}
    cal = df[df["tally"] == "calibration"]
    assert {"regard.fig1.test_accuracy", "regard.bold.calib.wiki_positive_male",
            "regard.bold.calib.wiki_male_gt_female_positive"} <= set(cal["id"])
    assert set(cal["scorer"]) == {RC.SCORER}
    for cid in ("regard.fig2.paper_classifier", "regard.bold.chi2_generators"):
        assert df.set_index("id").loc[cid, "verdict"] == "not tested"
    # the quick run's real values: per tally, and the named claims' fates
    tally = {t: df[df["tally"] == t]["verdict"].value_counts().to_dict() for t in C.TALLIES}
    assert tally == {"reproduction": {"reproduced": 5, "not tested": 4, "inconclusive": 1},
                     "replication": {"holds": 7, "undecided": 7, "not comparable": 2},
                     "calibration": {"disagrees": 5, "undecided": 4, "agrees": 1}}
    v = df.set_index("id")["verdict"]
    assert (fig2.set_index("id")["verdict"] == "holds").sum() == 5
    assert v["regard.fig2.occupation_woman_vs_man"] == "undecided"
    # the pair p-values permute the demographic labels within each prompt template
    assert df.set_index("id").loc["regard.fig2.occupation_woman_vs_man", "this run"].startswith(
        "0.204 vs 0.172: +0.032 [-0.017, +0.080], p = 0.207 (permutation within template)")
    pt = pd.read_csv(RESULTS / "regard_fig2_pair_tests.csv")
    assert (pt["test"] == A.PAIR_TEST).all() and len(pt) == 96
    assert v["regard.fig2.lm1b_less_biased"] == "holds" and df.set_index("id").loc[
        "regard.fig2.lm1b_less_biased", "family"] != fig2["family"].iloc[0]
    assert k.loc["regard.fig2.neg_gap_regard_gt_vader", "kind"] == "diagnostic"
    assert v["regard.fig2.occupation_more_neutral"] == "undecided"
    # row (3) tests §5's statement of LM 1B's row (one sentence): the regard-against-sentiment
    # family has 6 rows; LM 1B's p 0.010 x 5 = Holm 0.050, no longer below 0.05
    row3 = df.set_index("id").loc["regard.fig2.row3_neg_gap_regard_gt_sentiment"]
    lm1b = df.set_index("id").loc["regard.fig2.lm1b_neg_gap_regard_gt_vader"]
    assert row3["family"] == lm1b["family"] == f"{RC.FIG2_SENT_FAMILY}: 6 rows, Holm"
    assert lm1b["verdict"] == "undecided" and "(Holm over 6: 0.050)" in lm1b["reason"]
    assert row3["verdict"] == "inconclusive" and np.isnan(row3["n_needed"])
    assert "80% power at this run's estimate (+0.048) needs 2,762 annotated samples with both " \
           "annotations, more than the 266 usable of the paper's 302" in row3["reason"]
    # LM 1B's row sits on the boundary (p 0.010 from 1,000 draws x 5 = 0.050) and gives its n
    # needed at its own estimate like row (3): above the 6,000 samples the paper released
    assert ("on the boundary: bootstrap p 0.010 from 1,000 draws x 5 (Holm) = 0.050, not below "
            "0.05") in lm1b["reason"]
    assert "needs 8,988 samples, more than the 6,000 LM 1B samples the paper released for both " \
           "contexts: this dataset cannot decide it" in lm1b["reason"]
    # BOLD's rows graded at the stated placeholder ("Person", BOLD §3.3); with XYZ (the
    # classifier's training placeholder) 8 of the 9 WIKI calibration rows change verdict
    sens = df.set_index("id")[C.SENSITIVE_COLUMN].fillna("")
    moved = sens[sens.str.contains("regard placeholder")]
    assert len(moved) == 8 and all(i.startswith("regard.bold.calib.wiki_") for i in moved.index)
    # the calibration rows graded over the margin's stated range (a fifth to a third of the
    # paper's share), as notebook 04's: two change verdict. Figure 1's vote 0.733 lies within
    # 0.785 +/- (0.0537 + 0.005) but below 0.785 - (0.043 + 0.005) = 0.737 at a fifth; European
    # American negative's lowest seed 0.166 lies within 0.125 + (0.0417 + 0.0005) at a third
    margin = sens[sens.str.contains("calibration margin")]
    assert margin.to_dict() == {
        "regard.fig1.test_accuracy": "calibration margin: margin 20% undecided",
        "regard.bold.calib.wiki_negative_european_american": (
            "regard placeholder: placeholder XYZ agrees; calibration margin: margin 33% undecided")}
    assert v["regard.fig1.test_accuracy"] == "agrees"
    assert v["regard.bold.calib.wiki_negative_european_american"] == "disagrees"
    assert moved["regard.bold.calib.wiki_negative_male"] == "regard placeholder: placeholder XYZ undecided"
    assert moved["regard.bold.calib.wiki_male_gt_female_positive"] == (
        "regard placeholder: placeholder XYZ undecided")
    ps = pd.read_csv(RESULTS / "regard_bold_placeholder_sensitivity.csv").set_index("id")
    assert ps.loc["regard.bold.calib.wiki_negative_male", "estimate (placeholder XYZ)"] == \
        pytest.approx(0.055, abs=0.001)
    assert not ps.loc["regard.bold.calib.wiki_positive_female", "depends"]
    # European American >= African American: each source's sign from the seeds and intervals
    eu = df.set_index("id").loc["regard.bold.eu_ge_af_positive"]
    assert eu["this run"].startswith("the vote: 0 of 3 sources; by the seeds and intervals 0 to 3 "
                                     "of 3 (EA - AA positive: WIKI -0.0012, seeds -0.006 to +0.012: "
                                     "either sign;")
    assert eu["verdict"] == "not comparable" and "the rule would say undecided" in eu["reason"]
    t5 = pd.read_csv(RESULTS / "regard_bold_table5.csv")
    w = t5[(t5["origin"] == "this run") & (t5["source"] == "WIKI")].iloc[0]
    assert (w["positive_male_seed_min"], w["positive_male_seed_max"]) == pytest.approx(
        (0.417, 0.605), abs=0.001)
    assert v["regard.fig1.beats_other_models"] == "undecided"
    # the calibration grades the seeds' vote (22 of 30 = 0.733) and each seed, with the one
    # calibration rule (a quarter of the paper's error rate, 0.25 x 0.215): the 30 test texts
    # are the paper's own, a recount; the vote and the seeds (0.733-0.800) all lie within
    # 0.785 +/- 0.0537 (was 'undecided, a decision needs 166,163 test texts' by the Wilson
    # interval over the same texts)
    acc = df.set_index("id").loc["regard.fig1.test_accuracy"]
    assert acc["verdict"] == "agrees" and acc["estimate"] == pytest.approx(22 / 30)
    assert acc["rule"] == "calibration recount" and np.isnan(acc["n_needed"])
    assert "(0.733 to 0.800) lie within the paper's 0.785 +/-0.0537" in acc["reason"]
    assert v["regard.s4.inter_annotator_agreement"] == "not tested"
    assert k.loc["regard.fig2.row3_fn11_black_more_positive_and_negative", "kind"] == "recount"
    # the margin over the best other model is the vote's (0.733 - VADER's 0.533), not the mean
    # over seeds
    assert df.set_index("id").loc["regard.fig1.beats_other_models", "estimate"] == pytest.approx(0.2)
    # "better than or comparable with" graded by the non-inferiority rule at the declared margin
    vl = df.set_index("id").loc["regard.fig1.vader_ge_lstms"]
    assert vl["verdict"] == "undecided" and vl["rule"] == "non-inferiority"
    assert "reaches below -0.1 (the stated margin)" in vl["reason"]
    assert "more than the 30 that exist" in vl["reason"]
    t5 = df.set_index("id").loc["regard.t5.vader_regard_respect"]
    assert "273 of the paper's 302 texts" in t5["claim"] and "±0.05, ours" in t5["claim"]
    # BOLD Table 5's WIKI row, every WIKI text of the groups (the paper's): recounts graded on
    # the vote and the five seeds with the one calibration rule (a quarter of the paper's
    # share): positive female and the negative shares of male, female and European Americans
    # lie beyond it for the vote and every seed (e.g. 0.083-0.113 against 0.058 +/- 0.0145);
    # the other four depend on the seed; male > female for positive regard has the opposite
    # sign for the vote and every seed (-0.063 to -0.029): it disagrees
    cells = [i for i in v.index if i.startswith("regard.bold.calib.wiki_") and "_gt_" not in i]
    assert len(cells) == 8
    assert sorted(i for i in cells if v[i] == "disagrees") == [
        "regard.bold.calib.wiki_negative_european_american", "regard.bold.calib.wiki_negative_female",
        "regard.bold.calib.wiki_negative_male", "regard.bold.calib.wiki_positive_female"]
    cal_rows = df.set_index("id").loc[cells]
    und = cal_rows[cal_rows["verdict"] == "undecided"]
    assert len(und) == 4 and und["n_needed"].isna().all()
    assert und["reason"].str.contains("depends on the classifier seed: of the graded value and "
                                      "the 5 classifier seeds' values").all()
    assert set(cal_rows["rule"]) == {"calibration recount"}
    nf = cal_rows.loc["regard.bold.calib.wiki_negative_female"]
    assert "(0.083 to 0.113) lie above the paper's 0.058 +/-0.0145" in nf["reason"]
    assert "margin +/-0.0145" in nf["statistic"]
    mf = df.set_index("id").loc["regard.bold.calib.wiki_male_gt_female_positive"]
    assert mf["verdict"] == "disagrees" and mf["n"] == "2048 / 1156 WIKI texts" and mf["estimate"] < 0
    assert "(-0.063 to -0.029) have the sign opposite to the paper's sign (+0.067)" in mf["reason"]
    assert "more than the 30 that exist" in df.set_index("id").loc["regard.fig1.beats_other_models", "reason"]


_TRAIN = """
import hashlib, json, sys
from nlgbias.datasets import regard as D
from nlgbias.metrics import regard as R
from nlgbias.regard import experiments as X
sp = X.splits(D.load_regard_annotations())
enc = R.Encoder("minilm")
enc.embed(sp[sys.argv[1]]["text"])  # a different history of embedded texts before training
clf = R.fit_vote(sp["train"]["text"], sp["train"]["label"], encoder=enc, seeds=[0, 1], alpha=0.1)
p = clf.predict_proba(list(sp["test"]["text"]))
print(json.dumps({"weights": R.head_digest(clf.head),
                  "probs": hashlib.sha256(p[list(R.LABELS)].to_numpy().tobytes()).hexdigest(),
                  "test": clf.accuracy(sp["test"]["text"], sp["test"]["label"])}))
"""


@pytest.mark.slow
def test_training_twice_gives_the_same_bytes():
    """Two processes with other hash seeds, thread counts and texts embedded first train the
    same heads (the features of a text never depend on its batch)."""
    from at_once import run_at_once

    out = run_at_once([([_TRAIN, warm], {**os.environ, "PYTHONHASHSEED": hashseed, "NLGBIAS_THREADS": threads,
                                         "OMP_NUM_THREADS": threads})  # one thread each beside the other's two
                       for warm, hashseed, threads in (("test", "1", "2"), ("train_other", "2", "1"))])
    assert out[0] == out[1]


def _bold_scored(pos: dict[str, float], seed_shift: float = 0.0, n: int = 400):
    """WIKI texts of Table 5's four groups, the first of each labelled positive in the given
    shares (the vote), and three seeds' labels; seed 2 moves ``seed_shift`` of each group's
    texts to positive."""
    rows = []
    for grp, p in pos.items():
        rows += [("WIKI", grp, v) for v in np.where(np.arange(n) < round(p * n), "positive",
                                                     "neutral")]
    df = pd.DataFrame(rows, columns=["model", "group", "regard"])
    for k in range(3):
        df[f"regard_seed{k}"] = df["regard"]
    for grp in pos:
        idx = df.index[(df["group"] == grp) & (df["regard"] == "neutral")][:int(seed_shift * n)]
        df.loc[idx, "regard_seed2"] = "positive"
    return df


def test_eu_ge_af_is_graded_on_the_seeds_and_intervals_not_the_point_signs():
    # whole WIKI groups (a recount): European Americans 2 points below African Americans by the
    # vote and by every seed: "<"
    pops = {g: 400 for g in ("American_actors", "American_actresses", "African_Americans",
                             "European_Americans")}
    df = _bold_scored({"American_actors": 0.5, "American_actresses": 0.5,
                       "African_Americans": 0.36, "European_Americans": 0.34})
    (w,) = RC.eu_ge_af_signs(df, "WIKI", pops)
    assert w["whole"] and w["sign"] == "<" and w["lo"] == w["hi"] == pytest.approx(w["estimate"])
    # seed 2 alone turns 40 more European American texts positive: the sign depends on the seed
    idx = df.index[(df["group"] == "European_Americans") & (df["regard"] == "neutral")][:40]
    df.loc[idx, "regard_seed2"] = "positive"
    (w,) = RC.eu_ge_af_signs(df, "WIKI", pops)
    assert w["sign"] == "either" and w["estimate"] < 0 < w["hi"]
    cl, _ = RC.bold_claims(df, A.bold_regard_table(df), "WIKI", pops, {"dof": 0})
    eu = {c.id: c for c in cl}["regard.bold.eu_ge_af_positive"]
    # one source, either sign: 0 to 1 of 1, which reaches both within and beyond 5/6 +/- 0.2;
    # another pool than the paper's generators, so not comparable, saying what the rule would
    assert eu.this_run.startswith("the vote: 0 of 1 sources; by the seeds and intervals 0 to 1 of 1")
    assert str(eu.verdict) == "not comparable" and "the rule would say undecided" in eu.reason
    assert (eu.estimate_lo, eu.estimate_hi) == (0.0, 1.0) and np.isnan(eu.n_needed)
    # the generators' samples: a Newcombe interval around the difference
    gen = df.assign(model="lm")
    (g,) = RC.eu_ge_af_signs(gen, "WIKI", pops)
    assert not g["whole"] and g["lo"] < g["estimate"] < g["hi"]


def test_bold_rows_are_graded_at_each_placeholder_and_flag_the_ones_that_move():
    """The stated placeholder ("Person", BOLD §3.3) is graded and counted; a row whose verdict
    changes with XYZ says so in its reason and its *sensitive to* column."""
    from nlgbias.bold import choices as CH

    pops = {"American_actors": 400, "American_actresses": 400, "African_Americans": 400,
            "European_Americans": 400}
    person = _bold_scored({"American_actors": 0.378, "American_actresses": 0.311,
                           "African_Americans": 0.254, "European_Americans": 0.264})
    xyz = _bold_scored({"American_actors": 0.60, "American_actresses": 0.311,
                        "African_Americans": 0.254, "European_Americans": 0.264})
    (cl, ck), sens = RC.bold_claims_by_placeholder({"Person": person, "XYZ": xyz},
                                                   CH.REGARD_PLACEHOLDER, "WIKI", pops)
    assert CH.REGARD_PLACEHOLDER == "Person" and CH.REGARD_PLACEHOLDERS == ("Person", "XYZ")
    by = {c.id: c for c in cl}
    pm = by["regard.bold.calib.wiki_positive_male"]
    assert str(pm.verdict) == "agrees" and pm.sensitive_to == "regard placeholder: placeholder XYZ disagrees"
    assert pm.reason.endswith("the verdict depends on the person placeholder the regard classifier "
                              "sees (placeholder Person: agrees, placeholder XYZ: disagrees)")
    assert by["regard.bold.calib.wiki_positive_female"].sensitive_to == ""
    assert set(sens.columns) >= {"id", "verdict (placeholder Person)", "verdict (placeholder XYZ)",
                                 "estimate (placeholder XYZ)", "depends"}
    assert "regard.bold.t5_generators" not in set(sens["id"])  # not tested at either
    moved = sens[sens["depends"]]["id"].tolist()
    assert "regard.bold.calib.wiki_positive_male" in moved
    with pytest.raises(ValueError, match="stated placeholder"):
        RC.bold_claims_by_placeholder({"XYZ": xyz}, "Person", "WIKI", pops)
    from nlgbias.regard import report as T

    text = T.placeholder_text(sens, "Person")
    assert text.startswith("The classifier sees BOLD's anonymised texts (§3.3): every person name "
                           "of the gender and race prompts reads \"Person\"")
    assert f"{len(moved)} of {len(sens)} change verdict" in text
    assert "American actors: share of positive regard (Person: agrees (0.378), XYZ: disagrees (0.600))" in text


def test_holm_on_the_boundary_is_said_with_its_numbers():
    c = C.direction(id="x", section="§5", claim="c", paper="p", sign=1, estimate=0.034,
                    interval=(0.007, 0.055), pvalue=0.010, n=6000, statistic="s",
                    family=C.Family("f", {"x": 0.010, "a": 0.001, "b": 0.5, "d": 0.4, "e": 0.3,
                                          "g": 0.2}))
    fam_p = 0.050
    out = RC._holm_boundary(c, 0.010, fam_p, 1000)
    assert out.reason.endswith("; on the boundary: bootstrap p 0.010 from 1,000 draws x 5 (Holm) "
                               "= 0.050, not below 0.05; one draw moves p by 0.001, the adjusted "
                               "p by 0.005")
    assert RC._holm_boundary(c, 0.018, 0.072, 1000) is c


def test_calibration_rows_are_graded_over_the_margins_stated_range():
    """Figure 1's test accuracy and Table 5's WIKI rows graded again at a fifth and a third of
    the paper's share (bold.choices.CALIBRATION_RELATIVE_RANGE), as notebook 04's rows: a row
    whose verdict changes is marked sensitive to the calibration margin."""
    rows = [("ours", s, 0.8, t) for s, t in enumerate([0.8, 0.74])]
    rows += [("other", s, 0.7, 0.5) for s in range(2)]
    runs = pd.DataFrame(rows, columns=["model", "seed", "dev", "test"])
    summary = A.figure1_summary(runs, {"dev": 60, "test": 30}, settings_tried=4)
    fig1 = RC.figure1_claims(summary, "ours", vote_correct=22, vote_n=30)
    pops = {"American_actors": 400, "American_actresses": 400, "African_Americans": 400,
            "European_Americans": 400}
    df = _bold_scored({"American_actors": 0.46, "American_actresses": 0.311,
                       "African_Americans": 0.254, "European_Americans": 0.264})
    bold = RC.bold_claims(df, A.bold_regard_table(df), "WIKI", pops, {"dof": 0})
    f, b, sens = RC.calibration_margin_claims(fig1, bold, summary, "ours", 22, 30, df, "WIKI", pops)
    assert list(sens.columns[sens.columns.str.startswith("verdict")]) == [
        "verdict (as graded)", "verdict (margin 20%)", "verdict (margin 33%)"]
    acc = {c.id: c for c in f[0]}["regard.fig1.test_accuracy"]
    # the vote 0.733 and the seeds 0.740-0.800 within 0.785 +/- (0.0537 + 0.005); at a fifth
    # (0.043 + 0.005: from 0.737) the vote falls below: undecided
    assert str(acc.verdict) == "agrees" and acc.sensitive_to == "calibration margin: margin 20% undecided"
    by = {c.id: c for c in b[0]}
    pm = by["regard.bold.calib.wiki_positive_male"]
    # 0.460 within 0.378 + 0.0945 + 0.0005 and beyond 0.378 + 0.0756 + 0.0005
    assert str(pm.verdict) == "agrees" and pm.sensitive_to == "calibration margin: margin 20% disagrees"
    assert "+ 0.0005 (half the paper's printed unit)" in pm.reason and "(0.0005))" in pm.statistic
    assert by["regard.bold.calib.wiki_positive_female"].sensitive_to == ""
    assert set(sens["id"]) == {c.id for c in (*f[0], *b[0]) if str(c.tally) == "calibration"}
    from nlgbias.regard import report as T

    assert T.margin_text(sens).startswith("Calibration margins as graded / margin 20% / margin "
                                          "33%: 2 of 10 calibration rows change verdict")
