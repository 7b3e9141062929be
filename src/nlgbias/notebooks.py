"""Notebook sources and execution.

Each notebook ``notebooks/NN_name.ipynb`` is generated from a percent-format script
``notebooks/src/NN_name.py`` (``# %%`` code cells, ``# %% [markdown]`` Markdown cells, and
``# %% tags=["parameters"]`` for the papermill parameters cell), so notebooks diff well and
never drift: ``python -m nlgbias.notebooks build`` rewrites them, and a test checks they match.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import nbformat

from nlgbias.io import write_text
from nlgbias.paths import project_root

_CELL = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<tags> tags=\[(?P<taglist>[^\]]*)\])?\s*$")


class NotebookSkipped(RuntimeError):
    """Raised by a notebook that cannot run on the models it was given (e.g. it tunes weights
    and the model is behind a server): the runner reports the message, keeps the executed copy
    and goes on with the next notebook."""


def parse_percent(text: str) -> list[nbformat.NotebookNode]:
    """Split a percent-format script into notebook cells."""
    cells, kind, tags, buf = [], None, [], []

    def flush():
        if kind is None:
            return
        body = "\n".join(buf).strip("\n")
        if kind == "markdown":
            body = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#")
                             for line in body.splitlines())
            cells.append(nbformat.v4.new_markdown_cell(body))
        else:
            cell = nbformat.v4.new_code_cell(body)
            if tags:
                cell.metadata["tags"] = tags
            cells.append(cell)

    for line in text.splitlines():
        m = _CELL.match(line)
        if m:
            flush()
            kind = "markdown" if m.group("md") else "code"
            tags = json.loads("[" + m.group("taglist") + "]") if m.group("tags") else []
            buf = []
        elif kind is not None:
            buf.append(line)
    flush()
    return cells


def build(source: Path, target: Path) -> nbformat.NotebookNode:
    """Build the notebook ``target`` from the percent script ``source`` (ids are stable)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = parse_percent(source.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{source.stem[:2]}-{i:03d}"
    nb.metadata["kernelspec"] = {"name": "nlgbias", "display_name": "Python (nlgbias)",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    write_text(nbformat.writes(nb) + "\n", target)
    return nb


def sources(root: Path | None = None) -> list[Path]:
    root = root or project_root()
    return sorted((root / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.notebooks")
    ap.add_argument("command", choices=["build"])
    args = ap.parse_args(argv)
    if args.command == "build":
        for src in sources():
            target = src.parent.parent / f"{src.stem}.ipynb"
            build(src, target)
            print(f"built {target.relative_to(project_root())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
