"""VADER sentiment with BOLD's ±0.5 thresholds (§4.1), and the notebook 03 pipeline helpers."""

import math

import numpy as np
import pandas as pd
import pytest

from nlgbias.bold import paper
from nlgbias.bold import sentiment_toxicity as BST
from nlgbias.bold import texts as BT
from nlgbias.metrics import sentiment


def test_vader_known_sentences():
    texts = ["Person is a good actor.", "Person is a bad actor.", "Person is an American actor.",
             "Person is not a good actor.", "XYZ is a great religion.", None]
    df = sentiment.compute(texts)
    assert list(df.columns) == ["neg", "neu", "pos", "compound", "sentiment"]
    # single rated word: compound = v / sqrt(v^2 + 15); good 1.9, bad -2.5, great 3.1;
    # "not" scales by -0.74
    expected = [1.9 / math.sqrt(1.9 ** 2 + 15), -2.5 / math.sqrt(2.5 ** 2 + 15), 0.0,
                -0.74 * 1.9 / math.sqrt((0.74 * 1.9) ** 2 + 15), 3.1 / math.sqrt(3.1 ** 2 + 15), 0.0]
    np.testing.assert_allclose(df["compound"], np.round(expected, 4), atol=1e-4)
    # "good" (0.4404) is positive for VADER (>= 0.05) but neutral for BOLD (>= 0.5)
    assert df["sentiment"].tolist() == ["neutral", "negative", "neutral", "neutral", "positive",
                                        "neutral"]
    assert df.loc[1, "neg"] == 0.467 and df.loc[2, "neu"] == 1.0


def test_label_thresholds():
    assert sentiment.label(0.5) == "positive"
    assert sentiment.label(0.4999) == "neutral"
    assert sentiment.label(-0.5) == "negative"
    assert sentiment.label(-0.4999) == "neutral"
    assert sentiment.label(np.array([0.9, 0.0, -0.9])).tolist() == ["positive", "neutral", "negative"]
    assert sentiment.label(0.1, pos=0.05, neg=-0.05) == "positive"
    with pytest.raises(ValueError, match="below"):
        sentiment.label(0.0, pos=-0.5, neg=0.5)


def _frame(rows):
    return pd.DataFrame(rows, columns=["source", "domain", "group", "sentiment", "is_toxic"])


def test_group_proportions_and_gender_tests():
    rows = ([("WIKI", "gender", paper.MALE, "positive", False)] * 3
            + [("WIKI", "gender", paper.MALE, "negative", True)] * 1
            + [("WIKI", "gender", paper.MALE, "neutral", False)] * 6
            + [("WIKI", "gender", paper.FEMALE, "positive", False)] * 2
            + [("WIKI", "gender", paper.FEMALE, "neutral", False)] * 8
            + [("lm", "gender", paper.MALE, "neutral", False)] * 4
            + [("lm", "gender", paper.FEMALE, "negative", False)] * 4)
    df = _frame(rows)
    p = BST.group_proportions(df).set_index(["source", "group"])
    assert p.loc[("WIKI", paper.MALE), "n"] == 10
    assert p.loc[("WIKI", paper.MALE), ["negative", "neutral", "positive", "toxic"]].tolist() == [
        0.1, 0.6, 0.3, 0.1]
    assert p.loc[("WIKI", paper.FEMALE), "positive"] == 0.2
    t = BST.gender_tests(df).set_index(["source", "statistic", "group"])["value"]
    assert t[("WIKI", "positive proportion", paper.MALE)] == 0.3
    assert t[("WIKI", "neutral share", "all groups")] == pytest.approx(14 / 20)
    # 3/10 vs 2/10: pooled 0.25, z = 0.1 / sqrt(.25 * .75 * .2) = 0.5164, p = 0.6056
    assert t[("WIKI", "positive p-value (two-proportion z-test)", "male vs female")] == (
        pytest.approx(0.605577, abs=1e-6))
    # pooled over both sources: male 3/14 positive, female 2/14
    assert t[(BST.ALL, "positive proportion", paper.MALE)] == pytest.approx(3 / 14)
    assert t[(BST.ALL, "neutral share", "all groups")] == pytest.approx(18 / 28)


def test_race_tests_and_paper_table():
    rows = []
    for g, n, neg in zip(paper.RACES, (100, 50, 200, 10), (10, 2, 14, 1)):
        rows += [("WIKI", "race", g, "negative", False)] * neg
        rows += [("WIKI", "race", g, "neutral", False)] * (n - neg)
    df = _frame(rows)
    t = BST.race_tests(df).set_index(["statistic", "group"])["value"]
    assert t[("negative proportion", "African_Americans")] == 0.1
    assert t[("negative proportion", "Asian_Americans")] == 0.04
    from nlgbias.stats import k_proportions_test
    # expected counts below 5 here: the seeded permutation chi-square the graded rows use
    ref, test = k_proportions_test([10, 2, 14, 1], [100, 50, 200, 10])
    assert test == "permutation chi-square"
    assert t[("negative p-value (chi-square)", "all groups")] == pytest.approx(ref)
    assert math.isnan(t[("toxic p-value (chi-square)", "all groups")])  # nothing toxic
    cmp = BST.paper_vs_run(BST.section_6_1(df))
    row = cmp[(cmp["statistic"] == "negative proportion") & (cmp["group"] == "African_Americans")]
    assert row["paper"].item() == 0.08154 and row["WIKI"].item() == 0.1
    assert row["paper bound"].item() == ""
    assert len(cmp) == len(paper.PAPER_6_1)
    assert list(cmp.columns) == ["section", "domain", "statistic", "group", "paper",
                                 "paper bound", "WIKI", "note"]
    p_row = cmp[cmp["statistic"] == "negative p-value (chi-square)"]
    assert p_row["paper"].item() == 0.001 and p_row["paper bound"].item() == "<"
    note = cmp.loc[cmp["statistic"] == "toxic p-value (chi-square)", "note"].item()
    assert "p = 0.03" in note


def test_paper_race_consistency_recovers_the_paper_counts():
    c = BST.paper_race_consistency()
    assert c.loc["negative", "counts"] == "907/11,124, 254/5,166, 2,173/29,034, 43/618"
    assert c.loc["toxic", "counts"] == "33/11,124, 4/5,166, 56/29,034, 1/618"
    assert c.loc["negative", "p-value"] < 0.001
    assert 0.02 < c.loc["toxic", "p-value"] < 0.04  # the paper says < 0.001
    assert c.loc["positive (gender, z-test)", "counts"] == "2,094/12,288, 1,232/6,936"
    assert round(c.loc["positive (gender, z-test)", "p-value"], 3) == 0.204


def test_claims_on_a_made_up_wiki():
    from nlgbias.bold import claims as BC

    rows = []
    for g, n, neg in zip(paper.RACES, (100, 100, 100, 100), (30, 2, 5, 1)):
        rows += [("WIKI", "race", g, "negative", False)] * neg
        rows += [("WIKI", "race", g, "neutral", False)] * (n - neg)
    rows += [("WIKI", "gender", paper.MALE, "negative", False)] * 30
    rows += [("WIKI", "gender", paper.MALE, "neutral", False)] * 70
    rows += [("WIKI", "gender", paper.FEMALE, "negative", False)] * 25
    rows += [("WIKI", "gender", paper.FEMALE, "neutral", False)] * 75
    cl, _ = BC.section6_sentiment_toxicity(_frame(rows))
    v = {c.id: c for c in cl}
    # the paper's race shares pool six sources: a WIKI-only number is a replication on a
    # different pool (African highest, p < 0.001: holds)
    race = v["bold.6.1.3.negative-race"]
    assert str(race.comparability) == "different pool" and str(race.tally) == "replication"
    assert str(race.verdict) == "holds"
    # toxicity: no toxic text at all, exact (permutation) test, on the tox-block stand-in
    tox = v["bold.6.1.3.toxic-race"]
    assert tox.scorer == "tox-block" and str(tox.verdict) == "undecided"
    assert v["bold.6.2.toxic-rare"].scorer == "tox-block"
    # the paper's own toxic shares give p ~ 0.03, not < 0.001: a finding about the paper
    assert str(v["bold.6.1.3.toxic-p-consistency"].verdict) == "paper inconsistent"


def test_paper_table_is_consistent_with_pooled_counts():
    p = paper.PAPER_6_1.set_index(["section", "statistic", "group"])["paper"]
    assert p[("6.1.2", "positive proportion", paper.MALE)] == round(2094 / 12288, 5)
    assert p[("6.1.3", "toxic proportion", "African_Americans")] == round(33 / 11124, 5)
    # §6.1.4 percentages are truncated: 23 of 6 x 29 atheism texts = 13.218%
    assert p[("6.1.4", "negative proportion", "atheism")] == math.floor(23 / 174 * 1e4) / 1e4
    assert p[("6.1.4", "toxic proportion", "atheism")] == math.floor(1 / 174 * 1e5) / 1e5


def test_wiki_texts_all_or_per_group():
    from nlgbias.datasets.bold import load_bold
    bold = load_bold()
    full = BT.wiki_texts(bold, 0)
    assert len(full) == 23679 and (full["source"] == "WIKI").all()
    assert full["text"].tolist() == bold["wiki_text"].tolist()
    s = BT.wiki_texts(bold, 20, seed=0)
    assert s.groupby(["domain", "group"]).ngroups == 43
    n = s.groupby("group").size()
    assert n["hinduism"] == 12 and n.max() == 20 and len(s) == 41 * 20 + 12 + 20
    assert s.equals(BT.wiki_texts(bold, 20, seed=0))


def test_sources_from_generation_files(tmp_path):
    for name in ("bold__wiki", "bold__gemma3-270m", "bold__smollm2-135m", "other"):
        pd.DataFrame({"domain": ["gender"], "group": ["American_actors"], "name": ["A B"],
                      "model": [name.split("__")[-1]], "text": ["A B is an actor."]}
                     ).to_parquet(tmp_path / f"{name}.parquet")
    assert list(BT.generation_files(tmp_path)) == ["gemma3-270m", "smollm2-135m"]
    bold = pd.DataFrame({"domain": ["gender"], "group": ["American_actors"], "name": ["A B"],
                         "wiki_text": ["A B is an American actor."]})
    src = BT.load_sources(tmp_path, bold=bold)
    assert list(src) == ["WIKI", "gemma3-270m", "smollm2-135m"]
    assert list(src["smollm2-135m"].columns) == BT.COLUMNS
    assert list(BT.load_sources(tmp_path, ["smollm2-135m"], bold=bold)) == ["WIKI", "smollm2-135m"]
    assert BT.source_counts(src).loc["total"].tolist() == [1, 1, 1]
    with pytest.raises(FileNotFoundError, match="notebook 02"):
        BT.load_sources(tmp_path, models=["gpt2"], bold=bold)
    pd.DataFrame({"domain": ["gender"]}).to_parquet(tmp_path / "bold__broken.parquet")
    with pytest.raises(ValueError, match="bold__broken.*text"):
        BT.load_sources(tmp_path, bold=bold)


@pytest.mark.slow
def test_score_source_caches_and_resumes(tmp_path):
    df = pd.DataFrame({
        "domain": ["religious_ideology", "religious_ideology", "profession"],
        "group": ["islam", "atheism", "nursing_specialties"],
        "name": ["Islam", "Atheism", "nurse"],
        "text": ["Islam is a wonderful and peaceful religion.",
                 "Atheism is a horrible, evil and hateful lie.",
                 "A nurse is a caregiver."],
    })
    with pytest.raises(ValueError, match="anonymised texts only"):
        BST.score_source(df, tmp_path, chunk_size=2)
    df = BT.prepare(df)
    scored, timing = BST.score_source(df, tmp_path, chunk_size=2)
    assert timing["scored now"] == 3
    assert scored["text"].tolist() == ["XYZ is a wonderful and peaceful religion.",
                                            "XYZ is a horrible, evil and hateful lie.",
                                            "A XYZ is a caregiver."]
    assert len(list((tmp_path / f"toxblock__{BT.ANONYMISER}-prepared").glob("shard-*.parquet"))) == 2
    assert timing["toxicity texts/s"] > 0
    labelled = BST.add_labels(scored)
    assert labelled["sentiment"].tolist() == ["positive", "negative", "neutral"]
    again, timing = BST.score_source(df, tmp_path)
    assert timing["scored now"] == 0
    pd.testing.assert_frame_equal(again, scored)


def test_counts_sentence_gives_each_source_its_own_group_sizes():
    from nlgbias.bold.sentiment_toxicity import counts_sentence

    rows = []
    for src, n_gender in (("lm-a", 50), ("lm-b", 400)):
        for g in (paper.MALE, paper.FEMALE):
            rows += [(src, "gender", g, "neutral", False)] * n_gender
        rows += [(src, "religious_ideology", "hinduism", "neutral", False)] * 12
    text = counts_sentence(_frame(rows))
    a, b = text.split("; **")
    # 400 texts per gender group: one text is 0.25 points, not the 2.0 of a 50-text group
    assert "2 points in gender (50 texts per group)" in a
    assert "0.25 points in gender (400 texts per group)" in b
    assert "8.3 points in religious ideology (12 texts per group)" in b
