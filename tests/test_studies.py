"""Each study parameter is declared once (nlgbias.profiles.STUDIES): the notebooks' parameters
cells, the README's profile table and the run command's flags are generated from it, and a
disagreement fails here."""

from __future__ import annotations

import ast
import json
import re

import nbformat
import pytest

from nlgbias import notebooks, profiles, readme, runner
from nlgbias.paths import PROFILES, project_root

ROOT = project_root()
SOURCES = notebooks.sources()


def _cell_of_script(path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    a, b = notebooks._parameters_span(lines)
    return "\n".join(lines[a:b])


def test_every_notebook_has_a_study_and_every_study_a_notebook():
    assert sorted(s.stem[:2] for s in SOURCES) == sorted(s.notebook for s in profiles.STUDIES.values())


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_parameters_cell_is_the_generated_one(src):
    study = profiles.study(src.stem)
    want = study.parameters_cell()
    assert _cell_of_script(src) == want, f"run python -m nlgbias.notebooks build ({src.name})"
    nb = nbformat.read(src.parent.parent / f"{src.stem}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert cell.source == want
    # what the cell assigns is exactly the declaration, in its order
    assigned = {n.targets[0].id: ast.literal_eval(n.value) for n in ast.parse(cell.source).body}
    assert list(assigned) == study.names
    assert all(assigned[p.name] == (None if p.profiled else p.default) for p in study.params)
    # papermill reads every parameter with its help (``papermill --help-notebook``); a help with
    # an "=" in it is a line its parser skips with a warning
    from papermill.translators import PythonTranslator
    seen = {p.name: p.help for p in PythonTranslator.inspect(cell)}
    assert list(seen) == study.names
    assert all(seen[p.name].startswith(p.help) for p in study.params)


def test_a_cell_that_disagrees_with_its_study_is_refused_with_one_message():
    study = profiles.study("01")
    text = "# %% tags=[\"parameters\"]\n" + study.parameters_cell() + "\n\n# %%\nx = 1\n"
    assert notebooks.with_parameters_cell(text, study) == text
    extra = text.replace("root = None", "root = None\nsurprise = 3")
    with pytest.raises(ValueError, match=r"STUDIES: surprise is not declared"):
        notebooks.with_parameters_cell(extra, study)
    changed = text.replace("n_examples = 3", "n_examples = 4")
    with pytest.raises(ValueError, match=r"n_examples = 4, declared 3"):
        notebooks.check_parameters(changed, study)
    missing = text.replace("seed = 0", "")
    with pytest.raises(ValueError, match="seed is missing"):
        notebooks.check_parameters(missing, study)


def test_readme_profile_table_is_the_declaration():
    table = readme.profiles_table()
    readme_text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table in readme_text, "run python -m nlgbias.readme"
    rows = {(r.split("|")[1].strip(), r.split("|")[2].strip(" `")): [c.strip() for c in r.split("|")[3:6]]
            for r in table.splitlines()[2:]}
    for s in profiles.STUDIES.values():
        for p in s.params:
            if p.profiled and p.name != "threads":
                got = rows.pop((s.notebook, p.name))
                assert got == [profiles.show(p.per_profile[q]) if p.per_profile[q] is not None
                               else p.none_means for q in ("smoke", "quick", "paper")], (s.name, p.name)
    assert {k for k in rows if k[1] != "threads"} == set(), "rows the declaration does not have"


def test_run_command_flags_are_the_declaration():
    ap_help = _parser_actions()
    declared = {p.name for s in profiles.STUDIES.values() for p in s.params} - {"profile", "models"}
    assert set(ap_help) == declared
    for name, decl in runner.parameter_flags().items():
        for s, p in decl:  # each declaring study's help, and the kind
            assert f"{s.notebook}: {p.help}" in ap_help[name]
        assert profiles.KINDS[decl[0][1].kind] in ap_help[name]


def _parser_actions() -> dict[str, str]:
    import argparse

    captured = {}

    class Stop(Exception):
        pass

    real = argparse.ArgumentParser.parse_args

    def grab(self, *a, **k):
        for act in self._actions:
            if act.dest.startswith("param_"):
                captured[act.dest[len("param_"):]] = act.help
        raise Stop

    argparse.ArgumentParser.parse_args = grab
    try:
        with pytest.raises(Stop):
            runner.main([])
    finally:
        argparse.ArgumentParser.parse_args = real
    return captured


def test_flags_reach_the_notebooks_that_declare_them_checked_by_kind(capsys):
    nbs = {p.stem[:2]: p for p in runner.notebooks()}
    assert runner.for_notebook(nbs["05"], {"crows_pairs": 10, "sample_per_group": 3}) == {"crows_pairs": 10}
    with pytest.raises(ValueError, match="notebook 05: parameter 'crows_pairs' must be an integer >= 0"):
        runner.for_notebook(nbs["05"], {"crows_pairs": -1})
    with pytest.raises(ValueError, match="crows_pairs belong to no selected notebook"):
        runner.check_parameters([nbs["01"]], {"crows_pairs": 10})
    # the command stops before any work, with one message
    assert runner.main(["--only", "02", "--sample-per-group", "-3"]) == 2
    assert "'sample_per_group' must be an integer >= 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="must be one of auto, float32"):
        profiles.check_value("stereoset", "dtype", "float8")


def test_declarations_are_well_formed():
    for s in profiles.STUDIES.values():
        assert s.names[0] == "profile" and s.names[-1] == "root", s.name
        for p in s.params:
            assert p.help and not p.help.endswith("."), (s.name, p.name)
            for prof in PROFILES:  # a default has its declared kind
                v = p.default_for(prof)
                if v is not None and p.kind not in ("profile",):
                    assert profiles.check_value(s, p.name, v) == v, (s.name, p.name, prof)


def test_no_library_module_names_a_notebook_number():
    """Library code reaches a study by its name; only the two declarations say which notebook is
    which: profiles.py (a study's notebook) and outputs.py (what each notebook file writes)."""
    src = ROOT / "src" / "nlgbias"
    bad = []
    for path in src.rglob("*.py"):
        if path.name in ("profiles.py", "outputs.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"0[1-8](_\w+)?", node.value):
                bad.append(f"{path.relative_to(src)}:{node.lineno} {json.dumps(node.value)}")
    assert not bad, bad
