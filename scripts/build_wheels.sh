#!/usr/bin/env bash
# Compiled optional backends, built once per machine into a wheel cache and reused by every clone.
#   bash scripts/build_wheels.sh            build llama-cpp-python (if its wheel is not cached) and
#                                           install it with its server extra into .venv
#   bash scripts/build_wheels.sh --cached   install only if the wheel is already cached (no compile;
#                                           what a clean clone's set-up calls)
# The wheel is compiled for this CPU (-march=native, GGML_NATIVE): the cache is per machine,
# $NLGBIAS_WHEELS or ~/.cache/nlgbias-wheels. Compiling took ~20 min on a loaded 2-core machine;
# it runs under `nice` so that other jobs keep their speed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WHEELS="${NLGBIAS_WHEELS:-$HOME/.cache/nlgbias-wheels}"
LLAMA_VERSION="0.3.36"
PY="$ROOT/.venv/bin/python"
mkdir -p "$WHEELS"
[[ -x "$PY" ]] || { echo "[wheels] no .venv: run scripts/setup_env.sh first" >&2; exit 1; }

wheel="$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [[ -z "$wheel" ]]; then
  if [[ "${1:-}" == "--cached" ]]; then
    echo "[wheels] llama-cpp-python $LLAMA_VERSION is not in $WHEELS: skipped (build it with scripts/build_wheels.sh)"
    exit 0
  fi
  echo "[wheels] compiling llama-cpp-python $LLAMA_VERSION for this CPU into $WHEELS (~20 min)"
  CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF" \
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    nice -n 10 "$PY" -m pip wheel --no-deps --no-binary llama-cpp-python \
      -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
  wheel="$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1)"
fi
echo "[wheels] installing $wheel with the project's llamacpp extra"
"$PY" -m pip install -q "$wheel" -e "$ROOT[llamacpp]" 2> >(grep -v "is ignored" >&2)
"$PY" -c "import llama_cpp, llama_cpp.server; print('[wheels] llama_cpp', llama_cpp.__version__)"
