"""Benchmark: how much compute this machine's cores give the project's heavy kinds of work,
side by side in ONE run: one process at 1 thread, one process at 2 threads, and two processes at
once (1 thread each, then 2 threads each). The work (SmolLM2-135M):

- ``train``: notebook 08's LoRA training step (float32, r=4, forward and backward on a batch of
  8 pairs of 35-55 tokens whose last 8-24 are labelled; :func:`nlgbias.holistic.tuning._train_loss`);
- ``score``: notebook 05's likelihood scoring (bfloat16 forward, no gradient, 32 sentences of 24 tokens);
- ``decode``: a plain transformers decoding loop (bfloat16, 32 rows, one token per step with a
  key/value cache over a 48-token prompt; 16 steps per iteration);
- ``engine``: the project's generation engine as notebook 02 runs it (:class:`nlgbias.generation.CausalGenerator`,
  bfloat16, 32 BOLD prompts, up to 30 new tokens, the first sentence kept, seed 0; one
  iteration generates all 32), built once per thread count.

Two long-lived worker processes per kind load the model once; every configuration is run in each
repetition, the order rotated, each worker warmed up at its thread count before it is timed.
Printed, per kind: iterations per second summed over the processes (median of the repetitions)
and each configuration over one process at 1 thread. Two processes at 1 thread each over one
process at 1 thread is how many cores' worth of this work the machine gives (2.0 on two
independent cores); one process at 2 threads over 1 thread is what a second thread gives a run.

Run: ``.venv/bin/python benchmarks/bench_cores.py --reps 3 --out benchmarks/results/cores_smollm2``
with nothing else computing (the first three kinds took about 15 min on 2026-11-28; ``--kinds`` and
``--configs`` choose fewer).
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

KINDS = ("train", "score", "decode", "engine")
#: (processes, threads per process)
CONFIGS = ((1, 1), (1, 2), (2, 1), (2, 2))


# --------------------------------------------------------------------------- the worker
def _work(kind: str):
    """A function running one iteration of ``kind`` on SmolLM2-135M."""
    import torch

    from nlgbias.models import load_model

    g = torch.Generator().manual_seed(0)
    if kind == "train":
        from bench_tuning_loss import batch

        from nlgbias.holistic import tuning as TU

        model = TU._prepare(load_model("smollm2-135m").model, TU.TuningConfig(lora_r=4, seed=0))
        batches = [batch(8, g) for _ in range(4)]
        state = {"i": 0}

        def step():
            b = batches[state["i"] % len(batches)]
            state["i"] += 1
            model.zero_grad()
            TU._train_loss(model, *b).backward()
        return step
    if kind == "engine":
        from bench_generate import SETTINGS, workload_prompts

        from nlgbias.generation import CausalGenerator, DecodingParams

        lm = load_model("smollm2-135m", dtype=torch.bfloat16)
        prompts, params, engines = workload_prompts(32), DecodingParams(
            max_new_tokens=30, first_sentence=True, **SETTINGS), {}

        def generate():
            n = torch.get_num_threads()
            if n not in engines:
                engines[n] = CausalGenerator(lm, params, batch_size=32, num_threads=n)
            engines[n].generate(prompts, seeds=0)
        return generate
    model = load_model("smollm2-135m", dtype="bfloat16").model.eval()
    if kind == "score":
        ids = torch.randint(100, 40000, (32, 24), generator=g)

        def forward():
            with torch.no_grad():
                model(input_ids=ids)
        return forward
    prompt = torch.randint(100, 40000, (32, 48), generator=g)

    def decode():
        with torch.no_grad():
            out = model(input_ids=prompt, use_cache=True)
            cache, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
            for _ in range(16):
                out = model(input_ids=tok, past_key_values=cache, use_cache=True)
                cache, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
    return decode


def worker(kind: str) -> None:
    """Load the work, print READY, then per ``run THREADS ITERS`` line on stdin: warm up at that
    thread count, print ``set``, wait for a ``go`` line, run ITERS iterations and print the
    seconds they took."""
    import importlib

    importlib.import_module("nlgbias")  # before torch: it sets OpenMP's wait policy
    from nlgbias.hardware import set_torch_threads

    sys.path.insert(0, str(Path(__file__).parent))
    work = _work(kind)
    print("READY", flush=True)
    for line in sys.stdin:
        _, threads, iters = line.split()
        set_torch_threads(int(threads))
        work()
        print("set", flush=True)
        sys.stdin.readline()  # go
        t0 = time.perf_counter()
        for _ in range(int(iters)):
            work()
        print(json.dumps({"seconds": time.perf_counter() - t0}), flush=True)


# --------------------------------------------------------------------------- the driver
def start(kind: str) -> subprocess.Popen:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "NLGBIAS_PROGRESS": "off"}
    p = subprocess.Popen([sys.executable, __file__, "--worker", kind], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    line = p.stdout.readline()
    if line.strip() != "READY":
        raise RuntimeError(f"the {kind} worker did not start (printed {line!r})")
    return p


def measure(workers: list[subprocess.Popen], threads: int, iters: int) -> float:
    """Iterations per second summed over ``workers``, run at once at ``threads`` threads each."""
    for p in workers:
        p.stdin.write(f"run {threads} {iters}\n")
        p.stdin.flush()
    for p in workers:
        assert p.stdout.readline().strip() == "set"
    for p in workers:
        p.stdin.write("go\n")
        p.stdin.flush()
    return sum(iters / json.loads(p.stdout.readline())["seconds"] for p in workers)


def label(procs: int, threads: int) -> str:
    return f"{procs} process{'es' if procs > 1 else ''} x {threads} thread{'s' if threads > 1 else ''}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", choices=KINDS)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    ap.add_argument("--iters", type=int, default=6, help="iterations per process per measurement")
    ap.add_argument("--configs", nargs="+", default=[f"{p}x{t}" for p, t in CONFIGS],
                    help="PROCESSESxTHREADS, e.g. 1x1 1x2 (default: all four)")
    ap.add_argument("--out", help="write PREFIX.md and PREFIX.json")
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)
    configs = tuple(tuple(int(x) for x in c.split("x")) for c in args.configs)
    if (1, 1) not in configs:
        ap.error("--configs must include 1x1 (the other configurations are stated over it)")
    from nlgbias import provenance

    machine = provenance.describe(provenance.machine())
    t_start, load0 = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()
    rows = []
    for kind in args.kinds:
        workers = [start(kind), start(kind)]
        try:
            for rep in range(args.reps):
                k = rep % len(configs)
                for procs, threads in configs[k:] + configs[:k]:
                    rate = measure(workers[:procs], threads, args.iters)
                    rows.append({"kind": kind, "rep": rep, "processes": procs, "threads": threads,
                                 "per_second": round(rate, 4), "load": round(os.getloadavg()[0], 2)})
                    print(f"{kind} rep {rep} {label(procs, threads)}: {rate:.3f} iterations/s",
                          flush=True)
        finally:
            for p in workers:
                p.kill()
    wait = {k: os.environ[k] for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT") if k in os.environ}
    lines = [f"Run {t_start}; {machine}; torch threads as listed; OpenMP's wait: "
             f"{', '.join(f'{k}={v}' for k, v in wait.items()) or 'the project default'}. "
             f"{args.reps} repetitions (configurations rotated), {args.iters} iterations per process "
             f"per measurement; load average at start {load0[0]:.2f}, at end {os.getloadavg()[0]:.2f}.",
             "", "| work | " + " | ".join(label(p, t) for p, t in configs) + " |",
             "|---|" + "---:|" * len(configs)]
    summary = {}
    for kind in args.kinds:
        med = {(p, t): statistics.median(r["per_second"] for r in rows if r["kind"] == kind
                                         and (r["processes"], r["threads"]) == (p, t))
               for p, t in configs}
        base = med[(1, 1)]
        summary[kind] = {label(p, t): {"per_second": round(v, 4), "over_1x1": round(v / base, 2)}
                         for (p, t), v in med.items()}
        lines.append(f"| {kind} | " + " | ".join(f"{v:.3f}/s ({v / base:.2f}x)" for v in med.values())
                     + " |")
    text = "\n".join(lines)
    print("\n" + text)
    if args.out:
        Path(args.out + ".md").write_text(
            f"# Cores: what a second thread and a second process give (`python benchmarks/bench_cores.py "
            f"{' '.join(sys.argv[1:])}`)\n\nIterations per second summed over the processes (median), and "
            f"over one process at 1 thread.\n\n{text}\n")
        Path(args.out + ".json").write_text(json.dumps(
            {"machine": machine, "started": t_start, "summary": summary, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
