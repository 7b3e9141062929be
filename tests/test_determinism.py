"""Same profile and seed -> the same bytes: two runs of the generation notebook (the
session's smoke run and one more), and the StereoSet scorer twice on one predictions file."""

from __future__ import annotations

import json

import pytest

from nlgbias import outputs, runner
from nlgbias.paths import paths_for


@pytest.mark.notebooks
def test_two_smoke_runs_of_notebook_02_write_the_same_bytes(smoke_root, tmp_path):
    """The session's smoke run of 02 (conftest's ``smoke_root``) and a second run in a fresh
    root write the same bytes."""
    # both runs start from the model cache here; that a fresh clone's first (de-quantising) load
    # gives the very model the cache gives is tests/test_models.py::test_first_gguf_load_...
    nb = next(p for p in runner.notebooks() if p.stem.startswith("02_"))
    out = outputs.get(nb.stem)
    first, run = smoke_root
    run(nb.stem)
    second = tmp_path / "b"
    runner.execute(nb, "smoke", second / "executed", {**run.params(nb.stem), "root": str(second)})
    a, b = (paths_for("smoke", r) for r in (first, second))
    for table in out.tables:
        if table in out.volatile:
            continue
        for ext in ("csv", "md"):
            fa, fb = a.results / f"{table}.{ext}", b.results / f"{table}.{ext}"
            assert fa.read_bytes() == fb.read_bytes(), f"{fa.name} differs between two runs"
    gens = sorted(p.name for p in a.generations.glob("*.parquet") if p.name.startswith("bold__"))
    assert gens == sorted(p.name for p in b.generations.glob("*.parquet"))
    for name in gens:
        assert (a.generations / name).read_bytes() == (b.generations / name).read_bytes(), name


def test_stereoset_scorer_twice_gives_identical_json(tmp_path):
    from nlgbias.stereoset.__main__ import main as cli
    from nlgbias.stereoset.evaluation import load_gold, sentence_table

    ids = sentence_table(load_gold())["id"].tolist()
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps({"intrasentence": [{"id": i, "score": (k * 7919) % 13 / 13}
                                                   for k, i in enumerate(ids)],
                                 "intersentence": []}))
    for name in ("a.json", "b.json"):
        assert cli(["score", "--predictions", str(preds), "--out", str(tmp_path / name)]) == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
