"""Infrastructure: atomic writes, the resumable shard cache, profile parameters, the runner's
notebook selection and the notebook builder."""

from __future__ import annotations

import pandas as pd
import pytest

from nlgbias import io, notebooks, paths, profiles, runner, tables


def test_atomic_write_keeps_old_file_on_failure(tmp_path):
    target = tmp_path / "t.csv"
    io.write_csv(pd.DataFrame({"a": [1]}), target)
    with pytest.raises(RuntimeError):
        with io.atomic_path(target) as tmp:
            tmp.write_text("partial")
            raise RuntimeError("interrupted")
    assert pd.read_csv(target)["a"].tolist() == [1]
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


def test_shard_cache_resumes(tmp_path):
    cache = io.ShardCache(tmp_path / "c", key="id")
    cache.append(pd.DataFrame({"id": [1, 2], "v": ["a", "b"]}))
    again = io.ShardCache(tmp_path / "c", key="id")  # a new process after a crash
    assert again.done_keys() == {1, 2}
    again.append(pd.DataFrame({"id": [3], "v": ["c"]}))
    assert again.load()["v"].tolist() == ["a", "b", "c"]
    with pytest.raises(KeyError, match="need a 'id' column"):
        again.append(pd.DataFrame({"x": [1]}))


def test_read_table_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="run the notebook that writes it first"):
        io.read_table(tmp_path / "missing.parquet")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 truncated")
    with pytest.raises(ValueError, match="bad.parquet is malformed or truncated"):
        io.read_table(bad)


def test_save_table_writes_csv_and_markdown(tmp_path):
    df = pd.DataFrame({"x": ["a", "b"], "y": [0.5, 0.25]}).set_index("x")
    out = tables.save_table(df, tmp_path, "t", title="T")
    assert pd.read_csv(out["csv"]).to_dict("list") == {"x": ["a", "b"], "y": [0.5, 0.25]}
    md = out["md"].read_text()
    assert md.startswith("### T") and "| a   | 0.500 |" in md
    empty = tables.save_table(pd.DataFrame(columns=["x", "y"]), tmp_path, "e", title="E")
    assert empty["md"].read_text() == "### E\n\n| x | y |\n|---|---|\n"
    assert list(pd.read_csv(empty["csv"]).columns) == ["x", "y"]


def test_paper_vs_run():
    paper = pd.DataFrame({"k": ["a", "b"], "value": [1.0, 2.0]})
    run = pd.DataFrame({"k": ["a", "c"], "value": [1.5, 3.0]})
    got = tables.paper_vs_run(paper, run, on=["k"]).set_index("k")
    assert got.loc["a", "diff"] == 0.5 and pd.isna(got.loc["c", "paper"])


def test_resolve_params():
    assert profiles.resolve_params("01", "smoke", ner_sample=None) == {"ner_sample": 300}
    assert profiles.resolve_params("01", "quick", ner_sample=7) == {"ner_sample": 7}
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        profiles.resolve_params("01", "fast")
    with pytest.raises(ValueError, match="unknown parameter"):
        profiles.resolve_params("01", "quick", k=1)
    with pytest.raises(ValueError, match="no study '99'"):
        profiles.resolve_params("99", "quick")
    # a study answers to its name as to its notebook number
    assert profiles.resolve_params("bold-prompts", "smoke", ner_sample=None) == {"ner_sample": 300}
    for nb, table in profiles.DEFAULTS.items():  # every profile has the same parameters
        assert set(table) == set(paths.PROFILES), nb
        assert len({frozenset(v) for v in table.values()}) == 1, nb


def test_profile_paths(tmp_path):
    q = paths.paths_for("quick", tmp_path)
    s = paths.paths_for("smoke", tmp_path)
    assert q.figures == tmp_path / "figures" and s.figures == tmp_path / "figures" / "smoke"
    assert q.generations == tmp_path / "data" / "quick" / "generations"
    assert q.cache == s.cache


def test_one_cache_folder_follows_the_run_root_unless_nlgbias_cache_is_set(tmp_path, monkeypatch):
    """Every cache (model copies, joined GGUF files, downloads, word2vec / lexicon builds) is
    decided by paths.cache_root: <run root>/data/cache, or $NLGBIAS_CACHE when set."""
    from nlgbias.metrics import regard as MR
    from nlgbias.models import registry

    monkeypatch.setattr(paths, "_run_root", None)
    monkeypatch.delenv("NLGBIAS_CACHE", raising=False)
    assert paths.cache_root() == paths.project_root() / "data" / "cache"
    run = tmp_path / "run root"
    q = paths.paths_for("quick", run)  # a notebook with -p root / a --models run
    assert q.cache == paths.cache_root() == run / "data" / "cache"
    assert registry.cache_dir("smollm2-135m") == run / "data" / "cache" / "models" / "smollm2-135m"
    assert paths.paths_for("smoke", run).cache == q.cache  # profiles share it
    assert q.models == run / "data" / "models"
    assert paths.paths_for("smoke", run).models == run / "data" / "smoke" / "models"
    assert MR.default_dir(q) == run / "data" / "models" / "regard"
    shared = tmp_path / "shared cache"
    monkeypatch.setenv("NLGBIAS_CACHE", str(shared))
    assert paths.cache_root() == paths.cache_root(run) == shared
    assert paths.paths_for("smoke", tmp_path / "other").cache == shared
    assert registry.cache_dir("gemma3-270m") == shared / "models" / "gemma3-270m"


def test_runner_select():
    nbs = [paths.Path(f"{n}_x.ipynb") for n in ("01", "02", "05")]
    assert [p.name for p in runner.select(nbs, only=["2"])] == ["02_x.ipynb"]
    assert [p.name for p in runner.select(nbs, start="02")] == ["02_x.ipynb", "05_x.ipynb"]
    with pytest.raises(ValueError, match="no notebook numbered '04'"):
        runner.select(nbs, only=["04"])


def test_parse_percent():
    cells = notebooks.parse_percent(
        '# %% [markdown]\n# # Title\n# text\n\n# %% tags=["parameters"]\nprofile = "quick"\n\n# %%\nx = 1\n')
    assert [c.cell_type for c in cells] == ["markdown", "code", "code"]
    assert cells[0].source == "# Title\ntext"
    assert cells[1].metadata["tags"] == ["parameters"] and cells[1].source == 'profile = "quick"'


def test_notebooks_match_their_sources(tmp_path):
    srcs = notebooks.sources()
    assert srcs, "no notebook sources found"
    for src in srcs:
        built = tmp_path / f"{src.stem}.ipynb"
        notebooks.build(src, built)
        committed = src.parent.parent / f"{src.stem}.ipynb"
        assert committed.exists(), f"{committed} missing: run python -m nlgbias.notebooks build"
        assert built.read_text() == committed.read_text(), (
            f"{committed.name} is out of date with {src.name}: run python -m nlgbias.notebooks build")
        nb = notebooks.parse_percent(src.read_text())
        assert any("parameters" in c.metadata.get("tags", []) for c in nb), f"{src.name}: no parameters cell"


def test_runner_stops_at_failing_notebook_and_names_the_cell(tmp_path, monkeypatch, capsys):
    import nbformat

    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    for name, code in (("01_ok", "x = 1"), ("02_bad", "raise ValueError('boom')"), ("03_never", "y = 2")):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
        params = nbformat.v4.new_code_cell('profile = "quick"')
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell(code)]
        nbformat.write(nb, nbdir / f"{name}.ipynb")
    monkeypatch.setenv("NLGBIAS_ROOT", str(tmp_path))
    assert runner.run("smoke") == 1
    err = capsys.readouterr().err
    assert "FAILED: 02_bad.ipynb, cell" in err and "ValueError: boom" in err
    executed = tmp_path / "notebooks" / "executed" / "smoke"
    assert sorted(p.name for p in executed.iterdir()) == ["01_ok.ipynb", "02_bad.ipynb"]


def test_runner_warns_when_threads_differ_from_the_reference(tmp_path, monkeypatch, capsys):
    """A quick run with another NLGBIAS_THREADS would write bf16 numbers unlike the committed
    ones (how 06-08's outputs once came to differ): the runner says so before it starts."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_any.ipynb").write_text("{}")  # never executed: execute stops first
    monkeypatch.setenv("NLGBIAS_ROOT", str(tmp_path))
    monkeypatch.setattr(runner, "execute", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    for threads, warned in (("1", True), ("", False)):
        monkeypatch.setenv("NLGBIAS_THREADS", threads)
        with pytest.raises(KeyboardInterrupt):
            runner.run("quick")
        err = capsys.readouterr().err
        assert ("NLGBIAS_THREADS=1, not the reference 2" in err) is warned, err


def test_the_constraints_pin_every_dependency_and_environment_yml_lists_the_pins():
    """The package takes ranges (pyproject.toml); constraints.txt pins each dependency of the
    reproduction within its range, and environment.yml lists exactly those pins."""
    import re

    import tomllib
    from packaging.requirements import Requirement

    root = paths.project_root()
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    todo, names = ["dev"], set()  # the extras dev installs, with those it names
    while todo:
        name = todo.pop()
        names.add(name)
        todo += [x for d in extras[name] if d.startswith("nlgbias[")
                 for x in d[len("nlgbias["):-1].split(",") if x not in names]
    assert {"notebooks", "ray", "spacy", "tuning", "serve"} <= names
    reqs = [Requirement(p) for p in project["dependencies"] + [
        p for name in sorted(names) for p in extras[name] if not p.startswith("nlgbias[")]]
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)$", (root / "constraints.txt").read_text(), re.M))
    env = (root / "environment.yml").read_text()
    for r in reqs:
        assert "==" not in str(r.specifier), f"{r}: the package takes a range; pin it in constraints.txt"
        assert r.name in pins and r.specifier.contains(pins[r.name]), (str(r), pins.get(r.name))
        extra = f"[{','.join(sorted(r.extras))}]" if r.extras else ""
        assert f"- {r.name}{extra}=={pins[r.name]}" in env, f"environment.yml lacks {r.name}=={pins[r.name]}"
    assert pins["torch"] == "2.13.0"
    assert "-c constraints.txt" in (root / "scripts" / "setup_env.sh").read_text()


def test_optional_dependencies_are_extras_and_the_package_imports_without_them():
    """JupyterLab, papermill, Ray, spaCy and peft are extras (dev installs them all); the
    package's modules import without them, and nlgbias.extras names the extra that is missing."""
    import subprocess
    import sys

    import tomllib

    from nlgbias import extras

    project = tomllib.loads((paths.project_root() / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    opt = project["optional-dependencies"]
    for module, (extra, _) in extras.EXTRAS.items():
        assert module not in core, module
        assert any(d.startswith(module) for d in opt[extra]), (module, extra)
    assert any(d.startswith("jupyterlab") for d in opt["notebooks"]) and "jupyterlab" not in core
    assert set(opt["all"][0][len("nlgbias["):-1].split(",")) == {"notebooks", "ray", "spacy", "tuning"}
    dev_extras = {x for d in opt["dev"] if d.startswith("nlgbias[") for x in d[len("nlgbias["):-1].split(",")}
    assert {"all", "serve"} <= dev_extras
    blocked = [*extras.EXTRAS, "jupyterlab"]
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None\n"
            "import nlgbias.bold, nlgbias.bold.prompts, nlgbias.generation, nlgbias.holistic.tuning, "
            "nlgbias.models, nlgbias.regard.analysis, nlgbias.runner, nlgbias.stats, nlgbias.stereoset\n"
            "from nlgbias.extras import MissingExtraError, require\n"
            "try:\n    require('ray.util')\nexcept MissingExtraError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "generation on a Ray cluster (backend='ray') needs 'ray', which is not installed: " \
           "pip install 'nlgbias[ray]'" in out.stdout
    assert extras.require("spacy").__name__ == "spacy"  # installed here (dev)
    with pytest.raises(KeyError, match="not an optional dependency"):
        extras.require("numpy")


def test_readme_generated_sections_are_up_to_date():
    from nlgbias import readme

    text = (paths.project_root() / "README.md").read_text(encoding="utf-8")
    assert readme.render(text) == text, "README.md is stale: run python -m nlgbias.readme"


def test_interval_columns_follow_one_convention():
    """Every committed table names an interval ``<column>_lo`` / ``<column>_hi`` beside
    ``<column>`` (the README's Outputs section says so)."""
    import csv
    import re

    bad = {}
    for path in sorted((paths.project_root() / "results").glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            cols = next(csv.reader(f))
        wrong = [c for c in cols if re.search(r"(^|[ _])(ci|CI)([ _]|$)|[ _](lo|hi|low|high)$", c)
                 and not c.endswith(("_lo", "_hi"))]
        ends = {c[:-3] for c in cols if c.endswith(("_lo", "_hi"))}
        wrong += [f"{b}_lo/_hi without {b!r} or its pair" for b in ends
                  if b not in cols or f"{b}_lo" not in cols or f"{b}_hi" not in cols]
        if wrong:
            bad[path.name] = wrong
    assert len(list((paths.project_root() / "results").glob("*.csv"))) > 50
    assert not bad, bad


def test_figures_are_the_same_bytes_when_saved_again(tmp_path, monkeypatch):
    """Same data, same PNG and PDF bytes (no creation date): committed figures stay unchanged
    after a rerun."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from nlgbias.plots import save_figure, set_style

    set_style()
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    a = save_figure(fig, tmp_path / "a", "f")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # would change a dated PDF
    b = save_figure(fig, tmp_path / "b", "f")
    for ext in ("png", "pdf"):
        assert a[ext].read_bytes() == b[ext].read_bytes(), ext
    assert b"CreationDate" not in a["pdf"].read_bytes()


def test_torch_threads_are_fixed_not_the_core_count(monkeypatch):
    """bf16 sums depend on the thread split: every machine uses the reference count unless
    NLGBIAS_THREADS says otherwise."""
    from nlgbias import hardware as H

    monkeypatch.delenv("NLGBIAS_THREADS", raising=False)
    assert H.default_threads() == H.REFERENCE_THREADS == 2
    monkeypatch.setenv("NLGBIAS_THREADS", "1")
    assert H.default_threads() == 1
    monkeypatch.setenv("NLGBIAS_THREADS", "two")
    with pytest.raises(ValueError, match="NLGBIAS_THREADS must be a positive integer"):
        H.default_threads()


def test_runner_reports_which_committed_outputs_a_run_changed(tmp_path):
    """The run summary compares what a run wrote with the committed files: a timing table
    (``volatile``) is told apart from a result that no longer reproduces."""
    import subprocess

    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    res = tmp_path / "results"
    res.mkdir()
    files = {n: res / f"{n}.csv" for n in ("bold_generation_throughput", "bold_table1_statistics",
                                             "regard_timings")}
    for p in files.values():
        p.write_text("a\n1\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    untracked = tmp_path / "data" / "x.parquet"
    untracked.parent.mkdir()
    untracked.write_text("x")
    wrote = [*files.values(), untracked]
    assert runner.committed_differences(tmp_path, wrote) == (3, [], [])
    files["bold_generation_throughput"].write_text("a\n2\n")
    files["bold_table1_statistics"].write_text("a\n3\n")
    n, timing, other = runner.committed_differences(tmp_path, wrote)
    assert (n, timing, other) == (3, ["results/bold_generation_throughput.csv"],
                                  ["results/bold_table1_statistics.csv"])
    assert runner.committed_differences(tmp_path, [untracked]) is None


def test_files_another_run_wrote_are_not_this_notebooks(tmp_path):
    """A file under results/ or figures/ that changed while a notebook ran but that the
    notebook does not declare was written by another process: it is not counted as this run's
    (its comparison with the committed file would be a false DIFFERS)."""
    from nlgbias.paths import paths_for

    paths = paths_for("quick", tmp_path)
    own = [paths.results / "regard_timings.csv", paths.figures / "regard_fig1_accuracy.png",
           paths.data / "generations" / "x.parquet"]
    other = [paths.results / "holistic_claims_gen_bias.csv", paths.results / "SCORECARD.md",
             paths.figures / "holistic_table4_partial_gen_bias.png"]
    mine, foreign = runner.split_by_owner(own + other, "06_regard_classifier", paths)
    assert (mine, foreign) == (own, other)
    assert runner.split_by_owner(other, "99_unknown", paths) == (other, [])


def test_run_summary_compares_by_value_and_names_changed_verdicts(tmp_path):
    """A rerun on another CPU moves numbers within tolerance; what must not move is a verdict:
    the comparison tells identical, within-tolerance and beyond-tolerance tables apart and
    names every claim whose verdict changed."""
    import subprocess

    from nlgbias import claims, provenance

    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    res = tmp_path / "results"
    res.mkdir()
    kw = dict(section="6.2", claim="ratio", paper_value=2.29, n=4, null=1.0, statistic="ratio")
    claims.save([claims.value_in_interval(id="a", estimate=1.89, interval=(1.29, 3.69), **kw)],
                "bold_claims_x", results=res)
    pd.DataFrame({"g": ["x", "y"], "v": [0.500, 10.0]}).to_csv(res / "bold_t.csv", index=False)
    pd.DataFrame({"g": ["x"], "v": [1.0]}).to_csv(res / "bold_u.csv", index=False)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    # the verdict flips: the paper's value falls outside the new interval
    claims.save([claims.value_in_interval(id="a", estimate=1.5, interval=(1.2, 1.8), **kw)],
                "bold_claims_x", results=res)
    pd.DataFrame({"g": ["x", "y"], "v": [0.504, 10.3]}).to_csv(res / "bold_t.csv", index=False)
    wrote = sorted(res.glob("*.csv"))
    cmp = provenance.compare_with_committed(tmp_path, wrote)
    assert cmp.identical == ["results/bold_u.csv"]
    assert cmp.within == ["results/bold_t.csv"]
    assert [f for f, _ in cmp.differs] == ["results/bold_claims_x.csv"]
    assert cmp.verdicts == [("a", "reproduced", "differs")]
    text = "\n".join(cmp.lines())
    assert "VERDICT CHANGED a: reproduced -> differs" in text and "0 of 1 claims" in text
    assert provenance.compare_tables(pd.DataFrame({"v": [1.0]}), pd.DataFrame({"v": [1.2]}))
    skip = provenance.compare_with_committed(tmp_path, wrote, volatile={"bold_claims_x"})
    assert "results/bold_claims_x.csv" not in [f for f, _ in skip.differs] and not skip.verdicts
    m = provenance.machine()
    assert m["cores"] >= 1 and "torch" in m and provenance.describe(m)


def test_atomic_dir_renames_a_complete_folder_and_keeps_a_finished_one(tmp_path):
    from nlgbias.io import atomic_dir

    target = tmp_path / "sub" / "model"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("1")
    assert (target / "a.txt").read_text() == "1"
    with atomic_dir(target) as tmp:  # another copy finished first: it is kept
        (tmp / "a.txt").write_text("2")
    assert (target / "a.txt").read_text() == "1"
    with pytest.raises(RuntimeError), atomic_dir(tmp_path / "failed") as tmp:
        (tmp / "half.txt").write_text("x")
        raise RuntimeError("killed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]  # nothing half-written left
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["model"]
