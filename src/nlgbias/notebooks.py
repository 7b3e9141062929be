"""Notebook sources and execution.

Each notebook ``notebooks/NN_name.ipynb`` is generated from a percent-format script
``notebooks/src/NN_name.py`` (``# %%`` code cells, ``# %% [markdown]`` Markdown cells, and
``# %% tags=["parameters"]`` for the papermill parameters cell), so notebooks diff well and
never drift: ``python -m nlgbias.notebooks build`` rewrites them, and a test checks they match.

The parameters cell is generated from the notebook's study (:mod:`nlgbias.profiles`, where each
parameter is declared once): the build writes it into the notebook and into the script, and
refuses a script whose parameters cell names or sets a parameter differently from the
declaration (one message saying which).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

import nbformat

from nlgbias import profiles
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


_PARAMS_HEADER = '# %% tags=["parameters"]'


def _parameters_span(lines: list[str]) -> tuple[int, int]:
    """The body of the tagged parameters cell in a percent script's ``lines``: [start, end)."""
    head = next((i for i, line in enumerate(lines) if line.strip() == _PARAMS_HEADER), None)
    if head is None:
        raise ValueError(f"the script has no parameters cell ({_PARAMS_HEADER})")
    end = next((j for j in range(head + 1, len(lines)) if _CELL.match(lines[j])), len(lines))
    while end > head + 1 and not lines[end - 1].strip():
        end -= 1
    return head + 1, end


def check_parameters(text: str, study: profiles.Study) -> None:
    """The script ``text``'s parameters cell must assign exactly ``study``'s parameters, in its
    order, each to its declared default (``None`` for a per-profile one); a ValueError says
    which differ and where to declare them."""
    lines = text.splitlines()
    a, b = _parameters_span(lines)
    given = {}
    for node in ast.parse("\n".join(lines[a:b])).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            raise ValueError(f"notebook {study.notebook}: its parameters cell holds more than "
                             f"assignments: {ast.unparse(node)!r}")
        given[node.targets[0].id] = ast.literal_eval(node.value)
    want = {p.name: (None if p.profiled else p.default) for p in study.params}
    problems = [f"{n} is not declared" for n in given if n not in want]
    problems += [f"{n} is missing" for n in want if n not in given]
    problems += [f"{n} = {profiles.literal(given[n])}, declared {profiles.literal(want[n])}"
                 for n in want if n in given and given[n] != want[n]]
    if not problems and list(given) != list(want):
        problems.append(f"the order is {', '.join(given)}; declared {', '.join(want)}")
    if problems:
        raise ValueError(f"notebook {study.notebook}'s parameters cell disagrees with its study "
                         f"{study.name!r} in nlgbias.profiles.STUDIES: {'; '.join(problems)}. "
                         "Declare parameters there (kind, default per profile, help), then run "
                         "python -m nlgbias.notebooks build")


def with_parameters_cell(text: str, study: profiles.Study) -> str:
    """The script ``text`` with its parameters cell replaced by the one generated from ``study``
    (after :func:`check_parameters`)."""
    check_parameters(text, study)
    lines = text.splitlines()
    a, b = _parameters_span(lines)
    return "\n".join([*lines[:a], study.parameters_cell(), *lines[b:]]) + "\n"


def build(source: Path, target: Path) -> nbformat.NotebookNode:
    """Build the notebook ``target`` from the percent script ``source`` (ids are stable), its
    parameters cell generated from the notebook's study (:func:`with_parameters_cell`)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = parse_percent(with_parameters_cell(source.read_text(encoding="utf-8"),
                                                  profiles.study(source.stem)))
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
            text = src.read_text(encoding="utf-8")
            synced = with_parameters_cell(text, profiles.study(src.stem))
            if synced != text:
                write_text(synced, src)
                print(f"wrote the parameters cell of {src.relative_to(project_root())}")
            target = src.parent.parent / f"{src.stem}.ipynb"
            build(src, target)
            print(f"built {target.relative_to(project_root())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
