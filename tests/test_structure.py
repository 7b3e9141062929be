"""The shape of the code: imports only go down, no import cycles, thin notebooks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from nlgbias.paths import project_root

SRC = project_root() / "src" / "nlgbias"
#: layer of each top-level module/package of nlgbias: a module may import only its layer or below
LAYERS = {
    **dict.fromkeys(["__init__", "paths", "profiles", "io", "resources", "stats", "plots",
                     "tables", "runner", "hardware", "notebooks", "outputs", "progress", "readme", "scorecard",
                     "claims", "provenance", "extras"], 0),
    **dict.fromkeys(["datasets", "models"], 1),
    # the engine layer (decoding, sampling, Gibbs) and the forward-pass code sit below lm;
    # generation runs sit above it
    **dict.fromkeys(["engine", "scoring", "metrics", "lexicons", "likelihood"], 2),
    "lm": 3,
    "generation": 4,
    **dict.fromkeys(["bold", "stereoset", "regard", "holistic"], 5),
    # an audit of a user's model and the command: above the papers
    **dict.fromkeys(["audit", "cli"], 6),
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every nlgbias module ``path`` imports, at any depth (function-level imports count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module_name(path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("nlgbias")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nlgbias"):
            for a in node.names:  # "from nlgbias.x import y": y may be a module
                sub = f"{node.module}.{a.name}"
                out.add(sub if _exists(sub) else node.module)
    out.discard(me)
    return out


def _exists(module: str) -> bool:
    p = SRC.parent / Path(*module.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in SRC.rglob("*.py")}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_has_a_layer():
    missing = sorted({_top(m) for m in _graph()} - set(LAYERS))
    assert not missing, f"add {missing} to LAYERS (and to the README's layout)"


def test_imports_only_go_down():
    bad = []
    for mod, deps in _graph().items():
        for dep in deps:
            if LAYERS.get(_top(dep), 0) > LAYERS.get(_top(mod), 0):
                bad.append(f"{mod} imports {dep}")
    assert not bad, "upward imports:\n" + "\n".join(sorted(bad))


def test_no_import_cycles():
    graph = _graph()
    # a package's __init__ re-exporting its own submodules is not a cycle of concerns
    edges = {m: {d for d in ds if d in graph and not (m == d.rsplit(".", 1)[0])} for m, ds in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(edges.get(m, ())):
            if state.get(d) == 1:
                cycles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


NB_SOURCES = sorted((project_root() / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("src", NB_SOURCES, ids=[p.stem for p in NB_SOURCES])
def test_notebooks_define_no_functions_or_classes(src):
    tree = ast.parse(src.read_text(encoding="utf-8"))
    defs = [f"line {n.lineno}: {n.name}" for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    assert not defs, f"{src.name} defines {defs}: move the logic into src/nlgbias (with a test)"


@pytest.mark.parametrize("src", NB_SOURCES, ids=[p.stem for p in NB_SOURCES])
def test_notebooks_have_a_parameters_cell_with_profile(src):
    text = src.read_text(encoding="utf-8")
    assert '# %% tags=["parameters"]' in text
    cell = text.split('# %% tags=["parameters"]', 1)[1].split("# %%", 1)[0]
    assert 'profile = "quick"' in cell and "root = None" in cell


# --------------------------------------------------------------------------- atomic writes
_WRITERS = {"to_csv", "to_parquet", "savefig", "save_pretrained", "write_text", "write_bytes"}


def _raw_writes(path: Path) -> list[str]:
    """Calls in ``path`` that write a file other than through a temporary path moved into place:
    the written path must be a name bound by ``with atomic_path(...) as name`` (or a ``tmp``
    folder renamed with ``os.replace``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    safe = {"tmp"}
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if (isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", ""))
                        == "atomic_path" and isinstance(item.optional_vars, ast.Name)):
                    safe.add(item.optional_vars.id)
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = getattr(f, "attr", getattr(f, "id", ""))
        target = None
        if name in ("write_text", "write_bytes"):
            if not isinstance(f, ast.Attribute):
                continue  # nlgbias.io.write_text: atomic
            target = f.value
        elif name in _WRITERS and node.args:
            target = node.args[0]
        elif name == "save" and isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "torch":
            target = node.args[1] if len(node.args) > 1 else None
        elif name == "open" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                and str(node.args[1].value)[:1] in "wax":
            target = node.args[0]
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id in safe):
            bad.append(f"{path.relative_to(SRC.parent)}:{node.lineno} {ast.unparse(node)[:80]}")
    return bad


def test_every_file_is_written_atomically():
    """A killed run never leaves a partly written file that a rerun would read as complete:
    every write in src/ goes through nlgbias.io's atomic helpers."""
    bad = [b for p in sorted(SRC.rglob("*.py")) if p.name != "io.py" for b in _raw_writes(p)]
    assert not bad, "write through nlgbias.io (atomic_path / write_*):\n" + "\n".join(bad)


def test_no_verdict_is_typed_outside_the_claim_rules():
    """Verdicts are computed by nlgbias.claims: no module or notebook writes a verdict word as a
    value (``"verdict": "..."``, ``verdict = "..."``) or the free-text words the old tables used,
    and nothing maps free text to a verdict."""
    free_text = re.compile(r"""["'](replicates|does not replicate|direction only|partly|"""
                           r"""reproduced \(|differs \()""", re.I)
    typed = re.compile(r"""["']?verdict["']?\s*[:=]\s*f?["']""")
    files = [p for p in SRC.rglob("*.py") if p.name != "claims.py" or p.parent != SRC]
    files += sorted((project_root() / "notebooks" / "src").glob("*.py"))
    bad = []
    for p in files:
        for i, line in enumerate(p.read_text().splitlines(), 1):
            if free_text.search(line) or typed.search(line):
                bad.append(f"{p.relative_to(project_root())}:{i}: {line.strip()}")
    assert not bad, "verdicts typed outside nlgbias.claims:\n" + "\n".join(bad)
    assert not hasattr(__import__("nlgbias.scorecard").scorecard, "normalise")


def test_no_tracker_words_in_the_code():
    """The code speaks of the project: no issue numbers or names of work sessions in src/,
    tests/ or the notebook sources."""
    tracker = re.compile(r"\b[Ii]ssues?\s*#?\d|\b[Hh]elpers?\s+[A-Z]\b|\b[Ss]ession\s+\d")
    files = [*SRC.rglob("*.py"), *(project_root() / "tests").glob("*.py"),
             *(project_root() / "notebooks" / "src").glob("*.py")]
    bad = [f"{p.relative_to(project_root())}:{i}: {line.strip()}" for p in files
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if tracker.search(line) and p.name != "test_structure.py"]
    assert not bad, "tracker words in the code:\n" + "\n".join(bad)


def test_torch_threads_are_set_in_one_place():
    """Only nlgbias.hardware sets torch's thread count (``set_torch_threads`` for a process,
    ``torch_threads`` for a block that restores it): bf16 numbers depend on the count, so it is
    decided in one place and never left changed by a scoped computation."""
    files = [*SRC.rglob("*.py"), *(project_root() / "tests").glob("*.py"),
             *(project_root() / "notebooks" / "src").glob("*.py"),
             *(project_root() / "benchmarks").glob("*.py")]
    bad = [f"{p.relative_to(project_root())}:{i}: {line.strip()}" for p in files
           if p != SRC / "hardware.py" and p.name != "test_structure.py"
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if re.search(r"set_num_(interop_)?threads\(", line)]
    assert not bad, "set torch threads through nlgbias.hardware:\n" + "\n".join(bad)


#: the most non-comment lines a notebook code cell may hold (the parameters cell apart): more
#: is logic that belongs in src/, with a test
MAX_CELL_LINES = 25


def long_cells(path) -> list[str]:
    """The code cells of a notebook source over MAX_CELL_LINES non-blank, non-comment lines."""
    from nlgbias.notebooks import parse_percent

    out = []
    for k, cell in enumerate(parse_percent(path.read_text(encoding="utf-8"))):
        if cell.cell_type != "code" or "parameters" in cell.metadata.get("tags", []):
            continue
        n = sum(1 for line in cell.source.splitlines() if line.strip() and not line.strip().startswith("#"))
        if n > MAX_CELL_LINES:
            out.append(f"{path.name} cell {k} ({n} lines): {cell.source.splitlines()[0][:70]}")
    return out


def test_long_cells_counts_code_lines_only(tmp_path):
    f = tmp_path / "99_x.py"
    body = "\n".join(f"x{i} = {i}  # a value" for i in range(MAX_CELL_LINES))
    f.write_text('# %% tags=["parameters"]\n' + "\n".join(f"p{i} = 0" for i in range(40))
                 + "\n\n# %%\n# a comment\n\n" + body + "\n\n# %% [markdown]\n# text\n")
    assert long_cells(f) == []  # the parameters cell is exempt; comments and blanks do not count
    f.write_text(f.read_text() + "\n# %%\n" + body + "\ny = 1\n")
    assert long_cells(f) == [f"99_x.py cell 3 ({MAX_CELL_LINES + 1} lines): x0 = 0  # a value"]


_NOTEBOOK_SOURCES = sorted((project_root() / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("path", _NOTEBOOK_SOURCES, ids=[p.stem for p in _NOTEBOOK_SOURCES])
def test_notebook_code_cells_are_short(path):
    """A notebook is parameters -> calls into src/ -> tables, figures, prose: no code cell over
    MAX_CELL_LINES non-comment lines (loops and merges live in the paper packages, tested)."""
    bad = long_cells(path)
    assert not bad, "code cells over the limit:\n" + "\n".join(bad)


#: spec-string prefixes of backends and kinds: only nlgbias.lm.spec parses them
_SPEC_PREFIX = re.compile(r"^(hf|openai|vllm|ct2|causal|masked|seq2seq):")


def _docstrings(tree) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant):
            ids.add(id(body[0].value))
    return ids


def test_one_place_parses_a_model_spec_and_nothing_outside_lm_branches_on_the_backend():
    """A model spec string is parsed in nlgbias.lm.spec only, and only nlgbias.lm looks at which
    backend runs a model: any other module that reads ``.backend``, tests a spec prefix
    (``"openai:"``, ``"masked:"``, ...), or takes a ``(model, tokenizer)`` tuple for a model goes
    around the interface."""
    offences = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("lm/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "backend":
                offences.append(f"{rel}:{node.lineno} reads .backend")
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs and _SPEC_PREFIX.match(node.value)):
                offences.append(f"{rel}:{node.lineno} parses a spec prefix {node.value!r}")
    assert not offences, "\n".join(offences)
