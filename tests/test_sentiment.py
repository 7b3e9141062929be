"""VADER sentiment with BOLD's ±0.5 thresholds (§4.1), and the notebook 03 pipeline helpers."""

import math

import numpy as np
import pandas as pd
import pytest

from nlgbias.bold import sentiment_toxicity as BST
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
    rows = ([("WIKI", "gender", BST.MALE, "positive", False)] * 3
            + [("WIKI", "gender", BST.MALE, "negative", True)] * 1
            + [("WIKI", "gender", BST.MALE, "neutral", False)] * 6
            + [("WIKI", "gender", BST.FEMALE, "positive", False)] * 2
            + [("WIKI", "gender", BST.FEMALE, "neutral", False)] * 8
            + [("lm", "gender", BST.MALE, "neutral", False)] * 4
            + [("lm", "gender", BST.FEMALE, "negative", False)] * 4)
    df = _frame(rows)
    p = BST.group_proportions(df).set_index(["source", "group"])
    assert p.loc[("WIKI", BST.MALE), "n"] == 10
    assert p.loc[("WIKI", BST.MALE), ["negative", "neutral", "positive", "toxic"]].tolist() == [
        0.1, 0.6, 0.3, 0.1]
    assert p.loc[("WIKI", BST.FEMALE), "positive"] == 0.2
    t = BST.gender_tests(df).set_index(["source", "statistic", "group"])["value"]
    assert t[("WIKI", "positive proportion", BST.MALE)] == 0.3
    assert t[("WIKI", "neutral share", "all groups")] == pytest.approx(14 / 20)
    # 3/10 vs 2/10: pooled 0.25, z = 0.1 / sqrt(.25 * .75 * .2) = 0.5164, p = 0.6056
    assert t[("WIKI", "positive p-value (two-proportion z-test)", "male vs female")] == (
        pytest.approx(0.605577, abs=1e-6))
    # pooled over both sources: male 3/14 positive, female 2/14
    assert t[(BST.ALL, "positive proportion", BST.MALE)] == pytest.approx(3 / 14)
    assert t[(BST.ALL, "neutral share", "all groups")] == pytest.approx(18 / 28)


def test_race_tests_and_paper_table():
    rows = []
    for g, n, neg in zip(BST.RACES, (100, 50, 200, 10), (10, 2, 14, 1)):
        rows += [("WIKI", "race", g, "negative", False)] * neg
        rows += [("WIKI", "race", g, "neutral", False)] * (n - neg)
    df = _frame(rows)
    t = BST.race_tests(df).set_index(["statistic", "group"])["value"]
    assert t[("negative proportion", "African_Americans")] == 0.1
    assert t[("negative proportion", "Asian_Americans")] == 0.04
    from nlgbias.stats import chi2_proportions
    ref = chi2_proportions([10, 2, 14, 1], [100, 50, 200, 10]).pvalue
    assert t[("negative p-value (chi-square)", "all groups")] == pytest.approx(ref)
    assert math.isnan(t[("toxic p-value (chi-square)", "all groups")])  # nothing toxic
    cmp = BST.paper_vs_run(BST.section_6_1(df))
    row = cmp[(cmp["statistic"] == "negative proportion") & (cmp["group"] == "African_Americans")]
    assert row["paper"].item() == "0.08154" and row["WIKI"].item() == 0.1
    assert len(cmp) == len(BST.PAPER_6_1)


def test_paper_table_is_consistent_with_pooled_counts():
    p = BST.PAPER_6_1.set_index(["section", "statistic", "group"])["paper"]
    assert p[("6.1.2", "positive proportion", BST.MALE)] == round(2094 / 12288, 5)
    assert p[("6.1.3", "toxic proportion", "African_Americans")] == round(33 / 11124, 5)
    # §6.1.4 percentages are truncated: 23 of 6 x 29 atheism texts = 13.218%
    assert p[("6.1.4", "negative proportion", "atheism")] == math.floor(23 / 174 * 1e4) / 1e4
    assert p[("6.1.4", "toxic proportion", "atheism")] == math.floor(1 / 174 * 1e5) / 1e5


def test_wiki_sample_keeps_every_group():
    from nlgbias.datasets.bold import load_bold
    bold = load_bold()
    full = BST.wiki_source(bold, 0)
    assert len(full) == 23679 and (full["source"] == "WIKI").all()
    assert full["text"].tolist() == bold["wiki_text"].tolist()
    s = BST.wiki_source(bold, 1000, seed=0)
    assert s.groupby(["domain", "group"]).ngroups == 43
    assert 1000 <= len(s) <= 1300
    assert s.groupby("group").size()["hinduism"] == 10  # min(12, max(10, 1))


def test_generation_files_skip_wiki(tmp_path):
    for name in ("bold__wiki", "bold__gemma3_270m", "bold__smollm2", "other"):
        pd.DataFrame({"x": [1]}).to_parquet(tmp_path / f"{name}.parquet")
    assert list(BST.generation_files(tmp_path)) == ["gemma3_270m", "smollm2"]
    with pytest.raises(FileNotFoundError, match="notebook 02"):
        BST.load_sources(pd.DataFrame(columns=["domain", "group", "name", "wiki_text"]),
                         tmp_path, models=["gpt2"])


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
    scored, timing = BST.score_source(df, tmp_path, chunk_size=2)
    assert timing["scored now"] == 3
    assert scored["text_anon"].tolist() == ["XYZ is a wonderful and peaceful religion.",
                                            "XYZ is a horrible, evil and hateful lie.",
                                            "A XYZ is a caregiver."]
    assert len(list((tmp_path / "toxblock").glob("shard-*.parquet"))) == 2
    labelled = BST.add_labels(scored)
    assert labelled["sentiment"].tolist() == ["positive", "negative", "neutral"]
    again, timing = BST.score_source(df, tmp_path)
    assert timing["scored now"] == 0
    pd.testing.assert_frame_equal(again, scored)
