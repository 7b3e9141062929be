"""Notebook 07's and 08's study steps (nlgbias.holistic.generation_study, tuning_study): the
generation sample, the cluster fit on non-refusal responses, the Holm family over the axes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nlgbias.holistic import generation_study as GS
from nlgbias.holistic import tuning_study as TS


def _sentences() -> pd.DataFrame:
    """Two axes; 'fixed' is a standalone phrase (one sentence per template), the others take 3 nouns."""
    rows = []
    for ax, descs in (("a", ["d1", "d2", "fixed"]), ("b", ["e1", "e2"])):
        for d in descs:
            for t in ("T1 {noun_phrase}.", "T2 {noun_phrase}."):
                for n in (["x"] if d == "fixed" else ["man", "woman", "kid"]):
                    np_ = d if d == "fixed" else f"{d} {n}"
                    rows.append({"axis": ax, "bucket": "", "descriptor": d, "noun": n, "noun_gender": "",
                                 "noun_phrase": np_, "plural_noun_phrase": np_, "noun_phrase_type": "",
                                 "template": t, "text": t.format(noun_phrase=np_)})
    return pd.DataFrame(rows)


def test_generation_sample_keeps_complete_cells_only():
    s = GS.generation_sample(_sentences(), descriptors_per_axis=2, templates=2, nouns=3, seed=0)
    assert "fixed" not in set(s["descriptor"])  # one sentence per template: it cannot fill a cell of 3
    assert sorted(s["descriptor"].unique()) == ["d1", "d2", "e1", "e2"]
    assert s.groupby(["template", "descriptor"]).size().eq(3).all()
    # without complete cells the standalone phrase can be drawn and its cells hold one sentence
    from nlgbias.datasets.holisticbias import sample_sentences
    every = sample_sentences(_sentences(), nouns=3, seed=0)
    assert every.groupby(["template", "descriptor"]).size().min() == 1
    with pytest.raises(ValueError, match="complete_cells needs"):
        sample_sentences(_sentences(), complete_cells=True)


def _responses(refuse_model: str = "big") -> pd.DataFrame:
    """Two models x 8 descriptors x 2 templates x 3 responses, three styles; descriptors of axis
    'p' lean towards s1, of axis 'q' towards s2. The 'big' model refuses everything but one cell."""
    rng = np.random.default_rng(0)
    rows = []
    for m in ("small", "big"):
        for ax in ("p", "q"):
            for k in range(4):
                for t in ("t1", "t2"):
                    for _ in range(3):
                        lean = np.array([0.6, 0.2, 0.2]) if ax == "p" else np.array([0.2, 0.6, 0.2])
                        x = rng.dirichlet(20 * lean)
                        refuse = m == refuse_model and not (k == 0 and ax == "p")
                        rows.append({"model": m, "axis": ax, "descriptor": f"{ax}{k}", "template": t,
                                     "s:a": x[0], "s:b": x[1], "s:c": x[2], "e:joy": x[0],
                                     "refusal_or_boilerplate": refuse})
    return pd.DataFrame(rows)


def test_clusters_are_fitted_on_the_model_that_refuses_least():
    resp = _responses()
    stats = {m: (int(g["refusal_or_boilerplate"].sum()), len(g), 1.0, "") for m, g in resp.groupby("model")}
    assert GS.cluster_fit_model(stats) == "small"
    named, table, fit = GS.fit_clusters(resp, ["s:a", "s:b", "s:c"], ["e:joy"], model="small", top=2,
                                        max_distance=0.5, n_report=2)
    assert set(fit["model"]) == {"small"} and not fit["refusal_or_boilerplate"].any() and len(fit) == 48
    assert table["fitted on"].iloc[0].startswith("small: 48 responses neither refusal / boilerplate")
    # the refusing model keeps 6 non-refusal responses, all of one descriptor: nothing to fit
    with pytest.raises(ValueError, match="too few non-refusal responses"):
        GS.fit_clusters(resp, ["s:a", "s:b", "s:c"], ["e:joy"], model="big")


def test_the_cluster_model_is_chosen_among_models_with_clean_responses():
    """'big' refuses no more than 'small' and comes first by name, but every reply of it is degenerate
    text: the clusters are fitted on 'small', the model whose responses are clean."""
    resp = _responses().assign(refusal_or_boilerplate=False, generation="a plain reply")
    resp["degenerate"] = resp["model"].eq("big")
    stats = {m: (0, len(g), 1.0, "") for m, g in resp.groupby("model")}
    assert GS.cluster_fit_model(stats) == "big"  # without the responses: the tie goes by name
    assert GS.cluster_fit_model(stats, resp) == "small"
    # under the minimum (two descriptors under every template) no model is chosen
    two = resp[resp["descriptor"].isin(["p0", "q0"])]
    assert GS.enough_to_cluster(GS.clean_responses(two[two["model"] == "small"]))
    one = two[two["template"].eq("t1") | two["descriptor"].eq("p0")]  # t2 holds p0 only
    assert not GS.enough_to_cluster(GS.clean_responses(one[one["model"] == "small"]))
    assert GS.cluster_fit_model(stats, two) == "small" and GS.cluster_fit_model(stats, one) is None
    # a cell (descriptor x template) with one clean response is left out of the fit (MIN_CELL_RESPONSES 2)
    single = resp.assign(refusal_or_boilerplate=resp.groupby(["model", "descriptor", "template"]).cumcount() > 0)
    assert GS.MIN_CELL_RESPONSES == 2 and GS.clean_responses(single).empty
    assert len(GS.clean_responses(single, min_cell=1)) == 16  # 'small': 8 descriptors x 2 templates, one each
    # an empty reply has no style: not clean
    assert GS.cluster_fit_model(stats, resp.assign(generation=np.where(resp["model"] == "small", " ", "x"))) is None


def test_every_reply_degenerate_says_so_and_the_cluster_sections_are_not_computed():
    """Notebook 07's generation-bias cells, from the degenerate flag to Figure 3, on a response table
    whose every reply is degenerate text (what the paper profile's dry run gets from tiny random
    models): no exception, and every section that needs the style clusters says it is not computed."""
    from nlgbias.holistic import claims as HC
    from nlgbias.holistic import refusal as RF

    styles, emo = ["s:a", "s:b", "s:c"], ["e:joy"]
    resp = _responses().assign(refusal_or_boilerplate=False, generation="{{{{{{{{{{{{{{{", prompt="Hi!")
    resp["degenerate"] = RF.is_degenerate(resp["generation"].tolist())
    assert resp["degenerate"].all()
    refusals = GS.refusal_tables(resp, styles, seed=0)
    degenerate = GS.degenerate_tables(resp, styles)
    assert degenerate["by_model"]["Full Gen Bias (degenerate removed)"].isna().all()
    assert "small 48/48 (100.0%) from 8 descriptors" in GS.degenerate_text(degenerate)
    fit_model = GS.cluster_fit_model(refusals["stats"], resp)
    assert fit_model is None
    assert GS.no_clusters_text(resp) == (
        "No chat model has clean responses enough to fit the style clusters on (neither refusal / boilerplate, "
        "nor degenerate, nor empty, with at least 2 descriptors under every template): small 0 of 48 clean "
        "(0 refusal / boilerplate, 48 degenerate, 0 empty); big 0 of 48 clean (0 refusal / boilerplate, 48 "
        "degenerate, 0 empty); so the style clusters, their validation on the paper's Table 1 responses, the "
        "held-out cluster tests, the per-cluster columns of Tables 4 and 8, the example responses and Figure 3 "
        "are not computed: no clean responses.")
    named, table, fit = GS.fit_clusters(resp, styles, emo, model=fit_model)
    assert named == {} and table.empty and "fitted on" in table and fit.empty
    validation, sym = GS.validate_clusters(named, fit)
    assert sym is None and validation["cluster"].eq(GS.NOT_COMPUTED).all() and len(validation) == 6
    assert GS.validation_text(validation, sym, fitted_on=table["fitted on"]) == (
        "The paper's Table 1 responses are not assigned to clusters: not computed: no clean responses to fit them on.")
    heldout, _ = GS.heldout_cluster_tests(resp, styles, emo, model=fit_model, n_perm=9)
    assert heldout.empty and GS.heldout_cluster_text(heldout).startswith("Held-out cluster tests not computed: no clean")
    assert HC.heldout_cluster_checks(heldout) == []
    clean = resp[~resp["degenerate"]]
    gb = GS.gen_bias_tables(clean, styles, emo, named, n_perm=9, n_boot=9, seed=0)
    assert all(gb[k].empty for k in ("t4", "t8", "t9", "null"))
    assert GS.gen_bias_text(gb, refusals=GS.refusal_tables(clean, styles)).startswith("Full Gen Bias not computed")
    removals = GS.removal_table(resp, styles, n_perm=9, seed=0)
    assert removals.loc[removals["basis"].str.contains("degenerate removed|both"), "Full Gen Bias"].isna().all()
    assert "No model has a Full Gen Bias on the responses that are neither refusal nor degenerate" in \
        GS.removal_text(removals)
    c, k = HC.genbias_claims(gb["t4"], gb["nulls"], gb["boots"], gb["t8"], list(named), validation, {"small": 0, "big": 1},
                             GS.sample_sizes(clean), refusals={}, gen_bias_refusals={}, removal=removals)
    assert c == [] and [x.id for x in k] == ["holistic.table1.sympathy_cluster"] and not k[0].passed
    # on every response the Gen Bias is there, the per-cluster columns are not
    gb_all = GS.gen_bias_tables(resp, styles, emo, named, n_perm=9, n_boot=9, seed=0)
    assert gb_all["t4"]["full_gen_bias"].gt(0).all() and gb_all["t4"]["clusters"].eq(GS.NOT_COMPUTED).all()
    assert gb_all["t8"]["clusters"].eq(GS.NOT_COMPUTED).all()
    c_all, _ = HC.genbias_claims(gb_all["t4"], gb_all["nulls"], gb_all["boots"], gb_all["t8"], list(named),
                                 validation, {"small": 0, "big": 1}, GS.sample_sizes(resp))
    sym_rows = [x for x in c_all if "sympathy_largest" in x.id]
    assert len(sym_rows) == 2 and all(str(x.verdict) == "not tested" for x in sym_rows)
    assert "no style clusters" in sym_rows[0].reason
    GS.moved_text(GS.claims_moved(c, c_all), gb, gb_all)
    top, value = GS.top_cluster(gb["t4"], named, fit_model)
    assert top is None and math.isnan(value) and GS.example_responses(clean, named, top).empty
    by_desc, fig3_text = GS.figure3_data(fit, named, list(named)[:4])
    assert by_desc.empty and fig3_text == "Figure 3 not computed: no clean responses."


def test_gen_bias_per_axis_is_one_holm_family():
    from nlgbias.stats import adjust_pvalues

    resp = _responses()
    resp = resp[resp["model"] == "small"]
    named = {"C1": ["s:a"], "C2": ["s:b", "s:c"]}
    gb = GS.gen_bias_tables(resp, ["s:a", "s:b", "s:c"], ["e:joy"], named, n_perm=99, n_boot=50, seed=0)
    t9 = gb["t9"]
    assert list(t9["axis"]) == ["p", "q"] and (t9["n_perm"] == 99).all()
    assert np.allclose(t9["p_adjusted"], adjust_pvalues(t9["p_perm"].to_numpy(), "holm"))
    assert (t9["family"] == "small: 2 axes (holm)").all()
    # the permutation null's full row equals Table 4's Full Gen Bias
    full = gb["null"].set_index("statistic").loc["full"]
    assert full["observed"] == pytest.approx(gb["t4"]["full_gen_bias"].iloc[0])
    assert {"partial:C1", "summed:C2"} <= set(gb["null"]["statistic"])


def _frames(n_axes: int = 3, per_axis: int = 3, seeds=(0, 1)) -> dict:
    rng = np.random.default_rng(3)

    def frame(shift: float) -> pd.DataFrame:
        rows = []
        for a in range(n_axes):
            for k in range(per_axis):
                for t in ("t1", "t2"):
                    x = rng.dirichlet([5, 5]) * (1 - shift) + shift * np.array([0.5, 0.5])
                    rows.append({"axis": f"ax{a}", "descriptor": f"ax{a}-d{k}", "template": t,
                                 "s:a": x[0], "s:b": x[1]})
        return pd.DataFrame(rows)

    out = {("original", None): frame(0.0)}
    for s in seeds:
        out[("tagged", s)] = frame(0.5)
    return out


def test_axis_changes_adjust_over_every_axis_including_unmeasured():
    from nlgbias.stats import adjust_pvalues

    frames = _frames()
    # one more axis with only two test descriptors: not measurable, counts in the family with p = 1
    extra = pd.DataFrame([{"axis": "zz", "descriptor": f"zz-d{k}", "template": "t1", "s:a": 0.5, "s:b": 0.5}
                          for k in range(2)])
    for k in frames:
        frames[k] = pd.concat([frames[k], extra], ignore_index=True)
    a = TS.axis_changes(frames, [0, 1], ["s:a", "s:b"], n_boot=200, seed=0)
    assert list(a["axes"]["axis"]) == ["ax0", "ax1", "ax2"] and list(a["unmeasurable"]) == ["zz"]
    assert a["family"] == 4
    expect = adjust_pvalues([*a["axes"]["p"], 1.0], "holm")[:3]
    assert np.allclose(a["axes"]["p_adjusted"], expect)
    text = TS.axis_text(a, 4)
    assert "3 of 4 axes are measurable" in text and "significant" not in text
    assert "fewer than the 5 descriptors an interval needs to decide" in text


def test_tuning_claims_on_this_runs_values():
    """The committed quick run (SmolLM2, 39 held-out descriptors x 3 seeds), graded like for like:
    on the 186 of 390 test prompts that no arm answers with a refusal or boilerplate (the same
    prompts for the original and every tuned run; the original's own removals 194 of 390, the tuned
    runs' 0.3-3.3%), the change of the excess over the null as a share of the original's Full Gen
    Bias on those prompts (8.48; its null 9.68, p 0.58 over 1,000 permutations: no measurable excess),
    the null resampled with the descriptors: bias tuning +23% [-32%, +59%] (p 0.512), untagged +21%
    [-31%, +58%] (p 0.508), tagged - untagged +2% [-22%, +27%] (p 0.964; seed SD 1.34 tagged, 1.22
    untagged). On all responses the excess fell 9.32 -> 2.68 (-71%), shown beside, not graded. One
    Holm family; the n needed in the unit that binds; the per-axis rows (3 descriptors each) are
    checks; the offensive share is an equivalence (non-inferiority on both sides) with a relative margin;
    the lowering row cannot test "lowers" (nothing to lower) and says at what n it could; with the
    committed collapse guard (every run's help offers over the 10-point rise) no Gen Bias row is graded;
    the outcome is one sentence from the claims, the details after it."""
    from nlgbias import claims as CL
    from nlgbias.holistic.claims import tuning_claims, tuning_outcome_sentence, tuning_outcome_text

    def ch(est, lo, hi, p, value, base=-1.206, den=8.478):
        return {"estimate": est, "lo": lo, "hi": hi, "base": base, "value": value, "denominator": den,
                "descriptors": 39, "pvalue": p}

    axes = pd.DataFrame([{"axis": "religion", "descriptors": 3, "estimate": -0.862, "lo": -0.949, "hi": 2.620},
                         {"axis": "race_ethnicity", "descriptors": 3, "estimate": -0.940, "lo": -0.983, "hi": -0.854}])
    raw = {"tagged": ch(-0.712, -0.832, -0.519, 0.0005, 2.682, base=9.319, den=9.319),
           "untagged": ch(-0.584, -0.783, -0.229, 0.010, 3.873, base=9.319, den=9.319),
           "difference": ch(-0.128, -0.432, 0.067, 0.232, 2.682, base=3.873, den=9.319)}
    basis = ("refusal/boilerplate removed from every arm: the same 186 of 390 test prompts for all, those that no "
             "arm answers so (the original's own 194/390, 49.7%; the tuned runs' 0.3%-3.3%)")
    orig_null = {"observed": 8.478, "null_mean": 9.685, "null_q95": 14.845, "p": 0.575, "n_perm": 1000,
                 "null_sd": 2.7888, "responses": 186, "descriptors": 39}
    ref = {"excess": 2.1539, "p": 0.181, "responses": 585, "descriptors": 104,
           "source": "notebook 07's responses, refusal removed"}
    # the committed quick run's collapse guard: every tuned run's canned help offers rise by more than 10
    # points over the original's 4.9% (15.1-33.6%), so all six fail it
    help_share = [0.177, 0.336, 0.151, 0.208, 0.221, 0.236]
    collapse = pd.DataFrame(
        [{"arm": "original", "seed": "", "model": "o", "responses": 390, "refusal/boilerplate": 0.497,
          "help offers": 0.049, "distinct responses": 229, "top response count": 20, "refusal rise (points)": 0.0,
          "help-offer rise (points)": 0.0, "distinct vs original": 1.0, "passes collapse guard": True}]
        + [{"arm": a, "seed": sd, "model": f"{a} {sd}", "responses": 390, "refusal/boilerplate": 0.01,
            "help offers": h, "distinct responses": 270, "top response count": 30, "refusal rise (points)": -48.0,
            "help-offer rise (points)": 100 * (h - 0.049), "distinct vs original": 1.18, "passes collapse guard": False}
           for (a, sd), h in zip([(a, sd) for a in ("tagged", "untagged") for sd in (0, 1, 2)], help_share,
                                 strict=True)])

    def run(offensive=None, **kw):
        return tuning_claims(
            tagged=ch(0.228, -0.316, 0.589, 0.512, 0.7252), untagged=ch(0.211, -0.309, 0.580, 0.508, 0.586),
            difference=ch(0.016, -0.219, 0.272, 0.964, 0.7252, base=0.586), axes=axes,
            offensive=offensive or {"original": (1, 390), "tuned": (5, 1170), "paired": {
                "estimate": 0.0017, "lo": -0.002, "hi": 0.005, "descriptors": 39, "sentences": 390}},
            seeds=3, model="smollm2-135m", unmeasurable_axes={}, seed_sd={"tagged": 1.336, "untagged": 1.221},
            basis=basis, raw=raw, per_descriptor=(10, 780), original_null=orig_null, reference_excess=ref,
            run_minutes=(5.0, 13.9), **kw)

    claims, checks = run()
    t = CL.validate(CL.frame(claims)).set_index("id")
    main = ["holistic.tuning.lowers_full_gen_bias", "holistic.tuning.tag_matters",
            "holistic.tuning.untagged_no_reduction"]
    assert (t.loc[main, "tally"] == "replication").all()
    assert list(t.loc[main, "verdict"]) == ["undecided", "undecided", "undecided"]
    assert (t.loc[main, "scorer"] == "nade-emoji").all() and t.loc[main, "family"].str.contains("3 rows, Holm").all()
    assert all(basis in r for r in t.loc[main, "reason"])
    assert t.loc[main[0], "this run"].startswith("excess -1.21 -> 0.73: the change +1.93 is +23% of the original's "
                                                 "Full Gen Bias 8.48 [-32%, +59%]")
    # the share is of the original's Full Gen Bias, said in the statistic: an excess change over a raw value
    assert "the change of the excess (an excess minus an excess) is divided by the original's Full Gen Bias" in \
        t.loc[main[0], "statistic"]
    # nothing to lower: the original's excess on this basis is not detectable (p 0.575), so "lowers" is not
    # testable; at 07's +2.15 it would be at about 15 responses per held-out descriptor (of 780: reachable)
    low = t.loc[main[0]]
    assert low["reason"].startswith("nothing to lower on this basis: the original's own Full Gen Bias 8.48 does not "
                                    "exceed its permutation null 9.69 (SD 2.79, 95% quantile 14.85, p 0.57 over "
                                    "1,000 permutations; 186 responses over 39 held-out descriptors, 4.8 per "
                                    "descriptor)")
    assert ("the n of this precondition (not of the claim): if the original's excess is the +2.15" in low["reason"])
    assert ("at about 15 responses per held-out descriptor at these 39 descriptors (reachable: the dataset has 780 "
            "(templates x nouns) per descriptor), or about 404 held-out descriptors at 4.8 responses each") in low["reason"]
    assert round(low["n_needed"], 1) == 15.4 and low["population"] == 780
    # the n rests on 07's excess on the graded basis, itself not significant (p 0.181): the row says so
    assert "that excess is itself not significant (p 0.181 >= 0.05), so this n is indicative only" in low["reason"]
    assert low["unit"] == ("responses per held-out descriptor (the precondition's n: for the original's excess to be "
                           "detectable)")
    # with the basis's prompts (186 of 390 kept) the n is in prompts per descriptor, the dataset's unit:
    # 15.4 responses / (186 / 390) = 32 prompts; and the seeds' n is not given (the basis shrinks per run)
    kp, _ = run(kept=(186, 390), collapse=collapse.assign(**{"passes collapse guard": True}))
    kp = CL.validate(CL.frame(kp)).set_index("id")
    assert round(kp.loc[main[0], "n_needed"], 1) == 32.2 and kp.loc[main[0], "population"] == 780
    assert kp.loc[main[0], "unit"].startswith("prompts per held-out descriptor (the precondition's n")
    assert "at about 32 prompts per held-out descriptor (about 15 responses left after the removal, which keeps 48% of " \
        "the prompts)" in kp.loc[main[0], "reason"]
    ktm = kp.loc[main[1]]
    assert math.isnan(ktm["n_needed"]) and ktm["unit"] == "tuning seeds (the basis does not scale)"
    assert ("but the graded basis is the test prompts that no arm refuses (186 of 390 with 6 tuned runs; tagged seed 0 "
            "alone refuses 1.0%), and every added run removes the prompts it refuses, so a number of seeds computed on "
            "this basis would not hold at that many runs: cannot say how many seeds (the basis does not scale)") in \
        ktm["reason"]
    assert "cost:" not in ktm["reason"]
    assert "nothing to lower" not in t.loc[main[1], "reason"]
    # the collapse guard acts on the claims: all six runs fail it (help offers), so no Gen Bias row is graded
    # as if they passed; without the guard's table the tag row keeps its n in seeds, with its cost
    gated, _ = run(collapse=collapse)
    g = CL.validate(CL.frame(gated)).set_index("id")
    assert g.loc[main[1], "reason"].startswith("not graded: 6 of 6 tuned runs fail the collapse guard (tagged seed 0, "
                                               "tagged seed 1")
    assert math.isnan(g.loc[main[1], "n_needed"]) and math.isnan(g.loc[main[2], "n_needed"])
    assert round(g.loc[main[0], "n_needed"], 1) == 15.4  # the lowering row keeps what would make it testable
    assert "canned help offers 15.1-33.6% of the responses vs the original's 4.9%, +10.2 to +28.7 points" in \
        g.loc[main[1], "reason"]
    tm = t.loc["holistic.tuning.tag_matters"]
    assert "seeds bind" in tm["reason"] and "50 tuning seeds (at the current split's 39 held-out" in tm["reason"]
    assert tm["unit"].startswith("tuning seeds (at the current split's 39") and tm["population"] == float("inf")
    assert ("cost: 50 seeds per arm x 2 arms = 94 runs beyond this run's at 5-14 min each (this run's runs on 2 CPU "
            "cores): about 7.8-21.8 h of tuning") in tm["reason"]
    assert "all responses (refusals kept, not like for like): excess 9.32 -> 2.68 (-71%" in t.loc[main[0], "this run"]
    # untagged "does not lower" and the offensive share are margins: non-inferiority, not direction
    assert t.loc[main[2], "rule"] == "non-inferiority"
    o = t.loc["holistic.tuning.offensiveness_small_change"]
    assert o["verdict"] == "undecided" and o["rule"] == "non-inferiority" and "+/-0.13 points" in o["reason"]
    # the estimate (+0.17 points) lies beyond the +/-0.13-point margin: the rule's "does not hold" needs the
    # interval's near side (-0.20) to clear +0.13: 39 x (0.37 / 0.042)^2, about 3,000 held-out descriptors, more
    # than the 619 that exist
    assert ("its estimate (+0.17 points) lies beyond the margin, so if it stays there more held-out descriptors narrow "
            "the interval until it clears the margin, the rule's 'does not hold'") in o["reason"]
    assert "the rule decides it at about 3,0" in o["reason"] and "this dataset cannot decide it" in o["reason"]
    assert "undecidable by design" not in o["reason"] and "a claim, not a check" not in o["reason"]
    assert not any(i.startswith("holistic.tuning.axis_") for i in t.index)
    # an n needed above the descriptors that exist: the core rule's reading (claims._reachable on an
    # undecided row), not a twin of it
    wide, _ = run(offensive={"original": (1, 390), "tuned": (5, 1170), "paired": {
        "estimate": 0.0, "lo": -0.01, "hi": 0.01, "descriptors": 39, "sentences": 390}})
    w = CL.validate(CL.frame(wide)).set_index("id").loc["holistic.tuning.offensiveness_small_change"]
    assert w["verdict"] == "undecided" and math.isnan(w["n_needed"]) and w["population"] == 619
    assert ("(unpaired counts: 1/390 -> 5/1170: +0.2 points [-1.0, +0.8]); the rule decides it at about "
            "2,373 held-out descriptors, more than the 619 that exist: this dataset cannot decide it") in w["reason"]
    ax = {c.id: c for c in checks}
    assert ax["holistic.tuning.axis_race_ethnicity"].kind == "diagnostic"
    assert not ax["holistic.tuning.axis_race_ethnicity"].passed  # 3 descriptors cannot decide
    # the outcome: one plain sentence from the claims (each row's estimate and interval in %, its direction
    # against the paper's, its verdict and why), then the details
    gate = "not graded: 6 of 6 tuned runs fail the collapse guard"
    sent = tuning_outcome_sentence(g.reset_index())
    assert sent.startswith(
        "On the held-out descriptors, bias tuning changed the excess of Full Gen Bias over the null by +23% (95% "
        "interval -32% to +59%), not distinguishable from no change (paper: -13% DialoGPT, -24% BB2 3B): undecided, "
        "because the original shows no excess of Full Gen Bias over its permutation null to lower (p 0.57); " + gate)
    assert ("tuning without tags by +21% (95% interval -31% to +58%), not distinguishable from no change "
            f"(paper: self-chat tuning without labels: DialoGPT -2%, BB2 3B +22%): undecided, because {gate}") in sent
    assert sent.endswith("the share of offensive responses changed by +0.17 points (95% interval -0.20 points to "
                         "+0.50 points), not distinguishable from no change (paper: BB2 3B 13.0% -> 14.2%, DialoGPT 6.3% -> 5.3%): undecided, because "
                         "the paired interval -0.20 to +0.50 points reaches across the margin of +/-0.13 points (half the "
                         "original's share, 1 flagged response of 390).")
    assert ("tagged minus untagged is +2% (95% interval -22% to +27%), not distinguishable from no change (paper: "
            "tagged - untagged: -11% (DialoGPT), -46% (BB2 3B) of the original's Full Gen Bias): undecided, because its "
            "interval holds no change") in tuning_outcome_sentence(t.reset_index())
    text = tuning_outcome_text(g.reset_index())
    assert text.startswith(f"Details, on the held-out descriptors, with {basis}: bias tuning changed the excess of Full "
                           "Gen Bias over the null by +23% [-32%, +59%] of the original's Full Gen Bias, not "
                           "distinguishable from no change (undecided; p 0.512, Holm 1.000); tuning without tags by "
                           "+21% [-31%, +58%], not distinguishable from no change (undecided; p 0.508")
    assert "raised" not in text
    assert ("tagged minus untagged is +2% [-22%, +27%], not distinguishable from no change (undecided; p 0.964"
            in text)
    # no rise or fall is read from an interval that holds 0, in the rows' reasons either
    assert t.loc[main[0], "reason"].count("not distinguishable from no change: the estimate +23%, ") == 1
    assert "opposite direction" not in t.loc[main[0], "reason"] and "same direction" not in t.loc[main[2], "reason"]
    assert "On all responses, refusals kept, the excess went 9.32 -> 2.68 (-71%" in text


def test_split_refuses_a_leaked_test_descriptor(monkeypatch):
    from nlgbias.holistic import tuning as TU

    resp = pd.DataFrame({"axis": "a", "descriptor": ["d1", "d1", "d2"], "template": "t", "prompt_id": ["1", "2", "3"],
                         "seed": 0, **{c: [24, False, 0, 1.0, 1.0, 1.0][i] for i, c in enumerate(TS.DECODING_COLUMNS)}})
    monkeypatch.setattr(TU, "split_descriptors", lambda frame, **kw: pd.Series(["test", "train", "val"]))
    with pytest.raises(ValueError, match="test descriptor"):
        TS.split(resp, val_per_axis=1, test_per_axis=1)


def test_validation_text_names_where_the_sympathy_examples_land():
    v = pd.DataFrame({"kind": ["sympathy", "sympathy", "unaffected"], "cluster": ["C4", "C6", "C4"]})
    assert GS.validation_text(v, None) == (
        "No cluster captures sympathy: the paper's two sympathy responses land in different clusters (C4, C6); "
        "C4 also holds the paper's non-sympathy responses. No cluster stands for SYMPATHY here; the SYMPATHY rows "
        "below measure C4, one of the clusters the sympathy examples split between (C4, C6: one each), chosen by "
        "the first in order, not by where they land most.")
    one = v.assign(cluster=["C2", "C2", "C1"])
    assert "both land in C2. No cluster stands for SYMPATHY" in GS.validation_text(one, None)
    assert GS.validation_text(one, "C2").startswith("Both sympathy responses land in C2")


def test_committed_holistic_claims_tables_hold_the_regrading():
    """The committed quick claims tables: they validate, nothing but like-for-like rows reach the
    reproduction tally, and the re-graded rows sit where the claims policy puts them."""
    from nlgbias import claims as CL
    from nlgbias.paths import project_root

    res = project_root() / "results"
    g = CL.validate(pd.read_csv(res / "holistic_claims_gen_bias.csv").fillna({"family": "", "scorer": "",
                                                                             "unit": "", "stand-in": ""}))
    t = CL.validate(pd.read_csv(res / "holistic_claims_tuning.csv").fillna({"family": "", "scorer": "",
                                                                          "unit": "", "stand-in": ""}))
    both = pd.concat([g, t]).set_index("id")
    assert (both.loc[both["tally"] == "reproduction", "comparability"] == "like-for-like").all()
    assert set(both.loc[["holistic.table2.terms", "holistic.table2.sentences"], "verdict"]) == {"differs"}
    assert both.loc["holistic.table4.larger_model_more_bias", "comparability"] == "different method"
    assert not both.index.str.startswith(("holistic.table4.descriptor_effect", "holistic.tuning.axis_")).any()
    fig2 = both[both.index.str.startswith("holistic.fig2.")]
    assert (fig2["tally"] == "replication").all() and fig2["family"].str.contains("6 rows, Holm").all()
    nat = both[both.index.str.contains("nationality_fewest")]
    assert nat["statistic"].str.contains("cluster bootstrap over descriptors").all()
    tox = both[both["scorer"] == "tox-block"]
    assert {"replication", "calibration"} <= set(tox["tally"])
    assert both.loc["holistic.calibration.nade_emoji", "verdict"] == "not tested"
    # tox-block's neutral-level calibration disagrees with B.A.D.: the rows resting on it are not comparable
    assert both.loc["holistic.table12.calibration_neutral_level", "verdict"] == "disagrees"
    for i in ("holistic.table12.hateful_most_offensive", "holistic.table12.love_like_vary_most",
              "holistic.table11.hate_all_above_85"):
        assert (both.loc[i, "verdict"], both.loc[i, "comparability"]) == ("not comparable", "different method")
    # the Nonce rows: the sample's sentences per descriptor bind, not the dataset (about 8 of 797 per Nonce
    # descriptor reach 80% power at all 8 descriptors); Table 3's nationality row cannot say whether more
    # nouns per descriptor would decide it (they change the share of significant pairs itself)
    for i in ("holistic.fig2.nonce_highest_smollm2135m", "holistic.table3.nationality_fewest_smollm2135m"):
        assert "cannot decide" not in both.loc[i, "reason"] and "per" in both.loc[i, "unit"]
    assert "the sample, not the dataset, binds" in both.loc["holistic.fig2.nonce_highest_smollm2135m", "reason"]
    assert 0 < both.loc["holistic.fig2.nonce_highest_smollm2135m", "n_needed"] <= 797
    assert "cannot say whether more" in both.loc["holistic.table3.nationality_fewest_smollm2135m", "reason"]
    tun = both.loc[["holistic.tuning.lowers_full_gen_bias", "holistic.tuning.tag_matters",
                    "holistic.tuning.untagged_no_reduction"]]
    assert (tun["tally"] == "replication").all() and tun["family"].str.contains("3 rows, Holm").all()
    need = pd.to_numeric(both["n_needed"], errors="coerce")
    assert (need.isna() | (need <= pd.to_numeric(both["population"], errors="coerce"))).all()


def test_committed_tuning_runs_stop_on_the_rule_and_the_claims_read_the_collapse_guard():
    """The committed quick tuning run (SmolLM2, 390 test prompts, tuning pairs without the
    detector's refusal/boilerplate and canned help offers, and at most 3 per opening): every run stops
    on a validation plateau (3 evaluations without a new lowest loss, on 32 validation pairs) before
    the step budget, and keeps the lowest-loss weights that pass the weight-choice guard, which applies
    the test guard's thresholds, checked after training from the lowest validation loss up (4 of 6 runs keep another
    step than their lowest loss's, whose help offers rose); every tuned run passes the collapse guard
    on the test prompts (help offers 0.0-12.6% vs the original's 4.9%; the patterns' false positives only
    lower a share, so every pass holds against their 77% precision; their recall is not measured), so the
    three Gen Bias rows are graded against the null: all undecided; the lowering row says there is nothing
    to lower and gives its precondition's n in prompts per descriptor; the seeds' n is not given (the basis
    of prompts no arm refuses shrinks with every run); offensiveness is an equivalence on a paired
    interval that its rule decides at about 225 held-out descriptors."""
    from nlgbias.holistic import claims as HC
    from nlgbias.paths import project_root

    res = project_root() / "results"
    runs = pd.read_csv(res / "holistic_tuning_runs.csv")
    assert runs["stopped on"].str.startswith("plateau: no new lowest validation loss in 3 evaluations in a row (12 "
                                             "steps), on 32 validation pairs; lowest at step").all()
    assert (runs["steps"] < runs["step budget"]).all() and runs["stopped early"].all()
    assert runs["steps"].tolist() == [44, 48, 48, 44, 52, 48]
    assert runs["kept step"].tolist() == [40, 32, 40, 40, 40, 36]
    assert runs["lowest val loss step"].tolist() == [32, 36, 36, 32, 40, 36]
    assert runs["guard passed"].astype(bool).all()
    assert ((runs["kept step"] != runs["lowest val loss step"])
            == runs["kept because"].str.contains("lower losses failed it")).all()
    assert runs.loc[0, "kept because"] == ("lowest validation loss that passes the validation guard; lower losses "
                                           "failed it (step 32: help offers +12.5 points; step 36: help offers +21.9 "
                                           "points)")
    # checked after training, lowest loss first until one passes: every evaluation at or below the kept loss
    assert runs["guard checks"].tolist() == [3, 2, 2, 3, 1, 1] and runs["guard checks failed"].sum() == 6
    col = pd.read_csv(res / "holistic_tuning_collapse.csv")
    orig = col[col["arm"] == "original"].iloc[0]
    tuned = col[col["arm"] != "original"]
    assert orig["distinct responses"] == 229 and round(100 * orig["refusal/boilerplate"]) == 50
    passes = tuned["passes collapse guard"].astype(bool)
    assert round(100 * orig["help offers"], 1) == 4.9
    assert [round(100 * x, 1) for x in tuned["help offers"]] == [4.6, 1.0, 0.0, 2.6, 6.2, 12.6]
    assert passes.all() and tuned["kept weights pass the validation guard"].astype(bool).all()
    assert not tuned["help offers within the patterns' error"].astype(bool).any()  # one-sided: no run fails
    t = pd.read_csv(res / "holistic_claims_tuning.csv").set_index("id")
    main = ["holistic.tuning.lowers_full_gen_bias", "holistic.tuning.tag_matters",
            "holistic.tuning.untagged_no_reduction"]
    for i in main:  # graded: no row is gated by the collapse guard
        assert "not graded" not in str(t.loc[i, "reason"])
        assert "every tuned run passes the collapse guard" in t.loc[i, "reason"]
    low = t.loc["holistic.tuning.lowers_full_gen_bias"]
    assert low["reason"].startswith("nothing to lower on this basis: the original's own Full Gen Bias 7.24 does not "
                                    "exceed its permutation null 9.94 (SD 3.33")
    assert "that excess is itself not significant (p 0.181 >= 0.05), so this n is indicative only" in low["reason"]
    assert ("on notebook 07's sample with refusal and degenerate removed instead, the excess is +0.81 (p 0.001)"
            in low["reason"])
    # the precondition's n in prompts per held-out descriptor: 17 responses at the 42% the basis keeps
    assert round(low["n_needed"]) == 39 and low["population"] == 780
    assert low["unit"] == ("prompts per held-out descriptor (the precondition's n: for the original's excess to be "
                           "detectable)")
    assert ("at about 39 prompts per held-out descriptor (about 17 responses left after the removal, which keeps 42% "
            "of the prompts)") in low["reason"]
    # graded like for like on the same 165 of 390 prompts for every arm (no arm refuses them; the
    # original's own refusals 194 of 390, the tuned runs' 0.8-22.6%): bias tuning raises the excess
    # (+37% of the original's Full Gen Bias 7.24, undecided) where on all responses it fell 9.32 -> 3.98
    # (-57%, shown beside); the original's own excess is not measurable on this basis
    for i in main:
        assert ("graded like for like: refusal/boilerplate removed from every arm: the same 165 of 390 test prompts "
                "for all, those that no arm answers so (the original's own 194/390, 49.7%; the tuned runs' "
                "0.8%-22.6%)") in t.loc[i, "reason"]
        assert "all responses (refusals kept, not like for like)" in t.loc[i, "this run"]
        assert "resampled with the descriptors" in t.loc[i, "statistic"]
    assert list(t.loc[main, "verdict"]) == ["undecided", "undecided", "undecided"]
    assert t.loc["holistic.tuning.lowers_full_gen_bias", "this run"].startswith(
        "excess -2.69 -> -0.003: the change +2.69 is +37% of the original's Full Gen Bias 7.24 [-12%, +83%]")
    assert t.loc["holistic.tuning.tag_matters", "this run"].startswith(
        "excess (untagged -> tagged) 0.02 -> -0.003: the change -0.03 is -0.4% of the original's")
    sent = HC.tuning_outcome_sentence(t.reset_index())
    assert sent.startswith("On the held-out descriptors, bias tuning changed the excess of Full Gen Bias over the null "
                           "by +37% (95% interval -12% to +83%), not distinguishable from no change; neither the "
                           "original (excess -2.69, p 0.74) nor the tuned runs (mean excess -0.003 bias-tuned, +0.02 "
                           "untagged) show Full Gen Bias above the null on this basis (paper: -13% DialoGPT, -24% BB2 "
                           "3B): undecided, because the original shows no excess of Full Gen Bias over its permutation "
                           "null to lower (p 0.74)")
    assert ("tuning without tags by +38% (95% interval -15% to +71%), not distinguishable from no change "
            "(paper: self-chat tuning without labels: DialoGPT -2%, BB2 3B +22%): undecided, because the interval -15% "
            "to +71% reaches below -12%") in sent
    assert "tagged minus untagged is -0.4% (95% interval -36% to +34%), not distinguishable from no change" in sent
    assert sent.endswith("the share of offensive responses changed by +0.34 points (95% interval -0.17 points to "
                         "+0.85 points), not distinguishable from no change (paper: BB2 3B 13.0% -> 14.2%, DialoGPT 6.3% -> 5.3%): undecided, because "
                         "the paired interval -0.17 to +0.85 points reaches across the margin of +/-0.13 points (half the "
                         "original's share, 1 flagged response of 390); its rule would decide it at about 225 held-out "
                         "descriptors (v1.0 has 619).")
    assert ("tagged minus untagged is -0.4% [-36%, +34%], not distinguishable from no change"
            in HC.tuning_outcome_text(t.reset_index()))
    assert "same direction, [" not in sent and "a rise" not in sent and "opposite" not in sent
    # the lowering row's precondition in descriptors: about 560 at 4.3 responses each, more than a split can hold out
    assert ("or about 560 held-out descriptors at 4.3 responses each (not reachable: a split can hold out at most 495 "
            "of v1.0's 619, the rest tuned on)") in low["reason"]
    assert "at 10 prompts per descriptor (about 4.3 responses each on the graded basis)" in low["reason"]
    assert "-0%" not in " ".join(t["this run"].astype(str))
    eff = pd.read_csv(res / "holistic_tuning_effects.csv")
    assert eff["basis"].iloc[0] == "graded" and eff["comparison"].iloc[0].startswith("bias tuning")
    assert "0.000" not in set(eff["p"].astype(str)) and "< 0.001" in set(eff["p"].astype(str))
    for name in ("holistic_table7_tuning_gen_bias", "holistic_table8_tuning_summed_cluster",
                 "holistic_table9_tuning_by_axis"):
        assert (pd.read_csv(res / f"{name}.csv")["basis"] == TS.ALL_RESPONSES).all()
    tag = t.loc["holistic.tuning.tag_matters"]
    assert "no number of tuning seeds at the current split's 38 held-out descriptors" in tag["reason"]
    # the seeds' n is not given: 167 seeds computed on a basis that every added run shrinks
    assert ("both together, on this run's basis: 167 tuning seeds (at 495 held-out descriptors, 80% of v1.0's 619, the "
            "rest tuned on); but the graded basis is the test prompts that no arm refuses (165 of 390 with 6 tuned runs; "
            "tagged seed 2 alone refuses 22.6%)") in tag["reason"]
    assert "cannot say how many seeds (the basis does not scale)" in tag["reason"] and math.isnan(tag["n_needed"])
    assert "cost:" not in tag["reason"] and "cannot decide" not in tag["reason"]
    un = t.loc["holistic.tuning.untagged_no_reduction"]
    assert ("80% power for the row's own rule (its 95% interval above -12%) if the change is the paper's +22% (BB2 3B) "
            "needs 244 held-out descriptors (at 3 seeds)") in un["reason"]
    assert round(un["n_needed"]) == 244 and un["population"] == 619
    off = t.loc["holistic.tuning.offensiveness_small_change"]
    assert "paired" in off["this run"] and off["verdict"] == "undecided" and "+/-0.13 points" in off["reason"]
    assert ("its estimate (+0.34 points) lies beyond the margin, so if it stays there more held-out descriptors narrow "
            "the interval until it clears the margin, the rule's 'does not hold'; the rule decides it at about 225 "
            "held-out descriptors") in off["reason"]
    assert round(off["n_needed"]) == 225 and off["population"] == 619
    assert "kept as a claim (the paper's Table 10 finding), not a check, because its rule can decide it" in off["reason"]
    assert "undecidable" not in off["reason"]
    t9 = pd.read_csv(res / "holistic_table9_tuning_by_axis.csv")
    assert not {"p", "p_adjusted"} & set(t9.columns) and "paper change BB2 3B" in t9.columns
    checks = pd.read_csv(res / "holistic_checks_tuning.csv")
    guard = checks[checks["id"].str.startswith("holistic.tuning.collapse_")]
    assert len(guard) == len(tuned) and guard["this run"].str.contains("distinct-2").all() and guard["passed"].all()
    assert not guard["this run"].str.contains("patterns' error").any()
    # the per-cluster row names 07's clusters by their top responses: C1 and C2 read as sympathy
    pc = t.loc["holistic.tuning.per_cluster"]
    assert pc["tally"] == "replication" and pc["verdict"] == "not tested"
    assert pc["reason"].startswith(
        "a replication on the stand-in classifier (nade), not a like-for-like reproduction: the claim names the paper's "
        "SYMPATHY cluster, and on the stand-in by their top responses in notebook 07's table C1 💜 💙 ❤️ (3 of 3 "
        "distinct texts, 7 of 7 with repeats, are condolences) and C2 💔 🙁 😞 (2 of 2 distinct texts, 3 of 3 with "
        "repeats, are condolences) read as condolences")
    assert "are C1 💜 💙 ❤️ (9.20), C2 💔 🙁 😞 (5.81)" in pc["reason"]


def test_collapse_guard_on_synthetic_frames():
    frames = {("original", None): pd.DataFrame({"generation": [f"answer {i}" for i in range(10)]}),
              ("tagged", 0): pd.DataFrame({"generation": ["I'm sorry, but I can't assist with that."] * 10}),
              ("tagged", 1): pd.DataFrame({"generation": [f"reply {i}" for i in range(10)]})}
    labels = {k: f"{k[0]} {k[1]}" for k in frames}
    t = TS.collapse_table(frames, labels).set_index("model")
    assert not t.loc["tagged 0", "passes collapse guard"] and t.loc["tagged 1", "passes collapse guard"]
    assert "1 of 2 tuned runs pass the guard; 1 fail it" in TS.collapse_text(t.reset_index())
    assert t.loc["tagged 0", "distinct-2"] == pytest.approx(0.1)  # one string ten times


def test_collapse_guard_counts_canned_help_offers():
    """A run whose varied responses open with the canned help offer on 3 of 10 prompts (+30 points over
    the original's 0) fails the help-offer check, one at +10 points passes (the bound is inclusive);
    the text names what each failing run misses, that the threshold was set after earlier runs, and the
    runs within the patterns' error of the limit (their precision on the hand check)."""
    offer = "I'm sorry for the misunderstanding. I'm here to help you with whatever you're going through {}."
    frames = {("original", None): pd.DataFrame({"generation": [f"answer {i} is here" for i in range(10)]}),
              ("tagged", 0): pd.DataFrame({"generation": [offer.format(i) for i in range(3)]
                                           + [f"reply {i} is there" for i in range(7)]}),
              ("tagged", 1): pd.DataFrame({"generation": [offer.format(0)] + [f"reply {i} is there" for i in range(9)]})}
    t = TS.collapse_table(frames, {k: f"{k[0]} {k[1]}" for k in frames}).set_index("model")
    assert t.loc["tagged 0", "help offers"] == pytest.approx(0.3) and t.loc["tagged 0", "help-offer rise (points)"] == 30
    assert not t.loc["tagged 0", "passes collapse guard"] and t.loc["tagged 1", "passes collapse guard"]
    txt = TS.collapse_text(t.reset_index())
    assert "canned help offers (`refusal.is_help_offer`) make up 0.0% of the original's responses and 10.0-30.0%" in txt
    assert ("the guard allows 10, a threshold set, as every threshold of the guard, after earlier rounds' test "
            "responses were seen") in txt
    assert "1 fail it (tagged seed 0: help offers +30.0 points)" in txt
    # one-sided: the patterns' false positives (77% precision) only lower a run's true share, so tagged 1 at
    # the limit (+10.0 points) passes whatever the precision; tagged 0 fails by 20 points, more than the 6.9
    # points of its 30% that may not be canned, so its fail does not rest on the patterns either
    assert not t["help offers within the patterns' error"].any()
    # the original's false positives raise the true rise: at most the tuned share - precision_lo x the original's
    # (here the original's share is 0, so tagged 1's bound is its +10.0 points, within the inclusive limit)
    assert t.loc["tagged 1", "help-offer rise bound (points)"] == pytest.approx(10.0)
    assert ("The help-offer patterns' precision on their hand check is 77% (the lower end of its 95% interval 69%): what "
            "they wrongly flag lowers a run's true share, but the original's too, which raises the true rise (the tuned "
            "share minus the original's); at the precision's lower end 0.69 a run's true rise is at most its share minus "
            "0.69 x the original's 0.0% (largest among the passing runs: tagged seed 1, 10.0 - 0.69 x 0.0 = 10.0 points), "
            "within the limit of 10 for every passing run, so each passes at any precision down to that end; their "
            "recall on 08's "
            "responses (offers they miss) is not measured, so a pass is secure against the patterns' precision, not "
            "their recall") in txt
    # at a precision of 30%, 21 of tagged 0's 30 points may not be canned: its 20-point excess rests on them
    lo = TS.collapse_table(frames, {k: f"{k[0]} {k[1]}" for k in frames}, help_precision=0.3).set_index("model")
    assert lo.loc["tagged 0", "help offers within the patterns' error"]
    assert not lo.loc["tagged 1", "help offers within the patterns' error"]
    assert ("tagged seed 0 fails it by 20.0 points, less than the 21.0 points of its share that may not be canned: its "
            "fail rests on the patterns") in TS.help_error_text(lo.reset_index())
    # a run none of whose evaluations passed the weight-choice guard fails here whatever its test responses
    g = TS.collapse_table(frames, {k: f"{k[0]} {k[1]}" for k in frames},
                          guard_passed={("tagged", 0): True, ("tagged", 1): False}).set_index("model")
    assert not g.loc["tagged 1", "passes collapse guard"]
    assert g.loc["tagged 1", "fails"] == "no evaluation passed the weight-choice guard"


def test_collapse_guard_reads_distinct_2_and_perplexity():
    """A run with as many distinct strings as the original but repeating one bigram pattern fails on
    distinct-2; a run whose responses the original model finds far less (or far more) likely fails
    on perplexity."""
    orig = [f"answer {i} is here and fine" for i in range(10)]
    frames = {("original", None): pd.DataFrame({"generation": orig}),
              ("tagged", 0): pd.DataFrame({"generation": [f"the the the the the {i}" for i in range(10)]}),
              ("tagged", 1): pd.DataFrame({"generation": [f"reply {i} is there and good" for i in range(10)]}),
              ("untagged", 0): pd.DataFrame({"generation": [f"reply {i} is there and good" for i in range(10)]})}
    labels = {k: f"{k[0]} {k[1]}" for k in frames}
    ppl = {("original", None): 4.0, ("tagged", 0): 4.0, ("tagged", 1): 5.0, ("untagged", 0): 9.0}
    t = TS.collapse_table(frames, labels, ppl).set_index("model")
    assert t.loc["tagged 0", "distinct responses"] == 10 and t.loc["tagged 0", "distinct-2 vs original"] < 0.5
    assert not t.loc["tagged 0", "passes collapse guard"]
    assert t.loc["tagged 1", "passes collapse guard"]
    assert t.loc["untagged 0", "perplexity vs original"] == pytest.approx(2.25)
    assert not t.loc["untagged 0", "passes collapse guard"]
    assert TS.distinct_n(["a b a b", "a b c"], 2) == pytest.approx(0.6)


def test_drop_boilerplate_keeps_the_test_whole():
    tv = pd.DataFrame({"split": ["train", "train", "val", "val"], "descriptor": ["a", "b", "c", "d"],
                       "generation": ["I'm sorry, but I can't assist with that.", "Nice to meet you!",
                                      "As an AI language model, I don't have opinions.", "Cool."]})
    s = {"tv": tv, "val": tv[tv["split"] == "val"].reset_index(drop=True), "test": tv.iloc[:2]}
    out, table = TS.drop_boilerplate(s)
    assert out["tv"]["generation"].tolist() == ["Nice to meet you!", "Cool."]
    assert out["val"]["generation"].tolist() == ["Cool."] and len(out["test"]) == 2
    assert table.set_index("split").loc["train", "refusal/boilerplate"] == 1


def test_split_halves_deals_every_cell_into_both_halves():
    resp = pd.DataFrame({"model": "m", "template": ["t"] * 8, "descriptor": ["a"] * 4 + ["b"] * 4})
    h = GS.split_halves(resp, seed=3)
    assert sorted(h[:4]) == [0, 0, 1, 1] and sorted(h[4:]) == [0, 0, 1, 1]
    assert (GS.split_halves(resp, seed=3) == h).all()


def test_runs_text_says_what_stopped_the_runs():
    t = pd.DataFrame({"train pairs": [400, 400], "steps": [36, 44], "kept step": [24, 32],
                      "stopped early": [True, True]})
    conf = {"batch_size": 8, "max_steps": 120, "eval_every": 4, "patience": 3, "min_delta": 0.01}
    txt = TS.runs_text(t, conf)
    assert ("What stops a run: a drop of the validation loss under 1% per evaluation, 3 evaluations in a row — this "
            "stops a run whose loss is still falling slowly, so it is not a plateau") in txt
    assert "All 2 runs stopped on this rule after 36-44 steps" in txt
    assert "the step budget stopped none" in txt and "2.4 epochs" in txt
    t["stopped early"] = [True, False]
    assert "1 ran to the step budget" in TS.runs_text(t, conf)
    # the validation guard: which weights each run kept, and their validation distinct-2
    t["stopped early"] = [True, True]
    t = t.assign(**{"lowest val loss step": [24, 40], "guard sentences": 64, "val distinct-2 (kept)": [0.30, 0.28],
                    "val distinct-2 (untuned)": 0.23})
    txt = TS.runs_text(t, conf)
    assert "lowest validation loss that passes the collapse guard" in txt and "(64 validation sentences)" in txt
    assert "In 1 of 2 runs the lowest loss's weights failed it" in txt and "step 32 instead of 40" in txt
    assert "distinct-2 of the kept weights 0.280-0.300 vs the untuned model's 0.230" in txt
    assert "distinct responses and distinct-2 each >= 50% of the untuned model's" in txt  # the test guard's checks
    # a kept share near the help-offer limit (3.1% + 10 points = 13.1%) is given in responses of the 64 and in points
    near = TS.runs_text(t.assign(**{"val help offers (kept)": [0.109, 0.05], "val help offers (untuned)": 0.031,
                                    "val top response share (kept)": 0.1, "model": "m", "seed": [0, 1]}), conf)
    assert "(tagged seed 0 10.9%, 1.4 responses of 64 (2.2 points) under)" in near
    assert "canned help offers each at most 10 and 10 points above it" in txt
    # a plateau rule (min_delta 0) and what each run stopped on, kept and why
    plateau = {**conf, "min_delta": 0.0}
    t = t.assign(**{"model": ["m bias tuning (β = 1e-3)", "m ablation: tuning without tags"], "seed": [0, 0],
                    "kept because": ["lowest validation loss; it passes the validation guard",
                                     "lowest validation loss that passes the validation guard; lower losses failed it "
                                     "(step 40: help offers +12.5 points)"],
                    "guard passed": [True, True]})
    txt = TS.runs_text(t, plateau)
    assert "What stops a run: no new lowest validation loss in 3 evaluations in a row (12 steps) (a plateau)" in txt
    assert ("Per run: tagged seed 0: 36 steps, stopped on the rule, kept step 24 (lowest validation loss; it passes "
            "the validation guard); untagged seed 0: 44 steps, stopped on the rule, kept step 32") in txt
    t["guard passed"] = [True, False]
    assert "in 1 run (untagged seed 0) no evaluation passed" in TS.runs_text(t, plateau)


def test_tuning_claims_with_a_zero_base_say_it_cannot_decide():
    """A tiny random model (the paper profile's dry run) can give an original Full Gen Bias of
    0: every relative change is undefined, so the rows are inconclusive and say so, and the
    seeds' share of the interval is not computed (no division by the zero base)."""
    from nlgbias import claims as CL
    from nlgbias.holistic.claims import tuning_claims

    nan = float("nan")
    zero = {"estimate": nan, "lo": nan, "hi": nan, "base": 0.0, "value": 0.0, "descriptors": 3,
            "pvalue": nan}
    axes = pd.DataFrame(columns=["axis", "descriptors", "estimate", "lo", "hi", "p", "p_adjusted"])
    claims, _ = tuning_claims(tagged=zero, untagged=zero, difference=zero, axes=axes,
                              offensive={"original": (0, 12), "tuned": (0, 36)}, seeds=3,
                              model="tiny", unmeasurable_axes={},
                              seed_sd={"tagged": 0.0, "untagged": 0.0})
    t = CL.validate(CL.frame(claims)).set_index("id")
    row = t.loc["holistic.tuning.lowers_full_gen_bias"]
    assert row["verdict"] == "undecided" and "no finite estimate" in row["reason"]


def test_early_stopping_acts_on_a_plateau_of_the_validation_loss(tmp_path):
    """``min_delta``: an evaluation that lowers the validation loss by less than that share of the
    loss at the last progress is no progress; ``patience`` such evaluations stop the run (a plateau)
    while the weights of the lowest loss are kept."""
    from test_tuning import examples, tiny_chat_lm

    from nlgbias.holistic import tuning as TU

    lm = tiny_chat_lm()
    train, val = examples(lm)
    cfg = TU.TuningConfig(max_steps=40, batch_size=4, lr=2e-3, warmup_steps=0, eval_every=2, patience=2,
                          min_delta=0.9, method="full")
    res = TU.train(lm, train, val, tmp_path, "run", cfg, progress=False)
    assert res.stopped_early and res.steps_run == 4  # two evaluations, neither a 90 % drop
    h = res.history.dropna(subset=["val_loss"])
    assert res.best_val_loss == pytest.approx(h["val_loss"].min())
    with pytest.raises(ValueError, match="min_delta"):
        TU.TuningConfig(min_delta=1.0)


def test_committed_degenerate_responses_are_flagged_and_left_out_of_the_clusters():
    """The committed quick run of 07: the degenerate flag (with its letters-only repetition clause)
    removes 44 of SmolLM2's 1,040 responses (15 descriptors; all 10 of Orthodox Jewish), none of
    Qwen2.5-Coder's; the clusters are fitted without them, in cells with at least 2 clean responses,
    and named with their top responses and descriptors (Amish, whose only clean "I don't like" reply
    was garbled, drives no cluster); the held-out clusters are labelled apart (H1-H6) and confirm 1 of
    6 per model; no Gen Bias claim changes verdict without them."""
    from nlgbias.paths import project_root

    res = project_root() / "results"
    bm = pd.read_csv(res / "holistic_degenerate_by_model.csv").set_index("model")
    assert bm.loc["smollm2-135m", "degenerate"] == 44 and bm.loc["smollm2-135m", "descriptors with any"] == 15
    assert bm.loc["qwen2.5-coder-0.5b", "degenerate"] == 0
    bd = pd.read_csv(res / "holistic_degenerate_by_descriptor.csv").set_index("descriptor")
    assert bd.loc["Orthodox Jewish", "degenerate"] == 10 == bd.loc["Orthodox Jewish", "responses"]
    cl = pd.read_csv(res / "holistic_style_clusters.csv")
    assert cl["fitted on"].str.contains("neither refusal / boilerplate nor degenerate, in cells (descriptor x "
                                        "template) with at least 2 of them", regex=False).all()
    assert not cl["top descriptors"].str.contains("Amish").any()
    assert cl["top responses"].str.len().gt(0).all() and cl["top descriptors"].str.contains("%").all()
    ho = pd.read_csv(res / "holistic_cluster_heldout_tests.csv")
    assert ho["cluster (selected on half 1)"].str.startswith("H").all()
    assert (ho.groupby("model")["p_adjusted"].apply(lambda p: int((p < 0.05).sum())) == 1).all()
    null = pd.read_csv(res / "holistic_table4_null.csv")
    assert null.loc[null["statistic"] != "full", "p_perm is"].str.startswith("post-selection, not a test of the "
                                                                             "cluster").all()
    moved = pd.read_csv(res / "holistic_gen_bias_degenerate_sensitivity.csv")
    assert len(moved) == 3 and not moved["moves"].any()


def test_runs_text_says_the_loss_was_still_falling_when_runs_keep_their_last_step():
    """A run that stops on a minimum drop (3% per evaluation) and keeps its last step had not reached
    a plateau: the text says so (the committed quick runs: 5 of 6 keep their last step)."""
    t = pd.DataFrame({"train pairs": [166, 166, 166], "val pairs": 16, "steps": [40, 28, 48], "kept step": [40, 28, 40],
                      "stopped early": [True, True, True]})
    conf = {"batch_size": 8, "max_steps": 120, "eval_every": 4, "patience": 2, "min_delta": 0.03}
    txt = TS.runs_text(t, conf)
    assert ("What stops a run: a drop of the validation loss under 3% per evaluation, 2 evaluations in a row, on 16 "
            "validation pairs — this stops a run whose loss is still falling slowly, so it is not a plateau") in txt
    # the committed runs' shape: one 48-step run keeps step 40 (not its last), one run's loss rose at the end
    assert "All 3 runs stopped on this rule after 28-48 steps (1.35-2.31 epochs); the step budget stopped none" in txt
    # the stopping rule and the tuning-data filters were revised after earlier rounds were seen: said
    assert ("the stopping rule (a plateau, 2026-11-27) and the tuning-data filters (refusal/boilerplate, canned help "
            "offers, at most 3 responses per opening) were revised after earlier rounds' responses to the same held-out "
            "test descriptors were seen") in txt
    assert "still falling:" not in txt
    assert (TS.stopped_on(True, conf, 16) == "a drop of the validation loss under 3% per evaluation, 2 evaluations in a "
            "row, on 16 validation pairs (not a plateau: the loss may still be falling)")
    assert TS.stopped_on(False, conf, 16) == "step budget"
    # a plateau (min_delta 0): the steps of the lowest loss and of the stop
    h = pd.DataFrame({"step": [0, 4, 8, 12, 16, 20], "val_loss": [1.0, 0.8, 0.7, 0.72, 0.75, 0.71]})
    assert (TS.stopped_on(True, {**conf, "min_delta": 0.0, "patience": 3}, 32, h) == "plateau: no new lowest "
            "validation loss in 3 evaluations in a row (12 steps), on 32 validation pairs; lowest at step 8, stopped at "
            "step 20")


def test_collapse_guard_caps_the_most_frequent_response():
    """Varied responses with one canned string for 30% of the prompts fail the declared cap (a quarter);
    the original's 20 of 390 is 5%, the committed tuned runs' most frequent at most 41 of 390 (10.5%)."""
    orig = [f"answer {i} is here and fine today" for i in range(20)]
    canned = ["I'm here to help you with whatever you need."] * 6 + [f"reply {i} is there and good now" for i in range(14)]
    frames = {("original", None): pd.DataFrame({"generation": orig}), ("tagged", 0): pd.DataFrame({"generation": canned})}
    t = TS.collapse_table(frames, {k: f"{k[0]} {k[1]}" for k in frames}).set_index("model")
    assert t.loc["tagged 0", "top response share"] == pytest.approx(0.3) and TS.COLLAPSE_MAX_TOP_SHARE == 0.25
    assert t.loc["tagged 0", "distinct vs original"] >= 0.5 and not t.loc["tagged 0", "passes collapse guard"]
    assert "the most frequent response at most 25% of the responses" in TS.COLLAPSE_RULE


def test_claims_moved_reads_the_interval_where_the_verdict_cannot_move():
    """A row that is "not comparable" on both bases still moves when its interval reads otherwise
    (above 0 on every response, holding 0 on the graded basis)."""
    from nlgbias import claims as CL

    def row(lo, hi):
        return CL.direction(id="x.sym", section="s", claim="c", paper="p", sign=1, estimate=(lo + hi) / 2,
                            interval=(lo, hi), n="n", statistic="s", comparability=CL.Comparability.DIFFERENT_METHOD,
                            stand_in="a stand-in")

    t = GS.claims_moved([row(-0.3, 0.2)], [row(0.5, 7.3)])
    r = t.iloc[0]
    assert r["verdict (degenerate removed, graded)"] == r["verdict (all responses)"] == "not comparable"
    assert (r["interval vs 0 (degenerate removed)"], r["interval vs 0 (all)"]) == ("holds 0", "above 0") and r["moves"]
    assert GS.moved_text(t).startswith("Graded without the degenerate responses; on every response (the "
                                       "sensitivity), 1 of 1 Gen Bias claims read otherwise: x.sym")


def test_committed_07_grades_gen_bias_without_degenerate_text():
    """The committed quick 07: Table 4 and the graded Gen Bias rows are on the responses without
    degenerate text (SmolLM2 996 of 1,040), every response beside as the sensitivity (C2 3.507 there,
    mostly Orthodox Jewish Hebrew runs; 0.524 graded); refusals and degenerate text removed together
    leave SmolLM2 an excess of +0.81 of +12.85 (541 responses) and Qwen +1.30; the sympathy row on C2
    and the larger-model difference (an excess difference, -8.15; raw -14.00) read their graded
    intervals; the example responses are of Table 4's largest cluster."""
    from nlgbias.paths import project_root

    res = project_root() / "results"
    t4 = pd.read_csv(res / "holistic_table4_gen_bias.csv").set_index("model")
    allr = pd.read_csv(res / "holistic_table4_gen_bias_all_responses.csv").set_index("model")
    c2 = [c for c in t4.columns if c.startswith("C2") and not c.endswith(("_lo", "_hi"))][0]
    assert round(t4.loc["smollm2-135m", "full_gen_bias"], 2) == 15.48 and round(t4.loc["smollm2-135m", c2], 3) == 0.524
    assert round(allr.loc["smollm2-135m", "full_gen_bias"], 2) == 20.70 and round(allr.loc["smollm2-135m", c2], 3) == 3.507
    rm = pd.read_csv(res / "holistic_gen_bias_by_removal.csv").set_index(["model", "basis"])
    s = rm.loc["smollm2-135m"]
    assert (s.loc["all responses", "responses"], s.loc["degenerate removed (graded)", "responses"],
            s.loc["both removed", "responses"]) == (1040, 996, 541)
    assert round(s.loc["all responses", "excess"], 2) == 12.85 and round(s.loc["both removed", "excess"], 2) == 0.81
    assert round(rm.loc[("qwen2.5-coder-0.5b", "both removed"), "excess"], 2) == 1.30
    assert (rm["n_perm"] == 1000).all()
    mv = pd.read_csv(res / "holistic_gen_bias_degenerate_sensitivity.csv").set_index("id")
    sym = mv.loc["holistic.table4.sympathy_largest_smollm2135m"]
    assert sym["interval (all)"] == "[-0.314, 7.33]" and sym["interval (degenerate removed)"] == "[-0.367, 0.126]"
    c = pd.read_csv(res / "holistic_claims_gen_bias.csv").set_index("id")
    assert c.loc["holistic.table4.sympathy_largest_smollm2135m", "this run"].startswith("-0.14 [-0.37, +0.13]")
    big = c.loc["holistic.table4.larger_model_more_bias"]
    assert big["this run"] == ("excess over the null, qwen2.5-coder-0.5b minus smollm2-135m: -8.15 [-10.15, -5.84] "
                               "(an excess difference; raw Full Gen Bias difference -14.00)")
    assert "draw-by-draw difference" in big["statistic"]
    # the Nonce medians in Figure 2's unit (median perplexity, as its table), not exp(median log perplexity)
    fig2 = pd.read_csv(res / "holistic_fig2_median_perplexity_by_axis.csv").set_index("axis")
    gem = c.loc["holistic.fig2.nonce_highest_gemma3270m", "this run"]
    assert f"nonce {fig2.loc['nonce', 'gemma3-270m']:.0f}" in gem and "highest median perplexities" in gem
    nat = c.loc["holistic.table3.nationality_fewest_smollm2135m", "reason"]
    assert "20 of 22 descriptors rest on 4 (at most 5) of up to 30 sentences (nouns)" in nat
    ex = (res / "holistic_table1_example_responses.md").read_text(encoding="utf-8")
    top = t4.loc["smollm2-135m", [k for k in t4.columns if k[:1] == "C" and not k.endswith(("_lo", "_hi"))]].astype(float)
    assert f"highest {top.idxmax()} cluster probability (the largest Partial Gen Bias of smollm2-135m in Table 4" in ex


def test_sample_binds_gives_the_sentences_per_descriptor_80_percent_power_needs():
    """A row all of whose descriptors are used, resting on 2 sentences per descriptor of up to 800:
    the interval's variance splits into the sentences' own noise (median: x pi/2) and the spread
    between descriptors; the sentences per descriptor 80% power needs (all descriptors) are given and
    checked against the population; a spread between descriptors wider than 80% power allows leaves no
    number reaching it; without a within-descriptor variance the row says it cannot say."""
    from dataclasses import replace

    from nlgbias import claims as CL
    from nlgbias.holistic.claims import _sample_binds

    def row(lo, hi):
        c = CL.direction(id="x.n", section="s", claim="c", paper="p", sign=1, estimate=1.0, interval=(lo, hi),
                         n="n", statistic="s")
        return replace(c, reason="r: more than the 8 that exist: this dataset cannot decide it")

    per = pd.Series([2] * 8)
    se = 0.5  # interval +/- 1.96 * 0.5
    c = row(1 - 1.96 * se, 1 + 1.96 * se)
    # within part (pi/2) * 0.9 / 16 = 0.088 of 0.25; between 0.162 > target (1 / 2.8016)^2 = 0.127: none reach
    out = _sample_binds(c, used=2, available=800, unit="sentences per descriptor", per=per, within_var=0.9,
                        factor=math.pi / 2)
    assert "no number of sentences per descriptor reaches 80% power" in out.reason
    assert "this dataset cannot decide it" in out.reason and math.isnan(out.n_needed)
    # a mostly within-descriptor variance: reachable
    w = 0.2 * 16 / (math.pi / 2)  # within part 0.2 of 0.25, between 0.05
    out = _sample_binds(c, used=2, available=800, unit="sentences per descriptor", per=per, within_var=w,
                        factor=math.pi / 2)
    target = (1 / (1.959964 + 0.8416)) ** 2
    need = math.ceil((math.pi / 2) * w / 8 / (target - 0.05))
    assert out.n_needed == need and need <= 800 and out.population == 800
    assert f"needs about {need:,} sentences per descriptor (reachable: 800 exist)" in out.reason
    assert "80% of the interval's variance" in out.reason
    out = _sample_binds(c, used=2, available=800, unit="sentences per descriptor", per=per,
                        why_not="the statistic itself changes with them")
    assert ("cannot say whether more sentences per descriptor would decide it (the statistic itself changes with "
            "them)") in out.reason and math.isnan(out.n_needed)


def test_weight_choice_guard_and_test_guard_read_one_declaration():
    """The weight-choice guard of the runs applies the test guard's thresholds (one declaration in
    tuning_runs, read by both through collapse_failures): the same responses fail both on the cap on
    the most frequent response and on the help-offer rise, and the collapse text no longer says the cap
    was left out."""
    from nlgbias.holistic import tuning_runs as TRN

    assert TS.COLLAPSE_MAX_TOP_SHARE is TRN.COLLAPSE_MAX_TOP_SHARE and TS.COLLAPSE_MAX_HELP_RISE is TRN.COLLAPSE_MAX_HELP_RISE
    assert "the most frequent response at most 25% of the responses" in TRN.GUARD_RULE
    orig = [f"answer {i} is here and fine today" for i in range(20)]
    canned = ["I'm here to help you with whatever you need."] * 6 + [f"reply {i} is there and good now" for i in range(14)]
    frames = {("original", None): pd.DataFrame({"generation": orig}), ("tagged", 0): pd.DataFrame({"generation": canned})}
    t = TS.collapse_table(frames, {k: f"{k[0]} {k[1]}" for k in frames})
    g = TS.guard_measures(canned, orig)
    assert t["fails"].iloc[1] == g["fails"] == "help offers +30.0 points; top response 30.0%"
    assert "did not apply" not in TS.collapse_text(t)


def test_committed_holistic_rows_say_whether_more_sentences_decide_them():
    """The committed rows whose sample, not the dataset, may bind give the n needed in that unit or say
    plainly that it cannot be said; the effects table gives each basis its own seed SDs; the larger-model
    row says the comparison flips with refusals and degenerate text removed."""
    from nlgbias.paths import project_root

    res = project_root() / "results"
    g = pd.read_csv(res / "holistic_claims_gen_bias.csv").set_index("id")
    t = pd.read_csv(res / "holistic_claims_tuning.csv").set_index("id")
    both = pd.concat([g, t])
    assert not both["reason"].str.contains("not computed").any()
    for i in ("holistic.fig2.nonce_highest_smollm2135m", "holistic.fig2.nonce_highest_gemma3270m"):
        r = both.loc[i, "reason"]
        assert "sentences per Nonce descriptor" in r and "of the interval's variance (within-descriptor SD" in r
        assert ("(reachable: " in r) or ("this dataset cannot decide it" in r)
    nat = both.loc["holistic.table3.nationality_fewest_smollm2135m", "reason"]
    assert "cannot say whether more sentences (nouns) per nationality descriptor would decide it" in nat
    assert "cannot say whether more responses per descriptor would decide it" in both.loc[
        "holistic.tuning.lowers_full_gen_bias", "reason"]
    # the Nonce rows at 16 sentences per Nonce descriptor (07 tops them up): SmolLM2's estimate shrank
    # (+0.52) and it now needs 133, Gemma's spread between descriptors binds
    for i in ("holistic.fig2.nonce_highest_smollm2135m", "holistic.fig2.nonce_highest_gemma3270m"):
        assert "each of 8 descriptors rests on 16 of up to 797 sentences per Nonce descriptor" in both.loc[i, "reason"]
    assert both.loc["holistic.fig2.nonce_highest_smollm2135m", "n_needed"] == 133
    assert "no number of sentences per Nonce descriptor" in both.loc["holistic.fig2.nonce_highest_gemma3270m", "reason"]
    need = pd.to_numeric(both["n_needed"], errors="coerce")
    assert (need.isna() | (need <= pd.to_numeric(both["population"], errors="coerce"))).all()
    big = g.loc["holistic.table4.larger_model_more_bias", "reason"]
    assert ("on the responses without refusals and degenerate text (both removed) the excess comparison flips "
            "(the paper's direction): qwen2.5-coder-0.5b +1.30 vs smollm2-135m +0.81") in big
    eff = pd.read_csv(res / "holistic_tuning_effects.csv")
    sds = eff.groupby("basis")["seed sd (tagged, untagged)"].agg(lambda s: set(s))
    assert len(sds) == 3 and len({frozenset(v) for v in sds}) == 3
    sym = g.loc["holistic.table4.sympathy_largest_smollm2135m", "statistic"]
    assert sym.startswith("Partial Gen Bias of C2") and "(where 1 of the paper's 2 sympathy examples land)" in sym


def test_nonce_descriptors_are_topped_up_and_heldout_text_counts_the_confirmed_clusters():
    """The Figure 2 sample's Nonce descriptors get up to the stated sentences each (those sampled kept,
    other axes untouched); the held-out cluster text says how many clusters the other half confirms
    and that Table 4's per-cluster p-values are post-selection (the committed quick run: 1 of 6 per model)."""
    from nlgbias.holistic import likelihood_study as LS

    sent = pd.DataFrame({"axis": ["nonce"] * 10 + ["age"] * 4, "descriptor": ["a"] * 5 + ["b"] * 5 + ["x"] * 4,
                         "prompt_id": [f"p{i}" for i in range(14)], "template": "t"})
    fig2 = sent.iloc[[0, 5, 10]]
    out = LS.add_nonce_sentences(fig2, sent, 3, seed=0)
    assert out.groupby("descriptor").size().to_dict() == {"a": 3, "b": 3, "x": 1}
    assert {"p0", "p5", "p10"} <= set(out["prompt_id"]) and LS.add_nonce_sentences(fig2, sent, 0) is fig2
    t = pd.DataFrame({"model": "m", "cluster (selected on half 1)": [f"H{i}" for i in range(1, 7)],
                      "test responses": 222, "p_adjusted": [0.006, 0.4, 1.0, 0.06, 1.0, 0.9]})
    txt = GS.heldout_cluster_text(t)
    assert "the held-out halves confirm 1 of 6 clusters for m (H1 p_adj 0.006; 5 unconfirmed; 222 test responses)" in txt
    assert "Table 4's per-cluster p-values (below) are post-selection, not these clusters' test" in txt
