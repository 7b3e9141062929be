"""``./run_all.sh --models "openai:<URL>#<model>"`` against a real OpenAI-compatible server
started here on 127.0.0.1 (``transformers serve``, which has no prompt log-probabilities) on a
tiny local checkpoint: every notebook runs in the smoke profile with the served model; a notebook
that needs what the server cannot give is skipped with one message naming it (05 and 07's
likelihoods: prompt log-probabilities; 08 tunes weights in this process), and the scorecard of
what ran is written."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from notebook_chain import save_folder_model
from test_openai_backend import serve_folder

from nlgbias.paths import project_root


@pytest.fixture(scope="module")
def tiny_server(tmp_path_factory):
    from transformers.utils.import_utils import is_serve_available

    if not is_serve_available():
        pytest.skip("transformers serve needs fastapi, uvicorn, pydantic and openai: "
                    "pip install -e '.[serve]'")
    folder = str(save_folder_model(tmp_path_factory.mktemp("user") / "my model"))
    yield from serve_folder(folder, tmp_path_factory.mktemp("serve"))


@pytest.mark.notebooks
@pytest.mark.slow
def test_a_served_model_runs_every_notebook_it_can_and_the_scorecard_is_written(tiny_server, tmp_path):
    root = tmp_path / "run"
    cmd = [sys.executable, "-m", "nlgbias.runner", "--profile", "smoke", "--models", tiny_server,
           "-p", "root", str(root)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(cmd, cwd=project_root(), env=env, capture_output=True, text=True,
                          timeout=1800)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "SKIPPED 08_bias_tuning.ipynb" in out and "in this process" in out, out[-3000:]
    assert "SKIPPED 05_stereoset_cat.ipynb" in out and "echo" in out, out[-3000:]
    assert "SKIPPED 07_holistic_gen_bias.ipynb" in out, out[-3000:]
    for nb in ("01", "02", "03", "04", "06"):
        assert list((root / "notebooks" / "executed" / "smoke").glob(f"{nb}_*.ipynb")), nb
    assert (root / "results" / "smoke" / "SCORECARD.md").is_file()
    # the server's URL never reaches a file name or a table
    url = tiny_server.split("#")[0].removeprefix("openai:")
    for table in (root / "results" / "smoke").glob("*.csv"):
        assert url not in table.read_text(encoding="utf-8"), table.name
