"""The scorecard is rebuilt from fixture verdict tables (issue 11/13)."""

from __future__ import annotations

import pandas as pd

from nlgbias import scorecard


def test_scorecard_from_fixture_tables(tmp_path):
    pd.DataFrame({"section": ["6.1.2", "6.1.3", "6.2"],
                  "claim": ["male > female negative", "race toxicity differs", "gender ratio"],
                  "paper": ["p < 0.01", "p < 0.001", "2.29"], "this run": ["p = 0.019", "p = 0.73", "n/a"],
                  "verdict": ["replicates", "does not replicate", "not testable here"]}
                 ).to_csv(tmp_path / "bold_sec6_1_verdicts.csv", index=False)
    pd.DataFrame({"claim": ["GPT2 has the best icat"], "source": ["Table 4"], "paper": ["73.98"],
                  "ours": ["69.3"], "verdict": ["differs"]}
                 ).to_csv(tmp_path / "stereoset_replication_summary.csv", index=False)
    pd.DataFrame({"model": ["a"], "lms": [1.0]}).to_csv(tmp_path / "stereoset_table4.csv", index=False)
    card = scorecard.collect(tmp_path)
    assert card["verdict"].tolist() == ["reproduced", "differs", "not comparable", "differs"]
    assert card["this run"].tolist() == ["p = 0.019", "p = 0.73", "n/a", "69.3"]
    c = scorecard.counts(card)
    assert c.loc["bold"].tolist() == [1, 1, 1, 3] and c.loc["all", "claims"] == 4
    path = scorecard.write(tmp_path)
    text = path.read_text()
    assert "| BOLD (Dhamala et al. 2021) | 3 | 1 | 1 | 1 |" in text
    assert "[bold_sec6_1_verdicts](bold_sec6_1_verdicts.md)" in text
    assert scorecard.summary_line(card).startswith("**4 claims checked: 1 reproduced, 2 differ")


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
    pd.DataFrame({"claim": ["c"], "paper": ["1"], "ours": ["2"], "verdict": ["differs"]}
                 ).to_csv(tmp_path / "stereoset_replication_summary.csv", index=False)
    folder = tmp_path / "my model"
    folder.mkdir()
    text = scorecard.write(tmp_path, models=["gpt2", str(folder)]).read_text()
    assert "Models: gpt2, my model (`./run_all.sh --models`)" in text
    assert str(tmp_path) not in text
