"""What a run was made on, and how it compares with the committed outputs by value.

Byte-identity holds only on the same CPU kind at the reference 2 torch threads: bfloat16
kernels and training differ by CPU, so a rerun elsewhere moves model-dependent numbers in the
second or third digit. What must not move is a verdict. :func:`compare_with_committed` reads
each committed table a run rewrote and reports:

- ``identical``: the same bytes;
- ``within tolerance``: every numeric cell within :data:`REL_TOL` (relative) or
  :data:`ABS_TOL` (absolute) of the committed one and every text cell equal;
- ``differs``: beyond that (the largest change is named);

and, for every claims table (``results/*_claims*.csv``), each claim whose **verdict** changed.
:func:`machine` names the CPU (model and the flags that decide the bf16 path) for the run
record.
"""

from __future__ import annotations

import io as _io
import math
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

#: numeric cells may differ by this share of the larger absolute value ...
REL_TOL = 0.05
#: ... or by this much (for values near 0)
ABS_TOL = 0.01
#: the CPU flags that decide which bf16 / int8 kernels run
CPU_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_tile")


def machine() -> dict:
    """The CPU model, its relevant flags, the core count and library versions."""
    from nlgbias.hardware import cpu_info

    model, flags = cpu_info()
    model = model or platform.processor() or "unknown"
    import os

    out = {"cpu": model, "cpu flags": " ".join(f for f in CPU_FLAGS if f in flags) or "none",
           "cores": os.cpu_count(), "python": platform.python_version()}
    try:
        import torch

        out["torch"] = torch.__version__
    except ImportError:  # pragma: no cover
        pass
    return out


def describe(m: dict) -> str:
    """One line: ``AMD EPYC (avx2 avx512f avx512_bf16 avx512_vnni), 2 cores, torch 2.13.0``."""
    return f"{m['cpu']} ({m['cpu flags']}), {m['cores']} cores, torch {m.get('torch', '?')}"


@dataclass
class Comparison:
    """The result of :func:`compare_with_committed`."""

    identical: list[str] = field(default_factory=list)
    within: list[str] = field(default_factory=list)
    differs: list[tuple[str, str]] = field(default_factory=list)  # (file, largest change)
    verdicts: list[tuple[str, str, str]] = field(default_factory=list)  # (claim id, before, after)
    claims_compared: int = 0

    def lines(self) -> list[str]:
        n = len(self.identical) + len(self.within) + len(self.differs)
        out = [f"against the committed tables ({n} compared): {len(self.identical)} identical, "
               f"{len(self.within)} within tolerance (numbers within {REL_TOL:.0%} or "
               f"{ABS_TOL:g}), {len(self.differs)} beyond it"]
        out += [f"    BEYOND TOLERANCE {f}: {why}" for f, why in self.differs]
        if self.claims_compared:
            out.append(f"verdicts: {self.claims_compared - len(self.verdicts)} of "
                       f"{self.claims_compared} claims have the committed verdict")
            out += [f"    VERDICT CHANGED {cid}: {a} -> {b}" for cid, a, b in self.verdicts]
        return out


def _close(a: float, b: float) -> bool:
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= max(ABS_TOL, REL_TOL * max(abs(a), abs(b)))


def compare_tables(old: pd.DataFrame, new: pd.DataFrame) -> str | None:
    """None if ``new`` equals ``old`` within the tolerance, else the largest change, in words."""
    if list(old.columns) != list(new.columns) or len(old) != len(new):
        return f"shape or columns changed ({old.shape} -> {new.shape})"
    worst, where = 0.0, None
    for col in old.columns:
        a, b = old[col], new[col]
        an, bn = pd.to_numeric(a, errors="coerce"), pd.to_numeric(b, errors="coerce")
        numeric = an.notna() | a.isna()
        for i in range(len(a)):
            if numeric.iloc[i] and (bn.notna().iloc[i] or b.isna().iloc[i]):
                x, y = float(an.iloc[i]), float(bn.iloc[i])
                if not _close(x, y):
                    gap = abs(x - y) / max(abs(x), abs(y), ABS_TOL)
                    if gap > worst:
                        worst, where = gap, f"{col!r} row {i}: {x:g} -> {y:g}"
            elif str(a.iloc[i]) != str(b.iloc[i]):
                return f"text in {col!r} row {i} changed"
    return where


def _git_show(root: Path, rel: str) -> str | None:
    try:
        res = subprocess.run(["git", "-C", str(root), "show", f"HEAD:{rel}"], capture_output=True,
                             text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return res.stdout


def compare_with_committed(root: Path, wrote: list[Path],
                           volatile: set[str] | frozenset[str] = frozenset()) -> Comparison | None:
    """Compare the CSV tables in ``wrote`` with their committed versions (``git show HEAD``),
    leaving out the timing tables named in ``volatile``; None outside a git checkout or when
    none of them is committed."""
    if not (root / ".git").exists():
        return None
    out = Comparison()
    for p in sorted(wrote):
        if p.suffix != ".csv" or not p.is_relative_to(root) or not p.exists() or p.stem in volatile:
            continue
        rel = str(p.relative_to(root))
        before = _git_show(root, rel)
        if before is None:
            continue
        after = p.read_text()
        claims_table = "_claims" in p.stem
        if before != after or claims_table:  # parsed only where a comparison needs it
            old = pd.read_csv(_io.StringIO(before), dtype=str, keep_default_na=False)
            new = pd.read_csv(_io.StringIO(after), dtype=str, keep_default_na=False)
        if before == after:
            out.identical.append(rel)
        else:
            why = compare_tables(old.replace("", float("nan")), new.replace("", float("nan")))
            if why is None:
                out.within.append(rel)
            else:
                out.differs.append((rel, why))
        if claims_table:
            if {"id", "verdict"} <= set(old.columns) & set(new.columns):
                was = dict(zip(old["id"], old["verdict"]))
                now = dict(zip(new["id"], new["verdict"]))
                ids = sorted(set(was) | set(now))
                out.claims_compared += len(ids)
                out.verdicts += [(i, was.get(i, "(new)"), now.get(i, "(gone)"))
                                 for i in ids if was.get(i) != now.get(i)]
    if not (out.identical or out.within or out.differs):
        return None
    return out
