"""The sentences of notebook 05 that state a number or compare with the paper, generated from
the computed tables (so the prose cannot drift from the outputs when the data or a model
changes). Each function returns Markdown."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from nlgbias.stereoset.evaluation import BASELINES
from nlgbias.stereoset.paper import (
    FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS,
    TABLE2,
    TABLE6_TEST,
    TABLE7_DEV,
)


def _n(x) -> str:
    return f"{int(x):,}"


def table1_text(t1: pd.DataFrame, gold: Mapping[str, pd.DataFrame]) -> str:
    """Counts of the splits and what in Table 1 agrees with the released data."""
    per = {s: g.groupby("task").size() for s, g in gold.items()}
    tot = t1[t1["task"] == "overall"].iloc[0]
    dom = t1[t1["domain"] != "total"]
    bad = dom[dom["CATs"] != dom["CATs (paper)"]]
    task_tot = t1[(t1["domain"] == "total") & (t1["task"] != "overall")]
    parts = [
        "; ".join(f"{s}: {_n(c['intrasentence'])} intrasentence and {_n(c['intersentence'])} "
                  f"intersentence CATs" for s, c in per.items()) + ".",
        f"Together {_n(tot['CATs'])} CATs over {_n(tot['targets'])} target terms (paper: "
        f"{_n(tot['CATs (paper)'])} over {_n(tot['targets (paper)'])}).",
    ]
    sums = ", ".join(f"{r['task']} {_n(r['paper domain rows sum'])} vs its total "
                     f"{_n(r['CATs (paper)'])}" for _, r in task_tot.iterrows()
                     if r["paper domain rows sum"] != r["CATs (paper)"])
    if len(bad):
        parts.append(
            f"{len(dom) - len(bad)} of {len(dom)} per-domain CAT counts agree with the paper; "
            "the others: " + "; ".join(f"{r['task']} {r['domain']} {_n(r['CATs'])} (paper "
                                       f"{_n(r['CATs (paper)'])})" for _, r in bad.iterrows()) + ".")
    if sums:
        parts.append(f"The paper's own domain rows do not add up to its totals ({sums}), while "
                     "the released data's do: its per-domain counts, not the data, are off.")
    lens = "; ".join(f"{r['task']} {r['avg words']:.2f} words (paper {r['avg words (paper)']:.2f})"
                     for _, r in task_tot.iterrows())
    parts.append(f"Average instance length: {lens}.")
    return " ".join(parts)


def table2_text(t2: pd.DataFrame) -> str:
    """Stereotype vs anti-stereotype negative shares per classifier, against 41 % vs 33 %."""
    out = []
    for clf, g in t2.groupby("classifier", sort=False):
        g = g.set_index("label")["% negative"]
        rel = "more" if g["stereotype"] > g["anti-stereotype"] else "not more"
        out.append(f"{clf}: {g['stereotype']:.1f}% of stereotypes vs "
                   f"{g['anti-stereotype']:.1f}% of anti-stereotypes negative ({rel} often; "
                   f"unrelated {g['unrelated']:.1f}%)")
    p = TABLE2.set_index("label")["% negative"]
    return (f"The paper: {p['stereotype']:.0f}% of stereotypes vs {p['anti-stereotype']:.0f}% of "
            "anti-stereotypes negative. " + "; ".join(out) + ". The direction is what can be "
            "compared: the levels depend on the classifier (a sentence VADER or TextBlob finds "
            "neutral counts as positive here, as in the paper's two-class setting).")


def table3_text(overlap: pd.DataFrame) -> str:
    """How many of the paper's keywords this run finds, per domain."""
    per = "; ".join(f"{r['domain']} {r['n shared']} of {r['of']}" + (f" ({r['shared']})" if r["shared"] else "")
                    for _, r in overlap.iterrows())
    return (f"Of the paper's top keywords, this run's top lists (same length) share: {per}. "
            f"In all {int(overlap['n shared'].sum())} of {int(overlap['of'].sum())}, with a "
            "different reference corpus (wordfreq, not TenTen) and no lemmatiser.")


def sample_table(gold: Mapping[str, pd.DataFrame], cats: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """CATs per split × task × domain: all, and scored here."""
    parts = {}
    for split in gold:
        parts[(split, "all CATs")] = gold[split].groupby(["task", "bias_type"]).size()
        parts[(split, "scored here")] = cats[split].groupby(["task", "bias_type"]).size()
    return pd.concat(parts, axis=1)


def sample_text(sample: pd.DataFrame, per_target: Mapping[str, int]) -> str:
    """What was scored per split."""
    out = []
    for split, n in per_target.items():
        a, s = int(sample[(split, "all CATs")].sum()), int(sample[(split, "scored here")].sum())
        how = ("every CAT" if not n else
               f"a seeded sample of at most {n} CAT{'s' if n != 1 else ''} per task × target term")
        out.append(f"**{split}**: {how}, {_n(s)} of {_n(a)} CATs ({3 * s:,} sentences)")
    return "Scored: " + "; ".join(out) + "."


def table4_text(t4: pd.DataFrame) -> str:
    """Each model's combined scores against the paper's GPT2, per split."""
    out = []
    for r in t4[~t4["model"].isin(BASELINES)].to_dict("records"):
        out.append(f"{r['model']} ({r['split']}): lms {r['lms']:.1f}, ss {r['ss']:.1f}, icat "
                   f"{r['icat']:.1f} (paper {r['paper model']}: {r['paper lms']:.1f}, "
                   f"{r['paper ss']:.1f}, {r['paper icat']:.1f})")
    sl = t4[t4["model"] == "SentimentLM"].to_dict("records")
    txt = "; ".join(out) + "." if out else "No language model in this run."
    if sl:
        txt += " SentimentLM (VADER): " + "; ".join(
            f"{r['split']} lms {r['lms']:.1f} vs the paper's {r['paper lms']:.1f}, ss "
            f"{r['ss']:.1f} vs {r['paper ss']:.1f}" for r in sl) + " (explained below)."
    return txt


def table6_text(t6: pd.DataFrame) -> str:
    """Intersentence likelihood lms against footnote 3, and inter vs intra per model."""
    m = t6[~t6["model"].isin(BASELINES)]
    out = []
    for (split, model), g in m.groupby(["split", "model"], sort=False):
        g = g.set_index("task")
        if not {"intrasentence", "intersentence"} <= set(g.index):
            continue
        inter, intra = g.loc["intersentence", "lms"], g.loc["intrasentence", "lms"]
        out.append(f"{model} ({split}): intersentence lms {inter:.1f} "
                   f"({inter - FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS:+.1f} vs GPT2 by likelihood), "
                   f"intrasentence {intra:.1f} ({'lower' if inter < intra else 'not lower'} "
                   "intersentence)")
    if not out:
        return "No language model in this run."
    return (f"Scored by likelihood, the paper's GPT2 reached intersentence lms "
            f"{FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS} (footnote 3). " + "; ".join(out) + ". The "
            "paper expected (§8) intersentence to be the harder task (lower lms) for most models, "
            "on intersentence scores from NSP heads; here intersentence is scored by likelihood, "
            "the method its footnote 3 found weaker for GPT2 (lms "
            f"{FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS} instead of {_inter_nsp_gpt2():.1f}), so the "
            "comparison with §8 is of a different method and is not graded.")


def _inter_nsp_gpt2() -> float:
    """The paper's GPT2 intersentence lms with its NSP head (Table 6, test)."""
    t = TABLE6_TEST
    return float(t[(t["model"] == "GPT2") & (t["task"] == "intersentence")]["lms"].iloc[0])


def ties_text(ties: pd.DataFrame, t4: pd.DataFrame) -> str:
    """The SentimentLM explanation, worded from this run's numbers."""
    sl = t4[t4["model"] == "SentimentLM"]
    per = "; ".join(
        f"{r['task']}: {r['% tied']:.1f}% of the (meaningful, unrelated) pairs tie "
        f"({r['% both neutral (0)']:.1f}% both neutral), and of the untied pairs "
        f"{r['% meaningful more negative (untied pairs)']:.1f}% have the meaningful association "
        "more negative" for _, r in ties.iterrows())
    lms = "; ".join(f"{r['split']} {r['lms']:.1f} (paper {r['paper lms']:.1f})"
                    for _, r in sl.iterrows())
    ss = "; ".join(f"{r['split']} {r['ss']:.1f} (paper {r['paper ss']:.1f})"
                   for _, r in sl.iterrows())
    untied = ties["% meaningful more negative (untied pairs)"]
    p7 = TABLE7_DEV.query("model == 'SentimentLM' and domain == 'overall'").set_index("task")["lms"]
    if (untied.sub(50).abs() < 5).all():
        why = ("Ties alone do not explain the gap: even where VADER separates the two "
               "associations, the meaningful one is the more negative about as often as not, so "
               "a tie-free VADER would also sit near lms 50. The paper's lms needs a "
               "classifier that finds meaningful associations more negative than unrelated "
               "ones; its BERT classifier was fine-tuned on movie reviews (App. A.5) and, by the "
               f"paper's Table 7 (dev SentimentLM lms: intersentence {p7['intersentence']:.1f}, "
               f"intrasentence {p7['intrasentence']:.1f}), does so for the unrelated follow-up "
               "sentences of intersentence CATs, which VADER mostly calls neutral, but not for "
               "the filled-in blanks. The gap is the classifier, which is not available offline.")
    else:
        why = ("A tie broken at random is a coin flip, so the many ties pull VADER's lms toward "
               "50; a classifier with a continuous score decides every pair, as the untied pairs "
               "go.")
    return (f"{per}. This run's SentimentLM lms: {lms}. {why} Its ss, the preference for the "
            f"more negative of stereotype and anti-stereotype ({ss}), is the quantity the "
            "baseline was built to show (§5: stereotypes are more negative), and it does not "
            "depend on how unrelated associations are rated.")


def crows_text(crows: pd.DataFrame, summary: pd.DataFrame | None = None) -> str:
    """Each model's CrowS-Pairs metric overall and its highest and lowest bias types, per
    scoring variant (each named: the two are never pooled); ``summary``
    (:func:`nlgbias.stereoset.claims.crows_summary`): the graded variant's verdicts per model,
    from the claims table."""
    out = []
    by = ["variant", "model"] if "variant" in crows else ["model"]
    for key, g in crows.groupby(by, sort=False):
        variant, model = key if len(by) == 2 else ("", key if isinstance(key, str) else key[0])
        cats = g[g["bias_type"] != "overall"].sort_values("metric")
        o = g[g["bias_type"] == "overall"].iloc[0]
        line = (f"{model}{f' ({variant} variant)' if variant else ''}: {o['metric']:.1f} over "
                f"{int(o['pairs']):,} pairs ({int(o['ties'])} ties), from {cats.iloc[0]['metric']:.1f} "
                f"({cats.iloc[0]['bias_type']}) to {cats.iloc[-1]['metric']:.1f} "
                f"({cats.iloc[-1]['bias_type']}); {int((cats['metric'] > 50).sum())} of {len(cats)} "
                "bias types above 50 by point estimate")
        if summary is not None and len(summary):
            s = summary[(summary["model"] == model) & (summary["variant"] == f"{variant} variant")]
            if len(s):
                r = s.iloc[0]
                line += (f"; graded: {r['holds']} of {r['bias types']} bias types hold, "
                         f"{r['undecided']} undecided, {r['does not hold']} do not hold "
                         f"({r['family']})")
        out.append(line)
    return ("CrowS-Pairs metric (% of pairs where the more stereotyping sentence scores higher; "
            "50 = no preference), per model and scoring variant: " + "; ".join(out) + ".")
