"""Python processes started together whose last stdout line is a JSON object: the tests that
compare two runs (other threads, wait policies, hash seeds) run them side by side instead of
one after the other."""

from __future__ import annotations

import json
import subprocess
import sys


def run_at_once(jobs: list[tuple[list[str], dict]], timeout: float = 900) -> list[dict]:
    """Start one ``python -c <code> args...`` per ``(args, env)`` of ``jobs`` (``args`` begins
    with the code) at once and return each one's last stdout line parsed as JSON, in order. A
    job that fails (its stderr's end in the message) or times out leaves no other job running."""
    procs = [subprocess.Popen([sys.executable, "-c", *args], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for args, env in jobs]
    out = []
    try:
        for p in procs:
            stdout, stderr = p.communicate(timeout=timeout)
            assert p.returncode == 0, stderr[-3000:]
            out.append(json.loads(stdout.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
    return out
