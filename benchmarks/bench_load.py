"""Benchmark: the engine on a quiet and on a loaded machine. A 2-thread generation run
(SmolLM2-135M, bfloat16, BOLD prompts, notebook 02's decoding) alone ("quiet") and beside another
2-thread process of the same kind doing the same work ("loaded"), interleaved repetitions, side
by side in ONE run, per thread policy:

- ``auto``: the project's default. ``import nlgbias`` sets libgomp's full spin
  (``GOMP_SPINCOUNT=300000``, ``hardware.GOVERNED_SPIN_COUNT``), and the process's load governor
  (``hardware.LoadGovernor``, a daemon thread reading the load every 0.25 s) makes every idle
  OpenMP thread spin only briefly (libgomp's throttled count, 100 pauses) while another process
  keeps half a core or more busy (``hardware.SpinThrottle``); 2 threads throughout (the same
  bytes, tested);
- ``auto-bounded``: the default until 2026-11-29, the same governor over a bounded spin
  (``GOMP_SPINCOUNT=10000``, ``hardware.SPIN_COUNT``);
- ``auto-one``: the default until 2026-11-27 (``NLGBIAS_UNDER_LOAD=one``): the wait policy chosen from
  the load as the process starts (quiet: the bounded spin; loaded: ``OMP_WAIT_POLICY=PASSIVE``),
  and a decode step at 1 thread while another process keeps a core busy;
- ``passive``: the default before ``auto-one``, ``OMP_WAIT_POLICY=PASSIVE`` and 2 threads throughout
  (``NLGBIAS_DECODE_THREADS=fixed``): idle OpenMP threads sleep;
- ``spin``: libgomp's default (``GOMP_SPINCOUNT=300000``: idle threads spin ~300,000 pauses
  before they sleep) and 2 threads throughout, without the governor;
- ``one`` (not run unless named in ``--policies``): 1 thread throughout, a reference for what
  one core does (its prefill sums differ from 2 threads', so its rows are not compared).
- ``auto-started-loaded`` (not run unless named): ``auto`` in a worker started while another
  2-thread worker generates (under ``auto-one`` such a worker chose PASSIVE and kept it; under
  ``auto`` the start no longer matters).

Each policy runs in its own long-lived worker process (the variables must be set before torch
loads), which loads the model once and generates the same prompts on every repetition; the
load is a second worker of the same policy generating in a loop. Printed: tokens/s per
repetition (with the decode steps per thread count and the wait policy in force), the medians,
**loaded / quiet** per policy, each policy's quiet speed over ``spin``'s, the machine's load
average at the start and the end (other jobs on a shared machine count: "quiet" means no load
of ours), and whether every repetition wrote the same rows (sha1 of the texts; a policy must not
change a byte). ``--out PREFIX`` also writes ``PREFIX.md`` and ``PREFIX.json``.

Run (nothing else on the machine; about 13 min with these arguments):
``.venv/bin/python benchmarks/bench_load.py --prompts 48 --reps 6 --out benchmarks/results/load_smollm2``.
The targets: ``auto`` at least ``spin``'s quiet speed, and loaded at least 85 % of its own quiet.

Earlier runs (2-thread ``passive`` vs ``spin`` only): on a shared machine (load average 3.7-7.1,
2026-11-24) passive 232 tok/s quiet / 223 loaded, spin 36 / 8; on a quiet AMD EPYC passive
213 / 190 (89 %), spin 294 / 71 (24 %), a bounded spin (``GOMP_SPINCOUNT=10000``) 298 / 58.
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

#: each policy's environment (``auto``: none, the project chooses)
POLICIES = {
    "auto": {"NLGBIAS_DECODE_THREADS": "auto"},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE", "NLGBIAS_DECODE_THREADS": "fixed"},
    "spin": {"GOMP_SPINCOUNT": "300000", "NLGBIAS_DECODE_THREADS": "fixed"},
    "one": {"NLGBIAS_THREADS": "1", "NLGBIAS_DECODE_THREADS": "fixed"},
    "auto-started-loaded": {"NLGBIAS_DECODE_THREADS": "auto"},
    "auto-one": {"NLGBIAS_DECODE_THREADS": "auto", "NLGBIAS_UNDER_LOAD": "one"},
    "auto-bounded": {"GOMP_SPINCOUNT": "10000", "NLGBIAS_DECODE_THREADS": "auto"},
}
#: policies whose worker process starts while another worker generates (``auto`` then chooses
#: its wait policy from a busy machine: PASSIVE), and keeps that choice when the load stops
STARTED_UNDER_LOAD = {"auto-started-loaded": "auto"}
#: the policies run by default (2 threads: the rows must be identical across them)
DEFAULT_POLICIES = ["auto", "auto-bounded", "spin"]


# --------------------------------------------------------------------------- the worker
def worker(n_prompts: int, loop: bool) -> None:
    """Load SmolLM2 (bf16, $NLGBIAS_THREADS threads), print READY, then generate ``n_prompts`` BOLD prompts:
    once per ``run`` line on stdin (printing a JSON line), or forever with ``loop``."""
    import hashlib
    import importlib

    importlib.import_module("nlgbias")  # before torch: it sets OpenMP's wait policy
    import torch

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_generate import SETTINGS, workload_prompts

    from nlgbias.generation import CausalGenerator, DecodingParams
    from nlgbias.models import load_model

    lm = load_model("smollm2-135m", dtype=torch.bfloat16)
    prompts = workload_prompts(n_prompts)
    params = DecodingParams(max_new_tokens=30, first_sentence=True, **SETTINGS)

    def once() -> dict:
        eng = CausalGenerator(lm, params, batch_size=32, num_threads=int(os.environ["NLGBIAS_THREADS"]))
        t0 = time.perf_counter()
        out = eng.generate(prompts, seeds=0)
        sec = time.perf_counter() - t0
        sha = hashlib.sha1("\x00".join(c.text for c in out).encode()).hexdigest()[:12]
        return {"tok_s": eng.tokens_generated / sec, "seconds": sec, "sha": sha, "wait": wait,
                "steps": {**{str(k): v for k, v in sorted(eng.threads.steps.items())},
                          **({"throttled": eng.threads.throttled} if eng.threads.throttled else {})}}

    wait = (f"GOMP_SPINCOUNT={os.environ['GOMP_SPINCOUNT']}" if "GOMP_SPINCOUNT" in os.environ
            else f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}")

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
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "NLGBIAS_DECODE_THREADS", "NLGBIAS_UNDER_LOAD")}
    env.update({"NLGBIAS_THREADS": "2", **POLICIES[policy]}, NLGBIAS_PROGRESS="off",
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


def summary(res: dict, policies: list[str]) -> dict:
    """Per policy: the median, min and max tokens/s quiet and loaded, loaded / quiet, and the
    quiet speed over ``spin``'s (when ``spin`` ran)."""
    out = {}
    for pol in policies:
        q = [r["tok_s"] for r in res[(pol, "quiet")]]
        lo = [r["tok_s"] for r in res.get((pol, "loaded"), [])] or [float("nan")] * len(q)
        out[pol] = {"quiet": statistics.median(q), "quiet_range": [min(q), max(q)],
                    "loaded": statistics.median(lo), "loaded_range": [min(lo), max(lo)],
                    "loaded_over_quiet": statistics.median(lo) / statistics.median(q),
                    # within a repetition the two conditions ran back to back: robust to the
                    # machine's drift between repetitions
                    "loaded_over_quiet_per_rep": statistics.median(b / a for a, b in zip(q, lo))}
    if "spin" in out:
        sq = [r["tok_s"] for r in res[("spin", "quiet")]]
        for pol in policies:
            q = [r["tok_s"] for r in res[(pol, "quiet")]]
            out[pol]["quiet_over_spin"] = out[pol]["quiet"] / out["spin"]["quiet"]
            out[pol]["quiet_over_spin_per_rep"] = statistics.median(a / b for a, b in zip(q, sq))
    return out


def table(summ: dict) -> list[str]:
    lines = ["| policy | quiet tok/s (min-max) | loaded tok/s (min-max) | loaded / quiet | quiet / spin's quiet "
             "| loaded / quiet, per repetition (median) | quiet / spin's quiet, per repetition (median) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for pol, s in summ.items():
        ratio = f"{s['quiet_over_spin']:.2f}" if "quiet_over_spin" in s else ""
        rep_ratio = f"{s['quiet_over_spin_per_rep']:.2f}" if "quiet_over_spin_per_rep" in s else ""
        lines.append(f"| {pol} | {s['quiet']:.1f} ({s['quiet_range'][0]:.1f}-{s['quiet_range'][1]:.1f}) "
                     f"| {s['loaded']:.1f} ({s['loaded_range'][0]:.1f}-{s['loaded_range'][1]:.1f}) "
                     f"| {s['loaded_over_quiet']:.0%} | {ratio} | {s['loaded_over_quiet_per_rep']:.0%} | {rep_ratio} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--policies", nargs="+", default=DEFAULT_POLICIES, choices=list(POLICIES))
    ap.add_argument("--out", help="also write OUT.md and OUT.json (e.g. benchmarks/results/load_smollm2)")
    ap.add_argument("--quiet-only", action="store_true",
                    help="only the quiet condition, the policies interleaved repetition by repetition (no "
                         "loaded run between two quiet ones)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--loop", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.prompts, a.loop)
        return
    t_start = time.time()
    load0 = os.getloadavg()
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} "
          f"({os.cpu_count()} cores)", flush=True)
    workers = {}
    for pol in a.policies:
        load = start(STARTED_UNDER_LOAD[pol], a.prompts, loop=True) if pol in STARTED_UNDER_LOAD else None
        try:
            workers[pol] = start(pol, a.prompts, loop=False)
        finally:
            if load is not None:
                load.kill()
                load.wait()
    res: dict[tuple[str, str], list[dict]] = {}
    try:
        for rep in range(a.reps):
            # each repetition starts one policy later: a policy measured right after a loaded run
            # of spinning threads meets a machine that has just burnt both cores (slower on this
            # VM), so no policy keeps that place
            for pol in a.policies[rep % len(a.policies):] + a.policies[:rep % len(a.policies)]:
                for cond in ("quiet",) if a.quiet_only else ("quiet", "loaded"):
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
    summ = summary(res, a.policies)
    shas = {r["sha"] for (pol, _), rs in res.items() if pol != "one" for r in rs}
    head = (f"SmolLM2-135M bf16, {a.prompts} BOLD prompts, {a.reps} interleaved repetitions; "
            "median tokens/s (min-max)")
    same = (f"rows identical across the 2-thread policies, conditions and repetitions: {len(shas) == 1} "
            f"({', '.join(sorted(shas))})")
    loads = (f"load average at start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
             f"at end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print(f"\n{loads}\n{head}")
    print("\n".join(table(summ)))
    print(same)
    if a.out:
        import platform

        import torch

        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t_start))
        cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
        cmd = "python benchmarks/bench_load.py " + " ".join(sys.argv[1:])
        md = [f"# The engine quiet and loaded, per thread policy (`{cmd}`)", "",
              f"Run {when}, {time.time() - t_start:.0f} s; {cpu}, {os.cpu_count()} cores, torch {torch.__version__}. "
              f"{head}. Loaded: beside another process of the same policy generating the same prompts in a loop. "
              f"{loads} (1-minute; the benchmark's own workers count). Per repetition below: the wait policy in "
              "force and the decode steps per thread count.", "", *table(summ), "", same, "",
              "| policy | condition | rep | tok/s | wait | decode steps per thread count | load average |",
              "|---|---|---:|---:|---|---|---:|"]
        for (pol, cond), rs in res.items():
            for r in rs:
                md.append(f"| {pol} | {cond} | {r['rep']} | {r['tok_s']:.1f} | {r['wait']} | "
                          f"{', '.join(f'{k}: {v}' for k, v in r['steps'].items())} | {r['loadavg']} |")
        Path(f"{a.out}.md").write_text("\n".join(md) + "\n")
        Path(f"{a.out}.json").write_text(json.dumps(
            {"command": cmd, "started": when, "seconds": time.time() - t_start, "load_start": load0,
             "load_end": load1, "summary": summ, "rows_identical": len(shas) == 1,
             "runs": [r for rs in res.values() for r in rs]}, indent=1) + "\n")
        print(f"wrote {a.out}.md and {a.out}.json")


if __name__ == "__main__":
    main()
