"""StereoSet dataset analysis (Nadeem et al. 2021, §4-5) and the notebook's tables: Table 1
statistics and Kilgarriff's simple-maths keyness on hand-made corpora, the method-matched
comparator and the replication summary on hand-made results."""

from __future__ import annotations

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
    t1 = R.table1(pd.DataFrame({"task": ["overall"], "domain": ["total"], "targets": [321],
                                "CATs": [16995], "avg words": [11.7]}))
    t2 = pd.DataFrame({"classifier": ["V"] * 2, "label": ["stereotype", "anti-stereotype"],
                       "% negative": [30.0, 20.0]})
    ov = pd.DataFrame({"domain": ["gender"], "n shared": [8], "of": [16]})
    s = R.replication_summary(t1, t2, ov, t4, t6).set_index("claim")
    assert s.loc["StereoSet has 16,995 CATs (dev + test)", "verdict"] == "reproduced"
    assert s.loc["stereotypes are more often negative than anti-stereotypes", "verdict"] == "reproduced"
    assert s.loc["keywords of the gender domain", "verdict"] == "reproduced"
    assert s.loc["RandomLM lms / ss / icat (dev)", "verdict"] == "reproduced"  # within noise
    assert s.loc["mylm lms / ss / icat (dev)", "verdict"] == "not comparable"
    row = s.loc["intersentence lms by likelihood (mylm, dev)"]
    assert row["paper"] == 61.5 and "+8.5" in row["note"]
    md = R.summary_markdown(s.reset_index())
    assert md.startswith("**What replicates, what does not**")


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
