"""The reproduction scorecard: every claim the notebooks grade, on one page.

Each paper package declares its claims in ``<paper>/claims.py`` and its notebook writes them
through :func:`nlgbias.claims.save` as ``results/<paper>_claims_<part>.csv`` (columns
:data:`nlgbias.claims.CLAIM_COLUMNS`), with the checks that are not claims (what holds by
construction, diagnostics, data counts) beside them as ``results/<paper>_checks_<part>.csv``.
The paper is the file name's prefix (``bold_``, ``regard_``, ``stereoset_``, ``holistic_``).

Verdicts are computed by the rules of :mod:`nlgbias.claims` and read here as they are: a
verdict outside :data:`nlgbias.claims.VERDICTS` is an error, never mapped.

``results/SCORECARD.md`` and the README's opening are written from these tables only (no
number typed twice) by ``./run_all.sh``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from nlgbias.claims import CHECK_COLUMNS, CLAIM_COLUMNS, RULES, VERDICTS, Verdict, validate
from nlgbias.io import write_text
from nlgbias.paths import model_label

PAPERS = {"bold": "BOLD (Dhamala et al. 2021)", "regard": "Regard (Sheng et al. 2019)",
          "stereoset": "StereoSet (Nadeem et al. 2021)", "holistic": "HolisticBias (Smith et al. 2022)"}


def _tables(results: str | Path, kind: str) -> list[Path]:
    return sorted(p for p in Path(results).glob(f"*_{kind}*.csv") if p.stem.split("_", 1)[0] in PAPERS)


def collect(results: str | Path) -> pd.DataFrame:
    """Every claims table under ``results``: :data:`~nlgbias.claims.CLAIM_COLUMNS` plus
    ``paper`` and ``table``. Raises on a table that is not a valid claims table."""
    frames = []
    for f in _tables(results, "claims"):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        validate(df, f.name)
        df.insert(0, "table", f.stem)
        df.insert(0, "study", f.stem.split("_", 1)[0])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["study", "table", *CLAIM_COLUMNS])
    card = pd.concat(frames, ignore_index=True)
    dup = card["id"][card["id"].duplicated()].tolist()
    if dup:
        raise ValueError(f"claim ids repeated across tables: {dup}")
    return card


def collect_checks(results: str | Path) -> pd.DataFrame:
    """Every checks table under ``results`` (``study``, ``table`` and
    :data:`~nlgbias.claims.CHECK_COLUMNS`)."""
    frames = []
    for f in _tables(results, "checks"):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        missing = [c for c in CHECK_COLUMNS if c not in df.columns]
        if missing:
            raise ValueError(f"{f.name}: missing columns {missing}")
        df.insert(0, "table", f.stem)
        df.insert(0, "study", f.stem.split("_", 1)[0])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["study", "table", *CHECK_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def counts(card: pd.DataFrame) -> pd.DataFrame:
    """Claims per paper and verdict (rows: papers in :data:`PAPERS` order, plus ``all``)."""
    t = pd.crosstab(card["study"], card["verdict"]).reindex(columns=list(VERDICTS), fill_value=0)
    t = t.reindex([p for p in PAPERS if p in t.index] + [p for p in t.index if p not in PAPERS])
    t.loc["all"] = t.sum()
    t["claims"] = t[list(VERDICTS)].sum(axis=1)
    return t.astype(int)


def summary_line(card: pd.DataFrame) -> str:
    """One sentence with the counts, for the README's opening."""
    c = counts(card).loc["all"]
    parts = ", ".join(f"{c[v]} {v}" for v in VERDICTS)
    return f"**{c['claims']} claims graded: {parts}** (see [the scorecard](results/SCORECARD.md))."


def counts_markdown(card: pd.DataFrame) -> list[str]:
    """The per-paper counts as Markdown table lines."""
    c = counts(card)
    out = ["| paper | claims | " + " | ".join(VERDICTS) + " |",
           "|---|---:|" + "---:|" * len(VERDICTS)]
    for p, r in c.iterrows():
        out.append(f"| {PAPERS.get(p, p)} | {r['claims']} | "
                   + " | ".join(str(r[v]) for v in VERDICTS) + " |")
    return out


def _cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _needed(r) -> str:
    if r["verdict"] != Verdict.INCONCLUSIVE.value:
        return ""
    try:
        v = float(r["n_needed"])
    except (TypeError, ValueError):
        v = math.nan
    return f"{v:,.0f}" if math.isfinite(v) else "paper gives no effect size"


def markdown(card: pd.DataFrame, checks: pd.DataFrame | None = None,
             models: list[str] | None = None) -> str:
    """The scorecard page; ``models``: the models a ``--models`` run passed (named on the page)."""
    out = ["# Reproduction scorecard", ""]
    if models:  # a local folder is named by its last part (no machine path on the page)
        names = ", ".join(map(model_label, models))
        out += [f"Models: {names} (`./run_all.sh --models`); the papers' numbers are for the "
                "papers' models.", ""]
    out += ["Generated by `./run_all.sh` from the claims tables under `results/` "
            "(`python -m nlgbias.scorecard`). Every verdict is computed by one of these rules "
            "(`nlgbias.claims`), never typed:", ""]
    out += [f"- **{rule}**: {text}." for rule, text in RULES.items()]
    out += ["", "A claim is **not comparable** where a stand-in (model, classifier, lexicon) or a "
            "different pool changes what is measured (the stand-in is named; what the rule would "
            "say is kept as context); **inconclusive** rows give the n that 80 % power to "
            "detect the paper's effect needs. Checks (by construction, diagnostics, data "
            "counts) are listed apart and not counted.", ""]
    if card.empty:
        return "\n".join(out + ["No claims tables yet: run ./run_all.sh."]) + "\n"
    out += counts_markdown(card)
    for paper, sub in card.groupby("study", sort=False):
        out += ["", f"## {PAPERS.get(paper, paper)}", "",
                "| claim | paper | this run [95% interval] | n | comparability | rule | verdict "
                "| why | n needed |", "|---|---|---|---|---|---|---|---|---|"]
        for _, r in sub.iterrows():
            claim = f"{r['section']}: {r['claim']}" if r["section"] else r["claim"]
            comp = r["comparability"] + (f" ({r['stand-in']})" if r["stand-in"] else "")
            out.append(f"| {_cell(claim)} | {_cell(r['paper'])} | {_cell(r['this run'])} | "
                       f"{_cell(r['n'])} | {_cell(comp)} | {r['rule']} | **{r['verdict']}** | "
                       f"{_cell(r['reason'])} | {_needed(r)} |")
        sub_checks = checks[checks["study"] == paper] if checks is not None else None
        if sub_checks is not None and len(sub_checks):
            out += ["", f"Checks (not claims): {len(sub_checks)}, "
                    f"{(sub_checks['passed'].astype(str) == 'True').sum()} passed.", "",
                    "| check | kind | expected | this run | passed |", "|---|---|---|---|---|"]
            for _, r in sub_checks.iterrows():
                out.append(f"| {_cell(r['section'] + ': ' + r['check'])} | {r['kind']} | "
                           f"{_cell(r['expected'])} | {_cell(r['this run'])} | {r['passed']} |")
    return "\n".join(out) + "\n"


def write(results: str | Path, models: list[str] | None = None) -> Path:
    """Write ``results/SCORECARD.md`` from the claims and checks tables in ``results``."""
    results = Path(results)
    return write_text(markdown(collect(results), collect_checks(results), models),
                      results / "SCORECARD.md")


def main() -> int:
    from nlgbias.paths import paths_for

    path = write(paths_for("quick").results)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
