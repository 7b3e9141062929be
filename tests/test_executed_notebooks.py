"""The executed quick notebooks under notebooks/executed/quick/ are the repository's face on the
web: they must read cleanly. Also: the runner's cleaning step itself."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from nlgbias import runner
from nlgbias.paths import project_root

ROOT = project_root()
EXECUTED = sorted((ROOT / "notebooks" / "executed" / "quick").glob("[0-9][0-9]_*.ipynb"))
_ABS = re.compile(r"(?<![\w.~])/(?:work|tmp|root|home|Users|usr|opt|var)/")
_TRUNCATED_FRAME = re.compile(r"\n\.\.\.\s|\[\d+ rows x \d+ columns\]|\s\.\.\.\s+\.\.\.")


def _texts(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                yield i, "stream", out["text"]
            for mime, val in (out.get("data") or {}).items():
                yield i, mime, val if isinstance(val, str) else json.dumps(val)


def test_every_notebook_has_an_executed_quick_copy_under_5_mb():
    names = {p.name for p in runner.notebooks()}
    assert names == {p.name for p in EXECUTED}, "run ./run_all.sh and commit notebooks/executed/quick"
    for p in EXECUTED:
        assert p.stat().st_size < 5_000_000, f"{p.name}: {p.stat().st_size / 1e6:.1f} MB"


@pytest.mark.parametrize("path", EXECUTED, ids=[p.stem for p in EXECUTED])
def test_executed_notebook_reads_cleanly(path):
    nb = nbformat.read(path, as_version=4)
    problems = []
    for i, mime, text in _texts(nb):
        if mime == "application/vnd.jupyter.widget-view+json":
            problems.append(f"cell {i}: a widget output (progress bar)")
        if _ABS.search(text):
            problems.append(f"cell {i}: an absolute machine path: {_ABS.search(text).group(0)}…")
        if "<pandas.io.formats.style.Styler" in text:
            problems.append(f"cell {i}: a Styler shown as its text fallback")
        if mime == "text/plain" and _TRUNCATED_FRAME.search(text):
            problems.append(f"cell {i}: a truncated DataFrame repr")
        if re.search(r"\b0%\|\s*\|", text):
            problems.append(f"cell {i}: an unfinished progress bar")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and any(o.get("output_type") == "error" for o in cell.outputs):
            problems.append(f"cell {i}: an error")
    assert "start_time" not in json.dumps(nb.metadata.get("papermill", {}))
    assert not problems, "\n".join(problems)


def test_clean_executed_drops_timestamps_widgets_and_paths(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"start_time": "2026-11-22T07:00", "duration": 3.2,
                                "parameters": {"root": str(ROOT)}}
    cell = nbformat.v4.new_code_cell("x")
    cell.metadata["papermill"] = {"start_time": "t", "end_time": "t", "duration": 1.0, "status": "completed"}
    cell.metadata["execution"] = {"iopub.status.busy": "t"}
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={
            "application/vnd.jupyter.widget-view+json": {"model_id": "abc"},
            "text/plain": "generate:   0%|          | 0/10861"}),
        nbformat.v4.new_output("stream", name="stderr",
                               text=f"INFO wrote {ROOT}/results/x.csv from {runner.sys.prefix}/lib/a.py\n"
                                    "score:   0%|          | 0/10 [00:00<?, ?it/s]\rscore: 100%|#| 10/10\n"),
        nbformat.v4.new_output("stream", name="stderr", text="gen:  50%|#   | 1/2 [00:01<00:01]\n"),
    ]
    nb.cells = [cell]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    runner.clean_executed(path, ROOT)
    got = nbformat.read(path, as_version=4)
    assert got.metadata["papermill"] == {"parameters": {"root": "."}}
    assert got.cells[0].metadata == {"papermill": {"status": "completed"}}
    assert [o["output_type"] for o in got.cells[0].outputs] == ["stream"]
    assert got.cells[0].outputs[0]["text"] == "INFO wrote results/x.csv from .venv/lib/a.py\n"


def test_clean_executed_is_independent_of_stream_chunking(tmp_path):
    """The kernel splits a stream into outputs as timing goes, and papermill gives its injected
    cell a random id: the cleaned notebook is the same however it came."""
    def make(chunks, cid):
        nb = nbformat.v4.new_notebook()
        inj = nbformat.v4.new_code_cell("profile = 'quick'", id=cid)
        inj.metadata["tags"] = ["injected-parameters"]
        cell = nbformat.v4.new_code_cell("x", id="c1")
        cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text=t) for t in chunks]
        nb.cells = [inj, cell]
        path = tmp_path / f"{cid}.ipynb"
        nbformat.write(nb, path)
        runner.clean_executed(path, ROOT)
        return path.read_text()

    a = make(["INFO a\n", "INFO b\n"], "5b327dd8")
    b = make(["\nINFO a\nINFO b\n"], "663175ca")
    c = make(["INFO a\n", "s: 100%|#| 10/10\n", "\n", "INFO b\n"], "0000aaaa")
    assert a == b == c
    assert '"text": [\n      "INFO a\\n",\n      "INFO b\\n"' in a
