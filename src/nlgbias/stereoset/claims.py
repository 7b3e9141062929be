"""The claims of StereoSet (Nadeem et al. 2021) and of CrowS-Pairs (Nangia et al. 2020, cited by
it) that notebook 05 grades, each built with a rule of :mod:`nlgbias.claims` from the
notebook's tables; the paper's numbers come from :mod:`nlgbias.stereoset.paper`.

What holds by construction (IdealLM, StereotypedLM, RandomLM: §6.3 defines them by their
scores) and the SentimentLM tie diagnostics are checks, not claims.

Comparability: no GPT-2 or BERT weights exist offline, so every model number is a stand-in's
(named); SentimentLM uses VADER for the paper's BERT sentiment classifier; Table 3 uses
``wordfreq`` (no lemmatiser) for the TenTen corpus. A direction *within* this run (a model
against RandomLM scored on the same CATs; intersentence against intrasentence) keeps its
direction graded (``grades="direction within run"``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from nlgbias import claims as C
from nlgbias import stats
from nlgbias.claims import Comparability
from nlgbias.stereoset import paper as PP

SENTIMENT_STAND_IN = "VADER compound for the paper's two-class BERT sentiment classifier (App. A.5)"
KEYWORD_STAND_IN = "wordfreq general English, Porter stems (the paper: TenTen, lemmas)"
BASELINES = ("IdealLM", "StereotypedLM", "RandomLM", "SentimentLM")
#: the key of RandomLM's bootstrap distributions on the models' CATs (paired with the models')
RANDOM_ON_MODEL_CATS = "RandomLM (models' CATs)"


def _pct_interval(dist: np.ndarray) -> tuple[float, float]:
    lo, hi = stats.percentile_interval(np.asarray(dist, dtype=float))
    return float(lo), float(hi)


# --------------------------------------------------------------------------- Table 1
def table1_claims(t1: pd.DataFrame) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 1 (§4): the CAT total and average lengths against the released data (tolerance),
    and the paper's own domain rows against its task totals (``paper inconsistent``)."""
    out: list[C.Claim] = []
    checks: list[C.Check] = []
    tot = t1[t1["task"] == "overall"].iloc[0]
    out.append(C.tolerance(id="stereoset.t1.total_cats", section="§4 Table 1",
                           claim="StereoSet has 16,995 CATs (dev + test)",
                           paper_value=float(tot["CATs (paper)"]), estimate=float(tot["CATs"]),
                           tol=0, n=int(tot["CATs"]), statistic="CATs in the released data",
                           paper=f"{int(tot['CATs (paper)']):,}", this_run=f"{int(tot['CATs']):,}",
                           digits=0))
    for task in ("intrasentence", "intersentence"):
        sel = t1[(t1["task"] == task) & (t1["domain"] == "total")]
        if not len(sel):
            continue
        r = sel.iloc[0]
        out.append(C.tolerance(id=f"stereoset.t1.avg_words_{task[:5]}", section="§4 Table 1",
                               claim=f"average {task} instance length (words)",
                               paper_value=float(r["avg words (paper)"]), estimate=float(r["avg words"]),
                               tol=0.2, n=int(r["CATs"]), statistic="mean words per instance"))
        dom = t1[(t1["task"] == task) & (t1["domain"] != "total")]
        rows_sum = int(dom["CATs (paper)"].sum())
        total = int(r["CATs (paper)"])
        off = "; ".join(f"{d.domain} paper {int(d['CATs (paper)']):,} vs data {int(d.CATs):,}"
                        for _, d in dom.iterrows() if int(d["CATs (paper)"]) != int(d.CATs))
        evidence = (f"the paper's {task} domain rows sum to {rows_sum:,}, its total says {total:,}; "
                    f"the released data has {int(r['CATs']):,} ({off})")
        cid = f"stereoset.t1.rows_vs_total_{task[:5]}"
        what = f"{task} CATs per domain add up to the task total"
        if rows_sum != total:
            out.append(C.paper_inconsistent(id=cid, section="§4 Table 1", claim=what,
                                            paper=f"rows sum {rows_sum:,}; total {total:,}",
                                            evidence=evidence, consistent=False, n=int(r["CATs"])))
        else:
            checks.append(C.check(id=cid, section="§4 Table 1", check=what, kind="data count",
                                  expected=f"{total:,}", this_run=f"{rows_sum:,}", passed=True))
    return out, checks


# --------------------------------------------------------------------------- Table 2
def table2_claims(t2: pd.DataFrame) -> tuple[list[C.Claim], list[C.Check]]:
    """§5 / Table 2: stereotypes are negative more often than anti-stereotypes. Graded on VADER
    (the first classifier of ``t2``) as a direction within the data scored by one stand-in;
    the other classifiers are checks of the same direction."""
    claims_, checks = [], []
    p2 = PP.TABLE2.set_index("label")["% negative"]
    for i, (clf, g) in enumerate(t2.groupby("classifier", sort=False)):
        g = g.set_index("label")
        n1, n2 = int(g.loc["stereotype", "n"]), int(g.loc["anti-stereotype", "n"])
        c1 = int(round(g.loc["stereotype", "% negative"] * n1 / 100))
        c2 = int(round(g.loc["anti-stereotype", "% negative"] * n2 / 100))
        lo, hi = stats.diff_proportions_interval(c1, n1, c2, n2)
        p, test = stats.two_proportion_test(c1, n1, c2, n2)
        est = c1 / n1 - c2 / n2
        if i == 0:
            claims_.append(C.direction(
                id="stereoset.t2.stereotypes_more_negative", section="§5 Table 2",
                claim="stereotypes are negative more often than anti-stereotypes",
                paper=f"{p2['stereotype']:.0f}% vs {p2['anti-stereotype']:.0f}% negative",
                sign=1, estimate=est, interval=(lo, hi), pvalue=p, n=f"{n1:,} / {n2:,} associations",
                n_effective=min(n1, n2), statistic="negative share, stereotype - anti-stereotype",
                paper_effect=(p2["stereotype"] - p2["anti-stereotype"]) / 100,
                comparability=Comparability.STAND_IN, stand_in=f"{clf} for the paper's BERT classifier",
                grades="direction within run",
                this_run=f"{c1 / n1:.1%} vs {c2 / n2:.1%}: {est:+.3f} [{lo:+.3f}, {hi:+.3f}] ({test})"))
        else:
            checks.append(C.check(id=f"stereoset.t2.second_classifier_{i}", section="§5 Table 2",
                                  check=f"{clf} finds the same direction", kind="diagnostic",
                                  expected="stereotype > anti-stereotype",
                                  this_run=f"{c1 / n1:.1%} vs {c2 / n2:.1%} [{lo:+.3f}, {hi:+.3f}]",
                                  passed=lo > 0))
    return claims_, checks


# --------------------------------------------------------------------------- Table 3
def table3_claims(overlap: pd.DataFrame) -> tuple[list[C.Claim], list[C.Check]]:
    """§5 / Table 3: the paper's top keywords per domain against this run's top list (shared
    stems). The reference corpus is a stand-in: ``not comparable``."""
    out = []
    for r in overlap.to_dict("records"):
        k, n = int(r["n shared"]), int(r["of"])
        lo, hi = stats.proportion_interval(k, n)
        out.append(C.value_in_interval(
            id=f"stereoset.t3.keywords_{r['domain']}", section="§5 Table 3",
            claim=f"the top keywords of the {r['domain']} domain", paper_value=1.0,
            paper=f"{n} keywords (TenTen)", estimate=k / n, interval=(lo, hi), n=n,
            statistic="share of the paper's keywords among this run's top list",
            this_run=f"{k} of {n} shared ({k / n:.2f} [{lo:.2f}, {hi:.2f}])",
            comparability=Comparability.STAND_IN, stand_in=KEYWORD_STAND_IN, digits=2))
    return out, []


# --------------------------------------------------------------------------- Table 4 and §8
def _row(t: pd.DataFrame, split: str, model: str, task: str | None = None):
    sel = t[(t["split"] == split) & (t["model"] == model)]
    if task is not None:
        sel = sel[sel["task"] == task]
    return None if not len(sel) else sel.iloc[0]


def baseline_checks(t4: pd.DataFrame) -> list[C.Check]:
    """IdealLM, StereotypedLM and RandomLM hold by construction (§6.3): checks."""
    out = []
    for r in t4[t4["model"].isin(BASELINES[:3])].to_dict("records"):
        m, split, n = r["model"], r["split"], int(r["CATs"])
        run = f"{r['lms']:.1f} / {r['ss']:.1f} / {r['icat']:.1f} ({n:,} CATs)"
        if m == "IdealLM":
            tol = 100 / np.sqrt(n)  # targets with an odd number of CATs cannot split 50/50
            ok = r["lms"] == 100 and abs(r["ss"] - 50) <= tol
            exp = f"100 / 50 (within {tol:.1f}: odd CAT counts) / 100"
        elif m == "StereotypedLM":
            ok = r["ss"] == 100 and r["icat"] == 0
            exp = "- / 100 / 0"
        else:
            ok = all(r[f"{k}_lo"] <= 50 <= r[f"{k}_hi"] for k in ("lms", "ss", "icat"))
            exp = "50 / 50 / 50 inside this run's 95% intervals"
        out.append(C.check(id=f"stereoset.t4.{m.lower()}_{split}", section="§6.3 Table 4",
                           check=f"{m} lms / ss / icat ({split})", kind="by construction",
                           expected=exp, this_run=run, passed=bool(ok)))
    return out


def table4_claims(t4: pd.DataFrame, dists: Mapping[tuple[str, str, str], Mapping[str, np.ndarray]],
                  stand_in_names: Mapping[str, str], random_lms: Mapping[str, float] | None = None,
                  ) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 4 and §8 on the combined scores of each split.

    ``dists``: (split, model, task) -> the bootstrap distributions of lms / ss / icat
    (:func:`nlgbias.stereoset.evaluation.bootstrap_distribution`, the same seed for every
    model, so two models on the same CATs give paired replicates). ``stand_in_names``: a
    model's display name -> the stand-in named in the claim (e.g. "SmolLM2-135M for GPT2").
    ``random_lms``: split -> RandomLM's lms on the models' CATs (the paired comparison's point
    estimate; its distributions are under :data:`RANDOM_ON_MODEL_CATS`)."""
    out: list[C.Claim] = []
    for r in t4.to_dict("records"):
        split, m, n = r["split"], r["model"], int(r["CATs"])
        sec = "§8 Table 4"
        if m == "SentimentLM":
            for k, null in (("ss", 50.0), ("lms", 50.0)):
                out.append(C.value_in_interval(
                    id=f"stereoset.t4.sentimentlm_{k}_{split}", section=sec,
                    claim=f"SentimentLM {k} ({split})" + (": it prefers the stereotype" if k == "ss" else ""),
                    paper_value=float(r[f"paper {k}"]), estimate=float(r[k]),
                    interval=(float(r[f"{k}_lo"]), float(r[f"{k}_hi"])), n=n, null=null,
                    statistic=f"{k} (CATs resampled within target terms)", digits=1,
                    comparability=Comparability.STAND_IN, stand_in=SENTIMENT_STAND_IN))
            ds, dr = dists.get((split, "SentimentLM", "overall")), dists.get((split, "RandomLM", "overall"))
            pr = _row(t4, split, "RandomLM")
            if ds is not None and dr is not None and pr is not None:
                d = ds["icat"] - dr["icat"]
                lo, hi = _pct_interval(d)
                paper_d = float(r["paper icat"]) - float(pr["paper icat"])
                out.append(C.value_in_interval(
                    id=f"stereoset.s8.sentimentlm_icat_near_random_{split}", section="§8",
                    claim=f"SentimentLM's icat is close to RandomLM's ({split})",
                    paper_value=paper_d, estimate=float(r["icat"] - pr["icat"]), interval=(lo, hi),
                    n=n, null=0.0, statistic="icat, SentimentLM - RandomLM (paired bootstrap)",
                    paper=f"{r['paper icat']:.1f} vs {pr['paper icat']:.1f} ({paper_d:+.1f})",
                    digits=1, comparability=Comparability.STAND_IN, stand_in=SENTIMENT_STAND_IN))
            continue
        if m in BASELINES:
            continue
        ref = r["paper model"]
        who = stand_in_names.get(m, f"{m} for {ref}")
        out.append(C.value_in_interval(
            id=f"stereoset.t4.{m}_ss_{split}", section=sec,
            claim=f"{ref}'s ss ({split}; lms / ss / icat {r['paper lms']:.1f} / {r['paper ss']:.1f} / "
                  f"{r['paper icat']:.1f})", paper_value=float(r["paper ss"]), estimate=float(r["ss"]),
            interval=(float(r["ss_lo"]), float(r["ss_hi"])), n=n, null=50.0, digits=1,
            statistic="ss (CATs resampled within target terms)",
            this_run=f"ss {r['ss']:.1f} [{r['ss_lo']:.1f}, {r['ss_hi']:.1f}]; lms {r['lms']:.1f} "
                     f"[{r['lms_lo']:.1f}, {r['lms_hi']:.1f}]; icat {r['icat']:.1f} "
                     f"[{r['icat_lo']:.1f}, {r['icat_hi']:.1f}]",
            comparability=Comparability.STAND_IN, stand_in=who))
        dm = dists.get((split, m, "overall"))
        dr = dists.get((split, RANDOM_ON_MODEL_CATS, "overall"))
        if dm is not None and dr is not None:
            lo, hi = _pct_interval(dm["lms"] - dr["lms"])
            est = float(r["lms"] - random_lms[split]) if random_lms else float(np.mean(dm["lms"] - dr["lms"]))
            out.append(C.direction(
                id=f"stereoset.s8.{m}_lms_above_random_{split}", section="§8",
                claim=f"a pretrained LM has a higher lms than RandomLM ({m}, {split})",
                paper="every pretrained model > 50", sign=1, estimate=est, interval=(lo, hi), n=n,
                statistic="lms, model - RandomLM (paired bootstrap)", digits=1,
                comparability=Comparability.STAND_IN, stand_in=who, grades="direction within run"))
    return out, baseline_checks(t4)


def task_claims(t6: pd.DataFrame, dists: Mapping[tuple[str, str, str], Mapping[str, np.ndarray]],
                stand_in_names: Mapping[str, str]) -> tuple[list[C.Claim], list[C.Check]]:
    """§7.4 footnote 3 (GPT2's intersentence lms by likelihood, 61.5) and §8 (intersentence is
    harder: a lower lms than intrasentence), per model and split."""
    out = []
    models = t6[~t6["model"].isin(BASELINES)]
    for r in models[models["task"] == "intersentence"].to_dict("records"):
        m = r["paper lms, same scoring"]
        if m is None or pd.isna(m):
            continue
        who = stand_in_names.get(r["model"], f"{r['model']} for {r['paper model']}")
        out.append(C.value_in_interval(
            id=f"stereoset.fn3.{r['model']}_inter_lms_{r['split']}", section="§7.4 fn. 3",
            claim=f"GPT2's intersentence lms scored by likelihood ({r['split']})", paper_value=float(m),
            estimate=float(r["lms"]), interval=(float(r["lms_lo"]), float(r["lms_hi"])),
            n=int(r["count"]), statistic="intersentence lms (likelihood)", digits=1,
            comparability=Comparability.STAND_IN, stand_in=who))
    for (split, model), g in models.groupby(["split", "model"], sort=False):
        g = g.set_index("task")
        di, da = dists.get((split, model, "intersentence")), dists.get((split, model, "intrasentence"))
        if not {"intrasentence", "intersentence"} <= set(g.index) or di is None or da is None:
            continue
        est = float(g.loc["intersentence", "lms"] - g.loc["intrasentence", "lms"])
        lo, hi = _pct_interval(di["lms"] - da["lms"])
        who = stand_in_names.get(model, f"{model} for {g['paper model'].iloc[0]}")
        out.append(C.direction(
            id=f"stereoset.s8.{model}_inter_harder_{split}", section="§8",
            claim=f"intersentence CATs are harder than intrasentence: lower lms ({model}, {split})",
            paper="lower for most models (not BERT)", sign=-1, estimate=est, interval=(lo, hi),
            n=f"{int(g.loc['intersentence', 'count']):,} / {int(g.loc['intrasentence', 'count']):,} CATs",
            statistic="lms, intersentence - intrasentence", digits=1,
            comparability=Comparability.STAND_IN, stand_in=who, grades="direction within run"))
    return out, []


def ties_checks(ties: pd.DataFrame) -> list[C.Check]:
    """SentimentLM tie diagnostics (VADER scores many associations alike): checks."""
    out = []
    for r in ties.to_dict("records"):
        untied = r["% meaningful more negative (untied pairs)"]
        out.append(C.check(
            id=f"stereoset.s63.sentimentlm_ties_{r['task'][:5]}", section="§6.3",
            check=f"SentimentLM (VADER) ties, {r['task']}: (meaningful, unrelated) pairs tied",
            kind="diagnostic", expected="a continuous classifier: almost no ties",
            this_run=f"{r['% tied']:.1f}% of {int(r['pairs']):,} pairs tie; of the untied, "
                     f"{untied:.1f}% prefer the meaningful association",
            passed=r["% tied"] < 5))
    return out


def table6_check(t6_vs_t8: pd.DataFrame) -> list[C.Check]:
    """The paper's Table 6 against its Table 8 overall rows (to rounding)."""
    worst = float(t6_vs_t8["max |diff|"].max())
    return [C.check(id="stereoset.t6.matches_t8", section="§8 Table 6", kind="diagnostic",
                    check="the paper's Table 6 equals its Table 8 overall rows to one decimal",
                    expected="max |diff| <= 0.05", this_run=f"max |diff| {worst:.3f}",
                    passed=worst <= 0.05 + 1e-9)]


# --------------------------------------------------------------------------- CrowS-Pairs
def crows_claims(crows: pd.DataFrame, variant: str | None = None) -> tuple[list[C.Claim], list[C.Check]]:
    """Nangia et al. 2020 (abstract): the models favour the more stereotyping sentence, in every
    bias type. Per model: the overall metric against 50 (a Wilson interval over all pairs); the
    bias types whose interval lies above 50 are listed. The causal stand-ins are not the
    paper's masked LMs: ``not comparable``. ``variant``: the scoring variant graded (the
    ``variant`` column), None for every row."""
    out = []
    rows = crows if variant is None or "variant" not in crows else crows[crows["variant"] == variant]
    for model, g in rows.groupby("model", sort=False):
        o = g[g["bias_type"] == "overall"].iloc[0]
        n, wins = int(o["pairs"]), int(round(o["metric"] * o["pairs"] / 100))
        lo, hi = stats.proportion_interval(wins, n)
        types = g[g["bias_type"] != "overall"]
        above = int((types["metric_lo"] > 50).sum()) if "metric_lo" in types else int((types["metric"] > 50).sum())
        out.append(C.direction(
            id=f"stereoset.crows.{model}_favours_stereotype", section="CrowS-Pairs (Nangia et al. 2020)",
            claim=f"the LM favours the more stereotyping sentence ({model}; every bias type)",
            paper="every MLM > 50 in every bias type", sign=1, estimate=wins / n - 0.5,
            interval=(lo - 0.5, hi - 0.5), pvalue=stats.binomial_test(wins, n, 0.5), n=n,
            statistic="share of pairs with the stereotyping sentence higher - 0.5",
            this_run=f"{100 * wins / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]; {above} of {len(types)} "
                     f"bias types with an interval above 50",
            comparability=Comparability.STAND_IN,
            stand_in=f"causal LM scored by {o['scoring']} (the paper: masked LMs)"))
    return out, []


def claims_text(df: pd.DataFrame) -> str:
    """The claims table as prose: counts per verdict and one line per claim."""
    counts = df["verdict"].value_counts()
    head = ", ".join(f"{counts.get(v, 0)} {v}" for v in C.VERDICTS)
    lines = [f"**{len(df)} claims** ({head}):", ""]
    for r in df.itertuples(index=False):
        lines.append(f"- **{r.verdict}** · {r.claim} ({r.section}): paper {r.paper}; this run "
                     f"{r._4} (n {r.n}) — {r.reason}")
    return "\n".join(lines)
