"""Benchmark, side by side in one run: the tuning loss with the output layer on the labelled
positions only (:func:`nlgbias.holistic.tuning._train_loss`, :func:`~nlgbias.holistic.tuning._example_nll`)
against the model's own ``labels=`` loss and the whole logits (what they replaced; the same bytes).

SmolLM2-135M, float32, LoRA r=4 on every linear layer, 2 torch threads: a training step (forward
and backward) on batches of 8 random pairs of 35-55 tokens whose last 8-24 are labelled (as
notebook 08's responses are), and an evaluation batch of 16; each repetition runs both, in turn.

Run: ``.venv/bin/python benchmarks/bench_tuning_loss.py [--reps 5]`` on a quiet machine.
Measured 2026-11-28 17:36 UTC, quiet: a training step 2.39 -> 2.21 s (0.925x), an evaluation batch
2.24 -> 2.19 s (0.98x, within the noise).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from nlgbias.hardware import set_torch_threads
from nlgbias.holistic import tuning as TU
from nlgbias.models import load_model


def batch(n: int, g: torch.Generator):
    """``n`` right-padded rows of 35-55 random tokens, the last 8-24 of each labelled."""
    lens = torch.randint(35, 56, (n,), generator=g).tolist()
    ids = torch.zeros((n, max(lens)), dtype=torch.long)
    att = torch.zeros_like(ids)
    labels = torch.full_like(ids, -100)
    for i, length in enumerate(lens):
        ids[i, :length] = torch.randint(100, 40000, (length,), generator=g)
        att[i, :length] = 1
        r = int(torch.randint(8, 25, (1,), generator=g))
        labels[i, length - r:length] = ids[i, length - r:length]
    return ids, att, labels


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    set_torch_threads(2)
    model = TU._prepare(load_model("smollm2-135m").model, TU.TuningConfig(lora_r=4, seed=0))
    g = torch.Generator().manual_seed(0)
    train_batches = [batch(8, g) for _ in range(4)]
    eval_batches = [batch(16, g) for _ in range(2)]

    def own_loss(b):
        model.zero_grad()
        model(input_ids=b[0], attention_mask=b[1], labels=b[2]).loss.backward()

    def labelled_loss(b):
        model.zero_grad()
        TU._train_loss(model, *b).backward()

    def whole_logits(b):
        with torch.no_grad():
            logits = model(input_ids=b[0], attention_mask=b[1]).logits[:, :-1].float()
            target = b[2][:, 1:]
            nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target.clamp(min=0),
                                                    reduction="none")
            (nll * (target != -100)).sum(1)

    def labelled_nll(b):
        with torch.no_grad():
            TU._example_nll(model, *b)

    times: dict[str, list[float]] = {}
    for mode, pairs, batches in (("train", (("own loss", own_loss), ("labelled", labelled_loss)), train_batches),
                                 ("eval", (("whole logits", whole_logits), ("labelled", labelled_nll)), eval_batches)):
        model.train(mode == "train")
        for _, f in pairs:  # warm-up, not timed
            f(batches[0])
        for _ in range(args.reps):
            for name, f in pairs:
                t0 = time.perf_counter()
                for b in batches:
                    f(b)
                times.setdefault(f"{mode}: {name}", []).append((time.perf_counter() - t0) / len(batches))
    for key, v in times.items():
        print(f"{key}: median {statistics.median(v):.3f} s per batch ({', '.join(f'{x:.2f}' for x in v)})")
    for mode, base in (("train", "own loss"), ("eval", "whole logits")):
        ratio = statistics.median(times[f"{mode}: labelled"]) / statistics.median(times[f"{mode}: {base}"])
        print(f"{mode}: labelled / {base} = {ratio:.3f}")


if __name__ == "__main__":
    main()
