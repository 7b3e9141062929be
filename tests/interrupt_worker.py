"""A worker the interruption tests kill with SIGKILL at random points (see test_interrupt.py).

``python tests/interrupt_worker.py MODE OUT_DIR MODEL_DIR`` does one long job through the
project's resumable caches and writes its final files (names starting ``t__``) into OUT_DIR:

- ``generate`` / ``shards``: generation, local and in three shards;
- ``score``: 03's cached text scorer;
- ``likelihood``: StereoSet CAT scoring (official predictions JSON) and HolisticBias
  perplexity through the shared likelihood engine;
- ``train``: 06's classifier experiments (Figure 1 alpha selection and seed runs) and the
  saved classifier (MODEL_DIR: a tiny encoder folder);
- ``tune``: 08's bias tuning (LoRA on a tiny chat LM; MODEL_DIR unused);
- ``generate-bf16`` / ``likelihood-bf16``: generation and likelihood scoring with a real
  offline model (MODEL_DIR: its registered name, e.g. ``smollm2-135m``) in bfloat16 at 2
  threads, where a row's numbers depend on the rows batched with it.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from nlgbias.lm.hf_backend import HFLM

WORDS = "the a man woman he she is was worked as known for person people good bad".split()


def prompts(n: int = 240) -> pd.DataFrame:
    rows = [(f"p{i:04d}", " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(1 + i % 6)),
             f"group{i % 5}") for i in range(n)]
    return pd.DataFrame(rows, columns=["prompt_id", "prompt", "group"])


def main(mode: str, out: Path, model: str) -> None:
    from nlgbias.generation import DecodingParams, generate_dataset

    params = DecodingParams(max_new_tokens=12, do_sample=True, top_k=5)
    if mode == "generate-bf16":
        generate_dataset(real_prompts(12), model, out, dataset="t", samples_per_prompt=2, seed=3,
                         params=DecodingParams(max_new_tokens=12, top_k=40, top_p=0.95,
                                               first_sentence=True),
                         batch_size=3, chunk_size=5, dtype="bfloat16", num_threads=2,
                         loaded=_LOADED.get(model), progress=False)
    elif mode == "likelihood-bf16":
        likelihood(out, model, bf16=True)
    elif mode in ("generate", "shards"):
        shards = ["0/3", "1/3", "2/3"] if mode == "shards" else [None]
        for shard in shards:
            generate_dataset(prompts(), model, out, dataset="t", samples_per_prompt=2, seed=3,
                             params=params, batch_size=4, chunk_size=8, dtype="float32",
                             num_threads=1, shard=shard, progress=False)
    elif mode == "score":
        from nlgbias.scoring import score_texts

        def slow_len(chunk: pd.DataFrame) -> pd.DataFrame:
            time.sleep(0.05)
            return pd.DataFrame({"n_chars": chunk["prompt"].str.len().to_numpy() * 3})

        scored = score_texts(prompts(), "prompt_id", slow_len, out / "cache", chunk_size=4,
                             progress=False)
        from nlgbias.io import write_parquet

        write_parquet(scored.reset_index(drop=True), out / "t__scores.parquet")
    elif mode == "likelihood":
        likelihood(out, model)
    elif mode == "train":
        train_classifier(out, model)
    elif mode == "tune":
        tune(out)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


def _slow(fn, seconds: float = 0.05):
    """``fn`` with a pause per call, so a kill lands between cached chunks."""
    def slow(*a, **kw):
        time.sleep(seconds)
        return fn(*a, **kw)
    return slow


@contextmanager
def slowed(module, name: str, seconds: float = 0.05):
    """``module.name`` slowed by :func:`_slow` inside the block (restored after: the test
    runs the uninterrupted reference in its own process)."""
    real = getattr(module, name)
    setattr(module, name, _slow(real, seconds))
    try:
        yield
    finally:
        setattr(module, name, real)


def cats(n: int = 48) -> pd.DataFrame:
    """StereoSet-shaped CATs (both tasks) made of the tiny vocabulary."""
    rows = []
    for i in range(n):
        w = [WORDS[(i * 5 + k) % len(WORDS)] for k in range(8)]
        task = "intrasentence" if i % 2 else "intersentence"
        ctx = " ".join(w[:3 + i % 3])
        sents = [" ".join([*w[:2 + i % 4], x]) for x in ("good", "bad", "the")]
        rows.append({"task": task, "id": f"c{i:03d}", "target": w[0], "bias_type": "gender",
                     "context": ctx, "stereotype": sents[0], "stereotype_id": f"c{i:03d}s",
                     "anti_stereotype": sents[1], "anti_stereotype_id": f"c{i:03d}a",
                     "unrelated": sents[2], "unrelated_id": f"c{i:03d}u"})
    return pd.DataFrame(rows)


#: real models loaded before READY (``preload``), by name
_LOADED: dict = {}


def real_prompts(n: int = 20) -> pd.DataFrame:
    """BOLD-like prompts of different lengths for a real model."""
    heads = ["The nurse said that", "An Asian American actor who", "My grandfather worked as a",
             "Christianity is a religion that", "The engineer", "She was known for her work on the",
             "In the 1920s, the jazz musician", "Socialism as a political ideology",
             "The young Black woman from Chicago", "Atheism"]
    rows = [(f"q{i:03d}", heads[i % len(heads)] + ("" if i < len(heads) else " and then"))
            for i in range(n)]
    return pd.DataFrame(rows, columns=["prompt_id", "prompt"])


def real_cats(n: int = 24) -> pd.DataFrame:
    """StereoSet-shaped CATs in plain English for a real model."""
    people = ["nurse", "engineer", "grandfather", "musician", "chess player", "mother"]
    rows = []
    for i in range(n):
        p = people[i % len(people)]
        task = "intrasentence" if i % 2 else "intersentence"
        ctx = f"The {p} walked in{' late' * (i % 3)}."
        sents = [f"The {p} was {w}." for w in ("caring", "rude", "purple")] if i % 2 else \
            [f"{s} {x}" for s, x in (("They", "were kind."), ("They", "were cold."), ("The", "sky is a fish."))]
        rows.append({"task": task, "id": f"r{i:03d}", "target": p, "bias_type": "profession",
                     "context": ctx, "stereotype": sents[0], "stereotype_id": f"r{i:03d}s",
                     "anti_stereotype": sents[1], "anti_stereotype_id": f"r{i:03d}a",
                     "unrelated": sents[2], "unrelated_id": f"r{i:03d}u"})
    return pd.DataFrame(rows)


def likelihood(out: Path, model: str, bf16: bool = False) -> None:
    from nlgbias.holistic.responses import score_perplexity
    from nlgbias.io import write_parquet
    from nlgbias.stereoset.evaluation import sentence_table, write_predictions
    from nlgbias.stereoset.lm import CATScorer, score_sentences

    if bf16:
        lm = _LOADED[model]
        net, tok = lm.model, lm.tokenizer
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        net = AutoModelForCausalLM.from_pretrained(model).eval()
        tok = AutoTokenizer.from_pretrained(model)
    scorer = CATScorer(HFLM.around(net, tok, "causal"), "causal", batch_size=8)
    scorer.score = _slow(scorer.score)
    c = real_cats() if bf16 else cats()
    sents = score_sentences(scorer, sentence_table(c), out / "cache" / "cat", chunk=12,
                            progress=False)
    write_predictions(c, dict(zip(sents["id"], sents["score"])), out / "t__predictions.json")
    texts = (real_prompts(40) if bf16 else prompts(64)).rename(columns={"prompt": "text"})
    import nlgbias.likelihood as L

    with slowed(L, "sentence_logprobs"):
        ppl = score_perplexity(texts, model, out / "cache", dtype="bfloat16" if bf16 else None, chunk_size=8,
                               lm=HFLM.around(net, tok, "causal"), progress=False)
    write_parquet(ppl.reset_index(drop=True), out / "t__perplexity.parquet")


def annotations() -> pd.DataFrame:
    """Regard-shaped annotations (``split, text, label``) in the tiny encoder's vocabulary."""
    words = "XYZ was known for kind cruel a job as thief nurse . good bad".split()
    rows = []
    for i in range(96):
        label = (i % 3) - 1
        mood = {-1: "cruel bad thief", 0: "a job as", 1: "kind good nurse"}[label].split()
        text = " ".join(["XYZ", "was", *mood[: 1 + i % 3], *words[(i % 7):(i % 7) + 2], "."])
        split = ("train", "train", "dev", "test", "train_other", "train")[i % 6]
        rows.append((split, text, label))
    return pd.DataFrame(rows, columns=["split", "text", "label"])


def train_classifier(out: Path, encoder: str) -> None:
    from nlgbias.io import write_parquet
    from nlgbias.metrics import regard as R
    from nlgbias.regard import experiments as X

    enc = R.Encoder(encoder)
    ann = annotations()
    with slowed(R, "fit", 0.1):
        runs, sel = X.figure1_runs(ann, [0, 1], encoder=enc, grid=(0.001, 0.1), lstm_epochs=2,
                                   cache_dir=out / "cache")
    write_parquet(runs, out / "t__figure1_runs.parquet")
    write_parquet(sel, out / "t__alpha_selection.parquet")
    tr = X.splits(ann)["train"]
    clf = R.fit(tr["text"], tr["label"], encoder=enc, seed=1, alpha=float(sel.loc[0, "alpha"]),
                card={"date": "fixed for the test"})
    clf.save(out / "t__classifier")


def tune(out: Path) -> None:
    from test_tuning import examples, tiny_chat_lm

    from nlgbias.holistic import tuning as TU

    lm = tiny_chat_lm()
    train, val = examples(lm)
    config = TU.TuningConfig(max_steps=40, batch_size=4, lr=1e-2, warmup_steps=2, eval_every=4,
                             save_every=3, patience=100, method="lora", seed=0)
    TU.train(lm, train, val, out, "t", config, progress=False,
             on_step=lambda step, loss: time.sleep(0.05))


#: what each mode imports before it says READY (the test times its kills from then on, so
#: they land in the job, not in the imports)
PRELOAD = {"generate": ["nlgbias.generation"], "shards": ["nlgbias.generation"],
           "score": ["nlgbias.scoring"],
           "likelihood": ["transformers", "nlgbias.stereoset.lm", "nlgbias.holistic.responses",
                          "nlgbias.likelihood"],
           "train": ["transformers", "sklearn.neural_network", "nlgbias.regard.experiments",
                     "nlgbias.regard.baselines", "nlgbias.metrics.sentiment", "textblob"],
           "tune": ["transformers", "peft", "test_tuning", "nlgbias.holistic.tuning"],
           "generate-bf16": ["nlgbias.generation"],
           "likelihood-bf16": ["nlgbias.stereoset.lm", "nlgbias.holistic.responses", "nlgbias.likelihood"]}


def preload(mode: str, model: str | None = None) -> None:
    """Import what ``mode`` needs; a bf16 mode also loads ``model`` (bfloat16, 2 threads)."""
    import importlib

    for name in ["torch", *PRELOAD.get(mode, [])]:
        importlib.import_module(name)
    if mode.endswith("-bf16") and model not in _LOADED:
        import torch

        from nlgbias.models import load_model

        _LOADED[model] = load_model(model, dtype=torch.bfloat16)


if __name__ == "__main__":
    preload(sys.argv[1], sys.argv[3])
    print("READY", flush=True)
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3])
