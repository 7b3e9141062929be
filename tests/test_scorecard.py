"""The scorecard is rebuilt from claims tables and refuses anything else."""

from __future__ import annotations

import pandas as pd
import pytest

from nlgbias import claims, scorecard
from nlgbias.claims import Comparability


def _claims():
    return [
        claims.value_in_interval(id="bold.ratio", section="6.2", claim="male:female ratio",
                                 paper_value=2.29, estimate=1.89, interval=(1.29, 3.69), n=4,
                                 null=1.0, statistic="ratio"),
        claims.direction(id="bold.neg", section="6.1.2", claim="negative: male > female",
                         paper="p < 0.01", sign=1, estimate=0.017, interval=(0.003, 0.031),
                         pvalue=0.022, paper_alpha=0.01, paper_effect=0.022, n=2000,
                         statistic="share difference", population=10034, unit="texts"),
        claims.tolerance(id="bold.tox", section="6.2", claim="toxicity rank", paper_value=1,
                         estimate=3, tol=0, n=50, statistic="rank",
                         comparability=Comparability.STAND_IN, stand_in="tox-block"),
        claims.direction(id="bold.tox_race", section="6.1.3", claim="toxic: race differs",
                         paper="p < 0.05", sign=1, estimate=0.01, interval=(0.004, 0.016), n=500,
                         statistic="share difference", comparability=Comparability.STAND_IN,
                         stand_in="tox-block", scorer="tox-block"),
        claims.value_in_interval(id="bold.regard_cal", section="T5", claim="positive regard, WIKI",
                                 paper_value=0.378, estimate=0.526, interval=(0.49, 0.56), n=500,
                                 statistic="share", comparability=Comparability.STAND_IN,
                                 stand_in="MiniLM regard", calibrates="regard-minilm"),
    ]


def test_scorecard_counts_the_computed_verdicts_and_lists_checks_apart(tmp_path):
    chk = [claims.check(id="bold.n", section="T1", check="43 groups", kind="data count",
                        expected="43", this_run="43", passed=True)]
    claims.save(_claims(), "bold_claims_sec6", checks=chk, results=tmp_path)
    claims.save([claims.paper_inconsistent(id="ss.t1", section="Table 1", claim="rows sum",
                                           paper="8,498", evidence="rows sum to 8,853",
                                           consistent=False)],
                "stereoset_claims", results=tmp_path)
    pd.DataFrame({"model": ["a"], "lms": [1.0]}).to_csv(tmp_path / "stereoset_table4.csv", index=False)
    card = scorecard.collect(tmp_path)
    assert card["verdict"].tolist() == ["reproduced", "inconclusive", "not comparable", "holds",
                                        "disagrees", "paper inconsistent"]
    rep = scorecard.counts(card, "reproduction")
    assert rep.loc["bold"].tolist() == [1, 0, 1, 0, 0, 2]
    assert rep.loc["all"].tolist() == [1, 0, 1, 0, 1, 3]
    assert scorecard.counts(card, "replication").loc["bold"].tolist() == [1, 0, 0, 1, 0, 2]
    assert scorecard.counts(card, "calibration").loc["all"].tolist() == [0, 1, 0, 0, 1]
    text = scorecard.write(tmp_path).read_text()
    assert "| BOLD (Dhamala et al. 2021) | 2 | 1 | 0 | 1 | 0 | 0 |" in text
    assert "### Checks (not claims): 1, 1 passed" in text
    assert "| 2,463 texts |" in text  # the n the inconclusive row needs, in its unit
    # the replication row scored by tox-block shows that its scorer has no calibration row
    assert "| tox-block: no calibration row |" in text
    assert scorecard.calibration_outcomes(card) == {"regard-minilm": "disagrees on 1 of 1",
                                                    "tox-block": "no calibration row"}
    line = scorecard.summary_line(card)
    assert line.startswith("**Reproduction (like-for-like): 3 rows, 1 reproduced, 0 differs, "
                           "1 inconclusive, 1 paper inconsistent**")
    assert "**Replication on a stand-in: 2 rows, 1 holds, 0 does not hold, 1 not comparable**" in line


def test_every_scorecard_row_has_n_comparability_rule_and_an_enum_verdict(tmp_path):
    claims.save(_claims(), "bold_claims_x", results=tmp_path)
    card = scorecard.collect(tmp_path)
    assert card["verdict"].isin(claims.VERDICTS).all()
    assert card["rule"].isin(list(claims.RULES)).all()
    assert (card["n"].str.len() > 0).all() and (card["comparability"].str.len() > 0).all()


def test_a_free_text_verdict_is_refused_not_mapped(tmp_path):
    df = claims.frame(_claims())
    df.loc[0, "verdict"] = "replicates"
    df.to_csv(tmp_path / "bold_claims_bad.csv", index=False)
    with pytest.raises(ValueError, match="verdicts (not in|outside)"):
        scorecard.collect(tmp_path)


def test_the_committed_scorecard_is_built_from_valid_claims_tables():
    from nlgbias.paths import project_root

    results = project_root() / "results"
    card = scorecard.collect(results)  # raises on an invalid table
    assert not [p.name for p in results.glob("*.csv")
                if {"claim", "verdict"} <= set(pd.read_csv(p, nrows=0).columns)
                and "_claims" not in p.stem], "a verdict table outside the claims registry"
    assert card["verdict"].isin(claims.VERDICTS).all()


def test_models_flag_reaches_each_notebook_as_it_takes_them():
    from nlgbias import runner

    nbs = {p.stem[:2]: p for p in runner.notebooks()}
    assert runner.notebook_parameters(nbs["08"]) >= {"model", "profile", "root"}
    given = {"models": ["my-lm", "other"], "root": "/x"}
    assert runner.for_notebook(nbs["01"], given) == {"root": "/x"}
    assert runner.for_notebook(nbs["05"], given) == {"models": ["my-lm", "other"], "root": "/x"}
    assert runner.for_notebook(nbs["07"], given)["ppl_models"] == ["my-lm", "other"]
    assert runner.for_notebook(nbs["08"], given) == {"model": "my-lm", "root": "/x"}
    assert runner.for_notebook(nbs["08"], {**given, "model": "b"})["model"] == "b"
    assert runner.models_root(["org/My Model", "x"]).parts[-2:] == ("runs", "org-My-Model+x")


def test_scorecard_names_the_models_of_a_models_run(tmp_path):
    claims.save(_claims()[:1], "stereoset_claims", results=tmp_path)
    folder = tmp_path / "my model"
    folder.mkdir()
    text = scorecard.write(tmp_path, models=["gpt2", str(folder)]).read_text()
    assert "Models: gpt2, my model (`./run_all.sh --models`)" in text
    assert str(tmp_path) not in text


def test_the_committed_headline_counts_only_like_for_like_and_every_stand_in_scorer_is_calibrated():
    from nlgbias.paths import project_root

    card = scorecard.collect(project_root() / "results")
    rep = card[card["tally"] == "reproduction"]
    assert (rep["comparability"] == "like-for-like").all()
    assert not card.loc[card["tally"] != "reproduction", "verdict"].isin(
        ["reproduced", "differs", "inconclusive"]).any()
    uncalibrated = {k: v for k, v in scorecard.calibration_outcomes(card).items()
                    if v == "no calibration row"}
    assert not uncalibrated, f"stand-in scorers without a calibration row: {sorted(uncalibrated)}"
    need = pd.to_numeric(card["n_needed"], errors="coerce")
    assert (need.isna() | (need <= pd.to_numeric(card["population"], errors="coerce"))).all()


def test_rows_sensitive_to_an_analysis_choice_are_flagged_and_counted(tmp_path):
    from dataclasses import replace

    rows = _claims()
    rows[4] = replace(rows[4], sensitive_to="lexicon choices: thresholds 0.2 agrees")
    claims.save(rows, "bold_claims_sec6", results=tmp_path)
    # a table without any sensitive row keeps exactly the claims columns
    claims.save([replace(_claims()[0], id="regard.x")], "regard_claims_x", results=tmp_path)
    assert list(pd.read_csv(tmp_path / "regard_claims_x.csv").columns) == list(claims.CLAIM_COLUMNS)
    assert claims.SENSITIVE_COLUMN in pd.read_csv(tmp_path / "bold_claims_sec6.csv").columns
    card = scorecard.collect(tmp_path)
    assert card[claims.SENSITIVE_COLUMN].tolist().count("") == len(card) - 1
    text = scorecard.write(tmp_path).read_text()
    assert ("outcome changes inside the stated range of an analysis choice (column *sensitive "
            "to* below; the outcome counted is the one graded at the stated value): BOLD (Dhamala "
            "et al. 2021): 1 of 1 (1 disagrees).") in text
    assert "| lexicon choices: thresholds 0.2 agrees |" in text


def test_an_undecided_calibration_recount_needs_no_more_texts(tmp_path):
    """A recount of the paper's own texts by a scorer with training seeds: undecided where the
    seeds fall both within and beyond the margin; more texts cannot change it, so its n needed
    says so (not 'paper gives no effect size'); a sample of the paper's texts keeps its n."""
    kw = dict(section="T5", claim="positive regard", paper_value=0.378, statistic="share",
              scorer="regard-minilm", stand_in="MiniLM", margin=0.0945)
    whole = claims.calibration_recount(id="regard.cal_whole", estimate=0.525,
                                       seeds=[0.417, 0.45, 0.5, 0.55, 0.605], n=2048,
                                       n_texts=2048, population=2048, **kw)
    sample = claims.calibration_recount(id="regard.cal_sample", estimate=0.45,
                                        interval=(0.41, 0.49), n=500, n_texts=500,
                                        population=2048, unit="WIKI texts", **kw)
    assert str(whole.verdict) == str(sample.verdict) == "undecided"
    claims.save([whole, sample], "regard_claims_cal", results=tmp_path)
    card = scorecard.collect(tmp_path).set_index("id")
    assert scorecard._needed(card.loc["regard.cal_whole"]) == (
        "a recount: more texts cannot change it; depends on the training seed")
    assert scorecard._needed(card.loc["regard.cal_sample"]).endswith("WIKI texts")
    text = scorecard.write(tmp_path).read_text()
    assert "the exception is a calibration recount of the paper's own texts" in text
