"""One cached, resumable loop that applies a metric to many texts.

Every notebook that classifies or scores texts (BOLD sentiment/toxicity and norms, regard,
HolisticBias styles, ...) calls :func:`score_texts`: the rows are keyed, the rows already in
the cache are skipped, the rest are scored chunk by chunk and each finished chunk is written
as one parquet shard (:class:`nlgbias.io.ShardCache`, atomic writes), so an interrupted run
loses at most one chunk and a rerun scores nothing twice. Rows with the same key are scored
once.

The cache folder stands for one metric *configuration* (e.g. ``interim/sentiment_toxicity/
WIKI/toxblock``): the caller puts everything that changes the scores (model, version,
thresholds applied inside ``fn``) into the folder name.

Example:
    >>> import pandas as pd, tempfile
    >>> frame = pd.DataFrame({"text": ["a", "bb", "a"]})
    >>> calls = []
    >>> def length(chunk):
    ...     calls.append(len(chunk))
    ...     return pd.DataFrame({"n_chars": chunk["text"].str.len()})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     out = score_texts(frame, ["text"], length, d, chunk_size=1, progress=False)
    ...     again = score_texts(frame, ["text"], length, d, progress=False)
    >>> out["n_chars"].tolist(), calls, again.attrs["scoring"]["scored now"]
    ([1, 2, 1], [1, 1], 0)
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from nlgbias.io import ShardCache
from nlgbias.progress import tqdm

log = logging.getLogger(__name__)

KEY = "key"


def row_keys(frame: pd.DataFrame, columns: Sequence[str]) -> pd.Series:
    """A stable key per row: the first 20 hex digits of sha1 over ``columns`` (joined by 0x1f).

    >>> row_keys(pd.DataFrame({"a": ["x"], "b": [1]}), ["a", "b"]).tolist()
    ['8f6e26a21eed9420e354']
    """
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"row_keys: no column(s) {missing}; have {list(frame.columns)}")
    parts = zip(*(frame[c].tolist() for c in columns)) if len(columns) else iter(())
    return pd.Series([_digest(t) for t in parts], index=frame.index, dtype=object)


def _digest(values) -> str:
    """The first 20 hex digits of sha1 over ``values`` joined by 0x1f: a row's key (over its
    columns) and a chunk's identity (over its keys in order)."""
    return hashlib.sha1("\x1f".join(map(str, values)).encode("utf-8")).hexdigest()[:20]


def _chunk_id(keys: pd.Series) -> str:
    """The identity of a chunk: :func:`_digest` over its keys in order (one shard holds one chunk)."""
    return _digest(keys.tolist())


def _plan(frame: pd.DataFrame, key, cache_dir, chunk_size: int, batch_dependent: bool):
    """What :func:`score_texts` will score: (the keyed frame, the key column, the cache, the
    chunks still to score, the keys it reuses, and in the batch-dependent mode the cached shards
    of this frame's chunks, in shard order (None otherwise))."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    if isinstance(key, str):
        if key not in frame.columns:
            raise KeyError(f"score_texts: key column {key!r} not in {list(frame.columns)}")
        key_col, keys = key, frame[key]
    else:
        key_col, keys = KEY, row_keys(frame, list(key))
    cache = ShardCache(cache_dir, key=key_col)
    work = frame.assign(**{key_col: keys})
    # fixed chunks: the distinct keys in frame order cut every chunk_size keys, wherever an
    # earlier run stopped (each chunk is cached as one shard, so a killed run left whole chunks).
    # A chunk's rows, and so its numbers when fn batches them, depend on the frame only: a
    # resumed run scores what an uninterrupted one would.
    distinct = work.drop_duplicates(key_col)
    cuts = [distinct.iloc[s:s + chunk_size] for s in range(0, len(distinct), chunk_size)]
    mine = None
    if batch_dependent:
        # a shard is one chunk as fn scored it: reused only where it is one of this frame's chunks
        ids = [_chunk_id(c[key_col]) for c in cuts]
        parts = cache.parts()
        part_ids = [_chunk_id(p[key_col]) for p in parts]
        have, wanted = set(part_ids), set(ids)
        mine = [p for p, i in zip(parts, part_ids) if i in wanted]
        chunks = [c for c, i in zip(cuts, ids) if i not in have]
        done = {k for c, i in zip(cuts, ids) if i in have for k in c[key_col]}
    else:
        # keys cached by another frame's run are reused; only the rest of their chunk is scored
        done = cache.done_keys()
        chunks = [c[~c[key_col].isin(done).to_numpy()] for c in cuts]
        chunks = [c for c in chunks if len(c)]
    return work, key_col, cache, chunks, done, mine


def pending(frame: pd.DataFrame, key: str | Sequence[str], cache_dir: str | Path, *,
            chunk_size: int = 4000, batch_dependent: bool = False) -> pd.DataFrame:
    """The rows of ``frame`` (distinct keys, with the key column) that :func:`score_texts` with
    the same arguments would score now; e.g. to prepare their inputs in one pass first.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = score_texts(pd.DataFrame({"text": ["a", "b"]}), "text",
    ...                     lambda c: pd.DataFrame({"n": c["text"].str.len()}), d, progress=False)
    ...     pending(pd.DataFrame({"text": ["a", "c", "c"]}), "text", d)["text"].tolist()
    ['c']
    """
    work, _, _, chunks, _, _ = _plan(frame, key, cache_dir, chunk_size, batch_dependent)
    return pd.concat(chunks) if chunks else work.iloc[:0]


def score_texts(frame: pd.DataFrame, key: str | Sequence[str],
                fn: Callable[[pd.DataFrame], pd.DataFrame], cache_dir: str | Path, *,
                chunk_size: int = 4000, desc: str = "score", progress: bool | None = None,
                batch_dependent: bool = False) -> pd.DataFrame:
    """Score every row of ``frame`` with ``fn``, through a resumable cache.

    Args:
        frame: the rows to score (any columns; its index is kept).
        key: the name of a column that identifies what is scored (equal keys = equal scores),
            or a list of columns, hashed by :func:`row_keys` into a column ``key``.
        fn: ``fn(chunk) -> DataFrame`` with one row per row of ``chunk``, in the same order
            (its index is ignored): the score columns. ``chunk`` holds distinct keys only.
        cache_dir: the :class:`~nlgbias.io.ShardCache` folder of this metric configuration.
        chunk_size: rows per call of ``fn`` and per cached shard: the distinct keys in frame
            order cut every ``chunk_size`` (the same chunks whatever a killed run had cached:
            a resumed run writes the same numbers as an uninterrupted one).
        desc: progress-bar label. progress: ``False`` hides the bar, ``None`` shows it only
            for two or more chunks.
        batch_dependent: ``fn``'s number for a row depends on the rows scored with it (a
            language model's batches: padding and shared prefixes move bfloat16 sums). Then a
            row is reused only from a cached chunk of exactly this frame's chunk (the same keys
            in the same order, e.g. this frame's own earlier run), never from another frame's
            chunk, so a warm run writes what a cold one does. Off: rows are reused by key.

    Returns:
        ``frame`` with the key column (if hashed) and the score columns joined, same index
        and row order. ``out.attrs["scoring"]`` holds ``rows``, ``distinct``, ``cached``,
        ``scored now`` and ``seconds`` (time spent in ``fn``).
    """
    work, key_col, cache, chunks, done, mine = _plan(frame, key, cache_dir, chunk_size, batch_dependent)
    keys = work[key_col]
    stats = {"rows": len(frame), "distinct": int(keys.nunique()),
             "cached": int(keys[keys.isin(done)].nunique()),
             "scored now": int(sum(len(c) for c in chunks)), "seconds": 0.0}
    if chunks:
        log.info("%s: scoring %d new of %d rows (%d cached) into %s", desc, stats["scored now"],
                 len(frame), stats["cached"], Path(cache_dir).name)
    show = (len(chunks) >= 2) if progress is None else progress
    for chunk in tqdm(chunks, desc=desc, disable=not show):
        t0 = time.perf_counter()
        scores = fn(chunk)
        stats["seconds"] += time.perf_counter() - t0
        if not isinstance(scores, pd.DataFrame) or len(scores) != len(chunk):
            raise ValueError(f"{desc}: fn must return a DataFrame with {len(chunk)} rows, got "
                             f"{type(scores).__name__} of {len(scores) if hasattr(scores, '__len__') else '?'}")
        if key_col in scores.columns:
            raise ValueError(f"{desc}: fn returned the key column {key_col!r}")
        path = cache.append(scores.reset_index(drop=True).assign(**{key_col: chunk[key_col].to_numpy()}))
        if batch_dependent:  # read back as a warm run reads it; the plan read the older shards
            mine.append(pd.read_parquet(path))
    if batch_dependent:
        cached = pd.concat(mine, ignore_index=True) if mine else pd.DataFrame()
    else:
        cached = cache.load()
    if not len(cached):
        out = work.copy()
    else:
        cached = cached.drop_duplicates(key_col, keep="last").set_index(key_col)
        clash = sorted(set(cached.columns) & set(work.columns))
        if clash:
            raise ValueError(f"{desc}: score column(s) {clash} already in the frame; drop them "
                             "or rename the metric's output")
        out = work.join(cached, on=key_col)
    out.attrs["scoring"] = stats
    return out


__all__ = ["KEY", "pending", "row_keys", "score_texts"]
