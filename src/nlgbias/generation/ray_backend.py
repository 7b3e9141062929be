"""Ray backend of the generation engine: the same :class:`~nlgbias.generation.CausalGenerator`
in a pool of model actors (``ray.util.ActorPool``), for BOLD-scale runs (§4.2) on a cluster.

The driver keeps the resume cache: it sends only unfinished chunks of the run's fixed schedule
(:func:`~nlgbias.generation.runs.chunk_schedule`), one chunk per task, and writes each chunk to
the :class:`~nlgbias.generation.runs.ChunkCache` as it comes back, so an interrupted cluster run
resumes like a local one and every row has the batch-mates of a local run. Each actor loads the
model once.

Point it at a cluster with ``ray_options={"address": "ray://head:10001"}`` (or
``"auto"`` on a cluster node, or set ``RAY_ADDRESS``); with no address and no running Ray,
a local Ray instance is started.
"""

from __future__ import annotations

import logging
import os

import pandas as pd

from nlgbias.engine.causal import CausalGenerator, completions_frame
from nlgbias.engine.decoding import DecodingParams
from nlgbias.extras import require
from nlgbias.models import display_name, load_model
from nlgbias.progress import tqdm

log = logging.getLogger(__name__)


class GenerationActor:
    """A Ray actor: loads ``model`` once, then maps one chunk of rows (``prompt_id, sample,
    prompt, row_seed``) to its generated rows (:func:`completions_frame` plus ``sample``, the
    columns of the resume cache, in the chunk's order)."""

    def __init__(self, model: str, params: dict, device: str = "cpu", dtype: str = "float32",
                 batch_size: int = 32, num_threads: int | None = None, prompt_format: str = "plain"):
        import torch  # loaded in the actor's process

        lm = load_model(model, device=device, dtype=getattr(torch, dtype))
        kw = {} if prompt_format == "plain" else {"prompt_format": prompt_format}
        self.engine = CausalGenerator(lm, DecodingParams(**params), batch_size=batch_size,
                                      num_threads=num_threads, **kw)

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        batch = batch.reset_index(drop=True)
        pairs = [p for chunk in self.engine.iter_generate(batch["prompt"].tolist(),
                                                          batch["row_seed"].tolist())
                 for p in chunk]
        pairs.sort(key=lambda p: p[0])
        frame = completions_frame(batch, pairs)
        frame.insert(1, "sample", batch["sample"].to_numpy()[[i for i, _ in pairs]].astype("int64"))
        return frame

    def run(self, tag: str, batch: pd.DataFrame) -> tuple[str, pd.DataFrame]:
        """The remote entry point: ``(tag, rows of batch)``."""
        return tag, self(batch)


def init_ray(address: str | None = None, num_cpus: int | None = None, retries: int = 2,
             **kwargs) -> None:
    """Connect to the Ray cluster at ``address`` (``"auto"``, ``"ray://head:10001"``; default
    ``$RAY_ADDRESS``) or start a local instance with ``num_cpus`` CPUs.

    A local start is retried: on a loaded machine Ray's agents can miss the raylet's fixed
    15 s start-up timeout (ray-project/ray#65983).
    """
    ray = require("ray")

    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    kw = {"address": address} if address else {"num_cpus": num_cpus}
    kw.update({"include_dashboard": False, "log_to_driver": False, **kwargs})
    for attempt in range(1, retries + 1):
        try:
            log.info("starting Ray (%s), attempt %d", address or "local", attempt)
            ray.init(**kw)
            return
        except Exception:
            ray.shutdown()
            if attempt == retries or address:
                raise


def generate_with_ray(rows: pd.DataFrame, chunks, model: str, params: DecodingParams, cache, *,
                      device: str = "cpu", dtype: str = "float32", batch_size: int = 32,
                      prompt_format: str = "plain", address: str | None = None,
                      num_actors: int = 1, cpus_per_actor: float = 1,
                      gpus_per_actor: float = 0, init_kwargs: dict | None = None) -> int:
    """Generate the ``chunks`` (:class:`~nlgbias.generation.runs.Chunk`, positions into
    ``rows``: ``prompt_id, sample, prompt, row_seed``) on Ray, one chunk per task; write each to
    ``cache`` (a :class:`~nlgbias.generation.runs.ChunkCache`) as it comes back.

    ``num_actors`` model replicas, each with ``cpus_per_actor`` CPUs (threads) and
    ``gpus_per_actor`` GPUs. Returns the number of generated tokens.
    """
    ray = require("ray")
    ActorPool = require("ray.util").ActorPool

    init_ray(address, max(1, int(num_actors * cpus_per_actor)), **(init_kwargs or {}))
    actor = ray.remote(GenerationActor).options(num_cpus=cpus_per_actor, num_gpus=gpus_per_actor or None)
    kw = {"model": model, "params": params.as_dict(), "device": device, "dtype": dtype,
          "batch_size": batch_size, "num_threads": max(1, int(cpus_per_actor)),
          "prompt_format": prompt_format}
    pool = ActorPool([actor.remote(**kw) for _ in range(max(1, min(num_actors, len(chunks))))])
    cols = ["prompt_id", "sample", "prompt", "row_seed"]
    parts = {c.id: rows.iloc[list(c.rows)][cols].reset_index(drop=True) for c in chunks}
    tokens = 0
    with tqdm(total=sum(len(c.rows) for c in chunks), desc=f"generate {display_name(model)} (ray)",
              unit="row") as bar:
        by_id = {c.id: c for c in chunks}
        for cid, frame in pool.map_unordered(lambda a, c: a.run.remote(c.id, parts[c.id]), chunks):
            cache.write(by_id[cid], frame)
            tokens += int(frame["n_new_tokens"].sum())
            bar.update(len(frame))
    return tokens
