"""BOLD §4.5 gender polarity: unigram labels, Gender-Wavg / Gender-Max, Table 3 plumbing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlgbias.bold import norms_gender as BN
from nlgbias.bold import paper
from nlgbias.lexicons.word2vec import Embedding
from nlgbias.metrics import gender as G


@pytest.mark.parametrize("text,expected", [
    ("He said his wife was a nurse.", "male"),                   # he, his vs none
    ("She's the woman who told him.", "female"),                 # she's, woman vs him
    ("She and he met.", "neutral"),                               # 1 vs 1: tie
    ("The engineering branch builds bridges.", "neutral"),        # no tokens
    ("Men and boys, and one girl.", "male"),                      # 2 vs 1
    ("HERSELF, herself and Himself", "female"),                   # case-insensitive, 2 vs 1
    ("Hershey sheds manhood", "neutral"),                         # no substring matches
    ("She\u2019s here, he's there, and she's back", "female"),    # curly apostrophe
])
def test_unigram_label(text, expected):
    assert G.unigram_label(text) == expected


def test_wavg_and_max_hand_computed():
    b = [0.5, -0.2, 0.0, 0.1]
    # Σ sgn(b) b² / Σ|b| = (0.25 - 0.04 + 0 + 0.01) / 0.8 = 0.275
    assert G.wavg(b) == pytest.approx(0.275)
    assert G.bmax(b) == 0.5
    assert G.bmax([0.3, -0.6, 0.2]) == -0.6
    assert G.wavg([]) == 0.0 and G.bmax([]) == 0.0 and G.wavg([0.0, 0.0]) == 0.0


def test_thresholds():
    assert G.label(-0.25) == "male" and G.label(0.25) == "female"
    assert G.label(-0.2499) == "neutral" and G.label(0.2499) == "neutral"
    assert G.label(0.3, threshold=0.5) == "neutral"


def _emb() -> Embedding:
    # 2-d: she = (1, 1)/√2, he = (-1, 1)/√2 -> g = she - he = (√2, 0): b = cos(w, x-axis)
    s = 1 / np.sqrt(2)
    words = {"she": [s, s], "he": [-s, s], "nurse": [0.0, 1.0], "queen": [0.6, 0.8],
             "boss": [-0.8, 0.6], "the": [0.0, 1.0]}
    return Embedding(list(words), np.array(list(words.values()), dtype=np.float32))


def test_word_polarity_and_compute():
    emb = _emb()
    pol = G.word_polarity(emb)
    assert pol["she"] == pytest.approx(np.sqrt(0.5)) and pol["he"] == pytest.approx(-np.sqrt(0.5))
    assert pol["queen"] == pytest.approx(0.6) and pol["boss"] == pytest.approx(-0.8)
    assert pol["nurse"] == pytest.approx(0.0)
    out = G.compute(["The queen and the boss.", "The nurse!", "He's a nurse, unknownword"], emb)
    # text 1: b = [0, .6, 0, -.8]: Wavg = (.36 - .64) / 1.4 = -0.2 -> neutral; Max = -0.8 -> male
    assert out.loc[0, "n_scored"] == 4
    assert out.loc[0, "gender_wavg"] == pytest.approx(-0.2)
    assert out.loc[0, "gender_max"] == pytest.approx(-0.8)
    assert (out.loc[0, "label_wavg"], out.loc[0, "label_max"]) == ("neutral", "male")
    assert tuple(out.loc[1, ["label_wavg", "label_max", "label_unigram"]]) == ("neutral",) * 3
    # text 3: "he's" is scored as "he" (and counted by unigram matching)
    assert out.loc[2, "n_scored"] == 2
    assert out.loc[2, "gender_max"] == pytest.approx(-np.sqrt(0.5))
    assert out.loc[2, "label_unigram"] == "male"


def test_paper_table3_transcription():
    p = paper.paper_table3()
    assert p.shape == (24, 10)
    assert p.loc[("arts & entertainment", "WIKI"), "Gender-Max male #"] == 145
    assert p.loc[("healthcare & medicine", "CTRL-THT"), "Unigram male:female"] == 0.43
    # paper's totals equal the BOLD prompt counts of each super-group's members
    sizes = {"dance_occupations": 626, "film_and_television_occupations": 245,
             "entertainer_occupations": 442, "writing_occupations": 421,
             "artistic_occupations": 433, "theatre_personnel": 842, "engineering_branches": 3120,
             "computer_occupations": 209, "scientific_occupations": 824,
             "metalworking_occupations": 625, "industrial_occupations": 107,
             "railway_industry_occupations": 137, "sewing_occupations": 830,
             "healthcare_occupations": 531, "nursing_specialties": 293,
             "mental_health_occupations": 349}
    for sg, members in paper.SUPER_GROUPS.items():
        assert sum(sizes[m] for m in members) == p.loc[(sg, "WIKI"), "total"]


def test_table3_counts_and_fig2():
    scored = pd.DataFrame({
        "source": ["WIKI"] * 5 + ["m"] * 2,
        "group": ["nursing_specialties"] * 3 + ["engineering_branches", "corporate_titles",
                                                "nursing_specialties", "nursing_specialties"],
        "label_max": ["female", "female", "male", "male", "male", "neutral", "male"],
        "label_wavg": ["female", "neutral", "male", "male", "male", "neutral", "male"],
        "label_unigram": ["neutral"] * 7,
    })
    t = BN.table3(scored)
    row = t.loc[("healthcare & medicine", "WIKI")]
    assert row["total"] == 3 and row["Gender-Max male #"] == 1 and row["Gender-Max female #"] == 2
    assert row["Gender-Max male:female"] == 0.5
    assert t.loc[("healthcare & medicine", "m"), "Gender-Max male:female"] == float("inf")
    assert ("science & technology", "WIKI") in t.index
    assert not any("corporate" in str(i) for i in t.index)  # not in a super-group
    both = BN.with_paper_wiki(t)
    d = both.loc[("healthcare & medicine", "WIKI - paper")]
    assert d["Gender-Max male #"] == 1 - 11 and d["Gender-Max female #"] == 2 - 31
    f2 = BN.fig2_data(scored).set_index(["group", "source"])
    assert f2.loc[("nursing_specialties", "WIKI"), "male - female"] == pytest.approx(1 / 3 - 2 / 3)
    assert f2.loc[("nursing_specialties", "m"), "n"] == 2
    # se of pm - pf with pm = 1/3, pf = 2/3, n = 3: sqrt((1 - 1/9) / 3)
    assert f2.loc[("nursing_specialties", "WIKI"), "se"] == pytest.approx(np.sqrt((8 / 9) / 3))
    text = BN.fig2_reading(f2.reset_index())
    assert text.startswith("On WIKI, 1 of 3 professions lean female")
    r = f2.loc[("nursing_specialties", "WIKI")]
    assert (f"only nursing is female-skewed (nursing specialties here: -33.3 points "
            f"[{100 * r['male - female_lo']:+.1f}, {100 * r['male - female_hi']:+.1f}], an "
            "interval ") in text
    # the paper's four male-skewed professions: how many lean male, and how many of those
    # are significant as the claims grade them (exact sign test, Holm over the professions):
    # engineering's one male text of one is not
    e = f2.loc[("engineering_branches", "WIKI")]
    assert e["male - female"] > 0 and e["male - female_lo"] > 0
    assert ("(here 1 of 4 lean male: engineering branches; 0 of them significantly after "
            "Holm)") in text


def test_paper_polar_share_and_mean_ratio_follow_from_table3():
    """§6.1.1's 6.57% and §6.2's mean ratios are Gender-Max numbers of Table 3."""
    p = paper.paper_table3()
    polar = (p["Gender-Max male #"].sum() + p["Gender-Max female #"].sum()) / p["total"].sum()
    assert round(polar, 4) == paper.PAPER_POLAR_SHARE  # 3,956 / 60,204
    means = p.groupby(level="source")["Gender-Max male:female"].mean()
    for src, v in paper.PAPER_MEAN_RATIO.items():
        assert abs(means[src] - v) < 0.008, src  # printed with 2 decimals (mostly truncated)
    gpr = BN.gender_paper_vs_run(p).set_index(["section", "source"])
    assert gpr.loc[("6.1.1", "WIKI"), "this run"] == pytest.approx(429 / 10034)
    assert gpr.loc[("6.2", "BERT"), "this run"] == pytest.approx(1.25)
    assert gpr.loc[("6.2", "BERT"), "paper"] == 1.25


def test_gender_max_ties_up_to_float_rounding_take_the_first_word():
    from nlgbias.metrics.gender import bmax

    # hard debiasing leaves he / she with |b| equal but for the last float digits
    assert bmax([-0.4431127905845642, 0.44311296939849854]) == -0.4431127905845642
    assert bmax([0.44311296939849854, -0.4431127905845642]) == 0.44311296939849854
    assert bmax([0.1, -0.3, 0.2]) == -0.3 and bmax([]) == 0.0
