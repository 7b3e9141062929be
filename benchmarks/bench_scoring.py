"""Log-likelihood scoring against lm-evaluation-harness on identical requests.

CrowS-Pairs' sentences (all 3,016 by default) scored by SmolLM2 in float32, each sentence after
the tokenizer's BOS token (lm-evaluation-harness's convention: its ``hf`` model prepends the
prefix token to an empty context; ours with ``start_token=bos``). Ours runs the notebook's path
(``stereoset.crows_pairs.causal_pair_scores`` through ``nlgbias.lm``'s ``hf`` backend, which
also computes the shared-tokens scores; a sentence sharing a prefix with a longer one runs
only its tail on that one's key/value cache); the peer runs lm-evaluation-harness 0.4.13's ``hf``
model's ``loglikelihood`` on ``("", sentence)`` requests. The two run side by side in one
process, interleaved (peer, ours, peer, ours, ...), ``--reps`` times each; the model load and
the scoring are timed apart, and two ratios are reported (scoring alone; load + scoring), each
the median over repetitions. The values must be equal (largest difference printed; every pair
decided alike). The load average is sampled during each run: other jobs may share the machine.
Writes ``benchmarks/results/scoring_vs_lm_eval.{json,md}``.

    .venv/bin/pip install 'lm-eval==0.4.13' -c constraints.txt     # the peer (not a dependency)
    .venv/bin/python benchmarks/bench_scoring.py [--sentences N] [--reps 3] [--batch-size 32]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import threading
import time
from pathlib import Path

import numpy as np

MODEL = "smollm2-135m"
PEER, OURS = "lm-evaluation-harness", "nlgbias"


def _pairs(n: int | None):
    from nlgbias.datasets.crows_pairs import load_crows_pairs

    pairs = load_crows_pairs()
    return pairs.iloc[: (n + 1) // 2] if n else pairs


def _texts(pairs) -> list[str]:
    return [t for p in pairs[["sent_more", "sent_less"]].itertuples(index=False) for t in p]


def ours(pairs, batch_size: int) -> tuple[np.ndarray, float, float]:
    """(sentence log-likelihoods in sent_more, sent_less, ... order, load s, scoring s)."""
    from nlgbias.lm import get_lm
    from nlgbias.stereoset.crows_pairs import causal_pair_scores

    t0 = time.perf_counter()
    lm = get_lm(MODEL, dtype="float32", start_token="bos", batch_size=batch_size)
    t1 = time.perf_counter()
    scores = causal_pair_scores(lm, pairs)
    t2 = time.perf_counter()
    v = np.column_stack([scores["sent_more_score"], scores["sent_less_score"]]).ravel()
    return v, t1 - t0, t2 - t1


def shared_prefix_stats(pairs) -> dict:
    """How many of the distinct sequences run only their tail (``likelihood.share_plan``)
    and how many tokens go through the model, against all of them."""
    from transformers import AutoTokenizer

    from nlgbias.likelihood import encode_many, share_plan
    from nlgbias.models import cache_dir

    tok = AutoTokenizer.from_pretrained(str(cache_dir(MODEL)))
    seqs = list(dict.fromkeys(tuple([tok.bos_token_id, *e])
                              for e in encode_many(tok, _texts(pairs))))
    plan = share_plan(seqs)
    saved = sum(n + 1 for _, n in plan.values())  # a tail runs without its last token
    total = sum(len(s) for s in seqs)
    return {"sequences": len(seqs), "members": len(plan), "tokens": total,
            "tokens_run": total - saved}


def lm_eval_hf(pairs, batch_size: int) -> tuple[np.ndarray, float, float]:
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM as PeerHFLM

    from nlgbias.models import cache_dir

    t0 = time.perf_counter()
    peer = PeerHFLM(pretrained=str(cache_dir(MODEL)), dtype="float32", batch_size=batch_size,
                    device="cpu")
    t1 = time.perf_counter()
    reqs = [Instance(request_type="loglikelihood", doc={}, arguments=("", t), idx=i)
            for i, t in enumerate(_texts(pairs))]
    out = peer.loglikelihood(reqs, disable_tqdm=True)
    t2 = time.perf_counter()
    return np.array([lp for lp, _ in out]), t1 - t0, t2 - t1


class _LoadSampler:
    """The 1-minute load average, sampled every few seconds while a run lasts."""

    def __init__(self, every: float = 5.0):
        self.every, self.samples = every, []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.every):
                return

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.samples.append(os.getloadavg()[0])


def _table(res: dict) -> str:
    med = res["median"]
    def each(k):
        return ", ".join("{:.1f} + {:.1f}".format(r["load"], r["scoring"]) for r in res["runs"][k])

    def loads(k):
        return ", ".join("{:.1f}-{:.1f}".format(*r["load_average"]) for r in res["runs"][k])

    sent = f" --sentences {res['sentences_arg']}" if res.get("sentences_arg") else ""
    rows = "".join(f"| {k} | {med[k]['load']:.1f} | {med[k]['scoring']:.1f} | "
                   f"{med[k]['total']:.1f} | {each(k)} | {loads(k)} |\n" for k in (PEER, OURS))
    return (
        f"# CrowS-Pairs scoring: nlgbias vs lm-evaluation-harness {res['peer_version']} (`hf` model)\n\n"
        f"Written by `.venv/bin/python benchmarks/bench_scoring.py{sent} --reps {res['reps']}` on "
        f"{res['date']}. {res['sentences']:,} CrowS-Pairs sentences ({res['pairs']:,} pairs), "
        f"SmolLM2-135M float32, batch {res['batch_size']}, the BOS start token on both sides, "
        f"{res['threads']} torch threads; {res['machine']}. Both in one process, interleaved "
        f"({PEER}, nlgbias, {PEER}, ...), {res['reps']} repetitions each; medians. The model "
        f"load (from the same safetensors copy) and the scoring are timed apart. The machine is "
        f"shared: other jobs ran beside this one, so the load average (1-minute, sampled every 5 s "
        f"during each run, min-max) is given per run; the interleaving exposes both sides to the "
        f"same load.\n\n"
        f"| | load s (median) | scoring s (median) | load + scoring s (median) | each run (load + scoring) | load average per run |\n"
        f"|---|---:|---:|---:|---|---|\n{rows}\n"
        f"Ratio lm-evaluation-harness / nlgbias, scoring alone: **{res['ratio_scoring']:.2f}**; "
        f"model load included: **{res['ratio_total']:.2f}** (> 1: ours is faster; per repetition: "
        f"{', '.join(f'{x:.2f}' for x in res['ratio_scoring_per_rep'])} and "
        f"{', '.join(f'{x:.2f}' for x in res['ratio_total_per_rep'])}).\n\n"
        f"Equal values: the largest difference of a sentence's log-likelihood is "
        f"{res['largest_abs_difference_nats']:.1e} nats; pairs decided alike (sent_more higher): "
        f"{res['pairs_decided_alike']:,} of {res['pairs']:,}.\n\n"
        f"What ours does on the same requests (`likelihood.causal_token_logprobs`): one tokenizer "
        f"call for all sentences, each distinct token sequence once, longest first in "
        f"right-padded batches, the output head and log-softmax on the scored positions only "
        f"(not on padding), the ids passed on rather than re-tokenised, and shared prefixes "
        f"(float32): a sentence sharing at least 4 leading tokens with a longer one (a pair up "
        f"to its edit) runs only its tail on that one's key/value cache "
        f"({res['shared_prefix']['members']:,} of {res['shared_prefix']['sequences']:,} "
        f"sequences; {res['shared_prefix']['tokens_run']:,} of "
        f"{res['shared_prefix']['tokens']:,} tokens through the model).\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sentences", type=int, default=0, help="0: all 3,016")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "scoring_vs_lm_eval"))
    args = ap.parse_args(argv)
    import lm_eval

    from nlgbias.hardware import default_threads, set_torch_threads
    from nlgbias.provenance import describe, machine

    set_torch_threads()
    pairs = _pairs(args.sentences or None)
    ours(pairs.iloc[:4], args.batch_size)  # writes the float copy the peer loads; warms imports
    lm_eval_hf(pairs.iloc[:4], args.batch_size)
    runs = {PEER: [], OURS: []}
    values = {}
    for _ in range(args.reps):
        for name, fn in ((PEER, lm_eval_hf), (OURS, ours)):
            with _LoadSampler() as s:
                v, load, scoring = fn(pairs, args.batch_size)
            runs[name].append({"load": load, "scoring": scoring, "total": load + scoring,
                               "load_average": [min(s.samples), max(s.samples)]})
            values[name] = v
            print(f"{name}: load {load:.1f} s, scoring {scoring:.1f} s, load average "
                  f"{min(s.samples):.1f}-{max(s.samples):.1f}", flush=True)
    a, b = values[OURS], values[PEER]
    more_a, more_b = a[0::2] > a[1::2], b[0::2] > b[1::2]
    med = {k: {m: float(np.median([r[m] for r in v])) for m in ("load", "scoring", "total")}
           for k, v in runs.items()}
    per = {m: [p[m] / o[m] for p, o in zip(runs[PEER], runs[OURS])] for m in ("scoring", "total")}
    res = {"date": dt.date.today().isoformat(), "peer_version": lm_eval.__version__,
           "sentences": len(a), "sentences_arg": args.sentences, "pairs": int(len(more_a)), "batch_size": args.batch_size,
           "reps": args.reps, "threads": default_threads(), "machine": describe(machine()),
           "runs": runs, "median": med,
           "ratio_scoring": med[PEER]["scoring"] / med[OURS]["scoring"],
           "ratio_total": med[PEER]["total"] / med[OURS]["total"],
           "ratio_scoring_per_rep": per["scoring"], "ratio_total_per_rep": per["total"],
           "largest_abs_difference_nats": float(np.max(np.abs(a - b))),
           "pairs_decided_alike": int((more_a == more_b).sum()),
           "shared_prefix": shared_prefix_stats(pairs)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(res, indent=2) + "\n")
    md = _table(res)
    out.with_suffix(".md").write_text(md)
    print(md)
    return 0 if res["pairs_decided_alike"] == res["pairs"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
