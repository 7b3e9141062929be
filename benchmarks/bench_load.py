"""Benchmark: the engine on a loaded machine. A 2-thread generation run (SmolLM2-135M, bfloat16,
BOLD prompts, notebook 02's decoding) alone ("quiet") and beside another 2-thread process
doing the same work ("loaded"), interleaved repetitions, side by side in ONE run:

- ``passive``: the project's default, ``OMP_WAIT_POLICY=PASSIVE`` (set by ``import nlgbias``):
  idle OpenMP threads sleep;
- ``spin``: libgomp's default before the fix (``GOMP_SPINCOUNT=300000``: idle threads spin
  ~300,000 times before they sleep), both processes.

Each policy runs in its own long-lived worker process (the variable must be set before torch
loads), which loads the model once and generates the same prompts on every repetition; the
load is a second worker of the same policy generating in a loop. Printed: tokens/s per
repetition, the medians, **loaded / quiet** per policy, the machine's load average at the
start and the end (other jobs on a shared machine count: "quiet" means no load of ours), and
whether every repetition wrote the same rows (sha1 of the texts; the policy must not change
a byte).

Run: ``.venv/bin/python benchmarks/bench_load.py [--prompts 64] [--reps 3]``.

Measured here 2026-11-24 (``--prompts 48 --reps 3``; the machine was shared with other
engineers' notebook runs, load average 3.7 at the start, 5.7 at the end, 3.8-7.1 during)::

    policy                    quiet                 loaded  loaded/quiet
    passive     231.5 ( 176.0- 247.1)    222.7 ( 147.3- 264.9)          96%
    spin         36.3 (  15.2-  37.3)      8.4 (   8.3-   8.5)          23%
    passive / spin: quiet 6.38x, loaded 26.38x
    rows identical across policies, conditions and repetitions: True

On a machine without other load, earlier the same day, spinning was faster alone (~590 vs
~380 tok/s on 64 prompts: sleeping threads pay a wake-up per parallel region), and with one
other 2-thread job fell to 14-40 tok/s while passive kept 130-380: set
``OMP_WAIT_POLICY=ACTIVE`` only on a machine you have to yourself.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

POLICIES = {"passive": {"OMP_WAIT_POLICY": "PASSIVE"}, "spin": {"GOMP_SPINCOUNT": "300000"}}


# --------------------------------------------------------------------------- the worker
def worker(n_prompts: int, loop: bool) -> None:
    """Load SmolLM2 (bf16, 2 threads), print READY, then generate ``n_prompts`` BOLD prompts:
    once per ``run`` line on stdin (printing a JSON line), or forever with ``loop``."""
    import hashlib

    import torch

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_generate import SETTINGS, workload_prompts

    from nlgbias.generation import CausalGenerator, DecodingParams
    from nlgbias.models import load_model

    lm = load_model("smollm2-135m", dtype=torch.bfloat16)
    prompts = workload_prompts(n_prompts)
    params = DecodingParams(max_new_tokens=30, first_sentence=True, **SETTINGS)

    def once() -> dict:
        eng = CausalGenerator(lm, params, batch_size=32, num_threads=2)
        t0 = time.perf_counter()
        out = eng.generate(prompts, seeds=0)
        sec = time.perf_counter() - t0
        sha = hashlib.sha1("\x00".join(c.text for c in out).encode()).hexdigest()[:12]
        return {"tok_s": eng.tokens_generated / sec, "seconds": sec, "sha": sha}

    once()  # warm-up (kernel selection, the first-sentence token classes)
    print("READY", flush=True)
    if loop:
        while True:
            once()
    for line in sys.stdin:
        if line.strip() == "run":
            print(json.dumps(once()), flush=True)


# --------------------------------------------------------------------------- the driver
def start(policy: str, n_prompts: int, loop: bool) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(POLICIES[policy], NLGBIAS_THREADS="2", NLGBIAS_PROGRESS="off",
               TOKENIZERS_PARALLELISM="false")
    args = [sys.executable, __file__, "--worker", "--prompts", str(n_prompts)] + (["--loop"] if loop else [])
    p = subprocess.Popen(args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    if line.strip() != "READY":
        raise RuntimeError(f"{policy} worker did not start: {line!r}")
    return p


def measure(p: subprocess.Popen) -> dict:
    p.stdin.write("run\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--loop", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.prompts, a.loop)
        return
    load0 = os.getloadavg()
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} "
          f"({os.cpu_count()} cores)", flush=True)
    workers = {pol: start(pol, a.prompts, loop=False) for pol in a.policies}
    res: dict[tuple[str, str], list[dict]] = {}
    try:
        for rep in range(a.reps):
            for pol in a.policies:
                for cond in ("quiet", "loaded"):
                    load = start(pol, a.prompts, loop=True) if cond == "loaded" else None
                    try:
                        r = measure(workers[pol])
                    finally:
                        if load is not None:
                            load.kill()
                            load.wait()
                    r.update(rep=rep, policy=pol, condition=cond, loadavg=round(os.getloadavg()[0], 2))
                    res.setdefault((pol, cond), []).append(r)
                    print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in r.items()}),
                          flush=True)
    finally:
        for p in workers.values():
            p.stdin.close()
            p.wait()
    load1 = os.getloadavg()
    print(f"\nload average at end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print(f"SmolLM2-135M bf16, 2 threads, {a.prompts} BOLD prompts, {a.reps} interleaved repetitions; "
          "median tokens/s (min-max)")
    print(f"{'policy':<8} {'quiet':>22} {'loaded':>22} {'loaded/quiet':>13}")
    for pol in a.policies:
        q = [r["tok_s"] for r in res[(pol, "quiet")]]
        lo = [r["tok_s"] for r in res[(pol, "loaded")]]
        print(f"{pol:<8} {statistics.median(q):>8.1f} ({min(q):6.1f}-{max(q):6.1f}) "
              f"{statistics.median(lo):>8.1f} ({min(lo):6.1f}-{max(lo):6.1f}) "
              f"{statistics.median(lo) / statistics.median(q):>12.0%}")
    if len(a.policies) == 2:
        qp, qs = (statistics.median(r["tok_s"] for r in res[(p, "quiet")]) for p in a.policies)
        lp, ls = (statistics.median(r["tok_s"] for r in res[(p, "loaded")]) for p in a.policies)
        print(f"{a.policies[0]} / {a.policies[1]}: quiet {qp / qs:.2f}x, loaded {lp / ls:.2f}x")
    shas = {r["sha"] for rs in res.values() for r in rs}
    print(f"rows identical across policies, conditions and repetitions: {len(shas) == 1} ({', '.join(sorted(shas))})")


if __name__ == "__main__":
    main()
