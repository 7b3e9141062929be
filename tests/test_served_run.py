"""``./run_all.sh --models "openai:<URL>#<model>"`` against a real OpenAI-compatible server
started here on 127.0.0.1: llama.cpp's server on the project's SmolLM2 GGUF (prompt
log-probabilities, every decoding field), every notebook in the smoke profile with the served
model and the start token sent first (``model_args start_text=...``): the generation
notebooks and those reading their files (01-04, 06) run on it; 08, which tunes weights in this
process, is skipped with one message, and the scorecard of what ran is written. 05's and 07's
likelihoods through a server (one request per sentence: ~20 min at the smoke sizes on two
cores) are tested on the same server's numbers in test_openai_backend.py, and a server without
prompt log-probabilities, ``transformers serve``, by the audit's test there (the likelihood
suites skipped with the server's reason)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_openai_backend import llama_server, smollm2_hf  # noqa: F401  (fixtures)

from nlgbias.paths import project_root


@pytest.mark.notebooks
@pytest.mark.slow
def test_a_served_model_runs_every_notebook_it_can_and_the_scorecard_is_written(llama_server, tmp_path):  # noqa: F811
    root = tmp_path / "run"
    spec = f"openai:{llama_server}#smollm2"
    only = [a for nb in ("01", "02", "03", "04", "06", "08") for a in ("--only", nb)]
    cmd = [sys.executable, "-m", "nlgbias.runner", "--profile", "smoke", "--models", spec, *only,
           "-p", "root", str(root), "-p", "model_args", "start_text=<|endoftext|>,timeout=120"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(cmd, cwd=project_root(), env=env, capture_output=True, text=True,
                          timeout=2400)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "SKIPPED 08_bias_tuning.ipynb" in out and "in this process" in out, out[-3000:]
    for nb in ("01", "02", "03", "04", "06"):
        assert list((root / "notebooks" / "executed" / "smoke").glob(f"{nb}_*.ipynb")), nb
    cards = list(root.rglob("SCORECARD.md"))
    assert cards and "openai:smollm2" in cards[0].read_text(encoding="utf-8")
    for table in root.rglob("*.csv"):  # the server's URL never reaches a table
        assert "127.0.0.1" not in table.read_text(encoding="utf-8"), table.name
