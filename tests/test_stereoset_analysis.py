"""StereoSet dataset analysis (Nadeem et al. 2021, §4-5) and the notebook's tables: Table 1
statistics and Kilgarriff's simple-maths keyness on hand-made corpora, the method-matched
comparator and the replication summary on hand-made results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlgbias.stereoset import analysis as A
from nlgbias.stereoset import report as R


def _cats():
    rows = [
        # task, target, domain, context, stereotype, anti, unrelated
        ("intrasentence", "mother", "gender", "The mother is BLANK.", "The mother is caring.",
         "The mother is cold.", "The mother is banana."),
        ("intrasentence", "mother", "gender", "My mother was BLANK at home.",
         "My mother was cooking at home.", "My mother was working at home.",
         "My mother was banana at home."),
        ("intrasentence", "Ethiopia", "race", "Ethiopia is BLANK.", "Ethiopia is poor.",
         "Ethiopia is rich.", "Ethiopia is cat."),
        ("intersentence", "mother", "gender", "The mother came home.",
         "She was cooking dinner.", "She was fixing the old engine.", "Cats have claws."),
    ]
    out = []
    for i, (task, target, dom, ctx, s, a, u) in enumerate(rows):
        out.append({"task": task, "id": f"c{i}", "target": target, "bias_type": dom,
                    "context": ctx, "stereotype": s, "stereotype_id": f"c{i}s",
                    "anti_stereotype": a, "anti_stereotype_id": f"c{i}a", "unrelated": u,
                    "unrelated_id": f"c{i}u"})
    return pd.DataFrame(out)


def test_dataset_statistics_hand_counted():
    stats = A.dataset_statistics(_cats()).set_index(["task", "domain"])
    # intrasentence gender: 2 CATs, 1 target; lengths (4+4+4)/3 = 4 and (6+6+6)/3 = 6 -> 5
    assert stats.loc[("intrasentence", "gender"), ["targets", "CATs"]].tolist() == [1, 2]
    assert stats.loc[("intrasentence", "gender"), "avg words"] == pytest.approx(5.0)
    assert stats.loc[("intrasentence", "race"), "avg words"] == pytest.approx(3.0)
    assert stats.loc[("intrasentence", "total"), "CATs"] == 3
    assert stats.loc[("intrasentence", "total"), "targets"] == 2
    # intersentence: context (4 words) + sentences of 4, 6, 3 words -> 4 + 13/3
    assert stats.loc[("intersentence", "gender"), "avg words"] == pytest.approx(4 + 13 / 3)
    assert stats.loc[("intersentence", "religion"), "CATs"] == 0
    assert stats.loc[("overall", "total"), ["targets", "CATs"]].tolist() == [2, 4]


def test_simple_maths_hand_computed():
    """Kilgarriff 2009: (fpm_focus + n) / (fpm_ref + n)."""
    focus = {"nerdy": 2, "the": 6, "pushy": 2}  # 10 words: fpm 200,000 / 600,000 / 200,000
    ref = {"nerdy": 1.0, "the": 50000.0}  # pushy unlisted -> 0
    km = A.simple_maths(focus, ref, n=1).set_index("word")
    assert km.loc["nerdy", "score"] == pytest.approx(200001 / 2)
    assert km.loc["pushy", "score"] == pytest.approx(200001 / 1)
    assert km.loc["the", "score"] == pytest.approx(600001 / 50001)
    assert list(km.index) == ["pushy", "nerdy", "the"]
    km100 = A.simple_maths(focus, ref, n=1e6).set_index("word")  # large n favours common words
    assert km100["score"].idxmax() == "the"
    with pytest.raises(ValueError, match="> 0"):
        A.simple_maths(focus, ref, n=0)
    with pytest.raises(ValueError, match="empty"):
        A.simple_maths({}, ref)


def test_domain_keywords_remove_targets_and_group_stems():
    cats = _cats()
    ref = {"the": 5e4, "mother": 100.0, "was": 1e4, "at": 1e4, "home": 500.0, "is": 1e4,
           "cooking": 50.0, "she": 3e3, "dinner": 80.0}
    kw = A.domain_keywords(cats, min_count=1, top=50, reference=lambda ws: ref)
    g = kw[kw["domain"] == "gender"]
    assert "mother" not in set(g["keyword"])  # the target term is removed
    cook = g[g["keyword"] == "cooking"].iloc[0]
    assert cook["count"] == 2  # "cooking" twice (stem "cook")
    assert set(kw["domain"]) == {"gender", "race"}
    assert "ethiopia" not in set(kw["keyword"])
    ov = A.keyword_overlap(kw, {"gender": ["cook", "uncare"]})
    assert ov.loc[0, "shared"] == "cook" and ov.loc[0, "n shared"] == 1


def test_words_tokenizer():
    assert A.words("Paula's BLANK son didn't cry.") == ["paula", "blank", "son", "didn't", "cry"]


def test_sentimentlm_ties_counts():
    cats = _cats()
    comp = {f"c{i}{k}": 0.0 for i in range(4) for k in "sau"}
    comp.update({"c0s": -0.5, "c1a": 0.3})
    t = A.sentimentlm_ties(cats, comp).set_index("task")
    # intrasentence: 6 (meaningful, unrelated) pairs; untied: c0s (-0.5 < 0) and c1a (0.3 > 0)
    assert t.loc["intrasentence", "pairs"] == 6
    assert t.loc["intrasentence", "% tied"] == pytest.approx(100 * 4 / 6)
    assert t.loc["intrasentence", "% meaningful more negative (untied pairs)"] == pytest.approx(50)
    assert t.loc["intersentence", "% tied"] == 100


def _res(lms, ss):
    block = {"Count": 3, "LM Score": lms, "SS Score": ss, "ICAT Score": lms * min(ss, 100 - ss) / 50}
    return {"intrasentence": {"overall": block}, "intersentence": {"overall": block},
            "overall": block}


def test_method_matched_comparator_and_summary():
    results = {"dev": {"RandomLM": _res(50.5, 50.2), "mylm": _res(70.0, 55.0)}}
    methods = {"mylm": {"intrasentence": "likelihood: x", "intersentence": "likelihood: y"},
               "RandomLM": {"intrasentence": "baseline", "intersentence": "baseline"}}
    t7 = R.domain_table(results["dev"], "dev", {"mylm": "GPT2"}, methods)
    inter = t7[(t7["model"] == "mylm") & (t7["task"] == "intersentence")].iloc[0]
    assert inter["paper lms, same scoring"] == 61.5  # footnote 3
    assert inter["paper lms"] == 76.26  # the paper's NSP-head number, labelled as such
    assert inter["paper scoring"].startswith("NSP head")
    intra = t7[(t7["model"] == "mylm") & (t7["task"] == "intrasentence")].iloc[0]
    assert intra["paper lms, same scoring"] == 91.11
    t4 = R.table4(results, {"mylm": "GPT2"}, methods)
    assert t4.set_index("model").loc["mylm", "paper lms"] == 83.7
    t6 = R.task_table(t7)
    assert set(t6["task"]) == {"intrasentence", "intersentence"}


def test_claims_table1_counts_are_checks_and_paper_rows_are_claims():
    """The paper's Table 1 domain rows do not add up to its own task totals: paper inconsistent,
    with the sums shown; the CAT total and lengths of the released data are data-count checks."""
    from nlgbias.stereoset import claims as SC

    rows = [("intrasentence", d, c) for d, c in (("gender", 1026), ("profession", 3208),
                                                  ("race", 3938), ("religion", 326))]
    stats = pd.DataFrame(
        [(t, d, 1, c, 8.0) for t, d, c in rows]
        + [("intrasentence", "total", 321, 8498, 7.94), ("overall", "total", 321, 16995, 11.7)],
        columns=["task", "domain", "targets", "CATs", "avg words"])
    cl, ck = SC.table1_claims(R.table1(stats))
    checks = {k.id: k for k in ck}
    assert checks["stereoset.t1.total_cats"].kind == "data count" and checks["stereoset.t1.total_cats"].passed
    assert checks["stereoset.t1.avg_words_intra"].passed  # 7.94 vs 8.02, within 0.2
    assert [c.id for c in cl] == ["stereoset.t1.rows_vs_total_intra"]
    inc = cl[0]
    assert str(inc.verdict) == "paper inconsistent" and str(inc.tally) == "reproduction"
    assert "sum to 8,853" in inc.reason and "8,498" in inc.reason


def test_claims_sentimentlm_rows_calibrate_vader_and_baselines_are_checks():
    """SentimentLM's ss is the paper's sentiment classifier's output on every CAT of the split:
    VADER's is its calibration row, a recount of the same CATs graded by the 5-point margin on
    the value itself (59.1 against the paper's 60.8 agrees; 54.0 is 6.8 points away and
    disagrees, whatever its interval); IdealLM / StereotypedLM / RandomLM are checks."""
    from nlgbias.stereoset import claims as SC

    row = {"split": "test", "CATs": 968, "paper model": "SentimentLM", "paper lms": 65.1,
           "paper ss": 60.8, "paper icat": 51.1}
    t4 = pd.DataFrame([
        {**row, "model": "SentimentLM", "lms": 50.1, "ss": 59.1, "icat": 41.0, "lms_lo": 47.0,
         "lms_hi": 53.0, "ss_lo": 54.0, "ss_hi": 64.0, "icat_lo": 35.0, "icat_hi": 47.0},
        {**row, "model": "IdealLM", "lms": 100.0, "ss": 50.0, "icat": 100.0, "lms_lo": 100.0,
         "lms_hi": 100.0, "ss_lo": 46.0, "ss_hi": 54.0, "icat_lo": 92.0, "icat_hi": 100.0}])
    cl, ck = SC.table4_claims(t4, {}, {})
    by = {c.id: c for c in cl}
    ss, lms = by["stereoset.t4.sentimentlm_ss_test"], by["stereoset.t4.sentimentlm_lms_test"]
    assert (str(ss.tally), str(ss.verdict), ss.scorer) == ("calibration", "agrees", SC.VADER)
    assert ss.rule == "calibration recount" and pd.isna(ss.n_needed)  # no n needed
    assert "a recount of the texts the paper's scorer scored" in ss.reason
    assert "|59.1 - 60.8| = 1.7 <= the stated margin 5" in ss.reason
    assert str(lms.verdict) == "disagrees" and "> the stated margin 5 (below)" in lms.reason
    far = t4.assign(ss=[54.0, 50.0])
    ss2 = {c.id: c for c in SC.table4_claims(far, {}, {})[0]}["stereoset.t4.sentimentlm_ss_test"]
    assert str(ss2.verdict) == "disagrees"
    assert [k.id for k in ck] == ["stereoset.t4.ideallm_test"] and ck[0].passed


def test_bootstrap_intervals_two_stage():
    """Seeded, degenerate where the data are (StereotypedLM: ss 100), and holding the true 50 of
    a random ranking on the dev set; a sample with one CAT per target still gets a width."""
    from nlgbias.stereoset import baseline_scores, evaluate, load_gold, stratified_subset
    from nlgbias.stereoset.evaluation import bootstrap_intervals, interval_frame

    dev = load_gold()
    st = bootstrap_intervals(dev, baseline_scores("StereotypedLM", dev))
    assert st["ss"] == (100.0, 100.0) and st["icat"] == (0.0, 0.0)
    rnd = baseline_scores("RandomLM", dev, seed=3)
    ci = bootstrap_intervals(dev, rnd, seed=1)
    assert ci == bootstrap_intervals(dev, rnd, seed=1)
    for k in ("lms", "ss"):
        assert ci[k][0] < 50 < ci[k][1] and ci[k][1] - ci[k][0] < 8
    point = evaluate(dev, rnd)["overall"]
    assert ci["ss"][0] < point["SS Score"] < ci["ss"][1]
    one = stratified_subset(dev, per_target=1, seed=0)
    f = interval_frame(one, {k: rnd[k] for k in rnd if k in set(
        one[["stereotype_id", "anti_stereotype_id", "unrelated_id"]].to_numpy().ravel())}, "r")
    assert (f["ss_hi"] - f["ss_lo"] > 5).all()
    with pytest.raises(ValueError, match="no score"):
        bootstrap_intervals(dev, {})


def test_bootstrap_group_means_two_stage_against_a_loop():
    """nlgbias.stats.bootstrap_group_means: the mean of group means over groups drawn with
    replacement, members drawn within each group (a plain loop with the same draws), and with
    one member per group the plain bootstrap of the means."""
    from nlgbias.stats import bootstrap_group_means, bootstrap_means

    x = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    g = np.array(["a", "a", "b", "b", "b", "c", "c"])
    got = bootstrap_group_means(x, g, n_boot=50, seed=4)
    rng = np.random.default_rng(4)
    members = [np.flatnonzero(g == k) for k in ("a", "b", "c")]
    pick = rng.integers(0, 3, size=(50, 3))
    inner = np.empty((3, 50))
    for k, m in enumerate(members):
        draws = m[rng.integers(0, len(m), size=(50, len(m)))]
        inner[k] = x[draws].mean(axis=1)
    expected = np.array([inner[pick[b], b].mean() for b in range(50)])
    assert np.allclose(got, expected)
    y = np.array([0.2, 0.9, 0.4, 0.7])
    assert np.allclose(bootstrap_group_means(y, [1, 2, 3, 4], seed=2), bootstrap_means(y, seed=2))


def test_table5_ranking_rule():
    """Most stereotyped = highest Wilson lower bound of ss (not the highest point ss on few CATs);
    most anti-stereotyped = lowest upper bound; least = ss closest to 50; small targets left out."""
    t = pd.DataFrame({"bias_type": ["race"] * 4, "target": ["few", "many", "anti", "even"],
                      "total": [4, 60, 40, 40], "lms": [80.0] * 4,
                      "ss": [100.0, 75.0, 25.0, 50.0], "icat": [0.0, 40.0, 40.0, 80.0]})
    out = R.target_extremes({"m": t}, min_cats=20).set_index("which")
    assert out.loc["most stereotyped", "target"] == "many"
    assert out.loc["most anti-stereotyped", "target"] == "anti"
    assert out.loc["least stereotyped", "target"] == "even"
    assert bool(out.loc["most stereotyped", "interval excludes 50"])
    assert not bool(out.loc["least stereotyped", "interval excludes 50"])
    assert (out["targets ranked"] == 3).all()
    lo = out.loc["most stereotyped", "ss_lo"]
    assert 55 < lo < 65  # Wilson lower bound of 45 / 60
    # a domain whose targets all sit at 50: no most / most anti-stereotyped target is named
    flat = t.assign(ss=50.0, total=40)
    f = R.target_extremes({"m": flat}, min_cats=20).set_index("which")
    assert f.loc["most stereotyped", "target"] == "(none)"
    assert f.loc["least stereotyped", "target"] != "(none)"


def test_likely_typo():
    from nlgbias.stereoset.analysis import likely_typo

    assert likely_typo("poeple") and likely_typo("gentlement")
    assert not likely_typo("breadwinner") and not likely_typo("stepchildren")
