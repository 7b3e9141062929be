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
