#!/usr/bin/env bash
# Headless Chromium for the audit report's browser test, from Debian's packages, where this
# machine can install it (root, apt-get; ~30 s). Optional: without it that test is skipped,
# saying why. Idempotent: nothing to do when a Chromium is on the PATH.
set -uo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[browser] no Chromium and no root apt-get here: the report's browser test will be skipped"
  exit 0
fi
echo "[browser] installing Chromium from Debian's packages (the report's browser test)"
install() { timeout 600 apt-get install -y -q --no-install-recommends chromium >/tmp/nlgbias-apt.log 2>&1; }
install || { timeout 300 apt-get update -q >/dev/null 2>&1 && install; } \
  || echo "[browser] apt-get could not install chromium (/tmp/nlgbias-apt.log): the browser test will be skipped"
exit 0
