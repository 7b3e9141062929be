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

from nlgbias.claims import (
    CHECK_COLUMNS,
    CLAIM_COLUMNS,
    RULES,
    SENSITIVE_COLUMN,
    TALLIES,
    TALLY_MEANING,
    TALLY_NAMES,
    validate,
)
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
    card[SENSITIVE_COLUMN] = card.get(SENSITIVE_COLUMN, pd.Series("", index=card.index)).fillna("")
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


def counts(card: pd.DataFrame, tally: str = "reproduction") -> pd.DataFrame:
    """Rows of one tally per paper and outcome (rows: papers in :data:`PAPERS` order, plus
    ``all``; columns: the tally's words and ``claims``)."""
    words = list(TALLIES[tally])
    sub = card[card["tally"] == tally]
    t = pd.crosstab(sub["study"], sub["verdict"]).reindex(columns=words, fill_value=0)
    t = t.reindex([p for p in PAPERS if p in card["study"].unique()]
                  + [p for p in card["study"].unique() if p not in PAPERS], fill_value=0)
    t.loc["all"] = t.sum()
    t["claims"] = t[words].sum(axis=1)
    return t.astype(int)


def summary_line(card: pd.DataFrame) -> str:
    """The tallies' counts in one paragraph, for the README's opening."""
    out = []
    for tally in TALLIES:
        c = counts(card, tally).loc["all"]
        parts = ", ".join(f"{c[v]} {v}" for v in TALLIES[tally] if c[v] or v in
                          ("reproduced", "differs", "holds", "does not hold", "agrees",
                           "disagrees"))
        out.append(f"**{TALLY_NAMES[tally]}: {c['claims']} rows, {parts}**")
    return ("; ".join(out) + " (see [the scorecard](results/SCORECARD.md)). Only the first "
            "tally is the headline: what a stand-in model or scorer measured is a replication "
            "on that stand-in and is never counted as reproduced.")


def counts_markdown(card: pd.DataFrame) -> list[str]:
    """The per-paper counts of each tally as Markdown table lines, with the tally's meaning."""
    out: list[str] = []
    for tally, words in TALLIES.items():
        c = counts(card, tally)
        if out:
            out.append("")
        out += [f"*{TALLY_NAMES[tally]}*: {TALLY_MEANING[tally]}.", "",
                "| paper | rows | " + " | ".join(words) + " |",
                "|---|---:|" + "---:|" * len(words)]
        for p, r in c.iterrows():
            out.append(f"| {PAPERS.get(p, p)} | {r['claims']} | "
                       + " | ".join(str(r[v]) for v in words) + " |")
        out += sensitive_lines(card, tally)
    return out


def sensitive_lines(card: pd.DataFrame, tally: str) -> list[str]:
    """One line under a tally's counts: per paper, how many of its rows change outcome inside
    the stated range of an analysis choice (column :data:`~nlgbias.claims.SENSITIVE_COLUMN`),
    by outcome; no line where no row does."""
    if SENSITIVE_COLUMN not in card.columns:
        return []
    sub = card[(card["tally"] == tally) & (card[SENSITIVE_COLUMN].astype(str).str.strip() != "")]
    if not len(sub):
        return []
    parts = []
    for p, rows in sub.groupby("study", sort=False):
        vc = rows["verdict"].value_counts()
        total = int(((card["tally"] == tally) & (card["study"] == p)).sum())
        parts.append(f"{PAPERS.get(p, p)}: {len(rows)} of {total} ("
                     + ", ".join(f"{vc[w]} {w}" for w in TALLIES[tally] if w in vc) + ")")
    return ["", "Rows whose outcome changes inside the stated range of an analysis choice "
            "(column *sensitive to* below; the outcome counted is the one graded at the stated "
            "value): " + "; ".join(parts) + "."]


def calibration_outcomes(card: pd.DataFrame) -> dict[str, str]:
    """Per stand-in scorer, its calibration rows' outcomes in one phrase (e.g. ``"disagrees
    on 4 of 4 rows"``); a scorer with no calibration row maps to ``"no calibration row"``."""
    out = {}
    cal = card[card["tally"] == "calibration"]
    for scorer in sorted(set(card["scorer"]) - {""}):
        rows = cal[cal["scorer"] == scorer]
        if rows.empty:
            out[scorer] = "no calibration row"
            continue
        vc = rows["verdict"].value_counts()
        out[scorer] = ", ".join(f"{w} on {vc[w]} of {len(rows)}" for w in TALLIES["calibration"]
                                if w in vc)
    return out


def _cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


#: the n needed of an undecided calibration recount of the paper's own texts (a scorer with
#: training seeds whose seeds fall both within and beyond the margin)
RECOUNT_NEEDED = "a recount: more texts cannot change it"
#: how a calibration recount graded on a sample of the paper's texts begins its reason
#: (:func:`nlgbias.claims.calibration_recount`); such a row has a sampling n needed
RECOUNT_SAMPLED = "this run's texts are a sample of those the paper scored"


def _needed(r) -> str:
    if r["verdict"] not in ("inconclusive", "undecided"):
        return ""
    try:
        v = float(r["n_needed"])
    except (TypeError, ValueError):
        v = math.nan
    if math.isfinite(v):
        return f"{v:,.0f} {r['unit']}".strip()
    if "cannot decide it" in r["reason"]:
        return "not reachable in this dataset"
    if r["rule"] == "calibration recount" and not r["reason"].startswith(RECOUNT_SAMPLED):
        # a recount of the texts the paper's scorer scored: nothing is sampled
        return RECOUNT_NEEDED + ("; depends on the training seed" if "depends on the"
                                 in r["reason"] else "")
    return "paper gives no effect size" if "power" not in r["reason"] else "see why"


def _table(sub: pd.DataFrame, tally: str, cal: dict[str, str]) -> list[str]:
    scorer_col = tally == "replication" and (sub["scorer"] != "").any()
    sens_col = SENSITIVE_COLUMN in sub.columns and (sub[SENSITIVE_COLUMN].astype(str).str.strip()
                                                    != "").any()
    head = ("| claim | paper | this run [95% interval] | n | comparability | rule | outcome "
            "| why | n needed |" + (" calibration of its scorer |" if scorer_col else "")
            + (" sensitive to |" if sens_col else ""))
    out = [head, "|---" * (9 + scorer_col + sens_col) + "|"]
    for _, r in sub.iterrows():
        claim = f"{r['section']}: {r['claim']}" if r["section"] else r["claim"]
        comp = r["comparability"] + (f" ({r['stand-in']})" if r["stand-in"] else "")
        why = r["reason"] + (f" [family {r['family']}]" if r["family"] else "")
        line = (f"| {_cell(claim)} | {_cell(r['paper'])} | {_cell(r['this run'])} | "
                f"{_cell(r['n'])} | {_cell(comp)} | {r['rule']} | **{r['verdict']}** | "
                f"{_cell(why)} | {_needed(r)} |")
        if scorer_col:
            line += (f" {_cell(r['scorer'] + ': ' + cal.get(r['scorer'], ''))} |"
                     if r["scorer"] else " |")
        if sens_col:
            line += f" {_cell(r[SENSITIVE_COLUMN])} |"
        out.append(line)
    return out


def markdown(card: pd.DataFrame, checks: pd.DataFrame | None = None,
             models: list[str] | None = None) -> str:
    """The scorecard page; ``models``: the models a ``--models`` run passed (named on the page)."""
    out = ["# Reproduction scorecard", ""]
    if models:  # a local folder is named by its last part (no machine path on the page)
        names = ", ".join(map(model_label, models))
        out += [f"Models: {names} (`./run_all.sh --models`); the papers' numbers are for the "
                "papers' models.", ""]
    out += ["Generated by `./run_all.sh` from the claims tables under `results/` "
            "(`python -m nlgbias.scorecard`). Rows are counted in three tallies, never mixed:", ""]
    out += [f"- **{TALLY_NAMES[t]}**: {TALLY_MEANING[t]}." for t in TALLIES]
    out += ["", "Every outcome is computed by one of these rules (`nlgbias.claims`), never typed:",
            ""]
    out += [f"- **{rule}**: {text}." for rule, text in RULES.items()]
    out += ["", "The directional rows of one table or figure form a stated family whose p-values "
            "are Holm-adjusted together before a direction is graded (the family is named in "
            "the row). **inconclusive** / **undecided** rows give the n that 80 % power to "
            "detect the paper's effect needs, in the unit that binds, or say that the dataset "
            "cannot decide the claim where that n is above the population; the exception is a "
            "calibration recount of the paper's own texts (nothing sampled): more texts cannot "
            "change it, and an undecided one depends on the stand-in's training seed. Checks (by "
            "construction, diagnostics, data counts, recounts restated) are listed apart and "
            "not counted.", ""]
    if card.empty:
        return "\n".join(out + ["No claims tables yet: run ./run_all.sh."]) + "\n"
    out += counts_markdown(card)
    cal = calibration_outcomes(card)
    for paper, sub in card.groupby("study", sort=False):
        out += ["", f"## {PAPERS.get(paper, paper)}"]
        for tally in TALLIES:
            rows = sub[sub["tally"] == tally]
            if len(rows):
                out += ["", f"### {TALLY_NAMES[tally]} ({len(rows)})", "", *_table(rows, tally, cal)]
        sub_checks = checks[checks["study"] == paper] if checks is not None else None
        if sub_checks is not None and len(sub_checks):
            out += ["", f"### Checks (not claims): {len(sub_checks)}, "
                    f"{(sub_checks['passed'].astype(str) == 'True').sum()} passed", "",
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
