"""Ray backend of the generation engine: the same :class:`~nlgbias.generation.CausalGenerator`
in a pool of model actors (Ray Data ``map_batches``), for BOLD-scale runs (§4.2) on a cluster.

The driver keeps the resume cache: it sends only unfinished prompts, and appends each batch
of results to the :class:`~nlgbias.io.ShardCache` as it streams back, so an interrupted
cluster run resumes like a local one. Each actor loads the model once.

Point it at a cluster with ``ray_options={"address": "ray://head:10001"}`` (or
``"auto"`` on a cluster node, or set ``RAY_ADDRESS``); with no address and no running Ray,
a local Ray instance is started.
"""

from __future__ import annotations

import logging
import os

import pandas as pd

from nlgbias.generation.decoding import DecodingParams
from nlgbias.generation.engine import CausalGenerator, completions_frame
from nlgbias.io import ShardCache
from nlgbias.models import display_name, load_model
from nlgbias.progress import tqdm

log = logging.getLogger(__name__)


class GenerationActor:
    """A Ray Data actor: loads ``model`` once, then maps a pandas batch of rows
    (``prompt_id, sample, prompt, row_seed``) to generated rows (:func:`completions_frame` plus
    ``sample``, the columns of the resume cache)."""

    def __init__(self, model: str, params: dict, device: str = "cpu", dtype: str = "float32",
                 batch_size: int = 32, num_threads: int | None = None, prompt_format: str = "plain"):
        import torch  # noqa: PLC0415 - loaded in the actor's process

        lm = load_model(model, device=device, dtype=getattr(torch, dtype))
        kw = {} if prompt_format == "plain" else {"prompt_format": prompt_format}
        self.engine = CausalGenerator(lm, DecodingParams(**params), batch_size=batch_size,
                                      num_threads=num_threads, **kw)

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        batch = batch.reset_index(drop=True)
        pairs = [p for chunk in self.engine.iter_generate(batch["prompt"].tolist(),
                                                          batch["row_seed"].tolist())
                 for p in chunk]
        frame = completions_frame(batch, pairs)
        frame.insert(1, "sample", batch["sample"].to_numpy()[[i for i, _ in pairs]].astype("int64"))
        return frame


def init_ray(address: str | None = None, num_cpus: int | None = None, retries: int = 2,
             **kwargs) -> None:
    """Connect to the Ray cluster at ``address`` (``"auto"``, ``"ray://head:10001"``; default
    ``$RAY_ADDRESS``) or start a local instance with ``num_cpus`` CPUs.

    A local start is retried: on a loaded machine Ray's agents can miss the raylet's fixed
    15 s start-up timeout (ray-project/ray#65983).
    """
    import ray  # noqa: PLC0415

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
        except Exception:  # noqa: BLE001 - Ray raises a bare Exception on a start-up timeout
            ray.shutdown()
            if attempt == retries or address:
                raise


def generate_with_ray(todo: pd.DataFrame, model: str, params: DecodingParams, cache: ShardCache, *,
                      device: str = "cpu", dtype: str = "float32", batch_size: int = 32,
                      prompt_format: str = "plain", address: str | None = None,
                      num_actors: int = 1, cpus_per_actor: float = 1,
                      gpus_per_actor: float = 0, rows_per_task: int | None = None,
                      init_kwargs: dict | None = None) -> int:
    """Generate ``todo`` (``prompt_id, sample, prompt, row_seed``) on Ray; append results to
    ``cache``.

    ``num_actors`` model replicas, each with ``cpus_per_actor`` CPUs (threads) and
    ``gpus_per_actor`` GPUs; ``rows_per_task`` prompts per ``map_batches`` call (default
    ``4 * batch_size``: enough for full, length-sorted batches, small enough to checkpoint
    often). Returns the number of generated tokens.
    """
    import ray  # noqa: PLC0415

    init_ray(address, max(1, int(num_actors * cpus_per_actor)), **(init_kwargs or {}))
    rows_per_task = rows_per_task or 4 * batch_size
    # similar prompt lengths in one task -> little padding inside the actor's batches
    order = todo["prompt"].str.len().sort_values(kind="stable").index
    ds = ray.data.from_pandas(todo.loc[order, ["prompt_id", "sample", "prompt", "row_seed"]].reset_index(drop=True))
    out = ds.map_batches(
        GenerationActor, batch_format="pandas", batch_size=rows_per_task,
        compute=ray.data.ActorPoolStrategy(size=num_actors),
        fn_constructor_kwargs={"model": model, "params": params.as_dict(), "device": device,
                               "dtype": dtype, "batch_size": batch_size,
                               "num_threads": max(1, int(cpus_per_actor)),
                               "prompt_format": prompt_format},
        num_cpus=cpus_per_actor, num_gpus=gpus_per_actor or None)
    tokens = 0
    with tqdm(total=len(todo), desc=f"generate {display_name(model)} (ray)", unit="row") as bar:
        for frame in out.iter_batches(batch_format="pandas", batch_size=None):
            if len(frame):
                # plain pandas dtypes (Ray hands back Arrow-backed columns)
                frame = pd.DataFrame({c: frame[c].tolist() for c in frame.columns})
                cache.append(frame)
                tokens += int(frame["n_new_tokens"].sum())
                bar.update(len(frame))
    return tokens
