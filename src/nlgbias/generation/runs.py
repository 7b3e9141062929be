"""Generation runs: one parquet per (dataset, model), resumable, sharded or on Ray.

:func:`generate_dataset` writes ``<dataset>__<model>.parquet`` with the columns of
:data:`COLUMNS`. Rows go to a :class:`~nlgbias.io.ShardCache` as they are made, so an
interrupted run (Ctrl-C, crash) continues where it stopped and a rerun with the same
parameters generates nothing. ``shard=(i, n)`` makes only the i-th of n deterministic slices
(several machines can fill one cache); ``backend="ray"`` runs the same engine on a Ray
cluster (:mod:`nlgbias.generation.ray_backend`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from nlgbias.generation.decoding import DecodingParams, decoding_for, row_seed
from nlgbias.generation.engine import CausalGenerator, Completion, completions_frame
from nlgbias.hardware import default_threads, resolve_dtype
from nlgbias.io import ShardCache, write_parquet
from nlgbias.models import LoadedModel, ModelSpec, check_available, load_model

log = logging.getLogger(__name__)

ENGINE_VERSION = 3  # bump when a change alters generated text (invalidates caches)

#: columns of every ``<dataset>__<model>.parquet`` (contract with the later notebooks)
COLUMNS = ["domain", "group", "name", "prompt_id", "prompt", "model", "generation", "text",
           "seed", "row_seed", "n_new_tokens", "finish_reason", "max_new_tokens", "do_sample",
           "top_k", "top_p", "temperature", "repetition_penalty", "first_sentence",
           "control_code", "dtype", "model_source"]


def output_name(dataset: str, model: str) -> str:
    """``<dataset>__<model>.parquet`` with '/' in the model name replaced by '--'."""
    return f"{dataset}__{model.replace('/', '--')}.parquet"


def parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"i/n"`` or ``(i, n)`` → ``(i, n)`` with 0 <= i < n; ``None`` stays ``None``."""
    if shard is None:
        return None
    if isinstance(shard, str):
        try:
            i, n = (int(x) for x in shard.split("/"))
        except ValueError:
            raise ValueError(f"shard must look like 'i/n' (e.g. '0/4'), got {shard!r}") from None
    else:
        i, n = shard
    if not (isinstance(i, int) and isinstance(n, int) and n >= 1 and 0 <= i < n):
        raise ValueError(f"shard {shard!r}: need integers 0 <= i < n")
    return i, n


def shard_of(prompt_id: str, n: int) -> int:
    """The shard (0..n-1) a prompt belongs to: a stable hash of its id (same on every machine)."""
    return int.from_bytes(hashlib.sha256(prompt_id.encode()).digest()[:8], "little") % n


def select_shard(df: pd.DataFrame, shard: str | tuple[int, int] | None) -> pd.DataFrame:
    """The rows of ``df`` in ``shard`` (``i/n``); the n shards partition ``df``."""
    s = parse_shard(shard)
    if s is None:
        return df
    i, n = s
    return df[[shard_of(p, n) == i for p in df["prompt_id"]]]


def read_generations(folder: str | Path, dataset: str = "bold") -> pd.DataFrame:
    """Every ``<dataset>__*.parquet`` in ``folder``, concatenated (what the later notebooks read)."""
    files = sorted(Path(folder).glob(f"{dataset}__*.parquet"))
    if not files:
        raise FileNotFoundError(f"no {dataset}__*.parquet in {folder}: run notebook 02 first")
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def run_digest(model: str, params: DecodingParams | None, seed: int, control_code: str | None,
               dtype: str = "float32", extra: dict | None = None) -> str:
    """A short hash of everything that changes the generated text (names the resume cache)."""
    obj = {"model": model, "params": params.as_dict() if params else None, "seed": seed,
           "control_code": control_code, "dtype": dtype, "engine": ENGINE_VERSION}
    if extra:
        obj["extra"] = extra
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:12]


class TaggedShardCache(ShardCache):
    """A :class:`ShardCache` whose shard files carry a writer tag, so several writers (shards
    on other machines sharing the folder) never pick the same file name."""

    def __init__(self, folder: str | Path, key: str = "prompt_id", tag: str = "all"):
        super().__init__(folder, key)
        self.tag = tag

    def append(self, df: pd.DataFrame) -> Path:
        if self.key not in df.columns:
            raise KeyError(f"rows written to {self.folder} need a {self.key!r} column")
        n = len(list(self.folder.glob(f"shard-{self.tag}-*.parquet")))
        return write_parquet(df, self.folder / f"shard-{self.tag}-{n:06d}.parquet")


def _finish_frame(rows: pd.DataFrame, spec: ModelSpec, params: DecodingParams | None, seed: int,
                  dtype: str | None = None) -> pd.DataFrame:
    """Add the run columns and order them as :data:`COLUMNS`."""
    out = rows.copy()
    out["model"] = spec.name
    out["seed"] = seed if params else pd.NA
    if "row_seed" not in out:
        out["row_seed"] = pd.NA
    for k, v in (params.as_dict() if params else dict.fromkeys(
            ["max_new_tokens", "do_sample", "top_k", "top_p", "temperature",
             "repetition_penalty", "first_sentence"])).items():
        out[k] = v
    out["control_code"] = spec.control_code
    out["dtype"] = dtype
    out["model_source"] = spec.hub_id or (spec.gguf_file or spec.kind)
    return out[COLUMNS]


@dataclass
class RunInfo:
    """What :func:`generate_dataset` did. ``tokens``/``seconds``: this call; ``total_*``: all
    calls that filled this cache (a resumed run adds up), generation time only."""

    model: str
    path: Path | None
    rows: int
    generated: int  # rows generated in this call (0 when everything was cached)
    tokens: int
    seconds: float
    complete: bool
    total_tokens: int = 0
    total_seconds: float = 0.0
    total_rows: int = 0

    @property
    def tokens_per_second(self) -> float:
        """Generation throughput over every call that filled the cache."""
        return self.total_tokens / self.total_seconds if self.total_seconds else float("nan")


def _update_stats(folder: Path, rows: int, tokens: int, seconds: float) -> dict:
    """Accumulate generation statistics in ``folder/stats.json`` (atomic)."""
    from nlgbias.io import write_json  # noqa: PLC0415

    path = folder / "stats.json"
    stats = json.loads(path.read_text()) if path.exists() else {"rows": 0, "tokens": 0, "seconds": 0.0}
    if rows:
        stats = {"rows": stats["rows"] + rows, "tokens": stats["tokens"] + tokens,
                 "seconds": stats["seconds"] + seconds}
        write_json(stats, path)
    return stats


def generate_dataset(prompts: pd.DataFrame, model: str, out_dir: str | Path, *,
                     dataset: str = "bold", seed: int = 0, params: DecodingParams | None = None,
                     batch_size: int = 32, device: str = "cpu", shard: str | tuple[int, int] | None = None,
                     backend: str = "local", cache_dir: str | Path | None = None,
                     flush_every: int = 256, num_threads: int | None = None, dtype: str = "auto",
                     loaded: LoadedModel | None = None, ray_options: dict | None = None,
                     gibbs=None, progress: bool = True) -> RunInfo:
    """Generate continuations of ``prompts`` (columns ``domain, group, name, prompt_id, prompt``
    and, for ``wiki``, ``wiki_text``) with ``model``; write ``out_dir/<dataset>__<model>.parquet``.

    Resumable: finished rows are flushed to ``cache_dir`` (default
    ``<out_dir>/../interim/generation_cache/<dataset>__<model>__<digest>``) every
    ``flush_every`` rows and on Ctrl-C; a rerun skips them. With ``shard="i/n"`` only that
    slice is generated and the final file is written once the cache holds every row.
    ``backend="ray"`` runs the generation on Ray (``ray_options``: ``address``,
    ``num_actors``, ``cpus_per_actor``, ``rows_per_task``). A masked LM (``bert-large-cased``)
    is generated by Gibbs sampling with ``gibbs`` (:class:`~nlgbias.generation.gibbs.GibbsParams`,
    default the paper's). ``dtype="auto"`` computes in
    bfloat16 where the hardware has bf16 units (see :func:`resolve_dtype`); the dtype is part
    of the cache key and stored in the ``dtype`` column. ``num_threads`` defaults to
    :func:`default_threads`.
    """
    missing = {"domain", "group", "name", "prompt_id", "prompt"} - set(prompts.columns)
    if missing:
        raise KeyError(f"prompts lack column(s) {', '.join(sorted(missing))} (see add_prompt_ids)")
    if prompts["prompt_id"].duplicated().any():
        raise ValueError("prompt_id values must be unique")
    if backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {backend!r}; choose 'local' or 'ray'")
    spec = check_available(model) if loaded is None else loaded.spec
    out_dir = Path(out_dir)
    target = out_dir / output_name(dataset, spec.name)
    t0 = time.perf_counter()
    if spec.kind == "wiki":
        from nlgbias.bold.sources import wiki_rows  # noqa: PLC0415 - moves to a BOLD source

        rows = _finish_frame(wiki_rows(prompts), spec, None, seed)
        write_parquet(rows, target)
        return RunInfo(spec.name, target, len(rows), len(rows), 0, time.perf_counter() - t0, True)
    gibbs_d = None
    if spec.kind == "masked":  # BERT: Gibbs sampling (BOLD Appendix A.2.1)
        from nlgbias.generation.gibbs import GibbsParams  # noqa: PLC0415

        gibbs = gibbs or GibbsParams()
        params, gibbs_d = gibbs.to_decoding(), gibbs.as_dict()
        if backend == "ray":
            raise ValueError("the Ray backend runs causal LMs; generate BERT locally")
    elif spec.kind != "causal":
        raise ValueError(f"model {spec.name!r} of kind {spec.kind!r} cannot generate")
    params = params or decoding_for(spec)
    if loaded is not None:
        dtype = str(getattr(loaded.model, "dtype", "torch.float32")).replace("torch.", "")
    dtype = resolve_dtype(dtype, device)
    digest = run_digest(spec.name, params, seed, spec.control_code, dtype, gibbs_d)
    cache_dir = Path(cache_dir) if cache_dir else out_dir.parent / "interim" / "generation_cache"
    s = parse_shard(shard)
    cache = TaggedShardCache(cache_dir / f"{dataset}__{spec.name.replace('/', '--')}__{digest}",
                             tag=f"{s[0]}of{s[1]}" if s else "all")
    if target.exists() and shard is None and cache.shards():  # same digest: same settings
        try:
            old = pd.read_parquet(target, columns=["prompt_id"])
            same = set(old["prompt_id"]) == set(prompts["prompt_id"])
            want = {"seed": seed, "dtype": dtype, **params.as_dict()}
            meta = pd.read_parquet(target, columns=list(want)).drop_duplicates()
            same &= len(meta) == 1 and meta.iloc[0].to_dict() == want
        except Exception:  # noqa: BLE001 - an unreadable old file is simply regenerated
            same = False
        if same:
            log.info("%s is up to date (%d rows): nothing to generate", target, len(old))
            st = _update_stats(cache.folder, 0, 0, 0.0)
            return RunInfo(spec.name, target, len(old), 0, 0, time.perf_counter() - t0, True,
                           st["tokens"], st["seconds"], st["rows"])
    wanted = select_shard(prompts, s)
    done = cache.done_keys()
    todo = wanted[~wanted["prompt_id"].isin(done)].reset_index(drop=True)
    log.info("%s: %d prompts, %d cached, %d to generate", spec.name, len(wanted), len(wanted) - len(todo), len(todo))
    tokens, gen_secs = 0, 0.0
    if len(todo):
        seeds = [row_seed(seed, pid) for pid in todo["prompt_id"]]
        todo = todo.assign(row_seed=seeds)
        if backend == "ray":
            from nlgbias.generation.ray_backend import generate_with_ray  # noqa: PLC0415

            t1 = time.perf_counter()
            tokens = generate_with_ray(todo, spec.name, params, cache, device=device, dtype=dtype,
                                       batch_size=batch_size, **(ray_options or {}))
            gen_secs = time.perf_counter() - t1
        else:
            import torch  # noqa: PLC0415

            lm = loaded or load_model(spec.name, device=device, dtype=getattr(torch, dtype))
            if spec.kind == "masked":
                from nlgbias.generation.gibbs import GibbsGenerator  # noqa: PLC0415

                engine = GibbsGenerator(lm, gibbs, batch_size=batch_size,
                                        num_threads=num_threads or default_threads())
            else:
                engine = CausalGenerator(lm, params, batch_size=batch_size,
                                         num_threads=num_threads or default_threads())
            try:
                tokens = _run_local(engine, todo, cache, flush_every, progress)
            finally:
                gen_secs = engine.seconds
                _update_stats(cache.folder, engine.rows_done, engine.tokens_generated, gen_secs)
        if backend == "ray":
            _update_stats(cache.folder, len(todo), tokens, gen_secs)
    stats = _update_stats(cache.folder, 0, 0, 0.0)
    totals = {"total_tokens": stats["tokens"], "total_seconds": stats["seconds"], "total_rows": stats["rows"]}
    frame = cache.load()
    frame = frame[frame["prompt_id"].isin(set(prompts["prompt_id"]))].drop_duplicates("prompt_id")
    complete = len(frame) == len(prompts)
    secs = time.perf_counter() - t0
    if not complete:
        log.info("%s: %d of %d rows in the cache (shard %s); the parquet is written once all are done",
                 spec.name, len(frame), len(prompts), shard)
        return RunInfo(spec.name, None, len(frame), len(todo), tokens, secs, False, **totals)
    order = {p: i for i, p in enumerate(prompts["prompt_id"])}
    frame = frame.sort_values("prompt_id", key=lambda c: c.map(order)).reset_index(drop=True)
    meta = prompts.set_index("prompt_id").loc[frame["prompt_id"], ["domain", "group", "name", "prompt"]]
    for c in meta.columns:
        frame[c] = meta[c].to_numpy()
    out = _finish_frame(frame, spec, params, seed, dtype)
    write_parquet(out, target)
    return RunInfo(spec.name, target, len(out), len(todo), tokens, secs, True, **totals)


def _run_local(engine, todo: pd.DataFrame, cache: ShardCache, flush_every: int,
               progress: bool) -> int:
    """Generate ``todo`` with ``engine``, flushing rows to ``cache``; returns tokens generated."""
    pending: list[tuple[int, Completion]] = []
    tokens0 = engine.tokens_generated
    bar = tqdm(total=len(todo), desc=f"generate {engine.lm.name}", unit="prompt", disable=not progress)

    def flush() -> None:
        if pending:
            cache.append(completions_frame(todo, pending))
            pending.clear()

    try:
        for batch in engine.iter_generate(todo["prompt"].tolist(), todo["row_seed"].tolist(), bar):
            pending.extend(batch)
            if len(pending) >= flush_every:
                flush()
    finally:  # Ctrl-C or a crash: keep what is finished
        flush()
        bar.close()
    return engine.tokens_generated - tokens0


def generate_models(prompts: pd.DataFrame, models: Sequence[str], out_dir: str | Path,
                    on_done: Callable[[RunInfo], None] | None = None,
                    params_for: Callable[[str], DecodingParams] | None = None, **kw) -> list[RunInfo]:
    """:func:`generate_dataset` for each of ``models``; every name is checked first, so an
    unknown or unavailable model fails before any generation starts. ``params_for(model)``
    gives the decoding parameters of each causal LM (default: the paper's, see
    :func:`decoding_for`)."""
    specs = [check_available(m) for m in models]
    if params_for is not None:  # validate every model's parameters before generating
        for spec in specs:
            if spec.kind == "causal":
                params_for(spec.name)
    infos = []
    for m, spec in zip(models, specs):
        extra = {"params": params_for(m)} if params_for and spec.kind == "causal" else {}
        info = generate_dataset(prompts, m, out_dir, **extra, **kw)
        infos.append(info)
        if on_done:
            on_done(info)
    return infos
