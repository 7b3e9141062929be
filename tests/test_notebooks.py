"""Execute every notebook in the `smoke` profile with papermill, each on its own.

Every notebook runs in a fresh project root (a temporary folder) so no stale output can pass
for a new one. What a notebook reads from earlier notebooks (``nlgbias.outputs``' ``needs``)
is provided by a session fixture that runs those notebooks first, once, in the same root.
After a run, every output the notebook declares in :mod:`nlgbias.outputs` must exist, be
non-empty and have its declared columns.
"""

from __future__ import annotations

import pytest

from nlgbias import outputs, runner
from nlgbias.paths import paths_for

NOTEBOOKS = runner.notebooks()
BY_NAME = {p.stem: p for p in NOTEBOOKS}


@pytest.fixture(scope="session")
def smoke_root(tmp_path_factory):
    """A fresh project root for the smoke runs, and a runner that executes a notebook once
    (after the notebooks it needs)."""
    root = tmp_path_factory.mktemp("smoke_root")
    done: dict[str, object] = {}

    def run(name: str):
        if name not in done:
            for dep in outputs.get(name).needs:
                run(dep)
            done[name] = runner.execute(BY_NAME[name], "smoke", root / "executed",
                                        {"root": str(root)})
        return done[name]

    return root, run


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
