"""Execute the notebooks in order with papermill (what ``./run_all.sh`` calls).

``python -m nlgbias.runner [--profile quick|smoke|paper] [--only NN] [--from NN]``
stops at the first failing notebook, naming it and the failing cell, and prints a summary of
the files each notebook wrote.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from nlgbias.paths import PROFILES, paths_for, project_root

log = logging.getLogger("nlgbias.runner")


def notebooks(root: Path | None = None) -> list[Path]:
    """The numbered notebooks ``notebooks/NN_*.ipynb`` in order."""
    root = root or project_root()
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def select(nbs: list[Path], only: list[str] | None = None, start: str | None = None) -> list[Path]:
    """Filter notebooks by number: ``only`` keeps those numbers, ``start`` those from a number on."""
    known = {p.name[:2] for p in nbs}
    for n in (only or []) + ([start] if start else []):
        if n.zfill(2) not in known:
            raise ValueError(f"no notebook numbered {n!r}; have {', '.join(sorted(known))}")
    if only:
        wanted = {n.zfill(2) for n in only}
        nbs = [p for p in nbs if p.name[:2] in wanted]
    if start:
        nbs = [p for p in nbs if p.name[:2] >= start.zfill(2)]
    return nbs


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


def execute(nb: Path, profile: str, out_dir: Path, parameters: dict | None = None,
            kernel: str = "python3") -> Path:
    """Run one notebook with papermill in ``profile``; return the executed copy's path."""
    import papermill as pm  # noqa: PLC0415

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / nb.name
    pm.execute_notebook(str(nb), str(target), parameters={"profile": profile, **(parameters or {})},
                        kernel_name=kernel, cwd=str(nb.parent), progress_bar=False,
                        log_output=False)
    return target


def run(profile: str = "quick", only: list[str] | None = None, start: str | None = None,
        parameters: dict | None = None) -> int:
    """Run the selected notebooks; 0 on success, 1 at the first failure."""
    import papermill as pm  # noqa: PLC0415

    root = project_root()
    paths = paths_for(profile, root)
    out_dir = root / "notebooks" / "executed" / profile
    watched = [paths.data, paths.figures, paths.results]
    selected = select(notebooks(root), only, start)
    if not selected:
        print("no notebooks to run")
        return 0
    summary = []
    for nb in selected:
        before = _snapshot(watched, profile)
        t0 = time.time()
        print(f"[run_all] {nb.name} (profile {profile}) ...", flush=True)
        try:
            executed = execute(nb, profile, out_dir, parameters)
        except pm.PapermillExecutionError as exc:
            print(f"\n[run_all] FAILED: {nb.name}, cell {exc.cell_index} (execution count "
                  f"{exc.exec_count}): {exc.ename}: {exc.evalue}\n"
                  f"[run_all] the executed notebook with the traceback: "
                  f"{out_dir / nb.name}", file=sys.stderr)
            return 1
        after = _snapshot(watched, profile)
        wrote = sorted(p for p, m in after.items() if before.get(p) != m)
        summary.append((nb.name, time.time() - t0, executed, wrote))
        print(f"[run_all] {nb.name} done in {time.time() - t0:.0f} s, wrote {len(wrote)} files",
              flush=True)
    print("\n[run_all] summary")
    for name, secs, executed, wrote in summary:
        print(f"  {name}: {secs:.0f} s -> {executed.relative_to(root)}")
        for p in wrote:
            print(f"      {p.relative_to(root)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="./run_all.sh", description="Execute the notebooks with papermill.")
    ap.add_argument("--profile", default=os.environ.get("NLGBIAS_PROFILE", "quick"), choices=PROFILES)
    ap.add_argument("--only", action="append", metavar="NN", help="run only notebook NN (repeatable)")
    ap.add_argument("--from", dest="start", metavar="NN", help="run notebooks from NN on")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                    help="extra papermill parameter for every notebook (value parsed as YAML)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    params = None
    if args.parameter:
        import yaml  # noqa: PLC0415

        params = {k: yaml.safe_load(v) for k, v in args.parameter}
    try:
        return run(args.profile, args.only, args.start, params)
    except ValueError as exc:
        print(f"[run_all] {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
