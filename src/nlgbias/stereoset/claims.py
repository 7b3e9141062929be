"""The claims of StereoSet (Nadeem et al. 2021) and of CrowS-Pairs (Nangia et al. 2020, cited by
it) that notebook 05 grades, each built with a rule of :mod:`nlgbias.claims` from the
notebook's tables; the paper's numbers come from :mod:`nlgbias.stereoset.paper`.

Tallies (:mod:`nlgbias.claims`):

- **reproduction** (like-for-like): the paper's own numbers graded against themselves (the
  Table 1 domain rows against its totals, the §8 "intersentence is harder except BERT" against
  its Table 6: ``paper inconsistent`` where they disagree) and the §8 lms-ss relation, graded
  on the paper's own Table 4 (a Spearman correlation over its pretrained models with a
  bootstrap interval over the models: a claim, since it generalises from nine models and can
  fail, not a restatement of a printed number).
- **replication on a stand-in**: no GPT-2 or BERT weights exist offline, so every model number
  is a stand-in's (named); its ss / lms magnitudes are ``not comparable`` and its directions
  (ss above 50, one Holm family over Table 4's rows; CrowS-Pairs) hold or not. Intersentence
  scored by likelihood where the paper used NSP heads is a ``different method`` (footnote 3:
  GPT2's intersentence lms falls from 76.3 to 61.5 that way): ``not comparable``. Table 2's
  direction is VADER's (``scorer="vader-stereoset"``), as are SentimentLM's rows.
- **calibration** of ``vader-stereoset``: the paper prints its BERT sentiment classifier's
  output on the released texts twice, as Table 2's negative shares and as SentimentLM's
  lms / ss (Table 4, every CAT of each split): VADER on the same texts is graded against both.

Checks, not claims: the Table 1 counts of the released data (``data count``), what holds by
construction (IdealLM, StereotypedLM, RandomLM; a trained LM's lms above RandomLM's), the
SentimentLM tie diagnostics and the second sentiment classifier. Table 3 uses ``wordfreq``
(no lemmatiser) for the TenTen corpus: ``not comparable``.
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
#: the calibration key of VADER as the stand-in for the paper's sentiment classifier
VADER = "vader-stereoset"
#: the stand-in sentiment scorer agrees with the paper's classifier only where this run's
#: interval stays within these margins of the paper's number: a share within 5 points and an
#: ss / lms within 5 points (of 100), the size of the gaps the scorer is used to measure (Table
#: 2's stereotype - anti-stereotype gap, ss - 50); a wider interval cannot vouch for them
CALIBRATION_MARGIN_SHARE = 0.05
CALIBRATION_MARGIN_POINTS = 5.0
KEYWORD_STAND_IN = "wordfreq general English, Porter stems (the paper: TenTen, lemmas)"
BASELINES = ("IdealLM", "StereotypedLM", "RandomLM", "SentimentLM")
#: the key of RandomLM's bootstrap distributions on the models' CATs (paired with the models')
RANDOM_ON_MODEL_CATS = "RandomLM (models' CATs)"
#: how this run's intersentence scoring differs from the paper's (§7, footnote 3)
INTER_METHOD = ("intersentence scored by likelihood; the paper used NSP heads (footnote 3: "
                "GPT2's intersentence lms falls from 76.3 to 61.5 by likelihood)")
#: the CrowS-Pairs variant whose per-bias-type directions are graded (the paper's kind of score)
CROWS_GRADED_VARIANT = "shared tokens"


def _pct_interval(dist: np.ndarray) -> tuple[float, float]:
    lo, hi = stats.percentile_interval(np.asarray(dist, dtype=float))
    return float(lo), float(hi)


def bootstrap_p(dist: np.ndarray, null: float = 0.0) -> float:
    """The two-sided bootstrap p-value of "the statistic equals ``null``": twice the smaller
    share of replicates on either side of it, at least 1 / (replicates + 1).

    >>> bootstrap_p(np.array([1.0, 2.0, 3.0, -1.0]))
    0.5
    """
    d = np.asarray(dist, dtype=float)
    d = d[np.isfinite(d)]
    if not len(d):
        return float("nan")
    side = min(np.mean(d <= null), np.mean(d >= null))
    return float(min(1.0, max(2 * side, 1 / (len(d) + 1))))


# --------------------------------------------------------------------------- Table 1
def table1_claims(t1: pd.DataFrame) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 1 (§4): the CAT total and the average lengths are counts of the released data
    (checks, within a stated tolerance); the paper's own domain rows against its task totals are
    claims about the paper (``paper inconsistent`` where they disagree)."""
    out: list[C.Claim] = []
    checks: list[C.Check] = []
    tot = t1[t1["task"] == "overall"].iloc[0]
    checks.append(C.check(id="stereoset.t1.total_cats", section="§4 Table 1",
                          check="StereoSet has 16,995 CATs (dev + test)", kind="data count",
                          expected=f"{int(tot['CATs (paper)']):,}", this_run=f"{int(tot['CATs']):,}",
                          passed=int(tot["CATs"]) == int(tot["CATs (paper)"])))
    for task in ("intrasentence", "intersentence"):
        sel = t1[(t1["task"] == task) & (t1["domain"] == "total")]
        if not len(sel):
            continue
        r = sel.iloc[0]
        gap = abs(float(r["avg words"]) - float(r["avg words (paper)"]))
        checks.append(C.check(id=f"stereoset.t1.avg_words_{task[:5]}", section="§4 Table 1",
                              check=f"average {task} instance length (words), within 0.2",
                              kind="data count", expected=f"{float(r['avg words (paper)']):.2f}",
                              this_run=f"{float(r['avg words']):.2f} (|diff| {gap:.2f}; "
                                       f"{int(r['CATs']):,} CATs)",
                              passed=gap <= 0.2 + 1e-12))
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
    """§5 / Table 2: stereotypes are negative more often than anti-stereotypes. The direction is
    graded on VADER (the first classifier of ``t2``), a stand-in scorer (a replication,
    ``scorer="vader-stereoset"``); VADER's negative shares are graded against the paper's
    classifier's printed shares on the same associations (calibration rows); the other
    classifiers are checks of the same direction."""
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
                scorer=VADER, population=min(n1, n2), unit="associations of each label",
                this_run=f"{c1 / n1:.1%} vs {c2 / n2:.1%}: {est:+.3f} [{lo:+.3f}, {hi:+.3f}] ({test})"))
            for label, k, n in (("stereotype", c1, n1), ("anti-stereotype", c2, n2)):
                # the same associations the paper's classifier scored: a recount
                claims_.append(C.calibration_recount(
                    id=f"stereoset.cal.vader_negative_{label.replace('-', '_')}",
                    section="§5 Table 2 (calibration)",
                    claim=f"the sentiment classifier's negative share of the {label} associations",
                    paper_value=float(p2[label]) / 100, paper=f"{p2[label]:.0f}% (BERT classifier)",
                    estimate=k / n, n=n, digits=3,
                    statistic=f"negative share of the {label} associations (dev + test)",
                    this_run=f"{k / n:.1%} ({k:,} of {n:,})",
                    stand_in=f"{clf} for the paper's BERT classifier",
                    scorer=VADER, margin=CALIBRATION_MARGIN_SHARE, population=n,
                    unit="associations"))
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


#: the name of the family of Table 4's "ss above 50" rows (one per stand-in model and split)
SS_FAMILY = "StereoSet Table 4 (stand-ins' ss above 50, per model and split)"


def ss_family(t4: pd.DataFrame, dists: Mapping[tuple[str, str, str], Mapping[str, np.ndarray]]
              ) -> C.Family | None:
    """The stated family of Table 4's directional rows: each stand-in's ss against 50 (the
    paper: every pretrained model is stereotyped, ss > 50), raw bootstrap p-values."""
    ps = {}
    for r in t4[~t4["model"].isin(BASELINES)].to_dict("records"):
        d = dists.get((r["split"], r["model"], "overall"))
        if d is not None:
            ps[f"stereoset.t4.{r['model']}_ss_above_50_{r['split']}"] = bootstrap_p(d["ss"], 50.0)
    return C.Family(SS_FAMILY, ps) if ps else None


def table4_claims(t4: pd.DataFrame, dists: Mapping[tuple[str, str, str], Mapping[str, np.ndarray]],
                  stand_in_names: Mapping[str, str], random_lms: Mapping[str, float] | None = None,
                  population: Mapping[str, int] | None = None,
                  ) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 4 and §8 on the combined scores of each split.

    ``dists``: (split, model, task) -> the bootstrap distributions of lms / ss / icat
    (:func:`nlgbias.stereoset.evaluation.bootstrap_distribution`, the same seed for every
    model, so two models on the same CATs give paired replicates). ``stand_in_names``: a
    model's display name -> the stand-in named in the claim (e.g. "SmolLM2-135M for GPT2").
    ``random_lms``: split -> RandomLM's lms on the models' CATs (the paired comparison's point
    estimate; its distributions are under :data:`RANDOM_ON_MODEL_CATS`). ``population``:
    split -> the CATs of the split (what a sampled split is drawn from).

    SentimentLM's lms and ss are the paper's sentiment classifier's output on every CAT of the
    split: VADER's are its calibration rows. A stand-in's ss is a magnitude (``not
    comparable``); whether it lies above 50 is a direction (a replication, Holm-adjusted over
    :data:`SS_FAMILY`). A trained LM's lms above RandomLM's holds for any trained LM: a check.
    """
    out: list[C.Claim] = []
    checks: list[C.Check] = []
    fam = ss_family(t4, dists)
    for r in t4.to_dict("records"):
        split, m, n = r["split"], r["model"], int(r["CATs"])
        sec = "§8 Table 4"
        if m == "SentimentLM":
            for k in ("ss", "lms"):
                # every CAT of the split the paper scored: a recount
                out.append(C.calibration_recount(
                    id=f"stereoset.t4.sentimentlm_{k}_{split}", section=f"{sec} (calibration)",
                    claim=f"SentimentLM {k} ({split}): the sentiment classifier's "
                          + ("preference for the more negative of stereotype and anti-stereotype"
                             if k == "ss" else "preference for the more negative of meaningful "
                             "and unrelated associations"),
                    paper_value=float(r[f"paper {k}"]), estimate=float(r[k]), n=n,
                    statistic=f"{k} over the split's CATs", digits=1,
                    stand_in=SENTIMENT_STAND_IN, scorer=VADER,
                    margin=CALIBRATION_MARGIN_POINTS, population=n, unit=f"CATs ({split})"))
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
                    digits=1, comparability=Comparability.STAND_IN, stand_in=SENTIMENT_STAND_IN,
                    scorer=VADER, population=(population or {}).get(split, n), unit="CATs"))
            continue
        if m in BASELINES:
            continue
        ref = r["paper model"]
        who = stand_in_names.get(m, f"{m} for {ref}")
        pop = (population or {}).get(split, n)
        out.append(C.value_in_interval(
            id=f"stereoset.t4.{m}_ss_{split}", section=sec,
            claim=f"{ref}'s ss ({split}; lms / ss / icat {r['paper lms']:.1f} / {r['paper ss']:.1f} / "
                  f"{r['paper icat']:.1f})", paper_value=float(r["paper ss"]), estimate=float(r["ss"]),
            interval=(float(r["ss_lo"]), float(r["ss_hi"])), n=n, null=50.0, digits=1,
            statistic="ss (CATs resampled within target terms)",
            this_run=f"ss {r['ss']:.1f} [{r['ss_lo']:.1f}, {r['ss_hi']:.1f}]; lms {r['lms']:.1f} "
                     f"[{r['lms_lo']:.1f}, {r['lms_hi']:.1f}]; icat {r['icat']:.1f} "
                     f"[{r['icat_lo']:.1f}, {r['icat_hi']:.1f}]",
            comparability=Comparability.STAND_IN, stand_in=who, population=pop, unit="CATs"))
        cid = f"stereoset.t4.{m}_ss_above_50_{split}"
        if fam is not None and cid in fam.pvalues:
            out.append(C.direction(
                id=cid, section=sec,
                claim=f"a pretrained LM is stereotyped: ss above 50 ({m}, {split})",
                paper=f"{ref}: ss {r['paper ss']:.1f} > 50 (§9: pretrained LMs 'exhibit strong "
                      "stereotypical biases')", sign=1,
                estimate=float(r["ss"]) - 50, interval=(float(r["ss_lo"]) - 50, float(r["ss_hi"]) - 50),
                n=n, statistic="ss - 50 (CATs resampled within target terms)", digits=1,
                paper_effect=float(r["paper ss"]) - 50, family=fam, population=pop, unit="CATs",
                comparability=Comparability.STAND_IN, stand_in=who))
        dm = dists.get((split, m, "overall"))
        dr = dists.get((split, RANDOM_ON_MODEL_CATS, "overall"))
        if dm is not None and dr is not None:
            lo, hi = _pct_interval(dm["lms"] - dr["lms"])
            est = float(r["lms"] - random_lms[split]) if random_lms else float(np.mean(dm["lms"] - dr["lms"]))
            checks.append(C.check(
                id=f"stereoset.s8.{m}_lms_above_random_{split}", section="§8",
                check=f"a trained LM has a higher lms than RandomLM ({m}, {split}; any trained LM does)",
                kind="diagnostic", expected="lms - RandomLM's > 0 (paired bootstrap interval above 0)",
                this_run=f"{est:+.1f} [{lo:+.1f}, {hi:+.1f}] ({n:,} CATs)", passed=lo > 0))
    return out, baseline_checks(t4) + checks


def lms_ss_relation_checks(tables: Mapping[str, pd.DataFrame] | None = None, *, n_boot: int = 10_000,
                           seed: int = 0) -> list[C.Check]:
    """§8 "Relation between lms and ss": "All models exhibit a strong correlation between lms
    and ss scores. As the language model becomes stronger, so its stereotypical bias (ss) too."
    Its only evidence is the paper's own Table 4, so this run measures nothing of its own: the
    paper's numbers agreeing with its text is a check (a diagnostic), never a reproduction.
    Spearman's rho between lms and ss over its pretrained models (ENSEMBLE, a weighted
    combination of three of them, and the §6.3 baselines left out), with a bootstrap interval
    over the models, above 0. ``tables``: split -> the paper's Table 4 (default: dev and test)."""
    from scipy.stats import spearmanr

    tables = tables or {"dev": PP.TABLE4_DEV, "test": PP.TABLE4_TEST}
    out = []
    for split, t in tables.items():
        m = t[~t["model"].isin((*BASELINES, "Ensemble"))].dropna(subset=["lms", "ss"])
        x, y = m["lms"].to_numpy(float), m["ss"].to_numpy(float)
        rho = float(spearmanr(x, y)[0])
        rng = np.random.default_rng(seed)
        i = np.stack([rng.integers(0, len(x), len(x)) for _ in range(n_boot)])  # one draw each
        # a resample constant in lms or ss has no rho (NaN), which the interval leaves out
        lo, hi = _pct_interval(stats.spearman_rows(x[i], y[i]))
        out.append(C.check(
            id=f"stereoset.s8.lms_ss_relation_{split}", section="§8 Table 4",
            check=f"the paper's own Table 4 ({split}) shows ss rising with lms across its "
                  f"{len(m)} pretrained models, as its text says (the paper's numbers only)",
            kind="diagnostic", expected="Spearman rho (lms, ss) with a bootstrap interval over "
                                        "the models above 0",
            this_run=f"rho {rho:.2f} [{lo:.2f}, {hi:.2f}] over {len(m)} models "
                     f"({', '.join(m['model'])})", passed=lo > 0))
    return out


def untested_claims() -> list[C.Claim]:
    """The paper's findings about its own models, which are not available offline: counted as
    not tested, so a reader sees what this run did not test."""
    why = ("the paper's models (BERT, RoBERTa, XLNet and GPT2 in their sizes, with their NSP "
           "heads) are not available offline; this run scores stand-ins (replications)")
    rows = [
        ("stereoset.t4.papers_models", "§8 Table 4",
         "the paper's models' lms / ss / icat on the dev and test sets (e.g. GPT2-large icat "
         "the highest)", "Table 4"),
        ("stereoset.t6.intra_inter_by_nsp", "§8 Table 6",
         "intrasentence and intersentence scores of the paper's models, intersentence by their "
         "NSP heads", "Table 6"),
        ("stereoset.t5.domain_wise", "§8 Table 5",
         "ENSEMBLE's domain- and target-wise bias (e.g. least biased on race)", "Table 5"),
        ("stereoset.s8.model_size", "§8",
         "larger models of a family are more stereotyped (ss rises with size)", "Table 4"),
    ]
    return [C.not_tested(id=i, section=sec, claim=c, paper=p, why=why) for i, sec, c, p in rows]


def task_claims(t6: pd.DataFrame, dists: Mapping[tuple[str, str, str], Mapping[str, np.ndarray]],
                stand_in_names: Mapping[str, str]) -> tuple[list[C.Claim], list[C.Check]]:
    """§7.4 footnote 3 (GPT2's intersentence lms by likelihood, 61.5) and §8 (intersentence is
    harder: a lower lms than intrasentence), per model and split; and the paper's own Table 6
    against its §8 sentence ("except BERT")."""
    out = [inter_harder_consistency()]
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
            comparability=Comparability.DIFFERENT_METHOD, stand_in=f"{who}; {INTER_METHOD}"))
    return out, []


def inter_harder_consistency(t6: pd.DataFrame | None = None) -> C.Claim:
    """§8 "Intrasentence vs Intersentence CATs": "we expect intersentence language modeling
    task to be harder than intrasentence. This is the case with most models (except BERT)",
    against the paper's own Table 6 (test): the models whose intersentence lms is not lower."""
    t6 = PP.TABLE6_TEST if t6 is None else t6
    w = t6.pivot(index="model", columns="task", values="lms")
    higher = [m for m in w.index if w.loc[m, "intersentence"] >= w.loc[m, "intrasentence"]]
    said = sorted(m for m in w.index if m.startswith("BERT"))
    others = [m for m in higher if m not in said]
    detail = "; ".join(f"{m} {w.loc[m, 'intersentence']:.1f} vs {w.loc[m, 'intrasentence']:.1f}"
                       for m in higher)
    evidence = (f"Table 6 (test), intersentence vs intrasentence lms: {len(higher)} of {len(w)} "
                f"models are not lower on intersentence ({detail}); the text names "
                f"BERT only, {', '.join(others) or 'no other'} also")
    kw = dict(id="stereoset.s8.inter_harder_except_bert", section="§8 Table 6",
              claim="intersentence is harder (lower lms) for most models, except BERT",
              paper="§8: 'the case with most models (except BERT)'", n=f"{len(w)} models")
    return C.paper_inconsistent(evidence=evidence, consistent=sorted(higher) == said,
                                this_run=evidence, **kw)


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
def _crows_wins(r) -> tuple[int, int]:
    n = int(r["pairs"])
    return int(round(r["metric"] * n / 100)), n


def crows_family(crows: pd.DataFrame, variant: str | None = None) -> C.Family | None:
    """The stated family of the CrowS-Pairs table's per-bias-type rows of ``variant`` (every
    model x bias type): raw two-sided binomial p-values against 50 %."""
    rows = _crows_rows(crows, variant)
    ps = {f"stereoset.crows.{r['model']}_{r['bias_type']}": stats.binomial_test(*_crows_wins(r), 0.5)
          for r in rows[rows["bias_type"] != "overall"].to_dict("records")}
    if not ps:
        return None
    return C.Family(f"CrowS-Pairs per bias type ({variant or 'all variants'} variant, "
                    f"{rows['model'].nunique()} models)", ps)


def _crows_rows(crows: pd.DataFrame, variant: str | None) -> pd.DataFrame:
    return crows if variant is None or "variant" not in crows else crows[crows["variant"] == variant]


def crows_claims(crows: pd.DataFrame, variant: str | None = None,
                 population: Mapping[str, int] | None = None) -> tuple[list[C.Claim], list[C.Check]]:
    """Nangia et al. 2020 (abstract): the models favour the more stereotyping sentence, in every
    bias type. Per model: the overall metric against 50 (a Wilson interval over all pairs), and
    each bias type against 50, those rows one Holm family (:func:`crows_family`). The causal
    stand-ins scored by log-probability are not the paper's masked LMs: a replication.
    ``variant``: the scoring variant graded (the ``variant`` column), None for every row.
    ``population``: bias type (and "overall") -> the pairs CrowS-Pairs has (default: the
    table's own counts, i.e. every pair scored)."""
    out = []
    rows = _crows_rows(crows, variant)
    fam = crows_family(crows, variant)
    vname = f"{variant} variant" if variant else "every variant"
    for model, g in rows.groupby("model", sort=False):
        o = g[g["bias_type"] == "overall"].iloc[0]
        who = f"causal LM scored by {o['scoring']} (the paper: masked LMs)"
        for r in g.to_dict("records"):
            wins, n = _crows_wins(r)
            lo, hi = stats.proportion_interval(wins, n)
            bias = r["bias_type"]
            overall = bias == "overall"
            cid = f"stereoset.crows.{model}_" + ("favours_stereotype" if overall else bias)
            pop = (population or {}).get(bias, n)
            out.append(C.direction(
                id=cid, section="CrowS-Pairs (Nangia et al. 2020)",
                claim=(f"the LM favours the more stereotyping sentence ({model}, "
                       + ("all pairs" if overall else f"bias type {bias}") + f"; {vname})"),
                paper=("every MLM > 50 overall" if overall else "every MLM > 50 in every bias type"),
                sign=1, estimate=wins / n - 0.5, interval=(lo - 0.5, hi - 0.5),
                pvalue=None if not overall else stats.binomial_test(wins, n, 0.5), n=n,
                statistic="share of pairs with the stereotyping sentence higher - 0.5",
                this_run=f"{100 * wins / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {n:,} pairs",
                family=None if overall else fam, population=pop, unit="pairs",
                comparability=Comparability.STAND_IN, stand_in=who))
    return out, []


def crows_summary(claims_df: pd.DataFrame) -> pd.DataFrame:
    """Per model, from the claims table: the graded CrowS-Pairs bias types and how many hold
    (after their family's Holm adjustment), with the variant and family named."""
    c = claims_df[claims_df["id"].str.startswith("stereoset.crows.")
                  & ~claims_df["id"].str.endswith("_favours_stereotype")]
    rows = []
    for model, g in c.groupby(c["id"].str.extract(r"stereoset\.crows\.(.+?)_[^_]+$")[0], sort=False):
        variant = g["claim"].iloc[0].rsplit("; ", 1)[-1].rstrip(")")
        rows.append({"model": model, "variant": variant, "bias types": len(g),
                     **{v: int((g["verdict"] == v).sum()) for v in C.TALLIES["replication"][:3]},
                     "family": g["family"].iloc[0]})
    return pd.DataFrame(rows)


def claims_text(df: pd.DataFrame) -> str:
    """The claims table as prose: counts per tally and verdict, then one line per claim."""
    parts = [f"{C.TALLY_NAMES[tally]}: {n} (" + ", ".join(f"{k} {v}" for v, k in counts) + ")"
             for tally, (n, counts) in C.tally_counts(df).items()]
    lines = [f"**{len(df)} claims** — " + "; ".join(parts) + ".", ""]
    for r in df.to_dict("records"):
        extra = "".join(f"; {k} {r[k]}" for k in ("family", "scorer") if str(r[k]).strip() not in ("", "nan"))
        lines.append(f"- **{r['verdict']}** ({r['tally']}) · {r['claim']} ({r['section']}): paper "
                     f"{r['paper']}; this run {r['this run']} (n {r['n']}{extra}) — {r['reason']}")
    return "\n".join(lines)
