"""Log-likelihood scoring against lm-evaluation-harness on identical requests.

CrowS-Pairs' sentences (all 3,016 by default) scored by SmolLM2 in float32, each sentence after
the tokenizer's BOS token (lm-evaluation-harness's convention: its ``hf`` model prepends the
prefix token to an empty context; ours with ``start_token=bos``), both sides timed from the
model load to the last score, interleaved, ``--reps`` times each; the values must be equal
(largest difference printed; every pair decided alike). Writes
``benchmarks/results/scoring_crows_smollm2.{json,md}``.

    .venv/bin/pip install 'lm-eval==0.4.13' -c constraints.txt     # the peer (not a dependency)
    .venv/bin/python benchmarks/bench_scoring.py [--sentences N] [--reps 2] [--batch-size 32]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def _texts(n: int | None) -> list[str]:
    from nlgbias.datasets.crows_pairs import load_crows_pairs

    pairs = load_crows_pairs()
    texts = [t for p in pairs[["sent_more", "sent_less"]].itertuples(index=False) for t in p]
    return texts[:n] if n else texts


def ours(texts: list[str], batch_size: int) -> tuple[np.ndarray, float]:
    from nlgbias.lm import get_lm

    t0 = time.perf_counter()
    lm = get_lm("smollm2-135m", dtype="float32", start_token="bos", batch_size=batch_size)
    lps = lm.token_logprobs(texts)
    return np.array([sum(t.logprobs) for t in lps]), time.perf_counter() - t0


def lm_eval_hf(texts: list[str], batch_size: int) -> tuple[np.ndarray, float]:
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM as PeerHFLM

    from nlgbias.models import cache_dir

    t0 = time.perf_counter()
    peer = PeerHFLM(pretrained=str(cache_dir("smollm2-135m")), dtype="float32",
                    batch_size=batch_size, device="cpu")
    reqs = [Instance(request_type="loglikelihood", doc={}, arguments=("", t), idx=i)
            for i, t in enumerate(texts)]
    out = peer.loglikelihood(reqs, disable_tqdm=True)
    return np.array([lp for lp, _ in out]), time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sentences", type=int, default=0, help="0: all 3,016")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "scoring_crows_smollm2"))
    args = ap.parse_args(argv)
    from nlgbias.hardware import default_threads, set_torch_threads
    from nlgbias.provenance import describe, machine

    set_torch_threads()
    texts = _texts(args.sentences or None)
    ours(texts[:8], args.batch_size)  # writes the float copy the peer loads; warms the caches
    times = {"nlgbias": [], "lm-evaluation-harness": []}
    values = {}
    for _ in range(args.reps):
        for name, fn in (("lm-evaluation-harness", lm_eval_hf), ("nlgbias", ours)):
            v, secs = fn(texts, args.batch_size)
            times[name].append(secs)
            values[name] = v
    a, b = values["nlgbias"], values["lm-evaluation-harness"]
    more_a, more_b = a[0::2] > a[1::2], b[0::2] > b[1::2]
    med = {k: float(np.median(v)) for k, v in times.items()}
    res = {"sentences": len(texts), "batch_size": args.batch_size, "reps": args.reps,
           "threads": default_threads(), "machine": describe(machine()),
           "seconds": times, "median_seconds": med,
           "ratio_peer_over_ours": med["lm-evaluation-harness"] / med["nlgbias"],
           "largest_abs_difference_nats": float(np.max(np.abs(a - b))),
           "pairs_decided_alike": int((more_a == more_b).sum()), "pairs": int(len(more_a))}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(res, indent=2) + "\n")
    md = (f"# CrowS-Pairs scoring: nlgbias vs lm-evaluation-harness 0.4.13 (`hf` model)\n\n"
          f"{res['sentences']:,} sentences, SmolLM2-135M float32, batch {args.batch_size}, BOS start "
          f"token on both sides, {res['threads']} threads, {res['machine']}; model load included, "
          f"{args.reps} interleaved repetitions (median).\n\n"
          f"| | median seconds | runs |\n|---|---:|---|\n"
          + "".join(f"| {k} | {med[k]:.1f} | {', '.join(f'{s:.1f}' for s in v)} |\n" for k, v in times.items())
          + f"\nRatio (lm-evaluation-harness / nlgbias): **{res['ratio_peer_over_ours']:.2f}**. Largest "
          f"difference of a sentence's log-likelihood: {res['largest_abs_difference_nats']:.2e} nats; "
          f"pairs decided alike: {res['pairs_decided_alike']} of {res['pairs']}.\n")
    out.with_suffix(".md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
