"""The claims of Sheng et al. 2019 (and BOLD's Table 5 / §6.1.3 on regard) that notebook 06
grades, each built with a rule of :mod:`nlgbias.claims`; the papers' numbers come from
:mod:`nlgbias.regard.paper`.

Comparability: the regard classifier is a stand-in (a frozen MiniLM encoder with an MLP head for
the paper's BERT), so its accuracy is ``not comparable``; Figure 2's findings compare
demographics (and the paper's two generators) *within* this run, all scored by that one
classifier, so their directions are graded (``grades="direction within run"``). The paper claims
no significance level for Figure 2: a direction is reproduced when its 95 % interval excludes no
difference, inconclusive when it holds it. BOLD's generators are not available offline: claims
over BOLD's sources are ``different pool``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nlgbias import claims as C
from nlgbias import stats
from nlgbias.claims import Comparability
from nlgbias.regard import paper
from nlgbias.regard.analysis import SHORT, gap_difference, spearman_interval

CLASSIFIER_STAND_IN = "MiniLM-L6 (frozen) + MLP head for the paper's BERT regard classifier"


def table4_claims(table4: pd.DataFrame) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 4: the annotated data's size per split (a count: tolerance 0)."""
    tot, ptot = int(table4["total"].sum()), int(table4["total (paper)"].sum())
    c = C.tolerance(id="regard.t4.counts", section="§4 Table 4",
                    claim="annotated regard data: train / dev / test texts",
                    paper_value=ptot, estimate=tot, tol=0, n=tot, statistic="texts (label != other)",
                    paper=" / ".join(str(v) for v in table4["total (paper)"]),
                    this_run=" / ".join(str(v) for v in table4["total"]), digits=0)
    same = bool((table4["negative"] == table4["negative (paper)"]).all())
    k = C.check(id="regard.t4.negative_counts", section="§4 Table 4", kind="data count",
                check="negative texts per split equal the paper's",
                expected=" / ".join(str(v) for v in table4["negative (paper)"]),
                this_run=" / ".join(str(v) for v in table4["negative"]), passed=same)
    return [c], [k]


def figure1_claims(seeds: pd.DataFrame, ours: str) -> tuple[list[C.Claim], list[C.Check]]:
    """Figure 1 / footnote 9: the classifier's test accuracy (the mean over seeds with the
    interval of :func:`~nlgbias.regard.analysis.seed_summary`, not the best seed), and that it
    beats every other model (by more than 20 points in the paper)."""
    s = seeds.set_index("model")
    o = s.loc[ours]
    n = int(o["n_test"])
    out = [C.value_in_interval(
        id="regard.fig1.test_accuracy", section="§4 Figure 1, fn. 9",
        claim="the regard classifier's test accuracy (mean over runs)",
        paper_value=paper.FIGURE1_BERT_TEST, paper=f"{paper.FIGURE1_BERT_TEST:.3f} (BERT, 5 runs)",
        estimate=float(o["test_mean"]), interval=(float(o["test_mean_lo"]), float(o["test_mean_hi"])),
        n=f"{n} test texts x {int(o['seeds'])} seeds", n_effective=n,
        statistic="test accuracy, mean over seeds (Wilson interval widened to every seed)",
        this_run=f"{o['test_mean']:.3f} [{o['test_mean_lo']:.3f}, {o['test_mean_hi']:.3f}]; seeds "
                 f"{o['test_min']:.3f}-{o['test_max']:.3f}",
        comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN)]
    others = s.drop(index=[m for m in s.index if m == ours or "train_other" in m])
    best = others["test_mean"].idxmax()
    b = others.loc[best]
    k1, k2 = int(round(o["test_mean"] * n)), int(round(b["test_mean"] * n))
    lo, hi = stats.diff_proportions_interval(k1, n, k2, n)
    est = float(o["test_mean"] - b["test_mean"])
    # widen to the spread of the per-seed differences (both models vary with the seed)
    lo = min(lo, float(o["test_min"] - b["test_max"]))
    hi = max(hi, float(o["test_max"] - b["test_min"]))
    out.append(C.direction(
        id="regard.fig1.beats_other_models", section="§4 Figure 1",
        claim="the regard classifier beats every other model on test (the paper: by > 20 points)",
        paper=f"> {paper.FIGURE1_MARGIN:.2f} above every other model", sign=1, estimate=est,
        interval=(lo, hi), n=f"{n} test texts", n_effective=n, paper_effect=paper.FIGURE1_MARGIN,
        statistic=f"test accuracy, classifier - best other ({best})",
        comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN,
        grades="direction within run"))
    return out, []


def table5_claims(both: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0,
                  ) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 5: Spearman's rho between annotations and VADER by context, each with a bootstrap
    interval over the doubly annotated texts (``both``: columns ``context, sentiment, regard,
    vader``). VADER is the paper's tool (thresholds +-0.05: the paper states none)."""
    cols = {"sentiment ann. vs regard ann.": ("sentiment", "regard"),
            "VADER pred. vs sentiment ann.": ("vader", "sentiment"),
            "VADER pred. vs regard ann.": ("vader", "regard")}
    pap = paper.TABLE5.set_index("comparison")
    out = []
    for name, (a, b) in cols.items():
        for ctx in ("respect", "occupation", "both"):
            sub = both if ctx == "both" else both[both["context"] == ctx]
            rho, lo, hi, n = spearman_interval(sub, a, b, n_boot=n_boot, seed=seed)
            slug = name.split(" vs ")[0].split()[0].lower() + "_" + name.split(" vs ")[1].split()[0].lower()
            out.append(C.value_in_interval(
                id=f"regard.t5.{slug}_{ctx}", section="§4 Table 5", claim=f"Spearman's rho, {name}, {ctx}",
                paper_value=float(pap.loc[name, ctx]), estimate=rho, interval=(lo, hi), n=n, null=0.0,
                statistic="Spearman's rho (texts resampled)", digits=2))
    return out, []


def figure2_claims(findings: pd.DataFrame, dist: pd.DataFrame, scored: pd.DataFrame, source: str,
                   lm1b: str, *, label_col: str = "regard", seed: int = 0,
                   ) -> tuple[list[C.Claim], list[C.Check]]:
    """§5 / Figure 2: the written findings (more negative regard for one demographic than its
    pair, per context) on the paper's own GPT-2 samples, by the direction rule with the Newcombe
    interval of the share difference; and "LM 1B is less biased than GPT-2" (the mean absolute
    gap between paired demographics, bootstrap interval of the difference)."""
    out = []
    f = findings[(findings["source"] == source) & (findings["metric"] == label_col)]
    neg = dist[(dist["source"] == source) & (dist["label"] == "negative")]
    for ctx, worse, than in paper.FIGURE2_FINDINGS.itertuples(index=False):
        s = neg[neg["context"] == ctx].set_index("demographic")
        if worse not in s.index or than not in s.index:
            continue
        a, b = s.loc[worse], s.loc[than]
        c1, n1, c2, n2 = int(a["count"]), int(a["n"]), int(b["count"]), int(b["n"])
        lo, hi = stats.diff_proportions_interval(c1, n1, c2, n2)
        p, test = stats.two_proportion_test(c1, n1, c2, n2)
        row = f[(f["context"] == ctx) & (f["finding"].str.endswith(f"{SHORT[worse]} > {SHORT[than]}"))]
        holm = f", Holm p = {stats.format_p(float(row['p_holm'].iloc[0]))}" if len(row) else ""
        out.append(C.direction(
            id=f"regard.fig2.{ctx}_{SHORT[worse].lower()}_vs_{SHORT[than].lower()}", section="§5 Figure 2 (1)",
            claim=f"GPT-2 samples, {ctx}: more negative regard for {SHORT[worse]} than {SHORT[than]}",
            paper="more negative (Figure 2, §5; no test stated)", sign=1, estimate=c1 / n1 - c2 / n2,
            interval=(lo, hi), pvalue=p, n=f"{n1} / {n2} samples", n_effective=min(n1, n2),
            statistic="negative-regard share difference",
            this_run=f"{c1 / n1:.3f} vs {c2 / n2:.3f}: {c1 / n1 - c2 / n2:+.3f} [{lo:+.3f}, {hi:+.3f}], "
                     f"p = {stats.format_p(p)} ({test}){holm}",
            comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN,
            grades="direction within run"))
    if lm1b in set(scored["source"]) and source in set(scored["source"]):
        g = gap_difference(scored, label_col, lm1b, source, seed=seed)
        out.append(C.direction(
            id="regard.fig2.lm1b_less_biased", section="§5 Figure 2 (2)",
            claim=paper.FINDING_LM1B_LESS_BIASED + " (mean |gap| between paired demographics)",
            paper="less biased (§5)", sign=-1, estimate=g["estimate"], interval=(g["lo"], g["hi"]),
            n=f"{g['n_a']:,} / {g['n_b']:,} samples", n_effective=min(g["n_a"], g["n_b"]),
            statistic="mean |share gap|, LM 1B - GPT-2 (negative and positive, 3 pairs x 2 contexts)",
            this_run=f"{g['gap_a']:.3f} vs {g['gap_b']:.3f}: {g['estimate']:+.3f} [{g['lo']:+.3f}, {g['hi']:+.3f}]",
            comparability=Comparability.STAND_IN, stand_in=CLASSIFIER_STAND_IN,
            grades="direction within run"))
    return out, []


def bold_claims(bold_t5: pd.DataFrame, wiki: str) -> tuple[list[C.Claim], list[C.Check]]:
    """BOLD §6.1.3 and Table 5 on regard: the claims compare the paper's generators (GPT-2,
    CTRL, BERT), which are not available offline: ``different pool``."""
    out = []
    n_src = len(bold_t5)
    eu_ge_af = int((bold_t5["positive_european_american"] >= bold_t5["positive_african_american"]).sum())
    ns = ", ".join(f"{r['source']}: {int(r['n_african_american'])} / {int(r['n_european_american'])}"
                   for r in bold_t5.to_dict("records"))
    pool = "WIKI and the offline generators of notebook 02 (the paper: BERT, GPT-2, CTRL), " \
           "scored by " + CLASSIFIER_STAND_IN
    out.append(C.tolerance(
        id="regard.bold.eu_ge_af_positive", section="BOLD §6.1.3",
        claim="European American positive regard >= African American in most sources",
        paper_value=paper.BOLD_EU_GE_AF_POSITIVE[0] / paper.BOLD_EU_GE_AF_POSITIVE[1],
        paper=f"{paper.BOLD_EU_GE_AF_POSITIVE[0]} of {paper.BOLD_EU_GE_AF_POSITIVE[1]} sources",
        estimate=eu_ge_af / max(n_src, 1), tol=0.2, n=f"{n_src} sources ({ns} texts)",
        statistic="share of sources", this_run=f"{eu_ge_af} of {n_src} sources",
        comparability=Comparability.DIFFERENT_POOL, stand_in=pool))
    pos = [c for c in paper.BOLD_TABLE5.columns if c.startswith("positive_")]
    t = bold_t5.set_index("source")
    if wiki in t.index and len(t) > 1:
        top = sum(bool(t[c].idxmax() == wiki) for c in pos)
        nw = int(t.loc[wiki, [c for c in t.columns if c.startswith("n_")]].sum())
        out.append(C.tolerance(
            id="regard.bold.wiki_highest_positive", section="BOLD Table 5",
            claim="WIKI has the highest positive regard in every column",
            paper_value=1.0, paper=f"{len(pos)} of {len(pos)} columns", estimate=top / len(pos), tol=0,
            n=f"{nw} WIKI texts; {len(t) - 1} generator(s)", statistic="share of columns",
            this_run=f"{top} of {len(pos)} columns",
            comparability=Comparability.DIFFERENT_POOL, stand_in=pool))
    return out, []


def claims_text(df: pd.DataFrame) -> str:
    """The claims table as prose: counts per verdict and one line per claim."""
    counts = df["verdict"].value_counts()
    head = ", ".join(f"{counts.get(v, 0)} {v}" for v in C.VERDICTS)
    lines = [f"**{len(df)} claims** ({head}):", ""]
    for r in df.to_dict("records"):
        extra = ""
        if r["verdict"] == "inconclusive" and np.isfinite(float(r["n_needed"] or np.nan)):
            extra = f" (n for 80% power: {float(r['n_needed']):,.0f})"
        lines.append(f"- **{r['verdict']}** · {r['claim']} ({r['section']}): paper {r['paper']}; "
                     f"this run {r['this run']} (n {r['n']}) — {r['reason']}{extra}")
    return "\n".join(lines)


def collect(parts: list[tuple[list[C.Claim], list[C.Check]]], reload_ok: bool,
            ) -> tuple[list[C.Claim], list[C.Check]]:
    """The claims and checks of every part (in order), and the check that the saved classifier
    reloads with identical predictions."""
    claim_list = [c for cl, _ in parts for c in cl]
    check_list = [k for _, ck in parts for k in ck] + [C.check(
        id="regard.fig1.saved_classifier_reloads", section="§4", kind="diagnostic",
        check="the saved classifier reloads with identical predictions", expected="True",
        this_run=str(reload_ok), passed=bool(reload_ok))]
    return claim_list, check_list
