"""Tables: every reproduced table is saved as CSV plus a Markdown rendering under ``results/``."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.io import write_csv, write_text
from nlgbias.paths import rel

log = logging.getLogger(__name__)


def to_markdown(df: pd.DataFrame, floatfmt: str = ".3f", title: str | None = None) -> str:
    """A GitHub-flavoured Markdown rendering of ``df`` (index dropped unless named)."""
    keep_index = any(n is not None for n in df.index.names)
    shown = df.reset_index() if keep_index else df
    cells = pd.DataFrame({c: _format_column(shown[c], floatfmt) for c in shown.columns})
    align = ["right" if pd.api.types.is_numeric_dtype(shown[c]) and not pd.api.types.is_bool_dtype(shown[c])
             else "left" for c in shown.columns]
    if not len(shown):  # no rows (a sample too small for the table): the header alone
        body = "| " + " | ".join(map(str, shown.columns)) + " |\n|" + "---|" * len(shown.columns)
    else:
        body = cells.to_markdown(index=False, disable_numparse=True, colalign=align)
    return (f"### {title}\n\n" if title else "") + body + "\n"


def _format_column(col: pd.Series, floatfmt: str) -> list[str]:
    """Integers as integers, floats with ``floatfmt``, missing values empty."""
    def fmt(v) -> str:
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            return ""
        if isinstance(v, (bool, np.bool_)):
            return str(bool(v))
        if isinstance(v, (int, np.integer)):
            return f"{int(v):,}"
        if isinstance(v, (float, np.floating)):
            return format(float(v), floatfmt)
        return str(v).replace("\n", " ").replace("|", "\\|")
    return [fmt(v) for v in col.tolist()]


def save_table(df: pd.DataFrame, folder: str | Path, name: str, *, title: str | None = None,
               floatfmt: str = ".3f") -> dict[str, Path]:
    """Write ``<folder>/<name>.csv`` and ``<folder>/<name>.md``; return both paths."""
    folder = Path(folder)
    out = df.reset_index() if any(n is not None for n in df.index.names) else df
    csv = write_csv(out, folder / f"{name}.csv")
    md = write_text(to_markdown(df, floatfmt=floatfmt, title=title), folder / f"{name}.md")
    log.info("wrote %s (.csv, .md)", rel(folder / name))
    return {"csv": csv, "md": md}


def paper_vs_run(paper: pd.DataFrame, run: pd.DataFrame, on: list[str], value: str = "value",
                 *, columns: str | None = None) -> pd.DataFrame:
    """Join the paper's numbers with this run's on ``on``: columns ``paper``, ``this run``, ``diff``.

    Both frames hold the key columns ``on`` and a ``value`` column. Rows the paper does not
    report keep ``paper`` empty.

    With ``columns`` (e.g. ``"source"``), ``run`` is long with one value per (``on``,
    ``columns``) cell: the result keeps every row and column of ``paper`` (in its order) and
    adds one column per distinct ``columns`` value of ``run`` (in order of appearance).
    """
    if columns is not None:
        wide = run.pivot_table(index=on, columns=columns, values=value, aggfunc="first",
                               sort=False)
        wide = wide.reindex(columns=list(run[columns].drop_duplicates()))
        wide.columns.name = None
        return paper.merge(wide.reset_index(), on=on, how="left")
    merged = run.rename(columns={value: "this run"}).merge(
        paper.rename(columns={value: "paper"}), on=on, how="outer")
    merged["diff"] = merged["this run"] - merged["paper"]
    return merged[[*on, "paper", "this run", "diff"]]


def beside_paper(run: pd.DataFrame, paper: pd.DataFrame, source: str = "WIKI") -> pd.DataFrame:
    """``run`` with the paper's ``source`` row(s) and ``<source> - paper`` rows interleaved.

    For tables indexed by ``source`` (the paper's row and the difference are appended) and by
    ``(group, source)`` (after each group's rows). Only the columns both tables have are kept;
    the difference is ``run - paper`` where this run has a ``source`` row.
    """
    cols = [c for c in run.columns if c in paper.columns]
    label, diff = f"{source} (paper)", f"{source} - paper"
    if run.index.nlevels == 1:
        out = run[cols].copy()
        if source in paper.index:
            out.loc[label] = paper.loc[source, cols]
            if source in run.index:
                out.loc[diff] = run.loc[source, cols].astype(float) - paper.loc[source, cols].astype(float)
        return out
    level = run.index.names[0]
    parts = []
    for grp in run.index.get_level_values(level).unique():
        parts.append(run.loc[[grp], cols])
        if (grp, source) in paper.index:
            p = paper.loc[[(grp, source)], cols].rename(index={source: label})
            parts.append(p)
            if (grp, source) in run.index:
                d = run.loc[[(grp, source)], cols].astype(float) - p.to_numpy(float)
                parts.append(d.rename(index={source: diff}))
    return pd.concat(parts)
