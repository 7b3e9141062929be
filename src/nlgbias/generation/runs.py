"""Generation runs: any prompt frame to one parquet per (dataset, model), resumable, sharded or
on Ray. No dataset is named here: the caller passes ``dataset`` (the file-name prefix).

:func:`generate_dataset` takes ``prompts`` with ``prompt_id, prompt`` and any metadata columns
(passed through unchanged) and writes ``<dataset>__<model_slug>.parquet``: one row per
(prompt_id, sample), the metadata columns first, then :data:`RUN_COLUMNS`. Each sample has its
own seeded random stream (:func:`sample_seed`).

Work is scheduled in fixed chunks (:func:`chunk_schedule`): the rows in sample-major order cut
every ``chunk_size`` rows, a function of the prompts, the number of samples and the seed only
(not of the batch size, the threads or the timing). The engine generates one chunk at a time
(continuous batching inside it, deterministic given its rows) and a :class:`ChunkCache` writes
each finished chunk atomically as one file. An interrupted run (Ctrl-C, crash, SIGKILL) loses at
most the chunk in progress and redoes it from its start, so it writes the same bytes as an
uninterrupted run even in bfloat16, where a row's numbers depend on the rows that share its
batch; a rerun with the same parameters generates nothing. ``shard=(i, n)`` makes only the
chunks ``k`` with ``k % n == i`` (several machines can fill one cache; the file is the
unsharded one's); ``backend="ray"`` runs the same engine on a Ray cluster, one chunk per task
(:mod:`nlgbias.generation.ray_backend`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.engine.causal import CausalGenerator, Completion, completions_frame
from nlgbias.engine.decoding import DECODING_COLUMNS, DecodingParams, decoding_for, row_seed
from nlgbias.engine.gibbs import GibbsGenerator, GibbsParams
from nlgbias.generation.lm_engine import LMEngine
from nlgbias.generation.ray_backend import generate_with_ray
from nlgbias.hardware import default_threads, resolve_dtype, set_torch_threads
from nlgbias.io import CorruptCacheError, write_json, write_parquet
from nlgbias.lm import LMSpec, check_spec, decoding_of, model_source, parse_model_spec
from nlgbias.lm.spec import registry_entry
from nlgbias.models import KINDS, LoadedModel, ModelSpec
from nlgbias.progress import tqdm

log = logging.getLogger(__name__)

ENGINE_VERSION = 4  # bump when a change alters generated text (invalidates caches)

#: rows per chunk of a run (:func:`chunk_schedule`): the unit of work, of caching and of resume
CHUNK_SIZE = 512

PROMPT_FORMATS = ("plain", "chat")

#: the columns a run adds after the prompt frame's metadata columns (contract with notebooks 03-08)
RUN_COLUMNS = ["prompt_id", "sample", "prompt", "model", "generation", "text", "seed", "row_seed",
               "n_new_tokens", "finish_reason", *DECODING_COLUMNS, "prompt_format",
               "control_code", "dtype", "model_source"]

_DATASET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*(?:_[A-Za-z0-9.-]+)*$")


def check_dataset_name(dataset: str) -> str:
    """``dataset`` if it can prefix a file name: letters, digits, ``.-_`` and no ``__`` (the
    separator of ``<dataset>__<model>``)."""
    if not isinstance(dataset, str) or not _DATASET_NAME.match(dataset):
        raise ValueError(f"dataset must be a file-name-safe name (letters, digits, '.', '-', single "
                         f"'_'; e.g. 'bold', 'regard'), got {dataset!r}")
    return dataset


def output_name(dataset: str, model: str) -> str:
    """``<dataset>__<model_slug(model)>.parquet`` (a hub id's '/' becomes '--'; a local folder
    becomes ``local-<name>-<hash>``, never its path)."""
    return f"{check_dataset_name(dataset)}__{parse_model_spec(model).slug}.parquet"


def output_columns(prompts: pd.DataFrame) -> list[str]:
    """The columns of the output file for ``prompts``: its metadata columns (every column but
    ``prompt_id, prompt``, in its order), then :data:`RUN_COLUMNS`."""
    return [c for c in prompts.columns if c not in RUN_COLUMNS] + RUN_COLUMNS


def check_prompts(prompts: pd.DataFrame) -> None:
    """Raise a clear error unless ``prompts`` has unique ``prompt_id``s, a ``prompt`` column and
    no metadata column that a run would overwrite."""
    if not isinstance(prompts, pd.DataFrame):
        raise TypeError(f"prompts must be a pandas DataFrame, got {type(prompts).__name__}")
    missing = {"prompt_id", "prompt"} - set(prompts.columns)
    if missing:
        raise KeyError(f"prompts lack column(s) {', '.join(sorted(missing))}: a prompt frame needs "
                       "'prompt_id' (unique, a string) and 'prompt' plus any metadata columns")
    clash = sorted(set(prompts.columns) & (set(RUN_COLUMNS) - {"prompt_id", "prompt"}))
    if clash:
        raise ValueError(f"prompt column(s) {', '.join(map(repr, clash))} would be overwritten by the run's "
                         "columns of the same name; rename them")
    if prompts["prompt_id"].duplicated().any():
        dup = prompts.loc[prompts["prompt_id"].duplicated(), "prompt_id"].iloc[0]
        raise ValueError(f"prompt_id values must be unique (e.g. {dup!r} repeats)")
    if not all(isinstance(p, str) for p in prompts["prompt_id"]):
        raise TypeError("prompt_id values must be strings")
    if not all(isinstance(p, str) for p in prompts["prompt"]):
        raise TypeError("prompt values must be strings (no missing prompts)")


# --------------------------------------------------------------------------- rows, seeds, shards
def row_key(prompt_id: str, sample: int) -> str:
    """The key of one output row: the prompt id for sample 0, ``<prompt_id>#<k>`` for sample k."""
    return prompt_id if sample == 0 else f"{prompt_id}#{sample}"


def sample_seed(seed: int, prompt_id: str, sample: int = 0) -> int:
    """The seed of sample ``sample`` of prompt ``prompt_id``: :func:`row_seed` of the run seed and
    :func:`row_key` (sample 0 keeps the seed of a one-sample run)."""
    return row_seed(seed, row_key(prompt_id, sample))


def expand_samples(prompts: pd.DataFrame, samples_per_prompt: int, seed: int) -> pd.DataFrame:
    """One row per (prompt_id, sample), prompt-major: ``prompt_id, sample, prompt, key, row_seed``."""
    if not isinstance(samples_per_prompt, int) or isinstance(samples_per_prompt, bool) \
            or samples_per_prompt < 1:
        raise ValueError(f"samples_per_prompt must be a positive integer, got {samples_per_prompt!r}")
    k = samples_per_prompt
    ids = prompts["prompt_id"].to_numpy().repeat(k)
    samples = list(range(k)) * len(prompts)
    keys = [row_key(p, s) for p, s in zip(ids, samples)]
    return pd.DataFrame({"prompt_id": ids, "sample": samples,
                         "prompt": prompts["prompt"].to_numpy().repeat(k), "key": keys,
                         "row_seed": [row_seed(seed, key) for key in keys]})


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


def shard_of(key: str, n: int) -> int:
    """The shard (0..n-1) of a row key: a stable hash (same on every machine)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little") % n


def select_shard(df: pd.DataFrame, shard: str | tuple[int, int] | None,
                 key: str = "prompt_id") -> pd.DataFrame:
    """The rows of ``df`` whose ``key`` column falls in ``shard`` (``i/n``); the n shards
    partition ``df``."""
    s = parse_shard(shard)
    if s is None:
        return df
    i, n = s
    return df[[shard_of(k, n) == i for k in df[key]]]


def read_generations(folder: str | Path, dataset: str, models: Sequence[str] | None = None,
                     prompt_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Every ``<dataset>__*.parquet`` in ``folder``, concatenated (what the later notebooks
    read); only the rows of ``models`` (display names) and ``prompt_ids`` if given. A requested
    model without rows is an error."""
    files = sorted(Path(folder).glob(f"{check_dataset_name(dataset)}__*.parquet"))
    if not files:
        raise FileNotFoundError(f"no {dataset}__*.parquet in {folder}: generate them first")
    gens = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    if prompt_ids is not None:
        gens = gens[gens["prompt_id"].isin(set(prompt_ids))]
    if models is not None:
        missing = sorted(set(models) - set(gens["model"]))
        if missing:
            raise FileNotFoundError(f"no {dataset} generations of {', '.join(missing)} in {folder} "
                                    f"for these prompts (have: {', '.join(sorted(set(gens['model'])))})")
        gens = gens[gens["model"].isin(set(models))]
    return gens.reset_index(drop=True)


# --------------------------------------------------------------------------- cache
def run_digest(model: str, params: DecodingParams | None, seed: int, control_code: str | None,
               dtype: str = "float32", prompt_format: str = "plain", extra: dict | None = None) -> str:
    """A short hash of everything that changes the generated text (names the resume cache).
    The number of samples is not in it: more samples per prompt reuse the chunks made before."""
    obj = {"model": model, "params": params.as_dict() if params else None, "seed": seed,
           "control_code": control_code, "dtype": dtype, "engine": ENGINE_VERSION}
    if prompt_format != "plain":  # a plain run keeps the digest (and cache) of earlier versions
        obj["prompt_format"] = prompt_format
    if extra:
        obj["extra"] = extra
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Chunk:
    """One unit of work: ``rows`` (positions into :func:`expand_samples`' frame, in the order
    the engine receives them), its ``index`` in the schedule and ``id`` (a hash of its rows'
    keys, prompts and seeds: the name of its cache file)."""

    index: int
    rows: tuple[int, ...]
    id: str


def chunk_schedule(rows: pd.DataFrame, chunk_size: int = CHUNK_SIZE) -> list[Chunk]:
    """The fixed chunks of a run over ``rows`` (:func:`expand_samples`: ``prompt_id, sample,
    prompt, key, row_seed`` in prompt-major order): sample-major order (every prompt's sample 0
    in frame order, then every sample 1, ...), cut every ``chunk_size`` rows.

    A function of the rows only: the batch size, the thread count and how far an earlier run
    got play no part, so a resumed run gives every row the batch-mates it had in an
    uninterrupted run (bf16 numbers depend on them). Sample-major order keeps the chunks of a
    run when more samples per prompt are asked for later (all but its last, partial chunk)."""
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    order = np.lexsort((np.arange(len(rows)), rows["sample"].to_numpy())).tolist()
    keys, texts, seeds = (rows[c].tolist() for c in ("key", "prompt", "row_seed"))
    chunks = []
    for k, start in enumerate(range(0, len(order), chunk_size)):
        part = tuple(order[start:start + chunk_size])
        h = hashlib.sha256()
        for i in part:
            h.update(f"{keys[i]}\x1e{texts[i]}\x1e{int(seeds[i])}\x1f".encode())
        chunks.append(Chunk(k, part, h.hexdigest()[:16]))
    return chunks


def shard_chunks(chunks: Sequence[Chunk], shard: str | tuple[int, int] | None) -> list[Chunk]:
    """The chunks of ``shard`` (``i/n``): those whose index ``k`` has ``k % n == i``."""
    s = parse_shard(shard)
    return list(chunks) if s is None else [c for c in chunks if c.index % s[1] == s[0]]


class ChunkCache:
    """The resume cache of a run: one parquet file per finished chunk, ``chunk-<id>.parquet``,
    written atomically (a killed run leaves whole chunks only). Several writers (shards on
    other machines sharing the folder) never write the same chunk."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def path(self, chunk: Chunk) -> Path:
        return self.folder / f"chunk-{chunk.id}.parquet"

    def done(self, chunk: Chunk) -> bool:
        return self.path(chunk).exists()

    def any(self) -> bool:
        return any(self.folder.glob("chunk-*.parquet"))

    def write(self, chunk: Chunk, df: pd.DataFrame) -> Path:
        missing = {"prompt_id", "sample"} - set(df.columns)
        if missing:
            raise KeyError(f"rows written to {self.folder} need column(s) {', '.join(sorted(missing))}")
        if len(df) != len(chunk.rows):
            raise ValueError(f"chunk {chunk.id} has {len(chunk.rows)} rows, got {len(df)}")
        return write_parquet(df, self.path(chunk))

    def load(self, chunks: Sequence[Chunk]) -> pd.DataFrame:
        """The cached rows of the finished ones among ``chunks``."""
        parts = []
        for c in chunks:
            p = self.path(c)
            if not p.exists():
                continue
            try:
                parts.append(pd.read_parquet(p))
            except Exception as exc:
                raise CorruptCacheError(f"cache file {p} is corrupted ({type(exc).__name__}: {exc}). "
                                        "Delete it and rerun: only its chunk is generated again") from exc
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def cache_rows(todo: pd.DataFrame, pairs: list[tuple[int, Completion]]) -> pd.DataFrame:
    """The cache rows of ``pairs`` (index into ``todo``, completion) in ``todo`` order: the
    engine's :func:`completions_frame` plus each row's ``sample``."""
    pairs = sorted(pairs, key=lambda p: p[0])
    frame = completions_frame(todo, pairs)
    frame.insert(1, "sample", todo["sample"].to_numpy()[[i for i, _ in pairs]].astype("int64"))
    return frame


# --------------------------------------------------------------------------- runs
@dataclass
class RunInfo:
    """What :func:`generate_dataset` did. ``tokens``/``seconds``: this call; ``total_*``: all
    calls that filled this cache (a resumed run adds up), generation time only. ``model`` is
    the display name (:func:`~nlgbias.models.display_name`)."""

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


def read_stats(folder: Path) -> dict:
    """The generation statistics of a cache folder (``stats.json``): rows, tokens, seconds over
    every call that filled it (zeros for a new folder)."""
    path = Path(folder) / "stats.json"
    return json.loads(path.read_text()) if path.exists() else {"rows": 0, "tokens": 0, "seconds": 0.0}


def add_stats(folder: Path, rows: int, tokens: int, seconds: float) -> dict:
    """Add one chunk's rows, tokens and seconds to ``folder/stats.json`` (atomic); the totals."""
    stats = read_stats(folder)
    stats = {"rows": stats["rows"] + rows, "tokens": stats["tokens"] + tokens,
             "seconds": stats["seconds"] + seconds}
    write_json(stats, Path(folder) / "stats.json")
    return stats


@dataclass(frozen=True)
class RunPlan:
    """What a run generates with, decided before anything loads: the ``model``
    (:class:`~nlgbias.lm.LMSpec`), the registry's ``entry`` of its weights (None for a server),
    how it generates (``generator``: "sampling" (the engine), "gibbs" (masked LMs, BOLD A.2.1),
    "dialogue" (sequence-to-sequence, through :mod:`nlgbias.lm`) or "served" (a server or
    another engine, through :mod:`nlgbias.lm`)), the decoding ``params`` (and ``gibbs``
    settings), the compute ``dtype`` ("served": the backend's) and the ``prompt_format``."""

    model: LMSpec
    entry: ModelSpec | None
    generator: str
    params: DecodingParams
    dtype: str
    prompt_format: str = "plain"
    gibbs: GibbsParams | None = None

    @property
    def in_process(self) -> bool:
        return self.generator in ("sampling", "gibbs", "dialogue")

    @property
    def control_code(self) -> str | None:
        return self.entry.control_code if self.entry is not None else None

    def digest(self, seed: int, chunk_size: int, batch_size: int, threads: int) -> str:
        """The cache key: what decides the generated text. For a dtype other than float32 the
        batch size and thread count too (bf16 sums depend on them)."""
        schedule = {"chunk_size": chunk_size}
        if self.dtype != "float32":
            schedule.update(batch_size=batch_size, threads=threads)
        extra = {"schedule": schedule, **({"gibbs": self.gibbs.as_dict()} if self.gibbs else {})}
        return run_digest(self.model.text, self.params, seed, self.control_code, self.dtype,
                          self.prompt_format, extra)


def plan_run(model: str | LMSpec, *, loaded: LoadedModel | None = None,
             params: DecodingParams | None = None, gibbs: GibbsParams | None = None,
             prompt_format: str = "plain", backend: str = "local", device: str = "cpu",
             dtype: str = "auto") -> RunPlan:
    """Check a run's settings and decide how it generates (:class:`RunPlan`); raise a
    ``ValueError`` naming what is wrong before anything is loaded or written. ``model``: a spec
    (string or :class:`~nlgbias.lm.LMSpec`); its own ``device`` / ``dtype`` options win over
    the arguments."""
    if prompt_format not in PROMPT_FORMATS:
        raise ValueError(f"prompt_format must be one of {', '.join(PROMPT_FORMATS)}, got {prompt_format!r}")
    if backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {backend!r}; choose 'local' or 'ray'")
    if loaded is not None:
        spec, entry = parse_model_spec(loaded.spec.name), loaded.spec
    else:
        spec = check_spec(parse_model_spec(model))
        entry = registry_entry(spec)
    device = spec.opts.get("device", device)
    dtype = spec.opts.get("dtype", dtype) or dtype
    shown = spec.display
    generator = "served" if not spec.local_weights else (
        KINDS[entry.kind].generator if entry.kind in KINDS else None)
    if generator is None:
        raise ValueError(f"model {shown!r} of kind {entry.kind!r} cannot generate")
    if backend == "ray" and generator != "sampling":
        raise ValueError(f"the Ray backend runs causal LMs in this process; generate {shown!r} "
                         "locally")
    if generator == "gibbs":
        if prompt_format != "plain":
            raise ValueError(f"Gibbs sampling from {shown!r} continues plain text; prompt_format "
                             f"{prompt_format!r} is for chat models")
        gibbs = gibbs or GibbsParams()
        return RunPlan(spec, entry, generator, gibbs.to_decoding(),
                       _run_dtype(loaded, dtype, device), prompt_format, gibbs)
    params = params or (decoding_for(entry) if loaded is not None else decoding_of(spec))
    run_dtype = "served" if generator == "served" else _run_dtype(loaded, dtype, device)
    return RunPlan(spec, entry, generator, params, run_dtype, prompt_format)


def _run_dtype(loaded: LoadedModel | None, dtype: str, device: str) -> str:
    if loaded is not None:
        dtype = str(getattr(loaded.model, "dtype", "torch.float32")).replace("torch.", "")
    return resolve_dtype(dtype, device)


def make_engine(plan: RunPlan, *, loaded: LoadedModel | None = None, device: str = "cpu",
                batch_size: int = 32, threads: int | None = None):
    """The generator of a plan: the engine for causal LMs, Gibbs sampling for masked LMs, and
    :class:`~nlgbias.generation.lm_engine.LMEngine` over :mod:`nlgbias.lm` for a dialogue
    model or a served one. Loads the model (in this process) or connects (served)."""
    threads = threads or default_threads()
    if plan.generator == "served":
        from nlgbias.lm import get_lm

        return LMEngine(get_lm(plan.model), plan.params, prompt_format=plan.prompt_format,
                        batch_size=batch_size)
    from nlgbias.lm.hf_backend import HFLM

    device = plan.model.opts.get("device", device)
    lm = loaded or HFLM.from_spec(plan.model.with_options(device=device, dtype=plan.dtype)).lm
    if plan.generator == "gibbs":
        return GibbsGenerator(lm, plan.gibbs, batch_size=batch_size, num_threads=threads)
    if plan.generator == "dialogue":
        set_torch_threads(threads)
        return LMEngine(HFLM(loaded=lm, batch_size=batch_size), plan.params,
                        prompt_format=plan.prompt_format, batch_size=batch_size, dialogue=True)
    return CausalGenerator(lm, plan.params, batch_size=batch_size, num_threads=threads,
                           prompt_format=plan.prompt_format)


def generate_dataset(prompts: pd.DataFrame, model: str, out_dir: str | Path, *, dataset: str,
                     samples_per_prompt: int = 1, prompt_format: str = "plain", seed: int = 0,
                     params: DecodingParams | None = None, batch_size: int = 32, device: str = "cpu",
                     shard: str | tuple[int, int] | None = None, backend: str = "local",
                     cache_dir: str | Path | None = None, chunk_size: int = CHUNK_SIZE,
                     num_threads: int | None = None, dtype: str = "auto",
                     loaded: LoadedModel | None = None, ray_options: dict | None = None,
                     gibbs: GibbsParams | None = None, progress: bool = True) -> RunInfo:
    """Generate ``samples_per_prompt`` continuations of every prompt of ``prompts`` with
    ``model``; write ``out_dir/<dataset>__<model_slug>.parquet`` (see the module docstring).

    ``prompts``: ``prompt_id`` (unique strings), ``prompt`` and any metadata columns, copied to
    every output row. ``model``: a registered name, hub id or local checkpoint folder (or
    ``loaded``, an already loaded model), or a model spec of :mod:`nlgbias.lm` naming a server
    (``openai:<base URL>#<model>``) or vLLM (``vllm:<model>``). ``prompt_format="chat"``
    sends each prompt as the user turn of the model's chat template; ``generation`` is then the
    assistant response. A dialogue model (BlenderBot) always replies to the prompt as a user
    turn, in its own dialogue format.

    Resumable and exact: the rows are generated in the fixed chunks of :func:`chunk_schedule`
    (``chunk_size`` rows each), every finished chunk is written to ``cache_dir`` (default
    ``<out_dir>/../interim/generation_cache``, one folder per
    ``<dataset>__<model_slug>__<digest>``); a rerun skips finished chunks and redoes an
    unfinished one from its start, so a killed and resumed run writes the same bytes as an
    uninterrupted one (bfloat16 too). The digest holds the chunk size, and for a dtype other
    than float32 also the batch size and thread count (they change bf16 numbers). With
    ``shard="i/n"`` only that share of the chunks is generated and the final file is written
    once the cache holds every chunk. ``backend="ray"`` runs the generation on Ray, one chunk
    per task (``ray_options``: ``address``, ``num_actors``, ``cpus_per_actor``).
    A masked LM (``bert-large-cased``) is generated by Gibbs sampling with ``gibbs``
    (:class:`~nlgbias.engine.gibbs.GibbsParams`, default the paper's). ``params``: the
    decoding settings (default: the model's, :func:`decoding_for`).
    ``dtype="auto"`` computes in bfloat16 where the hardware has bf16 units (see
    :func:`resolve_dtype`); the dtype is part of the cache key and stored in the ``dtype``
    column ("served" for a server). ``num_threads`` defaults to :func:`default_threads`.
    ``progress``: a progress bar (:mod:`nlgbias.progress`: text on the terminal in headless
    notebook runs).
    """
    check_prompts(prompts)
    check_dataset_name(dataset)
    plan = plan_run(model, loaded=loaded, params=params, gibbs=gibbs, prompt_format=prompt_format,
                    backend=backend, device=device, dtype=dtype)
    spec, shown = plan.model, plan.model.display
    out_dir = Path(out_dir)
    target = out_dir / output_name(dataset, spec)
    t0 = time.perf_counter()
    rows_all = expand_samples(prompts, samples_per_prompt, seed)
    chunks = chunk_schedule(rows_all, chunk_size)
    threads = num_threads or default_threads()
    cache_dir = Path(cache_dir) if cache_dir else out_dir.parent / "interim" / "generation_cache"
    s = parse_shard(shard)
    cache = ChunkCache(cache_dir / f"{dataset}__{spec.slug}__"
                                   f"{plan.digest(seed, chunk_size, batch_size, threads)}")

    def info(path, rows, generated, tokens, complete) -> RunInfo:
        st = read_stats(cache.folder)
        return RunInfo(shown, path, rows, generated, tokens, time.perf_counter() - t0, complete,
                       total_tokens=st["tokens"], total_seconds=st["seconds"], total_rows=st["rows"])

    if target.exists() and shard is None and cache.any() and _up_to_date(
            target, rows_all, {"seed": seed, "dtype": plan.dtype, "prompt_format": prompt_format,
                               **plan.params.as_dict()}):  # same digest: same settings
        log.info("%s is up to date (%d rows): nothing to generate", target.name, len(rows_all))
        return info(target, len(rows_all), 0, 0, True)
    mine = shard_chunks(chunks, s)
    todo = [c for c in mine if not cache.done(c)]
    n_mine, n_todo = sum(len(c.rows) for c in mine), sum(len(c.rows) for c in todo)
    log.info("%s: %d rows (%d prompts x %d samples%s) in %d chunks of up to %d, %d cached, %d to "
             "generate", shown, n_mine, len(prompts), samples_per_prompt,
             f", shard {s[0]}/{s[1]}" if s else "", len(mine), chunk_size, n_mine - n_todo, n_todo)
    tokens = 0
    if todo and backend == "ray":
        t1 = time.perf_counter()
        tokens = generate_with_ray(rows_all, todo, spec.target, plan.params, cache, device=device,
                                   dtype=plan.dtype, batch_size=batch_size, prompt_format=prompt_format,
                                   **(ray_options or {}))
        add_stats(cache.folder, n_todo, tokens, time.perf_counter() - t1)
    elif todo:
        engine = make_engine(plan, loaded=loaded, device=device, batch_size=batch_size, threads=threads)
        tokens = _run_local(engine, rows_all, todo, cache, progress, shown)
    frame = cache.load(chunks)
    if len(frame) < len(rows_all):
        log.info("%s: %d of %d rows in the cache (shard %s); the parquet is written once all are done",
                 shown, len(frame), len(rows_all), shard)
        return info(None, len(frame), n_todo, tokens, False)
    frame["key"] = [row_key(p, int(k)) for p, k in zip(frame["prompt_id"], frame["sample"])]
    write_parquet(_output_frame(prompts, rows_all, frame, plan, seed), target)
    return info(target, len(rows_all), n_todo, tokens, True)


def _up_to_date(target: Path, rows_all: pd.DataFrame, want: dict) -> bool:
    """Whether ``target`` holds exactly the rows of ``rows_all`` made with the settings ``want``."""
    try:
        old = pd.read_parquet(target, columns=["prompt_id", "sample", *want])
    except Exception:
        return False
    keys = {row_key(p, int(k)) for p, k in zip(old["prompt_id"], old["sample"])}
    meta = old[list(want)].drop_duplicates()
    return (len(old) == len(rows_all) and keys == set(rows_all["key"]) and len(meta) == 1
            and meta.iloc[0].to_dict() == want)


def _output_frame(prompts: pd.DataFrame, rows_all: pd.DataFrame, frame: pd.DataFrame, plan: RunPlan,
                  seed: int) -> pd.DataFrame:
    """The output rows in ``rows_all`` order: metadata of the prompt, the cached generation, the
    run's settings; columns as :func:`output_columns`."""
    spec, params = plan.model, plan.params
    gen = frame.set_index("key").loc[rows_all["key"]].reset_index(drop=True)
    meta = prompts.set_index("prompt_id").loc[rows_all["prompt_id"]].reset_index()
    out = meta.drop(columns="prompt").assign(sample=rows_all["sample"].to_numpy(),
                                             prompt=rows_all["prompt"].to_numpy())
    for c in ("generation", "text", "row_seed", "n_new_tokens", "finish_reason"):
        out[c] = gen[c].to_numpy()
    out["model"] = spec.display
    out["seed"] = seed
    for k, v in params.as_dict().items():
        out[k] = v
    out["prompt_format"] = plan.prompt_format
    out["control_code"] = plan.control_code
    out["dtype"] = plan.dtype
    out["model_source"] = model_source(spec, plan.entry)
    return out[output_columns(prompts)]


def _run_local(engine, rows_all: pd.DataFrame, todo: Sequence[Chunk], cache: ChunkCache,
               progress: bool, label: str) -> int:
    """Generate the chunks ``todo`` (of ``rows_all``) one by one with ``engine``, writing each
    to ``cache`` once all its rows are done; returns the tokens generated. An interruption
    loses the chunk in progress only (the next run redoes it from its start)."""
    tokens0 = engine.tokens_generated
    bar = tqdm(total=sum(len(c.rows) for c in todo), desc=f"generate {label}", unit="row",
               disable=not progress)
    try:
        for chunk in todo:
            part = rows_all.iloc[list(chunk.rows)].reset_index(drop=True)
            rows0, tok0, sec0 = engine.rows_done, engine.tokens_generated, engine.seconds
            pairs = [p for batch in engine.iter_generate(part["prompt"].tolist(),
                                                         part["row_seed"].tolist(), bar)
                     for p in batch]
            cache.write(chunk, cache_rows(part, pairs))
            add_stats(cache.folder, engine.rows_done - rows0, engine.tokens_generated - tok0,
                          engine.seconds - sec0)
    finally:
        bar.close()
    return engine.tokens_generated - tokens0


def generate_models(prompts: pd.DataFrame, models: Sequence[str], out_dir: str | Path, *,
                    dataset: str, on_done: Callable[[RunInfo], None] | None = None,
                    params_for: Callable[[str], DecodingParams] | None = None, **kw) -> list[RunInfo]:
    """:func:`generate_dataset` for each of ``models``; every name is checked first, so an
    unknown or unavailable model fails before any generation starts. ``params_for(model)``
    gives the decoding parameters of each model that decodes (all but masked LMs, which Gibbs
    sampling generates; default: the model's, see :func:`decoding_for`)."""
    check_prompts(prompts)
    check_dataset_name(dataset)
    plans = [plan_run(m) for m in models]  # every model checked before any generation
    params = [params_for(m) if params_for and p.generator != "gibbs" else None
              for m, p in zip(models, plans)]
    infos = []
    for m, p in zip(models, params):
        extra = {"params": p} if p is not None else {}
        info = generate_dataset(prompts, m, out_dir, dataset=dataset, **extra, **kw)
        infos.append(info)
        if on_done:
            on_done(info)
    return infos


# --------------------------------------------------------------------------- run summaries
def run_table(infos: Sequence[RunInfo]) -> pd.DataFrame:
    """One row per run: ``model, rows, new tokens, generation seconds, tokens/s, file`` (totals
    over every call that filled the run's cache; generation time only, loading excluded)."""
    return pd.DataFrame([{
        "model": i.model, "rows": i.rows, "new tokens": i.total_tokens,
        "generation seconds": round(i.total_seconds, 1),
        "tokens/s": round(i.tokens_per_second, 1) if i.total_seconds else None,
        "file": i.path.name if i.path else "(incomplete shard)"} for i in infos],
        columns=["model", "rows", "new tokens", "generation seconds", "tokens/s", "file"])


def count_table(gens: pd.DataFrame, index: str, models: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows per ``index`` value (e.g. a domain) and model, with a ``total`` row; models as
    columns in the order of ``models`` (default: sorted)."""
    counts = gens.pivot_table(index=index, columns="model", values="prompt_id", aggfunc="size",
                              fill_value=0)
    if models is not None:
        counts = counts[[m for m in models if m in counts.columns]]
    counts.loc["total"] = counts.sum()
    counts.columns.name = "model"
    return counts


def finish_table(gens: pd.DataFrame) -> pd.DataFrame:
    """Rows per model and ``finish_reason`` (``sentence``, ``eos``, ``length``, ...)."""
    return gens.pivot_table(index="model", columns="finish_reason", values="prompt_id",
                            aggfunc="size", fill_value=0)


def with_word_counts(gens: pd.DataFrame) -> pd.DataFrame:
    """``gens`` with ``words``: white-space separated words of the continuation."""
    return gens.assign(words=gens["generation"].fillna("").str.split().str.len())


def length_table(gens: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean, median and maximum words of the continuation per model (rows in ``models`` order,
    default: sorted)."""
    g = with_word_counts(gens).groupby("model")["words"]
    out = pd.DataFrame({"rows": g.size(), "mean words": g.mean().round(2), "median words": g.median(),
                        "max words": g.max()})
    return out if models is None else out.loc[[m for m in models if m in out.index]]
