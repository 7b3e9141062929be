"""Execute every notebook in the `smoke` profile with papermill, each once.

The notebooks run in a fresh project root (a temporary folder, conftest's ``smoke_root``) so
no stale output can pass for a new one; what a notebook reads from earlier notebooks
(``nlgbias.outputs``' ``needs``) was written there by those notebooks, each run once. After a
run, every output the notebook declares in :mod:`nlgbias.outputs` must exist, be non-empty and
have its declared columns. The notebooks that take models run with the profile's models and a
local folder model (conftest's ``folder_root``).
"""

from __future__ import annotations

import pytest
from notebook_chain import BY_NAME, MODEL_NOTEBOOKS, NOTEBOOKS

from nlgbias import outputs
from nlgbias.paths import paths_for


@pytest.mark.notebooks
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_smoke_and_writes_its_declared_outputs(nb, smoke_root):
    root, run = smoke_root
    executed = run(nb.stem)
    assert executed.exists()
    problems = outputs.check(outputs.get(nb.stem), paths_for("smoke", root))
    assert not problems, "\n".join(problems)


def test_every_notebook_declares_its_outputs():
    for nb in NOTEBOOKS:
        out = outputs.get(nb.stem)
        assert out.tables or out.figures or out.data, nb.stem
        assert all(d in BY_NAME for d in out.needs), (nb.stem, out.needs)


@pytest.mark.notebooks
@pytest.mark.parametrize("nb", MODEL_NOTEBOOKS, ids=[p.stem for p in MODEL_NOTEBOOKS])
def test_notebook_runs_with_a_local_folder_model(nb, folder_root):
    """Adapting a notebook to one's own checkpoint: ``-p models '[..., "/path/to/folder"]'`` runs,
    and no output file name or table label carries the folder's path. The session's one smoke
    chain runs each notebook that takes models with the profile's models and the folder model."""
    root, run, folder_model = folder_root
    run(nb.stem)
    # the profile's models and the folder, or (None) every model whose generations are there
    assert str(folder_model) in (run.params(nb.stem).get("models") or [str(folder_model)])
    written = [p for p in root.rglob("*") if p.is_file()]
    assert written
    assert not [p for p in written if "my model" in p.name or "checkpoints" in str(p.relative_to(root))]
    assert [p for p in written if "local-my-model-" in p.name]  # the folder model's own files
    for table in (root / "results" / "smoke").glob("*.csv"):
        assert str(folder_model) not in table.read_text(encoding="utf-8"), table.name
