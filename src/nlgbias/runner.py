"""Execute the notebooks in order with papermill (what ``./run_all.sh`` calls).

``python -m nlgbias.runner [--profile quick|smoke|paper] [--only NN] [--from NN] [-p NAME VALUE]``

- stops at the first failing notebook, naming it and the failing cell;
- shows progress while it runs: papermill's cell bar, and the notebooks' own long loops (rows
  generated, texts scored; :mod:`nlgbias.progress`) on the terminal, with the elapsed time
  and an estimate from the last run of the same notebook and profile;
- writes the executed copies to ``notebooks/executed/<profile>/``, cleaned so they read well
  on the web and do not change from run to run: no timestamps or durations, no machine paths
  (paths are shown relative to the project), no progress widgets;
- writes the reproduction scorecard (:mod:`nlgbias.scorecard`) from the verdict tables;
- ends with a summary of the files each notebook wrote (declared in :mod:`nlgbias.outputs`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from nlgbias import outputs, profiles
from nlgbias.extras import require
from nlgbias.io import write_json, write_text
from nlgbias.paths import PROFILES, model_label, paths_for, project_root

log = logging.getLogger("nlgbias.runner")

_WIDGET = "application/vnd.jupyter.widget-view+json"


def notebooks(root: Path | None = None) -> list[Path]:
    """The numbered notebooks ``notebooks/NN_*.ipynb`` in order."""
    root = root or project_root()
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def select(nbs: list[Path], only: list[str] | None = None, start: str | None = None) -> list[Path]:
    """Filter notebooks by number: ``only`` keeps those numbers, ``start`` those from a number on."""
    known = {p.name[:2] for p in nbs}
    for n in (only or []) + ([start] if start else []):
        if str(n).zfill(2) not in known:
            raise ValueError(f"no notebook numbered {n!r}; have {', '.join(sorted(known))}")
    if only:
        wanted = {str(n).zfill(2) for n in only}
        nbs = [p for p in nbs if p.name[:2] in wanted]
    if start:
        nbs = [p for p in nbs if p.name[:2] >= str(start).zfill(2)]
    return nbs


def _kernel_manager_class():
    """An async kernel manager on IPC sockets (a local kernel needs no TCP; ipykernel warns
    about unencrypted TCP on every start)."""
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        transport = "ipc"

        def _ip_default(self) -> str:
            # jupyter_client's default puts the sockets in the kernel's working folder
            # (notebooks/), where a killed run leaves them behind
            return os.path.join(tempfile.gettempdir(), f"nlgbias-kernel-{os.getpid()}-ipc")

    return IPCKernelManager


def clean_executed(path: Path, root: Path) -> None:
    """Make an executed notebook stable and readable on the web: drop papermill/cell timestamps
    and durations, write machine paths relative to the project (the venv as ``.venv``), and
    drop widget outputs (keeping their text fallback only if it is not a progress bar)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    pm_meta = nb.metadata.get("papermill", {})
    nb.metadata["papermill"] = {k: v for k, v in pm_meta.items()
                                if k in ("parameters", "default_parameters")}
    nb.metadata["papermill"]["parameters"] = {
        k: (_strip_paths(v, root) if isinstance(v, str) else v)
        for k, v in pm_meta.get("parameters", {}).items()}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell["id"] = "injected-parameters"  # papermill draws a random id
        pm = cell.metadata.get("papermill")
        if pm is not None:
            cell.metadata["papermill"] = {k: v for k, v in pm.items()
                                          if k not in ("start_time", "end_time", "duration")}
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data is not None and _WIDGET in data:
                data.pop(_WIDGET)
                text = "".join(data.get("text/plain", ""))
                if not data or re.search(r"\d+%\|", text) or "HBox" in text:
                    continue
            if out.get("output_type") == "stream":
                out["text"] = _strip_progress(_strip_paths("".join(out["text"]), root))
                if not out["text"].strip():
                    continue
                if kept and kept[-1].get("output_type") == "stream" and kept[-1]["name"] == out["name"]:
                    # how the kernel chunks a stream depends on timing: one output per stream
                    kept[-1]["text"] = kept[-1]["text"] + out["text"]
                    continue
            elif data is not None:
                for mime in ("text/plain", "text/markdown", "text/html"):
                    if mime in data:
                        data[mime] = _strip_paths("".join(data[mime]), root)
            elif out.get("output_type") == "error":
                out["traceback"] = [_strip_paths(t, root) for t in out.get("traceback", [])]
                out["evalue"] = _strip_paths(out.get("evalue", ""), root)
            kept.append(out)
        for out in kept:
            if out.get("output_type") == "stream":  # no blank lines left by removed progress bars
                out["text"] = re.sub(r"\n{2,}", "\n", out["text"]).lstrip("\n")
        cell["outputs"] = kept
    nb.metadata.pop("widgets", None)
    write_text(nbformat.writes(nb) + "\n", path)


_PROGRESS = re.compile(r"\d+%\|.*?\|\s*\d+/\d+|\|\s*\d+/\d+\s*\[")


def _strip_progress(text: str) -> str:
    """Drop progress-bar fragments (tqdm's ``45%|####   | 9/20 [...]``) from a stream's text."""
    lines = []
    for line in text.split("\n"):
        parts = [p for p in line.split("\r") if not _PROGRESS.search(p)]
        if parts or not line:
            lines.append(parts[-1] if parts else "")
    out = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", out)


def _strip_paths(text: str, root: Path) -> str:
    """Replace the project root, the venv and the home folder in ``text`` by short forms."""
    venv = str(Path(sys.prefix))
    for long, short in ((venv + "/", ".venv/"), (str(root) + "/", ""), (str(root), "."),
                        (str(Path.home()) + "/", "~/")):
        text = text.replace(long, short)
    return text


def execute(nb: Path, profile: str, out_dir: Path, parameters: dict | None = None,
            kernel: str = "python3", progress: bool = False) -> Path:
    """Run one notebook with papermill in ``profile``; return the cleaned executed copy."""
    pm = require("papermill")

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / nb.name
    os.environ.setdefault("NLGBIAS_PROGRESS", "terminal")
    try:
        pm.execute_notebook(str(nb), str(target), parameters={"profile": profile, **(parameters or {})},
                            kernel_name=kernel, cwd=str(nb.parent), progress_bar=progress,
                            log_output=False, kernel_manager_class=_kernel_manager_class(),
                            # the kernel's own stderr (progress bars) goes to the terminal, not
                            # into the notebook (ipykernel forwards fd 1/2 by default)
                            extra_arguments=["--IPKernelApp.capture_fd_output=False"])
    finally:
        if target.exists():
            clean_executed(target, project_root())
    return target


def split_by_owner(wrote: list[Path], notebook: str, paths) -> tuple[list[Path], list[Path]]:
    """``(own, foreign)``: of the files that changed while ``notebook`` ran, those under
    results/ and figures/ that its declaration (:mod:`nlgbias.outputs`) does not name are
    another process's (a second run in the same checkout), not this run's; every other file
    (its declared outputs, data, caches) is its own. A notebook without a declaration owns all."""
    try:
        declared = set(outputs.expected_files(outputs.get(notebook), paths))
    except KeyError:
        return list(wrote), []
    shared = (paths.results, paths.figures)
    foreign = [p for p in wrote if p not in declared and any(p.is_relative_to(d) for d in shared)]
    return [p for p in wrote if p not in foreign], foreign


def _times_file(profile: str, root: Path | None = None) -> Path:
    return paths_for(profile, root).data / "run_times.json"


def _snapshot(dirs: list[Path], profile: str) -> dict[Path, float]:
    """mtimes of the files under ``dirs``, leaving out caches and other profiles' outputs."""
    others = set(PROFILES) - {profile}
    out = {}
    for d in dirs:
        if d.exists():
            for p in d.rglob("*"):
                rel = p.relative_to(d).parts
                if p.is_file() and "cache" not in rel and not (rel and rel[0] in others):
                    out[p] = p.stat().st_mtime
    return out


def committed_differences(root: Path, wrote: list[Path]) -> tuple[int, list[str], list[str]] | None:
    """Which of the committed files a run wrote differ from HEAD (``git diff``): (number of
    committed files written, timing tables declared ``volatile`` in :mod:`nlgbias.outputs`
    that differ, other files that differ); ``None`` outside a git checkout. ``wrote`` is what
    :func:`run` watches (data, figures, results): executed notebooks, whose logs carry
    wall-clock times, are not among them."""
    import subprocess

    rels = [str(p.relative_to(root)) for p in wrote if p.is_relative_to(root)]
    if not rels or not (root / ".git").exists():
        return None
    try:
        res = subprocess.run(["git", "-C", str(root), "diff", "--name-only", "HEAD", "--", *rels],
                             capture_output=True, text=True, check=True)
        tracked = subprocess.run(["git", "-C", str(root), "ls-files", "--", *rels],
                                 capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    n_tracked = len(tracked.stdout.split())
    if not n_tracked:
        return None  # outputs not committed (smoke, paper, runs/)
    volatile = {t for o in outputs.OUTPUTS.values() for t in o.volatile}
    changed = res.stdout.split()
    timing = [c for c in changed if Path(c).stem in volatile]
    return n_tracked, timing, [c for c in changed if c not in timing]


def _show(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def notebook_parameters(nb: Path) -> set[str]:
    """The names a notebook's parameters cell defines: its study's declared parameters
    (:data:`nlgbias.profiles.STUDIES`)."""
    return set(profiles.study(nb.stem).names)


def for_notebook(nb: Path, parameters: dict | None) -> dict:
    """``parameters`` as ``nb`` takes them, by its study's declarations: ``models`` goes to each
    parameter declared to take models (:attr:`nlgbias.profiles.Param.models`: the list, the list
    unless given, or its first model); every other parameter only where the study declares it,
    checked by its declared kind (a ValueError naming the notebook and parameter)."""
    s = profiles.study(nb.stem)
    params = dict(parameters or {})
    models = params.pop("models", None)
    out = {k: profiles.check_value(s, k, v) for k, v in params.items() if k in s.names}
    if models is None:
        return out
    models = [models] if isinstance(models, str) else list(models)
    for p in s.params:
        if p.models == "all":
            out[p.name] = models
        elif p.models == "all-if-unset":
            out.setdefault(p.name, models)
        elif p.models == "first":
            out.setdefault(p.name, models[0])
    return out


def check_parameters(selected: list[Path], parameters: dict | None) -> None:
    """Every given parameter must be declared by a selected notebook's study and have its kind:
    one ValueError before any notebook runs."""
    names = set(parameters or {}) - {"models"}
    studies = [profiles.study(nb.stem) for nb in selected]
    unknown = sorted(n for n in names if not any(n in s.names for s in studies))
    if unknown:
        known = sorted({n for s in studies for n in s.names} - {"profile"})
        raise ValueError(f"parameter(s) {', '.join(unknown)} belong to no selected notebook "
                         f"({', '.join(s.notebook for s in studies)}); they take: {', '.join(known)}")
    for nb in selected:
        for_notebook(nb, parameters)


#: the run command's own flags; every other study parameter gets a generated flag
_OWN = {"profile", "models"}


def parameter_flags() -> dict[str, list[tuple[profiles.Study, profiles.Param]]]:
    """Each study parameter that the run command takes as a flag (``--sample-per-group``), with
    the studies that declare it."""
    flags: dict[str, list] = {}
    for s in profiles.STUDIES.values():
        for p in s.params:
            if p.name not in _OWN:
                flags.setdefault(p.name, []).append((s, p))
    return flags


def _flag_help(decl: list[tuple[profiles.Study, profiles.Param]]) -> str:
    return "; ".join(f"{s.notebook}: {p.help}" for s, p in decl) + f" [{profiles.KINDS[decl[0][1].kind]}]"


def models_root(models: list[str]) -> Path:
    """Where ``--models`` runs write (``runs/<model slugs>/``), apart from the committed quick
    outputs."""
    slug = "+".join(re.sub(r"[^A-Za-z0-9._-]+", "-", model_label(m)) for m in models)
    return project_root() / "runs" / slug


def run(profile: str = "quick", only: list[str] | None = None, start: str | None = None,
        parameters: dict | None = None) -> int:
    """Run the selected notebooks; 0 on success, 1 at the first failure."""
    pm = require("papermill")

    root = project_root()
    selected = select(notebooks(root), only, start)
    if not selected:
        raise ValueError(f"the selection is empty (--only {only}, --from {start}): no notebook to run")
    check_parameters(selected, parameters)  # before anything is created
    out_root = Path(parameters["root"]) if (parameters or {}).get("root") else root
    paths = paths_for(profile, out_root)
    out_dir = out_root / "notebooks" / "executed" / profile
    watched = [paths.data, paths.figures, paths.results]
    from nlgbias.hardware import REFERENCE_THREADS, default_threads

    if default_threads() != REFERENCE_THREADS and profile == "quick" and out_root == root:
        print(f"[run_all] WARNING: NLGBIAS_THREADS={default_threads()}, not the reference "
              f"{REFERENCE_THREADS}: the bfloat16 numbers of 05-08 will differ from the committed "
              f"quick outputs (do not commit them); unset NLGBIAS_THREADS to reproduce them",
              file=sys.stderr, flush=True)
    from nlgbias import provenance

    cpu = provenance.machine()
    print(f"[run_all] machine: {provenance.describe(cpu)}, {default_threads()} torch threads",
          flush=True)
    times_file = _times_file(profile, out_root)
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    summary, skipped = [], []
    t_all = time.time()
    for i, nb in enumerate(selected, 1):
        before = _snapshot(watched, profile)
        t0 = time.time()
        est = times.get(nb.stem)
        hint = f", last run {est / 60:.1f} min" if est else ""
        print(f"[run_all] ({i}/{len(selected)}) {nb.name} (profile {profile}{hint}) ...", flush=True)
        try:
            given = for_notebook(nb, parameters)
            # a dry run's values of parameters its cell shows with their one default, which
            # resolve_params cannot fill (profiles.DRY_RUN_SIZES); a given value wins
            s = profiles.study(nb.stem)
            given = {**{k: v for k, v in profiles.defaults(nb.stem, profile).items()
                        if not s[k].profiled}, **given}
            executed = execute(nb, profile, out_dir, given, progress=True)
        except pm.PapermillExecutionError as exc:
            if exc.ename == "NotebookSkipped":
                print(f"[run_all] SKIPPED {nb.name}: {exc.evalue}", flush=True)
                skipped.append((nb.name, str(exc.evalue)))
                continue
            print(f"\n[run_all] FAILED: {nb.name}, cell {exc.cell_index} (execution count "
                  f"{exc.exec_count}): {exc.ename}: {exc.evalue}\n"
                  f"[run_all] the executed notebook with the traceback: "
                  f"{_show(out_dir / nb.name, root)}", file=sys.stderr)
            return 1
        secs = time.time() - t0
        times[nb.stem] = round(secs, 1)
        write_json(times, times_file)
        write_json({"machine": cpu, "threads": default_threads(), "minutes": {
            k: round(v / 60, 1) for k, v in times.items()}}, times_file.with_name("run_record.json"))
        after = _snapshot(watched, profile)
        wrote, foreign = split_by_owner(sorted(p for p, m in after.items() if before.get(p) != m),
                                        nb.stem, paths)
        summary.append((nb.name, secs, executed, wrote))
        print(f"[run_all] {nb.name} done in {secs / 60:.1f} min (total {(time.time() - t_all) / 60:.1f} min), "
              f"wrote {len(wrote)} files", flush=True)
        if foreign:
            print(f"[run_all] NOTE: {len(foreign)} file(s) under results/ or figures/ that "
                  f"{nb.name} does not write changed while it ran (another run in this checkout?); "
                  "they are left out of this run's comparison: "
                  + ", ".join(_show(p, root) for p in foreign), flush=True)
    from nlgbias import scorecard

    card = scorecard.write(paths.results, models=(parameters or {}).get("models"))
    print(f"\n[run_all] scorecard: {_show(card, root)}")
    print("\n[run_all] summary")
    for name, why in skipped:
        print(f"  {name}: skipped: {why}")
    for name, secs, executed, wrote in summary:
        print(f"  {name}: {secs / 60:.1f} min -> {_show(executed, root)}")
        try:
            missing = outputs.check(outputs.get(name), paths)
        except KeyError:
            missing = []
        for p in wrote:
            print(f"      {_show(p, root)}")
        for m in missing:
            print(f"      MISSING {m}")
    diff = committed_differences(root, [p for *_, wrote in summary for p in wrote])
    if diff is not None:
        n, timing, other = diff
        print(f"\n[run_all] against the committed outputs: {n - len(timing) - len(other)} of {n} "
              f"committed files written are byte-identical; timing tables that differ (wall clock): "
              f"{len(timing)}; other files that differ: {len(other)}")
        for c in other:
            print(f"      DIFFERS {c}")
    comparison = provenance.compare_with_committed(
        root, [p for *_, wrote in summary for p in wrote],
        volatile={t for o in outputs.OUTPUTS.values() for t in o.volatile})
    if comparison is not None:
        print("\n[run_all] " + "\n".join(comparison.lines()))
    print("[run_all] " + byte_identity_line(diff, provenance.describe(cpu)))
    return 0


def byte_identity_line(diff: tuple[int, list[str], list[str]] | None, machine: str) -> str:
    """The run summary's last line, true to what this run compared: how many of the committed
    files it wrote came back byte for byte (timing tables apart), on which machine.

    >>> byte_identity_line((10, ["t.csv"], []), "CPU X")
    'byte-identical: all 9 committed files this run wrote (timing tables apart: 1); this run on CPU X'
    >>> byte_identity_line((10, [], ["a.csv", "b.png"]), "CPU X")[:60]
    'NOT byte-identical: 2 of 10 committed files this run wrote d'
    """
    if diff is None:
        return f"no committed outputs to compare with; this run on {machine}"
    n, timing, other = diff
    if not other:
        return (f"byte-identical: all {n - len(timing)} committed files this run wrote (timing "
                f"tables apart: {len(timing)}); this run on {machine}")
    return (f"NOT byte-identical: {len(other)} of {n} committed files this run wrote differ "
            f"(listed above as DIFFERS; timing tables apart: {len(timing)}); this run on "
            f"{machine}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="./run_all.sh", allow_abbrev=False,
        description="Execute the notebooks with papermill. Each study parameter is also a flag "
                    "(given to every selected notebook that declares it; values parsed as YAML; "
                    "None: the profile's default; python -m nlgbias.profiles lists them).")
    ap.add_argument("--profile", default=os.environ.get("NLGBIAS_PROFILE", "quick"), choices=PROFILES)
    ap.add_argument("--only", action="append", metavar="NN", help="run only notebook NN (repeatable)")
    ap.add_argument("--from", dest="start", metavar="NN", help="run notebooks from NN on")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                    help="extra papermill parameter for every notebook (value parsed as YAML)")
    ap.add_argument("--models", nargs="+", metavar="MODEL",
                    help="run the papers on these models (registered names, hub ids or local folders): "
                         "sets each notebook's models / ppl_models / model; outputs and the scorecard "
                         "go to runs/<models>/ (or -p root DIR)")
    ap.add_argument("--dry-run", action="store_true",
                    help="the paper profile's code paths offline in minutes: each hub model is a "
                         "tiny random model of its architecture, sizes are the smoke profile's; "
                         "outputs go to runs/paper-dry-run/ (or -p root DIR)")
    studies = ap.add_argument_group("study parameters (generated from nlgbias.profiles.STUDIES)")
    for name, decl in parameter_flags().items():
        studies.add_argument("--" + name.replace("_", "-"), dest=f"param_{name}", metavar="VALUE",
                             help=_flag_help(decl))
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    given = list(args.parameter or []) + [(k[len("param_"):], v) for k, v in vars(args).items()
                                           if k.startswith("param_") and v is not None]
    params = None
    if given:
        import yaml

        try:
            params = {k: yaml.safe_load(v) for k, v in given}
        except yaml.YAMLError as exc:
            print(f"[run_all] a parameter value is not valid YAML: {exc}", file=sys.stderr)
            return 2
    if args.dry_run:
        if args.profile != "paper":
            print(f"[run_all] --dry-run is the paper profile's (got --profile {args.profile})",
                  file=sys.stderr)
            return 2
        os.environ[profiles.DRY_RUN_ENV] = "1"  # the notebooks' kernels inherit it
        params = {**(params or {})}
        params.setdefault("root", str(project_root() / "runs" / "paper-dry-run"))
        print(f"[run_all] paper dry run (tiny random models, smoke sizes): outputs under "
              f"{params['root']}", flush=True)
    if args.models:
        params = {**(params or {}), "models": args.models}
        params.setdefault("root", str(models_root(args.models)))
        print(f"[run_all] models {', '.join(args.models)}: outputs under {params['root']}", flush=True)
    try:
        return run(args.profile, args.only, args.start, params)
    except (ValueError, OSError) as exc:
        print(f"[run_all] {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\n[run_all] interrupted: finished rows are cached; rerun the same command to "
              "continue where it stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
