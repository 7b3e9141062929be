"""Execute every notebook in the `smoke` profile with papermill, in order (they hand results
to each other through files under data/smoke/). A notebook that breaks fails the suite."""

from __future__ import annotations

import pytest

from nlgbias import runner
from nlgbias.paths import project_root

NOTEBOOKS = runner.notebooks()


@pytest.mark.notebooks
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_smoke_profile(nb):
    out_dir = project_root() / "notebooks" / "executed" / "smoke"
    executed = runner.execute(nb, "smoke", out_dir)
    assert executed.exists()
