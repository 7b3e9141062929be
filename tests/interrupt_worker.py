"""A worker the interruption tests kill with SIGKILL at random points (see test_interrupt.py).

``python tests/interrupt_worker.py generate|score|shards OUT_DIR MODEL_DIR`` does one long job
through the project's resumable caches and writes its final file into OUT_DIR.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

WORDS = "the a man woman he she is was worked as known for person people good bad".split()


def prompts(n: int = 240) -> pd.DataFrame:
    rows = [(f"p{i:04d}", " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(1 + i % 6)),
             f"group{i % 5}") for i in range(n)]
    return pd.DataFrame(rows, columns=["prompt_id", "prompt", "group"])


def main(mode: str, out: Path, model: str) -> None:
    from nlgbias.generation import DecodingParams, generate_dataset

    params = DecodingParams(max_new_tokens=12, do_sample=True, top_k=5)
    if mode in ("generate", "shards"):
        shards = ["0/3", "1/3", "2/3"] if mode == "shards" else [None]
        for shard in shards:
            generate_dataset(prompts(), model, out, dataset="t", samples_per_prompt=2, seed=3,
                             params=params, batch_size=4, flush_every=8, dtype="float32",
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
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3])
