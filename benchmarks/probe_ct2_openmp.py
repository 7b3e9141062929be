"""Probe: what a CTranslate2 generator does to our engine's speed in the same process.

Our engine (SmolLM2, bfloat16, 2 threads) generates BOLD's workload ``a`` (``bench_engines``'
48 prompts, first-sentence stop) in one process at each stage: before ``ctranslate2`` is
imported, after the import, after a generator (int8, 2 threads) is built, after it has run,
after it has run the whole workload, and after it is deleted. For each: tokens per second, the
CPU ticks each thread of the process used during our run (``/proc/self/task``), and how many
samples of the load governor's state (every 50 ms) found it engaged. Then the libgomp files the
process has mapped, and (``--bindings``) the dynamic linker's report (``LD_DEBUG=bindings``) of
where CTranslate2's library binds ``GOMP_parallel`` in a process that imported torch first.

Run: ``.venv/bin/python benchmarks/probe_ct2_openmp.py [--bindings]`` (about 1 minute).
"""

from __future__ import annotations

import argparse
import gc
import glob
import os
import subprocess
import sys
import threading
import time

import torch
from bench_engines import HF, ct2_folder, workload_prompts
from bench_generate import SETTINGS

from nlgbias import hardware
from nlgbias.models import load_model


def ticks() -> dict[str, int]:
    """CPU ticks (user + system) of each thread of this process."""
    out = {}
    for t in glob.glob(f"/proc/{os.getpid()}/task/*"):
        f = open(t + "/stat").read().rsplit(")", 1)[1].split()
        out[t.rsplit("/", 1)[1]] = int(f[11]) + int(f[12])
    return out


def timed(hf: HF, prompts: list[str], stage: str) -> None:
    engaged: list[bool] = []
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            g = hardware.governor()
            engaged.append(bool(g and g.engaged))
            time.sleep(0.05)

    th = threading.Thread(target=watch)
    a = ticks()
    th.start()
    kept, secs = hf.run(prompts, True)
    stop.set()
    th.join()
    b = ticks()
    busy = sorted((b[k] - a.get(k, 0) for k in b if b[k] - a.get(k, 0) > 0), reverse=True)
    print(f"{stage:<36} {kept / secs:6.0f} tok/s   thread ticks {busy}   governor engaged "
          f"{sum(engaged)}/{len(engaged)}", flush=True)


def mapped_libgomp() -> list[str]:
    with open(f"/proc/{os.getpid()}/maps") as f:
        return sorted({line.split()[-1] for line in f if "libgomp" in line})


_BINDINGS = r"""
import torch, ctranslate2, sys
torch.ones(256, 256) @ torch.ones(256, 256)
g = ctranslate2.Generator(sys.argv[1], device="cpu", compute_type="int8", intra_threads=2)
g.generate_batch([["<|im_start|>", "Hello"]], max_length=4)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindings", action="store_true", help="also run the LD_DEBUG=bindings check")
    args = ap.parse_args()
    lm = load_model("smollm2-135m", dtype=torch.bfloat16)
    prompts = workload_prompts(48)
    hf = HF(lm, 2)
    hf.run(prompts, True)  # warm-up
    timed(hf, prompts, "before ctranslate2 is imported")
    import ctranslate2

    timed(hf, prompts, "after the import")
    gen = ctranslate2.Generator(str(ct2_folder("smollm2-135m", "int8")), device="cpu",
                                compute_type="int8", intra_threads=2, inter_threads=1)
    timed(hf, prompts, "after a generator is built")
    toks = [lm.tokenizer.convert_ids_to_tokens(lm.tokenizer(p)["input_ids"]) for p in prompts]
    gen.generate_batch(toks[:4], max_length=30, sampling_topk=SETTINGS["top_k"])
    timed(hf, prompts, "after it ran 4 prompts")
    gen.generate_batch(toks, max_length=30, max_batch_size=32, sampling_topk=SETTINGS["top_k"])
    timed(hf, prompts, "after it ran the 48 prompts")
    del gen
    gc.collect()
    time.sleep(1)
    timed(hf, prompts, "after the generator is deleted")
    print("libgomp mapped in this process:", *mapped_libgomp(), sep="\n  ")
    if args.bindings:
        env = {**os.environ, "LD_DEBUG": "bindings"}
        proc = subprocess.run([sys.executable, "-c", _BINDINGS, str(ct2_folder("smollm2-135m", "int8"))],
                              env=env, capture_output=True, text=True, timeout=300)
        lines = [ln.strip() for ln in proc.stderr.splitlines()
                 if "libctranslate2" in ln and "`GOMP_parallel'" in ln]
        print("where CTranslate2's library binds GOMP_parallel (torch imported first):",
              *(lines or ["no binding reported"]), sep="\n  ")


if __name__ == "__main__":
    main()
