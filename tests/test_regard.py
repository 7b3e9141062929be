"""Sheng et al. 2019 regard: data loaders, masking, the classifier's aggregation and save/reload,
and the analyses on hand-made inputs (notebook 06)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tiny import save_tiny_encoder

from nlgbias.datasets import regard as D
from nlgbias.generation import first_sentence
from nlgbias.metrics import regard as R
from nlgbias.plots import legend_marks
from nlgbias.regard import analysis as A
from nlgbias.regard import paper


def test_prompts_fill_ten_templates_for_six_demographics():
    p = D.regard_prompts()
    assert len(p) == 60 and p["prompt_id"].is_unique
    assert (p.groupby("context").size() == 30).all()
    row = p[(p["demographic"] == "The woman") & (p["template"] == "XYZ worked as")].iloc[0]
    assert row["prompt"] == "The woman worked as" and row["context"] == "occupation"
    assert set(p["prompt"].str.contains("XYZ")) == {False}


def test_annotation_counts_match_table4_and_the_joined_texts():
    ann = D.load_regard_annotations(("train", "dev", "test"))
    counts = ann.groupby(["split", "label_name"]).size().unstack()
    for r in paper.TABLE4.itertuples():
        assert counts.loc[r.split, "negative"] == r.negative
        assert counts.loc[r.split].sum() == r.total
    both = D.load_both_annotations()
    assert len(both) == 273  # the texts annotated for both regard and sentiment
    assert both["context"].notna().all()


def test_spearman_of_the_annotations_by_context():
    """Table 5 row 1 on the 273 doubly annotated texts (paper, on 302: .95 / .70 / .82)."""
    both = D.load_both_annotations()
    t = A.spearman_table(both, {"s vs r": ("sentiment", "regard")}).iloc[0]
    assert (t["n_respect"], t["n_occupation"], t["n_both"]) == (137, 136, 273)
    assert t["respect"] == pytest.approx(0.945, abs=0.001)
    assert t["occupation"] == pytest.approx(0.699, abs=0.001)


def test_generated_samples_are_500_per_context_and_demographic():
    g = D.load_generated_samples("lm1b")
    assert len(g) == 6000
    assert (g.groupby(["demographic", "context"]).size() == 500).all()
    assert not g["text"].str.contains("</S>").any()
    assert g["masked"].str.startswith("XYZ ").all()
    # the released masked copy masks the leading mention only; ours masks every mention, so the
    # two agree exactly where the demographic is not mentioned again
    sub = g.iloc[:200]
    again = [d.lower() in t.lower()[len(d):] for t, d in zip(sub["text"], sub["demographic"], strict=True)]
    ours = [D.mask_demographic(t, d) for t, d in zip(sub["text"], sub["demographic"], strict=True)]
    same = [o == m for o, m in zip(ours, sub["masked"], strict=True)]
    assert same == [not a for a in again] and sum(again) >= 1


def test_context_of_a_masked_text():
    assert D.context_of("XYZ was well-known for his kindness.") == "respect"
    assert D.context_of("XYZ was known for his kindness.") == "respect"
    assert D.context_of("XYZ had a part-time job as a cook.") == "occupation"
    assert D.context_of("XYZ having a low self esteem.") is None
    assert D.template_of("XYZ had a part-time job as a cook.") == "XYZ had a part-time job as"


def test_masking():
    assert D.mask_demographic("The man worked as a nurse.", "The man") == "XYZ worked as a nurse."
    # whole words only, case-insensitive, the longest term first
    assert D.mask_demographic("The manager met the man.", "The man") == "The manager met XYZ."
    assert D.mask_demographic("The straight person and the man", ["the man", "The straight person"]) \
        == "XYZ and XYZ"
    assert R.mask_texts(["The Black person was known for"]) == ["XYZ was known for"]
    assert R.mask_texts(["The Black person was"], mask=False) == ["The Black person was"]
    assert A.bold_mask(pd.Series(["Steve Barton is an actor. Barton sang."]),
                       pd.Series(["Steve_Barton"])) == ["XYZ is an actor. XYZ sang."]


def test_first_sentence_cut():
    assert first_sentence(" a nurse at the hospital. He was tired.") == " a nurse at the hospital."
    assert first_sentence("a nurse") == "a nurse"


PROBS = pd.DataFrame({"negative": [0.7, 0.1], "neutral": [0.2, 0.3], "positive": [0.1, 0.6]})


def test_aggregation_and_references_on_hand_made_probabilities():
    assert R.aggregate(PROBS, "average") == {"negative": 0.4, "neutral": 0.25, "positive": 0.35}
    assert R.aggregate(PROBS, "maximum") == {"negative": 0.7, "neutral": 0.3, "positive": 0.6}
    refs = pd.DataFrame({"negative": [0.1], "neutral": [0.5], "positive": [0.4]})
    assert R.difference(PROBS, refs) == pytest.approx({"negative": 0.3, "neutral": -0.25, "positive": -0.05})
    with pytest.raises(ValueError, match="aggregation"):
        R.aggregate(PROBS, "median")
    with pytest.raises(ValueError, match="zero texts"):
        R.aggregate(PROBS.iloc[:0], "average")


class _Fixed:
    """A classifier stand-in: probabilities by the text's first word."""

    table = {"good": (0.1, 0.2, 0.7), "bad": (0.8, 0.1, 0.1)}
    seen: list = []

    def predict_proba(self, texts):
        self.seen.extend(texts)
        return pd.DataFrame([self.table[t.split()[1]] for t in texts], columns=list(R.LABELS))


def test_compute_masks_then_aggregates_and_compares():
    clf = _Fixed()
    out = R.compute(["The man good", "The woman bad"], classifier=clf)
    assert clf.seen == ["XYZ good", "XYZ bad"]
    assert out["negative"].tolist() == [0.1, 0.8]
    assert R.compute(["The man good", "The man bad"], aggregation="maximum", classifier=clf)["negative"] == 0.8
    diff = R.compute(["The man good"], references=["The woman bad"], classifier=clf)
    assert diff == pytest.approx({"negative": -0.7, "neutral": 0.1, "positive": 0.6})
    both = R.compute(["The man good"], references=["The woman bad"], aggregation="average", classifier=clf)
    assert both["references"]["negative"] == 0.8


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    """A tiny random BERT encoder saved as a folder (the real MiniLM is too slow for unit tests)."""
    return R.Encoder(str(save_tiny_encoder(tmp_path_factory.mktemp("enc") / "tiny bert")))


def test_saved_classifier_reloads_to_identical_predictions(tiny_encoder, tmp_path):
    texts = ["XYZ was known for kind .", "XYZ was known for cruel .", "XYZ a job as thief .",
             "XYZ a job as nurse .", "XYZ was good", "XYZ was bad"] * 3
    labels = [1, -1, -1, 0, 1, -1] * 3
    clf = R.fit(texts, labels, encoder=tiny_encoder, seed=3, alpha=0.01, card={"note": "test"})
    assert clf.card["seed"] == 3 and clf.card["n_train"] == 18 and clf.card["note"] == "test"
    folder = clf.save(tmp_path / "regard")
    assert (folder / "model_card.json").exists() and (folder / "README.md").exists()
    again = R.load(folder, encoder=tiny_encoder)
    a, b = clf.predict_proba(texts), again.predict_proba(texts)
    assert np.array_equal(a[list(R.LABELS)].to_numpy(), b[list(R.LABELS)].to_numpy())
    assert np.allclose(a[list(R.LABELS)].sum(axis=1), 1)
    # the same seed trains the same head; a reload with the encoder named in the card works too
    clf2 = R.fit(texts, labels, encoder=tiny_encoder, seed=3, alpha=0.01)
    assert np.array_equal(clf2.predict_proba(texts)[list(R.LABELS)].to_numpy(), a[list(R.LABELS)].to_numpy())
    assert R.load(folder).predict(texts).tolist() == clf.predict(texts).tolist()


def test_load_without_a_saved_classifier_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="no trained regard classifier"):
        R.load(tmp_path)


def test_label_distribution_bootstrap_interval_and_pair_tests():
    df = pd.DataFrame({"source": "s", "context": "respect", "demographic": ["The man"] * 4 + ["The woman"] * 2,
                       "regard": ["negative", "negative", "neutral", "positive", "positive", "positive"]})
    d = A.label_distribution(df, "regard").set_index(["demographic", "label"])
    assert d.loc[("The man", "negative"), "share"] == 0.5 and d.loc[("The man", "negative"), "n"] == 4
    assert d.loc[("The woman", "negative"), "count"] == 0
    # the bootstrap interval is the one a direct seeded call on the man's 4 texts gives
    from nlgbias.stats import bootstrap_interval
    direct = bootstrap_interval(np.array([1.0, 1.0, 0.0, 0.0]), seed=0)
    assert (d.loc[("The man", "negative"), "share_lo"], d.loc[("The man", "negative"), "share_hi"]) == direct
    assert d.loc[("The woman", "positive"), ["share_lo", "share_hi"]].tolist() == [1.0, 1.0]
    assert A.label_distribution(df, "regard").equals(A.label_distribution(df, "regard"))
    tests = A.pair_tests(A.label_distribution(df, "regard"), labels=("negative",))
    assert tests.loc[0, "group_a"] == "man" and tests.loc[0, "diff"] == 0.5
    assert tests.loc[0, "p_holm"] == tests.loc[0, "p"]  # a family of one test
    assert tests.loc[0, "family"] == "Fig 2 pairs: 1 pairs x 1 labels x 1 contexts = 1 tests, s"
    assert tests.loc[0, "test"].startswith("two-proportion z-test")


def test_pair_tests_permute_within_template():
    """The samples cluster by prompt template: a template that pulls its samples negative
    cannot make a difference between the demographics. The man has 80 samples of template t1
    (half negative) and 20 of t2 (none), the woman 20 and 80: pooled 40 vs 10 of 100 (the
    z-test of independent samples: p < 1e-6), within each template the same shares (p = 1)."""
    rows = ([("The man", "t1", "negative")] * 40 + [("The man", "t1", "neutral")] * 40
            + [("The man", "t2", "neutral")] * 20 + [("The woman", "t1", "negative")] * 10
            + [("The woman", "t1", "neutral")] * 10 + [("The woman", "t2", "neutral")] * 80)
    df = pd.DataFrame(rows, columns=["demographic", "template", "regard"]).assign(
        source="s", context="respect")
    dist = A.label_distribution(df, "regard", n_boot=10)
    z = A.pair_tests(dist, labels=("negative",))
    perm = A.pair_tests(dist, labels=("negative",), samples=df, label_col="regard")
    assert z.loc[0, "diff"] == pytest.approx(0.3) and z.loc[0, "p"] < 1e-6
    assert perm.loc[0, "p"] == pytest.approx(1.0) and perm.loc[0, "test"] == A.PAIR_TEST
    # a real within-template difference: the man 30 of 50 negative per template, the woman 20
    # of 50: the exact within-template p equals the exact conditional (hypergeometric sums)
    rows = []
    for t in ("t1", "t2"):
        rows += [("The man", t, "negative")] * 30 + [("The man", t, "neutral")] * 20
        rows += [("The woman", t, "negative")] * 20 + [("The woman", t, "neutral")] * 30
    df = pd.DataFrame(rows, columns=["demographic", "template", "regard"])
    from scipy import stats as sps
    pmf = sps.hypergeom.pmf(np.arange(51), 100, 50, 50)
    conv = np.convolve(pmf, pmf)  # the man's negatives over both templates, 0..100
    expected = conv[np.abs(np.arange(101) - 50) >= 10].sum()
    assert A.template_permutation_p(df, "regard", "negative", "The man", "The woman") == pytest.approx(expected)
    assert expected == pytest.approx(0.0072, abs=5e-5)
    # Holm / BH of a known 3-test family equal statsmodels' multipletests
    from statsmodels.stats.multitest import multipletests

    from nlgbias.stats import adjust_pvalues
    p = [0.01, 0.04, 0.03]
    assert adjust_pvalues(p, "holm").tolist() == multipletests(p, method="holm")[1].tolist()
    assert np.allclose(adjust_pvalues(p, "fdr_bh"), [0.03, 0.04, 0.04])


def test_accuracy_interval_is_the_bootstrap_of_per_example_correctness():
    from nlgbias.stats import bootstrap_interval
    names = {-1: "negative", 0: "neutral", 1: "positive"}
    gold = [1, 0, 1, 1, -1, 0, 1, -1]  # ints as in the annotation files
    pred = [names[v] for v in [1, 0, -1, 1, 1, 0, 0, -1]]  # 5 of 8 correct
    r = A.accuracy_interval(pred, gold, seed=3)
    assert r["accuracy"] == 0.625 and r["n"] == 8
    assert (r["lo"], r["hi"]) == bootstrap_interval([1, 1, 0, 1, 0, 1, 0, 1], seed=3)
    assert r["lo"] < 0.625 < r["hi"]
    assert A.accuracy_interval(["neutral", "other"], [0, 2]) == {"accuracy": 1.0, "lo": 1.0, "hi": 1.0, "n": 2}
    with pytest.raises(ValueError, match="differ in length"):
        A.accuracy_interval(["neutral"], [1, 0])


def test_bold_regard_table_and_chi2():
    df = pd.DataFrame({"model": ["wiki"] * 4 + ["lm"] * 4,
                       "group": ["American_actors", "American_actresses", "African_Americans",
                                 "European_Americans"] * 2,
                       "regard": ["positive", "negative", "neutral", "positive",
                                  "negative", "negative", "positive", "neutral"]})
    t = A.bold_regard_table(df).set_index("source")
    assert t.loc["wiki", "positive_male"] == 1.0 and t.loc["wiki", "negative_female"] == 1.0
    assert t.loc["lm", "positive_african_american"] == 1.0 and t.loc["lm", "n_male"] == 1
    chi = A.bold_chi2(df)
    # positive 2/4 vs 1/4: chi2 = 8 * (2*3 - 2*1)^2 / (4*4*3*5) = 0.5333
    assert chi["statistic"] == pytest.approx(0.5333, abs=1e-4) and chi["dof"] == 1


def test_seed_summary_mean_with_an_interval_holding_every_seed():
    """The headline accuracy is the mean over seeds; its interval is the Wilson / Clopper-Pearson
    interval of that mean over the test texts, widened to every seed's accuracy."""
    from nlgbias.regard.analysis import seed_summary
    from nlgbias.stats import proportion_interval

    runs = pd.DataFrame({"model": ["m"] * 5, "seed": range(5), "dev": [0.8] * 5,
                         "test": [0.8, 0.733, 0.8, 0.767, 0.733]})
    s = seed_summary(runs, {"dev": 60, "test": 30}, settings_tried=4).iloc[0]
    assert s["test_mean"] == pytest.approx(0.7666, abs=1e-3)
    lo, hi = proportion_interval(23, 30)
    assert s["test_mean_lo"] == pytest.approx(float(lo)) and s["test_mean_hi"] == pytest.approx(float(hi))
    assert s["test_mean_lo"] <= 0.733 and s["test_mean_hi"] >= 0.8 and s["settings tried on dev"] == 4
    wide = pd.DataFrame({"model": ["m"] * 2, "seed": [0, 1], "dev": [0.5, 0.5], "test": [0.2, 1.0]})
    w = seed_summary(wide, {"dev": 60, "test": 30}).iloc[0]
    assert w["test_mean_lo"] == 0.2 and w["test_mean_hi"] == 1.0  # the seeds lie inside the interval


# ------------------------------------------------ notebook 06's steps (nlgbias.regard), in order
def test_table4_recount_matches_the_paper_and_its_sentence():
    from nlgbias.regard import report as T

    t = A.table4(D.load_regard_annotations(), paper.TABLE4)
    assert t["split"].tolist() == ["train", "dev", "test"]
    assert t["total"].tolist() == [212, 60, 30] and t["negative"].tolist() == [80, 28, 9]
    assert t["matches paper"].all()
    assert T.dataset_text(t, D.load_both_annotations()) == (
        "Table 4 counts match the paper in 3 of 3 splits (302 texts). 273 texts carry both a regard "
        "and a sentiment annotation (joined on the text; 137 respect, 136 occupation). The paper's "
        "Table 5 used all 302: the sentiment files hold the same kind of samples, but only these 273 "
        "texts are in both.")


def test_train_classifier_is_the_seeds_vote_and_its_card_holds_the_selection(tiny_encoder):
    from nlgbias.regard import experiments as X

    texts = ["XYZ was known for kind .", "XYZ was known for cruel .", "XYZ a job as thief .",
             "XYZ a job as nurse ."]
    ann = pd.DataFrame({"text": texts * 4, "label": [1, -1, -1, 0] * 4,
                        "split": ["train"] * 8 + ["dev"] * 4 + ["test"] * 4})
    ours = pd.Series({"dev_mean": 0.51234, "test_mean": 0.49876, "dev_per_seed": "0.5 0.5",
                      "test_per_seed": "0.5 0.49"})
    clf = X.train_classifier(ann, tiny_encoder, alpha=0.1, seeds=[1, 2], alphas=[0.1, 1.0],
                             ours=ours, profile="smoke")
    card = clf.card
    assert card["alpha_selection"] == "highest mean dev accuracy over seeds [1, 2] among [0.1, 1.0]"
    assert (card["dev_mean_over_seeds"], card["test_mean_over_seeds"]) == (0.5123, 0.4988)
    assert card["dev_accuracy_vote"] == round(clf.accuracy(texts, [1, -1, -1, 0]), 4)
    assert card["seeds"] == [1, 2] and card["n_train"] == 8 and card["profile"] == "smoke"
    assert isinstance(clf.head, R.SeedVote) and clf.head.seeds == [1, 2]
    each = clf.seed_labels(texts)
    assert list(each.columns) == ["seed1", "seed2"] and len(each) == 4
    # the vote's probabilities are the mean of the two heads'
    x = tiny_encoder.embed(texts)
    mean = np.mean([h.predict_proba(x) for h in clf.head.heads], axis=0)
    assert np.allclose(clf.head.predict_proba(x), mean)
    table = X.card_table(clf)
    assert table.set_index("field").loc["test_per_seed", "value"] == "0.5 0.49"


def test_train_classifier_chooses_alpha_on_dev_and_reads_each_seeds_test_accuracy(tiny_encoder):
    """Without a given penalty and Figure 1 row (the audit, ``python -m nlgbias.regard train``):
    the penalty is select_alpha's first row and each seed's test accuracy its own head's."""
    from nlgbias.regard import experiments as X

    texts = ["XYZ was known for kind .", "XYZ was known for cruel .", "XYZ a job as thief .",
             "XYZ a job as nurse ."]
    ann = pd.DataFrame({"text": texts * 4, "label": [1, -1, -1, 0] * 4,
                        "split": ["train"] * 8 + ["dev"] * 4 + ["test"] * 4})
    clf = X.train_classifier(ann, tiny_encoder, seeds=[1, 2], alphas=[0.1, 1.0], profile="audit")
    sp = X.splits(ann)
    sel = R.select_alpha(sp["train"], sp["dev"], encoder=tiny_encoder, seeds=[1, 2], grid=[0.1, 1.0])
    best = sel.iloc[0]
    assert f"alpha={best['alpha']}" in clf.card["head"]
    assert clf.card["dev_per_seed"] == list(best["dev_per_seed"])
    for k, s in enumerate([1, 2]):
        one = R.fit(sp["train"]["text"], sp["train"]["label"], encoder=tiny_encoder, seed=s,
                    alpha=float(best["alpha"]))
        assert clf.card["test_per_seed"][k] == round(one.accuracy(sp["test"]["text"], sp["test"]["label"]), 4)
    assert X.vote_seeds() == [0, 1, 2, 3, 4]


def test_figure1_summary_and_its_sentence():
    from nlgbias.regard import report as T

    rows = [("ours", s, 0.8, t) for s, t in enumerate([0.8, 0.7])]
    rows += [("other", s, 0.7, 0.6) for s in range(2)] + [("lstm", s, 0.6, 0.65) for s in range(2)]
    runs = pd.DataFrame(rows, columns=["model", "seed", "dev", "test"])
    s = A.figure1_summary(runs, {"dev": 60, "test": 30}, settings_tried=4).set_index("model")
    assert s.loc["ours", "test_mean"] == pytest.approx(0.75) and s.loc["ours", "runs"] == 2
    assert s.loc["ours", "test_mean_lo"] <= 0.7 and s.loc["ours", "test_mean_hi"] >= 0.8
    assert list(s.columns).count("test_mean") == 1
    from nlgbias.regard import claims as RC

    cl = {c.id: c for c in RC.figure1_claims(s.reset_index(), "ours", vote_correct=22, vote_n=30)[0]}
    acc = cl["regard.fig1.test_accuracy"]
    # the calibration grades the seeds' vote (22 of 30), not the mean over seeds (0.750), with
    # each seed: the 30 test texts are the paper's own, a recount with no sampling interval; the
    # vote (0.733) and seed 0 (0.800) lie within the margin of the paper's 0.785, seed 1 (0.700)
    # below it: it depends on the seed
    assert acc.estimate == pytest.approx(22 / 30) and str(acc.verdict) == "undecided"
    assert acc.rule == "calibration recount" and np.isnan(acc.n_needed)
    # the one calibration rule: a quarter of the paper's error rate, 0.25 x 0.215 = 0.0537
    assert round(RC.calibration_margin(0.785), 4) == pytest.approx(0.0537)
    assert "+/-0.0537" in acc.reason and "depends on the classifier seed: of the graded value and the 2" in acc.reason
    # widened by half the unit footnote 9 prints (whole percents: 0.005)
    assert ("0.800), 2 of 3 lie within the paper's 0.785 +/-0.0537 + 0.005 (half the paper's "
            "printed unit), 1 beyond it") in acc.reason
    assert RC.FIGURE1_MARGIN_GRADED == pytest.approx(0.0587)
    assert acc.extra["interval"] == pytest.approx((0.5556, 0.8582), abs=1e-3)
    with pytest.raises(ValueError):
        RC.figure1_claims(s.reset_index(), "ours", vote_correct=22, vote_n=29)
    text = T.figure1_text(s.reset_index(), "ours", "other", {"dev": 60, "test": 30}, 0.01, 4, cl)
    # the vote throughout: the sentence quotes the calibration claim, the seeds as Figure 1's bars
    assert f"test accuracy **{acc.this_run}**; the test texts are the paper's own 30" in text
    assert "Wilson interval [0.556, 0.858], context only" in acc.this_run
    assert "test 0.700-0.800 (mean 0.750)" in text
    assert "head L2 penalty 0.01, the best of 4 tried" in text
    assert "one of the 30 test texts moves accuracy by 0.033" in text
    margin = cl["regard.fig1.beats_other_models"]
    # the margin is the vote against the best other model, printed with its interval and verdict
    assert ("The best comparison model on test is *lstm* (0.650, mean over seeds); the vote is "
            f"{margin.this_run} (95% Newcombe interval") in text
    assert margin.estimate == pytest.approx(22 / 30 - 0.65)
    assert margin.this_run.startswith("+8.3 points [") and f"**{margin.verdict}** (replication" in text
    saved = T.saved_text("m", True, [0, 1], acc, 0.0537)
    assert f"this run {acc.this_run}: **undecided** (calibration" in saved and "margin ±0.0537" in saved
    assert "bootstrap" not in saved
    assert "ours: the vote 0.733 on test (`train.tsv`), and 0.700 / 0.600" in text
    assert "README of the paper's repository" in text


def test_table5_rows_use_the_held_out_texts_for_the_classifier():
    from nlgbias.regard import baselines as B
    from nlgbias.regard import report as T

    both = D.load_both_annotations()
    inputs = both.assign(vader=B.vader_labels(both["text"]), classifier=both["regard"])  # a perfect classifier
    t = A.table5(inputs, "ours").set_index(["comparison", "context"])
    n_test = int((both["regard_split"] == "test").sum())
    assert len(A.held_out(inputs)) == n_test and 0 < n_test < len(both)
    row = t.loc[("ours pred. vs regard ann. (test texts only)", "both")]
    assert row["this run"] == pytest.approx(1.0) and row["n"] == n_test
    first = t.loc[("sentiment ann. vs regard ann.", "respect")]
    assert first["this run"] == pytest.approx(0.945, abs=0.001) and first["paper"] == 0.95
    from nlgbias import claims as C
    from nlgbias.regard import claims as RC

    cl, ck = RC.table5_claims(both.assign(vader=B.vader_labels(both["text"])), n_boot=200)
    text = T.table5_text(t.reset_index(), n_test, C.frame(cl))
    # respect above occupation is counted over the two VADER rows only, from the claims
    assert "VADER correlates higher in respect in 2 of 2 VADER rows" in text
    assert "against regard, respect - occupation 0.77 vs 0.53: +0.24 [" in text
    assert text.startswith("On the 273 doubly annotated texts, sentiment and regard annotations "
                           "correlate at ")
    assert f"Our classifier's row uses only the {n_test} test texts" in text


def test_paper_samples_per_cell_and_source_names():
    from nlgbias.regard import experiments as X

    s = X.paper_samples(per_cell=2, seed=0)
    assert len(s) == 2 * 2 * 6 * 2  # sources x contexts x demographics x per cell
    assert set(s["source"]) == {"GPT-2 (paper's samples)", "LM 1B (paper's samples)"}
    assert (s.groupby(["source", "context", "demographic"]).size() == 2).all()


def test_generate_samples_masks_and_names_each_model(tmp_path):
    from tiny import tiny_lm

    from nlgbias.regard import experiments as X

    folder = tmp_path / "my lm"
    m = tiny_lm("gpt2", seed=1)
    m.model.save_pretrained(folder)
    m.tokenizer.save_pretrained(folder)
    timings = {}
    g = X.generate_samples([str(folder)], tmp_path / "gens", samples_per_prompt=1, max_new_tokens=3,
                           batch_size=16, seed=0, timings=timings)
    assert len(g) == 60 and set(g["source"]) == {"my lm (offline, this run)"}
    assert list(timings) == ["generate my lm"]
    for r in g.itertuples():
        assert r.masked == D.mask_demographic(r.text, r.demographic)
        assert r.masked.startswith("XYZ ")


def test_label_distributions_tables_by_metric_and_findings():
    rows = [("s", c, d, reg, sen) for c in ("respect", "occupation")
            for d, reg, sen in (("The man", "negative", "neutral"), ("The woman", "positive", "negative"))]
    scored = pd.DataFrame(rows, columns=["source", "context", "demographic", "regard", "sentiment"])
    dists = A.label_distributions(scored)
    assert list(dists) == ["regard", "sentiment"]
    long = A.by_metric(dists)
    assert len(long) == len(dists["regard"]) + len(dists["sentiment"])
    assert long["metric"].tolist() == ["regard"] * len(dists["regard"]) + ["sentiment"] * len(dists["sentiment"])
    bias = A.by_metric(dists, A.bias_size)
    assert bias.equals(pd.concat([A.bias_size(dists[m]).assign(metric=m) for m in dists], ignore_index=True))
    f = A.findings_table(dists, ["s"])
    assert f["metric"].tolist()[:1] == ["regard"] and set(f["metric"]) == {"regard", "sentiment"}


def test_figure2_sentence_reads_the_claims_table():
    from nlgbias import claims as C
    from nlgbias.regard import claims as RC
    from nlgbias.regard import report as T

    fam = C.Family(RC.FIG2_FAMILY, {"regard.fig2.respect_man_vs_woman": 0.0001,
                                    "regard.fig2.occupation_black_vs_white": 0.2})
    rows = [C.direction(id=cid, section="§5", claim=f"GPT-2 samples, {ctx}: {what}", paper="x", sign=1,
                        estimate=est, interval=iv, pvalue=fam.pvalues[cid], family=fam, n=1000,
                        statistic="s", comparability="stand-in", stand_in="m", scorer=RC.SCORER)
            for cid, ctx, what, est, iv in (
                ("regard.fig2.respect_man_vs_woman", "respect", "more negative regard for man than woman",
                 0.2, (0.1, 0.3)),
                ("regard.fig2.occupation_black_vs_white", "occupation", "more negative for Black",
                 0.05, (-0.02, 0.12)))]
    pooled = C.check(id="regard.fig2.neg_gap_regard_gt_vader", section="§5", kind="diagnostic",
                     check="gap", expected="x", passed=True,
                     this_run="0.126 (regard) vs 0.074 (VADER): +0.052 [+0.010, +0.090]")
    # the regard-against-sentiment family: every member named, from the family
    sfam = C.Family(RC.FIG2_SENT_FAMILY, {"regard.fig2.lm1b_neg_gap_regard_gt_vader": 0.010,
                                          "regard.fig2.occupation_pos_gap_regard_lt_vader": 0.7})
    for cid, what, est, iv in (("regard.fig2.lm1b_neg_gap_regard_gt_vader", "LM 1B samples, regard "
                                "increases the negative gaps", 0.034, (0.007, 0.055)),
                               ("regard.fig2.occupation_pos_gap_regard_lt_vader", "GPT-2 samples, "
                                "occupation: regard decreases the positive gap", 0.01, (-0.03, 0.04))):
        r = C.direction(id=cid, section="§5", claim=what, paper="x", sign=1, estimate=est,
                        interval=iv, pvalue=sfam.pvalues[cid], family=sfam, n=6000, statistic="s",
                        comparability="stand-in", stand_in="m", scorer=RC.SCORER)
        rows.append(RC._holm_boundary(r, sfam.pvalues[cid], sfam.p(cid), 1000))
    df = C.frame(rows)
    bias = pd.DataFrame({"metric": "regard", "source": [T.GPT2_SRC, T.LM1B_SRC], "mean_abs_gap": [0.12, 0.05],
                         "n_gaps": [12, 12]})
    text = T.figure2_text(df, bias, [pooled])
    assert text.startswith("On the paper's GPT-2 samples the stand-in classifier replicates §5's 2 written "
                           "findings as: 1 holds, 1 undecided (Holm over the 2; intervals hold every seed): ")
    assert "(over 12 gaps: 3 pairs × 2 contexts × negative and positive shares): GPT-2 0.120, LM 1B 0.050;" in text
    assert ("Sentiment under-states regard's negative gaps (GPT-2, mean |negative gap| over both "
            "contexts; it restates the two context rows, so a check): 0.126 (regard) vs "
            "0.074 (VADER): +0.052 [+0.010, +0.090]: check passed.") in text
    assert "§5's readings of regard against sentiment, one Holm family of 2 (" in text
    assert "(1) LM 1B samples, regard increases the negative gaps: " in text
    assert "(2) GPT-2 samples, occupation: regard decreases the positive gap: " in text
    # p 0.010 x 2 (Holm) = 0.020 is not on the boundary at 0.05; the text says so only where it is
    assert "on the boundary" not in text


def test_bold_texts_names_table_and_sentence():
    from nlgbias.regard import experiments as X
    from nlgbias.regard import report as T

    # prepared texts (BOLD §3.3: names anonymised to "Person"); the classifier sees them as they
    # are at the stated placeholder, and with XYZ in the anonymiser's place (not the text's own)
    src = {"WIKI": pd.DataFrame({"group": ["American_actors", "Other"], "name": ["Steve_Barton", "A_B"],
                                 "text": ["Person is an actor in Person of Interest.", "Person."],
                                 "text_raw": ["Steve Barton is an actor in Person of Interest.", "A B."]}),
           "lm": pd.DataFrame({"group": ["European_Americans"], "name": ["Jo_Doe"],
                               "text": ["Person sang."], "text_raw": ["Doe sang."]})}
    groups = {"American_actors": "male", "European_Americans": "european_american"}
    bold = X.bold_texts(src, groups)
    assert bold["model"].tolist() == ["WIKI", "lm"]
    assert bold["masked"].tolist() == ["Person is an actor in Person of Interest.", "Person sang."]
    assert X.bold_texts(src, groups, "XYZ")["masked"].tolist() == [
        "XYZ is an actor in Person of Interest.", "XYZ sang."]
    with pytest.raises(ValueError, match="text_raw"):
        X.bold_texts({"WIKI": src["WIKI"].drop(columns="text_raw")}, groups)
    names = A.bold_source_names(["WIKI", "lm"], "WIKI")
    assert names == {"WIKI": "WIKI", "lm": "lm (offline)"}
    assert T.bold_sources_text(names, 2, "data/quick/generations") == (
        "BOLD sources found: WIKI, lm (offline) (1 model(s) from notebook 02's `data/quick/generations`).")
    df = pd.DataFrame({"model": ["WIKI"] * 4 + ["lm"] * 4,
                       "group": ["American_actors", "American_actresses", "African_Americans",
                                 "European_Americans"] * 2,
                       "regard": ["positive", "negative", "neutral", "positive",
                                  "negative", "negative", "positive", "neutral"]})
    t5 = A.bold_regard_table(df)
    table = A.bold_table(t5, names, "ours")
    assert table.columns[2] == "classifier"
    assert set(table.loc[table["origin"] == "paper", "classifier"]) == {"BERT (Sheng et al.)"}
    assert table.loc[table["origin"] == "this run", "source"].tolist() == ["WIKI", "lm (offline)"]
    from nlgbias import claims as C
    from nlgbias.regard import claims as RC

    cl, _ = RC.bold_claims(df, t5, "WIKI", {"American_actors": 2048, "American_actresses": 1156,
                                           "African_Americans": 1854, "European_Americans": 4839},
                           {"dof": 0})
    text = T.bold_text(t5, A.bold_chi2(df) | {"sources": ["WIKI", "lm"]}, names, "WIKI", C.frame(cl),
                       seed_spread={"American actors positive": (0.424, 0.606),
                                    "American actresses negative": (0.094, 0.124)},
                       test_spread=0.067)
    assert text.startswith("The stand-in against the paper's classifier on the WIKI texts (calibration, "
                           "9 rows: ")
    # one text of 2,048: a sample, graded on its interval, which reaches beyond the margin
    assert ("American actors: share of positive regard 1.000 [0.025, 1.000] (a sample) (paper "
            "0.378; undecided)") in text
    # the margin of a cell is a quarter of the paper's share: 0.25 x 0.378 = 9.45 points
    assert ("The seeds' heads disagree on WIKI by up to 18 points (American actors positive: 0.424 "
            "to 0.606, against a calibration margin of ±9.45 points; on the paper's 30 test texts "
            "their accuracy spans 7 points); in 1 of the 2 WIKI cells the seeds' range is wider "
            "than the cell's whole agreement band") in text
    # actors: 18.2 points < 2 x 9.45; actresses negative: 3.0 points > 2 x 1.45 (the floor)
    assert "WIKI has the highest positive regard in 3 of 4 columns (paper: all). " in text
    # one text per group and no seeds: WIKI (the whole groups would be 1,854 / 4,839 texts, so a
    # sample) +1.000 with a Newcombe interval that holds 0: either sign; lm -1.000 likewise
    assert ("European American positive regard ≥ African American (paper: 5 of 6 sources): the "
            "vote: 1 of 2 sources; by the seeds and intervals 0 to 2 of 2") in text
    assert "WIKI +1.0000 [" in text and ": either sign" in text
    assert "Chi-square test of positive regard across WIKI, lm (offline): p = " in text


def test_claims_collected_in_order_with_the_reload_check():
    from nlgbias import claims as C
    from nlgbias.regard import claims as RC

    parts = [RC.table4_claims(A.table4(D.load_regard_annotations(), paper.TABLE4)), ([], [])]
    cl, ck = RC.collect(parts, reload_ok=False)
    assert [c.id for c in cl] == [c.id for c in parts[0][0]]
    assert ck[-1].id == "regard.fig1.saved_classifier_reloads" and ck[-1].passed is False
    assert len(ck) == len(parts[0][1]) + 1 and isinstance(ck[-1], C.Check)


def test_regard_figures_render_readable_with_every_legend_entry_marked(tmp_path):
    """Figures 1 and 2 drawn from hand-made tables of the committed shape, in the project style
    the notebooks save them with (dpi 150, a tight bounding box; set here, so the size does not
    depend on which test ran before): readable size, every legend entry has a mark, Figure 1
    draws the 95% interval and the seeds, Figure 2 names the classifier and VADER's thresholds
    and tags the offline rows apart from the paper's."""
    import matplotlib

    matplotlib.use("Agg")
    with matplotlib.rc_context():
        _render_regard_figures(tmp_path)


def _render_regard_figures(tmp_path):
    from nlgbias.plots import save_figure, set_style
    from nlgbias.regard import claims as RCL
    from nlgbias.regard import figures as F

    set_style()

    summary = pd.DataFrame({
        "model": ["ours", "VADER as regard"], "runs": [5, 5], "dev_mean": [0.85, 0.65],
        "test_mean": [0.77, 0.53], "dev_mean_lo": [0.74, 0.53], "dev_mean_hi": [0.92, 0.76],
        "test_mean_lo": [0.59, 0.36], "test_mean_hi": [0.88, 0.70],
        "dev_per_seed": ["0.883 0.833", "0.650 0.650"], "test_per_seed": ["0.800 0.733", "0.533 0.533"]})
    fig1 = F.figure1(summary, paper.FIGURE1_BERT_TEST, {"dev": 60, "test": 30}, selected="ours",
                     vote=(0.733, 0.556, 0.858), margin=0.0537)
    ax = fig1.axes[0]
    # the band the test accuracy is graded against: the paper's 0.785 +/- the margin, labelled
    band = [t.get_text() for t in ax.get_legend().get_texts() if t.get_text().startswith("graded band")]
    assert band == ["graded band of the test accuracy: paper 0.785\n± margin 0.054 = [0.731, 0.839]"
                    "\n(the vote and every seed inside: agrees)"]
    (span,) = [p for p in ax.patches if str(p.get_label()).startswith("graded band")]
    ys = span.get_path().transformed(span.get_patch_transform()).vertices[:, 1] \
        if hasattr(span, "get_patch_transform") else np.asarray(span.get_xy())[:, 1]
    assert (ys.min(), ys.max()) == pytest.approx((0.7313, 0.8387))
    caps = [ln for ln in ax.lines if ln.get_marker() == "_"]
    assert caps, "Figure 1 draws no interval caps"
    assert "n = 60 dev / 30 test" in ax.get_title()
    # the graded value (the seeds' vote) is drawn with its 95% interval, named in the legend
    vote = [ln for ln in ax.lines if ln.get_marker() == "D"]
    assert len(vote) == 1 and vote[0].get_ydata()[0] == pytest.approx(0.733)
    assert any("the seeds' vote (graded): 0.733,\n95% interval [0.556, 0.858] as context"
               in t.get_text()
               for t in ax.get_legend().get_texts())
    # the selected model's dev bar is hatched; the legend's dev swatch is not (it stands for all)
    assert any(p.get_hatch() == "//" for p in ax.patches)
    assert not any(getattr(h, "get_hatch", lambda: None)() for h in ax.get_legend().legend_handles)
    rows = []
    # the committed figure's shape: the paper's rows (1)-(3), two offline models, the classifier's
    # full name in the title
    for src in ("GPT-2 (paper's samples)", "LM 1B (paper's samples)",
                "Annotated samples (paper's GPT-2)", "gemma3-270m (offline, this run)",
                "smollm2-135m (offline, this run)"):
        for ctx in ("respect", "occupation"):
            for demo in ("The Black person", "The White person"):
                for lab, share in (("negative", 0.2), ("neutral", 0.3), ("positive", 0.5)):
                    rows.append({"source": src, "context": ctx, "demographic": demo, "label": lab,
                                 "n": 50, "share": share, "share_lo": share - 0.1,
                                 "share_hi": share + 0.1})
    d = pd.DataFrame(rows)
    fig2 = F.figure2({"regard": d, "sentiment": d}, list(dict.fromkeys(d["source"])), {},
                     paper_rows={"GPT-2 (paper's samples)": "1", "LM 1B (paper's samples)": "2",
                                 "Annotated samples (paper's GPT-2)": "3"},
                     classifier=RCL.CLASSIFIER_STAND_IN,
                     annotated="Annotated samples (paper's GPT-2)")
    sup = " ".join(fig2._suptitle.get_text().split())
    assert RCL.CLASSIFIER_STAND_IN in sup and "0.05" in sup
    assert "row (3): its annotated samples that carry both annotations, regard and sentiment from the paper's annotations" in sup
    assert "chose them by VADER, 3 positive and 3 negative per template" in sup
    titles = [a.get_title() for a in fig2.axes]
    assert any(t.startswith("(1a)") for t in titles) and any(t.startswith("(M1a)") for t in titles)
    assert F.drawn_rows(fig2) == ["1", "2", "3", "M1", "M2"]
    assert any(t.startswith("(3a)") and "regard (annotations), respect" in t for t in titles)
    for name, fig in (("regard_fig1", fig1), ("regard_fig2", fig2)):
        marks = legend_marks(fig)
        assert marks and all(marks), f"{name}: a legend entry has no mark"
        save_figure(fig, tmp_path, name)
        from PIL import Image

        with Image.open(tmp_path / f"{name}.png") as im:
            w, h = im.size
        assert 600 <= w <= 2600 and 300 <= h <= 2600, f"{name} is {w} x {h} px"


def test_lstm_baseline_trains_to_the_same_weights_twice_in_a_row():
    """Figure 1's LSTM (torch) on a small slice: two trainings in a row, the same seed, give
    identical predictions (seeded initialisation and batch order; no
    nondeterministic kernel on CPU)."""
    import torch

    from nlgbias.regard import baselines as B

    texts = ["XYZ was known for kind deeds .", "XYZ was known for cruel acts .",
             "XYZ had a job as a thief .", "XYZ had a job as a nurse .", "XYZ was good",
             "XYZ was bad"] * 4
    labels = [1, -1, -1, 0, 1, -1] * 4
    torch.use_deterministic_algorithms(True)
    try:
        a = B.train_lstm(texts, labels, seed=1, epochs=2, batch_size=5)
        b = B.train_lstm(texts, labels, seed=1, epochs=2, batch_size=5)
    finally:
        torch.use_deterministic_algorithms(False)
    assert a(texts).tolist() == b(texts).tolist()


def test_committed_figure2_draws_every_graded_row():
    """Figure 2 as the notebook draws it from the committed label shares: its rows from the
    paper ((1), (2), (3)) are the rows the committed claims table grades."""
    import re

    from nlgbias.paths import project_root
    from nlgbias.regard import experiments as X
    from nlgbias.regard import figures as F
    from nlgbias.regard import report as T

    res = project_root() / "results"
    shares = pd.read_csv(res / "regard_fig2_label_shares.csv")
    claims = pd.read_csv(res / "regard_claims_sheng.csv")
    graded = {m.group(1) for sec in claims["section"] if (m := re.search(r"Figure 2 \((\d)\)", sec))}
    assert graded == {"1", "2", "3"}
    dists = {m: g.drop(columns="metric") for m, g in shares.groupby("metric")}
    sources = list(dict.fromkeys(shares["source"]))
    assert X.ANNOTATED_SOURCE in sources
    fig = F.figure2(dists, sources, {}, paper_rows={T.GPT2_SRC: "1", T.LM1B_SRC: "2",
                                                   X.ANNOTATED_SOURCE: "3"},
                    annotated=X.ANNOTATED_SOURCE)
    drawn = F.drawn_rows(fig)
    assert {r for r in drawn if r.isdigit()} == graded


def test_figure1_text_says_how_a_penalty_tie_was_broken():
    from nlgbias.regard import report as T

    tab = pd.DataFrame({"alpha": [0.1, 0.01, 1.0], "dev_mean": [0.8467, 0.8467, 0.80]})
    assert T._alpha_tie(tab) == ("; tied on dev (0.8467) with 0.01: a tie goes to the larger "
                                 "penalty, nlgbias.metrics.regard.sort_alpha_table")
    assert T._alpha_tie(tab.assign(dev_mean=[0.85, 0.84, 0.8])) == ""


def _bold_prepared(per_group: int) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """Real BOLD WIKI sentences of Table 5's four groups (``per_group`` each, seed 0), every
    other one only its continuation (the words after the prompt, no name), prepared as BOLD
    §3.3 does: the person's name, where the text writes it in full, reads ``Person``
    (``text_raw``: the text); a text without it reads the same with every placeholder."""
    import re

    from nlgbias.bold import texts as BT

    groups = {**paper.BOLD_GROUPS["gender"], **paper.BOLD_GROUPS["race"]}
    w = BT.wiki_texts(None, per_group, 0)
    w = w[w["group"].isin(list(groups))].reset_index(drop=True)
    w["text"] = np.where(w.index % 2 == 1, w["continuation"], w["text"])
    text = [re.sub(rf"\b{re.escape(n)}\b", "Person", t) for t, n in zip(w["text"], w["name"], strict=True)]
    return {"WIKI": w.assign(text=text, text_raw=w["text"])}, groups


def _one_pass_equals_chunks(enc_new: R.Encoder, enc_old: R.Encoder, head, card, src, groups, tmp_path,
                            chunk: int = 7):
    """``classify_placeholders`` (one pass of the encoder over every placeholder's texts) against
    the per-chunk arrangement (``one_pass=False``, another encoder instance), ``chunk``-text
    chunks in both (the head's sums depend on its rows' count, the encoder's features on no batch-mate):
    the same bytes; every distinct text is scored once."""
    from nlgbias.regard import experiments as X

    new = X.classify_placeholders(src, groups, R.RegardClassifier(enc_new, head, dict(card)),
                                  tmp_path / "new", ("Person", "XYZ"), chunk_size=chunk)
    clf_old = R.RegardClassifier(enc_old, head, dict(card))
    old = {p: X.classify(X.bold_texts(src, groups, p), "masked", clf_old, tmp_path / "old",
                         chunk_size=chunk, one_pass=False) for p in ("Person", "XYZ")}
    cols = ["negative", "neutral", "positive", "regard", "regard_seed0", "regard_seed1", "compound"]
    for p in ("Person", "XYZ"):
        assert new[p]["masked"].tolist() == old[p]["masked"].tolist()
        for c in cols:
            assert np.array_equal(new[p][c].to_numpy(), old[p][c].to_numpy()), (p, c)
    frames = [new[p][["masked"]] for p in ("Person", "XYZ")]
    texts = [t for f in frames for t in f["masked"]]
    shared = set(new["Person"]["masked"]) & set(new["XYZ"]["masked"])
    assert 0 < len(shared) < len(new["Person"])  # the continuations name no one
    cached = X.regard_cache(clf_old, tmp_path / "new", "masked").load()
    # each placeholder's texts scored once, in its own chunks (a shared text once per placeholder)
    assert len(cached) == sum(f["masked"].nunique() for f in frames)
    assert X.embed_pending(clf_old, frames, tmp_path / "new", "masked", chunk_size=chunk) == 0
    assert X.embed_pending(clf_old, frames, tmp_path / "none yet", "masked", chunk_size=chunk) == len(set(texts))
    return new


def test_classify_placeholders_in_one_pass_gives_the_chunks_bytes(tiny_encoder, tmp_path):
    src, groups = _bold_prepared(per_group=8)
    texts = ["XYZ was known for kind .", "XYZ was known for cruel .", "XYZ a job as thief .",
             "XYZ a job as nurse ."]
    clf = R.fit_vote(texts * 3, [1, -1, -1, 0] * 3, encoder=tiny_encoder, seeds=[0, 1], alpha=0.1)
    _one_pass_equals_chunks(tiny_encoder, R.Encoder(tiny_encoder.name), clf.head, clf.card, src,
                            groups, tmp_path)


@pytest.mark.slow
def test_classify_placeholders_in_one_pass_gives_the_chunks_bytes_with_minilm(tmp_path):
    """The same with the real stand-in's encoder (MiniLM; two seeds' heads trained briefly on
    Sheng's train split) on 24 real BOLD texts: their token counts differ, so the two
    arrangements batch them differently (partial batches filled with other copies;
    8-row batches instead of 64, so the few texts' filled batches stay short)."""
    from nlgbias.regard import experiments as X

    src, groups = _bold_prepared(per_group=6)
    sp = X.splits(D.load_regard_annotations())
    enc = R.Encoder("minilm", batch_size=8)
    heads = [R.fit(sp["train"]["text"], sp["train"]["label"], encoder=enc, seed=s, alpha=0.1,
                   max_iter=30).head for s in (0, 1)]
    new = _one_pass_equals_chunks(enc, R.Encoder("minilm", batch_size=8), R.SeedVote(heads, [0, 1]),
                                  {"encoder": "minilm", "seed": "vote of seeds [0, 1]"}, src, groups,
                                  tmp_path, chunk=16)
    assert len(new["Person"]) == 24 and set(new["Person"]["regard"]) <= set(R.LABELS)


def _counting_fits(monkeypatch) -> list:
    """Patch the MLP head's ``fit`` to record each call (then fit as before)."""
    from sklearn.neural_network import MLPClassifier

    calls, fit = [], MLPClassifier.fit

    def counted(self, x, y):
        calls.append((self.alpha, self.random_state, len(x)))
        return fit(self, x, y)

    monkeypatch.setattr(MLPClassifier, "fit", counted)
    return calls


def test_a_stored_head_is_a_fresh_fits_bytes(tiny_encoder, monkeypatch):
    """train_classifier fits each (alpha, seed) head once: the vote's heads are the selection's
    of the chosen penalty, pickled byte for byte as a fresh fit of the same seed and penalty;
    a store hit needs the same estimator parameters (their types too) and training data."""
    import pickle

    from nlgbias.regard import experiments as X

    texts = ["XYZ was known for kind .", "XYZ was known for cruel .", "XYZ a job as thief .",
             "XYZ a job as nurse ."]
    ann = pd.DataFrame({"text": texts * 4, "label": [1, -1, -1, 0] * 4,
                        "split": ["train"] * 8 + ["dev"] * 4 + ["test"] * 4})
    enc = R.Encoder(tiny_encoder.name)  # an empty store
    calls = _counting_fits(monkeypatch)
    clf = X.train_classifier(ann, enc, seeds=[1, 2], alphas=[0.1, 1.0], profile="audit")
    assert sorted(calls) == [(0.1, 1, 8), (0.1, 2, 8), (1.0, 1, 8), (1.0, 2, 8)]
    assert len(enc.heads) == 4
    alpha = float(clf.card["head"].split("alpha=")[1].split(",")[0])
    tr = X.splits(ann)["train"]
    for s, head in zip([1, 2], clf.head.heads, strict=True):
        fresh = R.fit(tr["text"], tr["label"], encoder=enc, seed=s, alpha=alpha).head
        assert fresh is not head and pickle.dumps(fresh) == pickle.dumps(head)
        assert R.head_digest(fresh) == R.head_digest(head)
    assert len(calls) == 6 and len(enc.heads) == 4  # the fresh fits (no store) kept nothing
    # the same fit through the store is the stored head; another seed, penalty (or its type)
    # or training set is a new fit
    again = R.fit(tr["text"], tr["label"], encoder=enc, seed=1, alpha=alpha, heads=enc.heads)
    assert again.head is clf.head.heads[0] and len(calls) == 6
    for kw in ({"seed": 3, "alpha": alpha}, {"seed": 1, "alpha": 0.01}, {"seed": 1, "alpha": 1}):
        R.fit(tr["text"], tr["label"], encoder=enc, heads=enc.heads, **kw)
    R.fit(tr["text"], [1, -1, -1, 1] * 2, encoder=enc, seed=1, alpha=alpha, heads=enc.heads)
    assert len(calls) == 10 and len(enc.heads) == 8


def test_figure1_runs_and_the_vote_fit_each_head_once_resumed_or_not(tiny_encoder, tmp_path,
                                                                     monkeypatch):
    """Notebook 06's order (figure1_runs, then train_classifier at the chosen penalty with our
    Figure 1 row) fits each (training set, alpha, seed) head once; a call resumed from the
    alpha cache (no heads in hand: a fresh encoder) fits our runs' heads itself and gives the
    same tables, and the same vote, byte for byte."""
    import pickle

    from interrupt_worker import annotations

    from nlgbias.regard import experiments as X

    ann, seeds = annotations(), [0, 1]
    kw = {"grid": (0.001, 0.1), "lstm_epochs": 1}
    calls = _counting_fits(monkeypatch)

    def notebook(enc: R.Encoder, cache_dir=None):
        runs, sel = X.figure1_runs(ann, seeds, encoder=enc, cache_dir=cache_dir, **kw)
        alpha = float(sel.loc[0, "alpha"])
        ours = A.figure1_summary(runs, {"dev": 16, "test": 16}, settings_tried=2).set_index("model").loc[X.OURS]
        clf = X.train_classifier(ann, enc, alpha=alpha, seeds=seeds, alphas=list(kw["grid"]),
                                 ours=ours, profile="smoke")
        return runs, sel, clf

    runs0, sel0, clf0 = notebook(R.Encoder(tiny_encoder.name), tmp_path)
    n_train = {"train": 48, "train_other": 16}
    assert len(calls) == 2 * 2 + 2  # the selection's 2 alphas x 2 seeds, train_other's 2 seeds
    assert {n for _, _, n in calls} == set(n_train.values())
    (folder,) = tmp_path.glob("figure1_*")
    for shard in (folder / "runs").glob("shard-*.parquet"):
        shard.unlink()  # interrupted after the selection: its accuracies only
    del calls[:]
    runs1, sel1, clf1 = notebook(R.Encoder(tiny_encoder.name), tmp_path)
    assert len(calls) == 2 * 2  # (ours, train_other) x 2 seeds at the chosen alpha
    assert runs1.equals(runs0)
    assert sel1.drop(columns="dev_per_seed").equals(sel0.drop(columns="dev_per_seed"))
    assert sel1["dev_per_seed"].tolist() == sel0["dev_per_seed"].tolist()
    assert pickle.dumps(clf1.head) == pickle.dumps(clf0.head)
    assert R.head_digest(clf1.head) == R.head_digest(clf0.head)
    assert {k: v for k, v in clf1.card.items() if k != "date"} == {
        k: v for k, v in clf0.card.items() if k != "date"}
