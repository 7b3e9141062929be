"""Atomic file writes and a resumable row cache, so an interrupted job loses nothing."""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd


class WriteError(OSError):
    """A file could not be written (read-only folder, full disk); the old file is untouched."""

    def __init__(self, target: Path, cause: OSError):
        why = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is exceeded",
               errno.EROFS: "the file system is read-only"}.get(
            cause.errno, "the folder is not writable (permission denied)")
        super().__init__(cause.errno, f"cannot write {target}: {why}. Free space or make the "
                         f"folder writable, or run with another project root; any earlier "
                         f"version of the file is left as it was")
        self.target = target


@contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success move it over ``target`` atomically."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(target, exc) from exc
    os.close(fd)
    try:
        try:
            yield Path(tmp)
            os.replace(tmp, target)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS):
                raise WriteError(target, exc) from exc
            raise
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


@contextmanager
def atomic_dir(target: str | Path) -> Iterator[Path]:
    """Yield a new temporary folder beside ``target``; on success rename it to ``target``, so a
    folder that exists is complete. If another process renamed its own copy into place first,
    that copy is kept (both were built the same way); the temporary folder never stays."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    except OSError as exc:
        raise WriteError(target, exc) from exc
    try:
        yield tmp
        try:
            os.replace(tmp, target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_parquet(df: pd.DataFrame, target: str | Path) -> Path:
    """Write ``df`` to ``target`` as parquet, atomically. ``df.attrs`` (run statistics such as
    timings) are left out: pandas would store them in the file, and the same data must give
    the same bytes."""
    if df.attrs:
        df = df.copy(deep=False)
        df.attrs = {}
    with atomic_path(target) as tmp:
        df.to_parquet(tmp, index=False)
    return Path(target)


def write_csv(df: pd.DataFrame, target: str | Path, **kw) -> Path:
    """Write ``df`` to ``target`` as CSV, atomically."""
    kw.setdefault("index", False)
    with atomic_path(target) as tmp:
        df.to_csv(tmp, **kw)
    return Path(target)


def write_text(text: str, target: str | Path) -> Path:
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_json(obj, target: str | Path) -> Path:
    return write_text(json.dumps(obj, indent=2, sort_keys=False, default=str) + "\n", target)


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a parquet or CSV file handed over by an earlier notebook, with a clear error."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist: run the notebook that writes it first (see README, 'outputs')")
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except Exception as exc:
        raise ValueError(f"{path} is malformed or truncated: {exc}") from exc


class CorruptCacheError(ValueError):
    """A resume-cache shard cannot be read (written atomically, so only by outside damage)."""


class ShardCache:
    """A resumable cache of finished rows: one parquet shard per flushed chunk.

    ``done_keys()`` tells which keys are finished; ``append(df)`` writes a new shard atomically;
    ``load()`` concatenates all shards. A crash between shards loses at most one chunk.
    """

    def __init__(self, folder: str | Path, key: str = "key"):
        self.folder = Path(folder)
        self.key = key
        self.folder.mkdir(parents=True, exist_ok=True)

    def shards(self) -> list[Path]:
        return sorted(self.folder.glob("shard-*.parquet"))

    def parts(self) -> list[pd.DataFrame]:
        """Each shard's rows, in the order they were written (one frame per ``append``)."""
        parts = []
        for p in self.shards():
            try:
                parts.append(pd.read_parquet(p))
            except Exception as exc:
                raise CorruptCacheError(
                    f"cache shard {p} is corrupted ({type(exc).__name__}: {exc}). Delete that file "
                    "and rerun: only its rows are recomputed") from exc
        return parts

    def load(self) -> pd.DataFrame:
        parts = self.parts()
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    def done_keys(self) -> set:
        df = self.load()
        return set(df[self.key]) if len(df) else set()

    def append(self, df: pd.DataFrame) -> Path:
        if self.key not in df.columns:
            raise KeyError(f"rows written to {self.folder} need a {self.key!r} column")
        n = len(self.shards())
        return write_parquet(df, self.folder / f"shard-{n:06d}.parquet")

    def clear(self) -> None:
        for p in self.shards():
            p.unlink()
