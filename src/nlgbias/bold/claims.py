"""BOLD's claims (Dhamala et al. 2021), graded through :mod:`nlgbias.claims`.

Three parts, one per notebook that makes the evidence:

- :func:`section3` (notebook 01): the dataset (§3, Tables 1-2). What the released prompts
  say about the paper's own rules (empty prompts, the term outside the first 8 words, Table 2
  examples that are not in the release as printed) is ``paper inconsistent``; counts that
  match are checks.
- :func:`section6_sentiment_toxicity` (notebook 03): §6.1.2-6.1.4 and §6.2. The paper's
  §6.1.2-6.1.4 numbers pool its six sources (WIKI and five LMs), so a WIKI-only number is a
  different pool (``not comparable``, the rule's outcome kept as context) unless the paper
  states the claim for every source (fascism, "in every model"). Toxicity rests on tox-block
  (a stand-in for the paper's BERT-large) and §6.2 on the offline stand-in LMs: both
  ``not comparable``. Rare events get exact tests (Fisher, permutation chi-square) and
  Clopper-Pearson intervals; a generation and the WIKI sentence of its prompt are paired
  (McNemar, :func:`paired_source_tests`).
- :func:`section6_gender_norms` (notebook 04): Table 3 (WIKI row), §6.1.1, §6.2's WIKI
  male:female ratio, Figure 2 and Tables 4 and 6 (WIKI column). Table 3's WIKI row gives the
  like-for-like share of gender-polar texts (429 / 10,034 = 4.28 % with Gender-Max) that the
  pooled 6.57 % does not. Tables 4 and 6 are scored with the expanded Warriner lexicon (a
  stand-in for MEmoLon): their group differences are graded as a direction within this run.

:func:`mde_table` gives the minimum detectable effect of the §6 comparisons per profile.
The paper's numbers come from :mod:`nlgbias.bold.paper`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nlgbias import claims as C
from nlgbias import stats
from nlgbias.bold.paper import (
    BOLD_TABLE1,
    DIFF_GROUPS,
    FEMALE,
    GENDER_METRICS,
    MALE,
    PAPER_6_1,
    PAPER_FIG2_FEMALE,
    PAPER_MEAN_RATIO,
    PAPER_POLAR_SHARE,
    PAPER_SCORED_TEXT,
    RACE_PROMPTS,
    RACES,
    SUPER_GROUPS,
    paper_norms_table,
    paper_table3,
)
from nlgbias.bold.texts import WIKI

Comp = C.Comparability
TOXBLOCK = "tox-block BiLSTM (Jigsaw) for the paper's fine-tuned BERT-large"
POOLED = "the paper pools its six sources (WIKI, BERT, GPT-2, CTRL x3); no WIKI-only value printed"
LEXICON = "expanded Warriner lexicon (GoogleNews word2vec) for MEmoLon"


def _paper(section: str, statistic: str, group: str) -> float:
    m = PAPER_6_1[(PAPER_6_1["section"] == section) & (PAPER_6_1["statistic"] == statistic)
                  & (PAPER_6_1["group"] == group)]
    return float(m["paper"].iloc[0])


def _pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f}%"


def _share(count: int, n: int) -> tuple[float, float, float]:
    lo, hi = stats.proportion_interval(count, n)
    return count / n if n else float("nan"), float(lo), float(hi)


def _cap(x: float, cap: float = 1e9) -> float:
    """An interval end that may be infinite (a ratio whose draws reach 0 in the denominator),
    capped at ``cap`` so that the rule can use it."""
    x = float(x)
    return x if np.isfinite(x) else cap


def _k_test(counts, totals) -> tuple[float, str]:
    """k shares equal? (:func:`nlgbias.stats.k_proportions_test`; p = 1 when no group has the
    event at all, or every text has it)."""
    counts, totals = np.asarray(counts), np.asarray(totals)
    if counts.sum() == 0 or (counts == totals).all():
        return 1.0, "no variation (every group 0 or every text)"
    return stats.k_proportions_test(counts, totals)


# --------------------------------------------------------------------------- §3 (notebook 01)
def section3(table1: pd.DataFrame, table2: pd.DataFrame, agreement: pd.DataFrame,
             audit: pd.DataFrame, empty: pd.DataFrame, bold: pd.DataFrame,
             ) -> tuple[list[C.Claim], list[C.Check]]:
    """BOLD §3's claims about its prompts, from notebook 01's tables and the released data."""
    claims, checks = [], []
    t1 = table1.drop(index="total")
    same = int(((t1["groups (paper)"] == t1["groups (data)"])
                & (t1["prompts (paper)"] == t1["prompts (data)"])).sum())
    checks.append(C.check(id="bold.3.table1-counts", section="3 / Table 1",
                          check="groups and prompts per domain in the release equal Table 1",
                          kind="data count", expected=f"{len(t1)} of {len(t1)} domains",
                          this_run=f"{same} of {len(t1)} domains identical",
                          passed=same == len(t1)))
    # Table 2: the paper's examples, looked up in the release as printed, then as the start
    # of a released prompt (a released prompt one or more words longer)
    rows = table2[table2["source"] == "paper Table 2"]
    found = int((rows["in release"] == "yes").sum())
    prompts = bold["prompt"].astype(str).str.replace("’", "'").str.strip()
    longer = []
    for p in rows.loc[rows["in release"] != "yes", "prompt"]:
        key = str(p).replace("’", "'").strip()
        hit = prompts[prompts.str.startswith(key + " ")]
        longer.append((p, len(hit.iloc[0].split()) - len(key.split()) if len(hit) else None))
    extra = "; ".join(f"'{p}' " + (f"is the start of a released prompt {k} word(s) longer"
                                   if k is not None else "is not in the release")
                      for p, k in longer)
    if found < len(rows):
        claims.append(C.paper_inconsistent(
            id="bold.3.table2-examples", section="3.2 / Table 2",
            claim="the paper's Table 2 example prompts are prompts of the released dataset",
            paper=f"{len(rows)} examples", consistent=False, n=f"{len(rows)} examples",
            this_run=f"{found} of {len(rows)} found as printed",
            evidence=f"{found} of {len(rows)} printed examples are released prompts; {extra}"))
    else:
        checks.append(C.check(id="bold.3.table2-examples", section="3.2 / Table 2",
                              check="Table 2's examples are released prompts",
                              kind="data count", expected=str(len(rows)), this_run=str(found),
                              passed=True))
    share = float(agreement.loc["all", "bold"])
    checks.append(C.check(
        id="bold.3.prompt-rebuild", section="3.2",
        check="prompts rebuilt from the Wikipedia sentences with the rule of §3.2 (first five "
              "words and the term; only the tested readings and offsets)",
        kind="diagnostic", expected="every released prompt",
        this_run=f"{share:.1%} of {int(agreement.loc['all', 'prompts']):,} identical",
        passed=share > 0.99))
    a = audit.loc["all"]
    short, late = int(a.get("sentence ≤ 8 words", 0)), int(a.get("term not in first 8 words", 0))
    n_all = int(BOLD_TABLE1["prompts"].sum())
    if short or late:
        claims.append(C.paper_inconsistent(
            id="bold.3.filters", section="3.2-3.3",
            claim="every prompt comes from a sentence of more than 8 words with the term in its "
                  "first 8 words", paper="every prompt", consistent=False, n=f"{n_all:,} prompts",
            this_run=f"{short:,} released sentences have <= 8 words, {late:,} the term outside "
                     "the first 8",
            evidence=f"the released data break the paper's own filters: {short:,} of {n_all:,} "
                     f"sentences have <= 8 words and {late:,} have the term outside the first 8"))
    if len(empty):
        claims.append(C.paper_inconsistent(
            id="bold.3.empty-prompts", section="3.2",
            claim="every prompt is the start of a sentence that leaves text to generate",
            paper="every prompt", consistent=False, n=f"{n_all:,} prompts",
            this_run=f"{len(empty)} empty released prompts",
            evidence=f"{len(empty)} released prompts are empty strings (in "
                     f"{', '.join(sorted(empty['group'].unique()))})"))
    return claims, checks


# --------------------------------------------------------------------------- §6.1-6.2 (notebook 03)
def _counts(d: pd.DataFrame, flag: str, groups: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    g = d.groupby("group")[flag]
    return (np.array([int(g.sum().get(x, 0)) for x in groups]),
            np.array([int(g.size().get(x, 0)) for x in groups]))


def paired_source_tests(scores: pd.DataFrame, flags: Sequence[str] = ("negative", "positive",
                                                                      "is_toxic"),
                        ) -> pd.DataFrame:
    """Every model source against WIKI on the same prompts (a generation and the Wikipedia
    sentence of its prompt share ``prompt_id``): per domain and outcome, the paired table
    (both / only model / only WIKI / neither), the difference of shares model - WIKI with its
    Newcombe interval (unpaired, conservative) and McNemar's test (exact for < 25 discordant
    pairs)."""
    s = scores.assign(negative=scores["sentiment"] == "negative",
                      positive=scores["sentiment"] == "positive")
    if "prompt_id" not in s.columns:
        return pd.DataFrame()
    wiki = s[s["source"] == WIKI].drop_duplicates("prompt_id").set_index("prompt_id")
    rows = []
    for src in [x for x in s["source"].unique() if x != WIKI]:
        m = s[s["source"] == src].dropna(subset=["prompt_id"])
        if "sample" in m.columns:
            m = m[m["sample"] == 0]
        m = m.drop_duplicates("prompt_id").set_index("prompt_id")
        ids = m.index.intersection(wiki.index)
        for domain in sorted(m.loc[ids, "domain"].unique()):
            idd = ids[m.loc[ids, "domain"] == domain]
            for f in flags:
                a, b = m.loc[idd, f].to_numpy(bool), wiki.loc[idd, f].to_numpy(bool)
                both, only_m, only_w, neither = stats.paired_table(a, b)
                p, test = stats.mcnemar(only_m, only_w)
                lo, hi = stats.diff_proportions_interval(int(a.sum()), len(a), int(b.sum()), len(b))
                rows.append({"source": src, "domain": domain, "outcome": f, "pairs": len(idd),
                             "model share": a.mean(), "WIKI share": b.mean(),
                             "model - WIKI": a.mean() - b.mean(), "model - WIKI_lo": lo,
                             "model - WIKI_hi": hi, "both": both, "only model": only_m,
                             "only WIKI": only_w, "neither": neither, "p": p, "test": test})
    return pd.DataFrame(rows)


FULL, ALONE = "prompt + continuation", "continuation alone"
_SENS_COLUMNS = ["pairs", "model share", "WIKI share", "model - WIKI", "model - WIKI_lo",
                 "model - WIKI_hi", "p"]


def scoring_sensitivity(full: pd.DataFrame, alone: pd.DataFrame) -> pd.DataFrame:
    """The paired model - WIKI comparisons of :func:`paired_source_tests` scored on prompt +
    continuation (``full``: the paper's texts, the graded rows) beside the same comparisons
    scored on the continuation alone (``alone``: a model's generated words against the rest of
    the WIKI sentence): one row per source, domain and outcome, columns ``<column>
    (<scoring>)`` and ``shift`` = difference (continuation alone) - difference (prompt +
    continuation)."""
    keys = ["source", "domain", "outcome"]
    if not len(full) or not len(alone):
        return pd.DataFrame(columns=keys)
    m = full[keys + _SENS_COLUMNS].merge(alone[keys + _SENS_COLUMNS], on=keys, how="inner",
                                         suffixes=(f" ({FULL})", f" ({ALONE})"))
    m["shift"] = m[f"model - WIKI ({ALONE})"] - m[f"model - WIKI ({FULL})"]
    return m


def _sig_dir(d: pd.Series, p: pd.Series, level: float) -> pd.Series:
    return np.sign(d).where(p < level, 0)


def scoring_sensitivity_text(sens: pd.DataFrame, level: float = 0.05) -> str:
    """What the paper scored (quoted) and how far the model - WIKI differences move when only
    the continuation is scored (generated prose)."""
    head = (f"What the paper scored: {PAPER_SCORED_TEXT} So its metrics see prompt + "
            "continuation, and so do the graded rows here.")
    if not len(sens):
        return head + " No model source shares prompts with WIKI: no continuation-alone rows."
    a, b = f"model - WIKI ({FULL})", f"model - WIKI ({ALONE})"
    big = sens.loc[sens["shift"].abs().idxmax()]
    sf, sa = _sig_dir(sens[a], sens[f"p ({FULL})"], level), _sig_dir(sens[b], sens[f"p ({ALONE})"], level)
    changed = sens[sf != sa]
    flips = sens[(sf * sa) < 0]
    ch = ("; significance changes for " + ", ".join(
        f"{r['source']} {r['domain'].replace('_', ' ')} {r['outcome']} ({100 * r[a]:+.1f} → "
        f"{100 * r[b]:+.1f} points)" for r in changed.to_dict("records")) if len(changed) else
        "; no comparison changes its significance")
    return (head + f" Scored on the continuation alone, the {len(sens)} paired model − WIKI "
            f"differences (sources × domains × outcomes) move by {100 * sens['shift'].abs().median():.1f} "
            f"points in the median and at most {100 * abs(float(big['shift'])):.1f} "
            f"({big['source']}, {big['domain'].replace('_', ' ')}, {big['outcome']}: "
            f"{100 * big[a]:+.1f} → {100 * big[b]:+.1f}); {int((sf != 0).sum())} are significant "
            f"at {level:g} (McNemar) on prompt + continuation, {int((sa != 0).sum())} on the "
            f"continuation alone{ch}; {len(flips)} significant difference"
            f"{'s' if len(flips) != 1 else ''} reverse{'s' if len(flips) == 1 else ''} direction.")


def continuation_check(sens: pd.DataFrame, level: float = 0.05) -> C.Check:
    """A check: scoring the continuation alone reverses no significant model - WIKI
    difference (how far the differences move is in ``this_run``)."""
    if not len(sens):
        return C.check(id="bold.6.2.continuation-alone", section="3.3 / 6.2", kind="diagnostic",
                       check="model - WIKI differences scored on the continuation alone",
                       expected="no significant difference reverses",
                       this_run="no paired rows", passed=True)
    a, b = f"model - WIKI ({FULL})", f"model - WIKI ({ALONE})"
    sf, sa = _sig_dir(sens[a], sens[f"p ({FULL})"], level), _sig_dir(sens[b], sens[f"p ({ALONE})"], level)
    flips = int(((sf * sa) < 0).sum())
    return C.check(
        id="bold.6.2.continuation-alone", section="3.3 / 6.2", kind="diagnostic",
        check="the paired model - WIKI differences (graded on prompt + continuation, as the "
              "paper scored) keep their significant directions on the continuation alone",
        expected=f"no significant (p < {level:g}) difference reverses",
        this_run=f"{len(sens)} differences: median |shift| {100 * sens['shift'].abs().median():.1f}, "
                 f"max {100 * sens['shift'].abs().max():.1f} points; significant "
                 f"{int((sf != 0).sum())} -> {int((sa != 0).sum())}; {flips} reversed",
        passed=flips == 0)


def section6_sentiment_toxicity(scores: pd.DataFrame, paired: pd.DataFrame | None = None,
                                ) -> tuple[list[C.Claim], list[C.Check]]:
    """BOLD §6.1.2-6.1.4 and §6.2 graded on the WIKI texts (``scores``: notebook 03's labelled
    texts with ``source, domain, group, sentiment, is_toxic``)."""
    s = scores.assign(negative=scores["sentiment"] == "negative",
                      positive=scores["sentiment"] == "positive")
    w = s[s["source"] == WIKI]
    claims, checks = [], []
    # §6.1.2: male vs female (the paper's proportions and p-values pool its six sources)
    for what, sign, alpha in (("negative", 1, 0.01), ("positive", -1, None)):
        (cm, cf), (nm, nf) = _counts(w[w["domain"] == "gender"], what, [MALE, FEMALE])
        if not nm or not nf:
            continue
        pm_, pf_ = _paper("6.1.2", f"{what} proportion", MALE), _paper("6.1.2", f"{what} proportion", FEMALE)
        p, test = stats.two_proportion_test(cm, nm, cf, nf)
        lo, hi = stats.diff_proportions_interval(cm, nm, cf, nf)
        claim = ("negative sentiment: male texts more often than female, p < 0.01"
                 if what == "negative" else
                 "positive sentiment: female texts more often than male (not significant, p 0.204)")
        claims.append(C.direction(
            id=f"bold.6.1.2.{what}-male-female", section="6.1.2", claim=claim,
            paper=f"{pm_:.3f} vs {pf_:.3f}" + (", p < 0.01" if alpha else ", p 0.204"),
            sign=sign, estimate=cm / nm - cf / nf, interval=(lo, hi), pvalue=p,
            paper_alpha=alpha, paper_effect=pm_ - pf_, n=f"{nm:,} male / {nf:,} female texts",
            n_effective=2 / (1 / nm + 1 / nf) if nm and nf else None,
            statistic=f"{what} share, male - female (WIKI; {test})",
            this_run=f"{cm / nm:.3f} vs {cf / nf:.3f}, diff {cm / nm - cf / nf:+.3f} "
                     f"[{lo:+.3f}, {hi:+.3f}], p = {stats.format_p(p)}",
            comparability=Comp.DIFFERENT_POOL, stand_in=POOLED))
    # §6.1.3: race (African Americans highest; p < 0.001)
    for what, stand_in in (("negative", ""), ("is_toxic", TOXBLOCK)):
        label = "negative" if what == "negative" else "toxic"
        counts, totals = _counts(w[w["domain"] == "race"], what, list(RACES))
        if not totals.all():
            continue
        shares = counts / np.maximum(totals, 1)
        p, test = _k_test(counts, totals)
        i_af = list(RACES).index("African_Americans")
        j = int(np.argmax(np.where(np.arange(len(RACES)) == i_af, -1, shares)))
        lo, hi = stats.diff_proportions_interval(int(counts[i_af]), int(totals[i_af]),
                                                 int(counts[j]), int(totals[j]))
        paper_vals = [_paper("6.1.3", f"{label} proportion", g) for g in RACES]
        paper_eff = paper_vals[i_af] - max(v for k, v in enumerate(paper_vals) if k != i_af)
        claims.append(C.direction(
            id=f"bold.6.1.3.{label}-race", section="6.1.3",
            claim=f"{label} texts: the African American group has the largest share, race "
                  "differences p < 0.001",
            paper=f"African {paper_vals[i_af]:.5f} highest; p < 0.001", sign=1,
            estimate=float(shares[i_af] - shares[j]), interval=(lo, hi), pvalue=p,
            paper_alpha=0.001, paper_effect=paper_eff,
            n=" / ".join(f"{t:,}" for t in totals) + " texts (" + ", ".join(
                g.split("_")[0] for g in RACES) + ")",
            n_effective=float(min(totals[i_af], totals[j])),
            statistic=f"{label} share, African Americans - next highest ({RACES[j]}); "
                      f"race test: {test}",
            this_run=", ".join(f"{g.split('_')[0]} {c}/{t}" for g, c, t in zip(RACES, counts, totals))
                     + f"; diff {shares[i_af] - shares[j]:+.4f} [{lo:+.4f}, {hi:+.4f}], "
                       f"p = {stats.format_p(p)} ({test})",
            comparability=Comp.STAND_IN if stand_in else Comp.DIFFERENT_POOL,
            stand_in=f"{stand_in}; {POOLED}" if stand_in else POOLED, digits=4))
    # §6.1.4: religions (atheism highest, then islam; hinduism lowest): pooled percentages
    rel = w[w["domain"] == "religious_ideology"]
    groups = sorted(rel["group"].unique())
    counts, totals = _counts(rel, "negative", groups)
    shares = dict(zip(groups, counts / np.maximum(totals, 1)))
    cnt = dict(zip(groups, zip(counts, totals)))

    def vs(a: str, b: str) -> tuple[float, float, float]:
        (ca, na), (cb, nb) = cnt[a], cnt[b]
        lo, hi = stats.diff_proportions_interval(int(ca), int(na), int(cb), int(nb))
        return ca / na - cb / nb, lo, hi

    if {"atheism", "islam", "hinduism", "buddhism"} <= set(groups):
        pa, pi_ = _paper("6.1.4", "negative proportion", "atheism"), _paper("6.1.4", "negative proportion", "islam")
        nxt = max((g for g in groups if g != "atheism"), key=shares.get)
        est, lo, hi = vs("atheism", nxt)
        claims.append(C.direction(
            id="bold.6.1.4.religion-atheism-highest", section="6.1.4",
            claim="negative sentiment: atheism has the largest share of the religions, then islam",
            paper=f"atheism {_pct(pa)}, islam {_pct(pi_)}", sign=1, estimate=est,
            interval=(lo, hi), paper_effect=pa - pi_,
            n=f"{cnt['atheism'][1]} atheism / {cnt[nxt][1]} {nxt} texts",
            n_effective=float(min(cnt["atheism"][1], cnt[nxt][1])),
            statistic=f"negative share, atheism - next highest ({nxt})",
            this_run=", ".join(f"{g} {cnt[g][0]}/{cnt[g][1]}" for g in
                               sorted(groups, key=shares.get, reverse=True)[:3])
                     + f"; diff {est:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            comparability=Comp.DIFFERENT_POOL, stand_in=POOLED))
        ph, pb = _paper("6.1.4", "negative proportion", "hinduism"), _paper("6.1.4", "negative proportion", "buddhism")
        low = min((g for g in groups if g != "hinduism"), key=shares.get)
        est, lo, hi = vs("hinduism", low)
        hl, hh = stats.proportion_interval(*cnt["hinduism"])
        claims.append(C.direction(
            id="bold.6.1.4.religion-hinduism-lowest", section="6.1.4",
            claim="negative sentiment: hinduism has the smallest share of the religions",
            paper=f"hinduism {_pct(ph)}, buddhism {_pct(pb)}", sign=-1, estimate=est,
            interval=(lo, hi), paper_effect=ph - pb,
            n=f"{cnt['hinduism'][1]} hinduism / {cnt[low][1]} {low} texts",
            n_effective=float(min(cnt["hinduism"][1], cnt[low][1])),
            statistic=f"negative share, hinduism - next lowest ({low})",
            this_run=f"hinduism {cnt['hinduism'][0]}/{cnt['hinduism'][1]} (exact 95% "
                     f"[{100 * hl:.1f}%, {100 * hh:.1f}%]), {low} {cnt[low][0]}/{cnt[low][1]}; "
                     f"diff {est:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            comparability=Comp.DIFFERENT_POOL, stand_in=POOLED))
    # §6.1.4: fascism highest "in every model": stated per source, so WIKI is like-for-like
    pol = w[w["domain"] == "political_ideology"]
    if len(pol):
        pg = sorted(pol["group"].unique())
        counts, totals = _counts(pol, "negative", pg)
        sh = dict(zip(pg, counts / np.maximum(totals, 1)))
        ct = dict(zip(pg, zip(counts, totals)))
        if "fascism" in sh:
            nxt = max((g for g in pg if g != "fascism"), key=sh.get)
            (ca, na), (cb, nb) = ct["fascism"], ct[nxt]
            lo, hi = stats.diff_proportions_interval(int(ca), int(na), int(cb), int(nb))
            p, test = stats.two_proportion_test(int(ca), int(na), int(cb), int(nb))
            claims.append(C.direction(
                id="bold.6.1.4.ideology-fascism-highest", section="6.1.4",
                claim="negative sentiment: fascism has the largest share of the political "
                      "ideologies, in every source",
                paper="fascism highest in every model", sign=1, estimate=ca / na - cb / nb,
                interval=(lo, hi), pvalue=p, n=f"{na} fascism / {nb} {nxt} texts",
                n_effective=float(min(na, nb)),
                statistic=f"negative share on WIKI, fascism - next highest ({nxt}); {test}",
                this_run=f"fascism {ca}/{na}, {nxt} {cb}/{nb}; diff {ca / na - cb / nb:+.3f} "
                         f"[{lo:+.3f}, {hi:+.3f}], p = {stats.format_p(p)}"))
    # §6.2: sentiment differs across sources (stand-in LMs); toxic texts are rare (tox-block)
    sources = [x for x in s["source"].unique() if x != WIKI]
    g = s[s["domain"] == "gender"]
    if sources and paired is not None and len(paired):
        tab = pd.crosstab(g["source"], g["sentiment"])
        chi = stats.chi2_independence(tab)
        pp = paired[(paired["domain"] == "gender") & (paired["outcome"] == "negative")]
        big = pp.loc[pp["model - WIKI"].abs().idxmax()]
        est = float(big["model - WIKI"])
        claims.append(C.direction(
            id="bold.6.2.gender-sentiment-sources", section="6.2",
            claim="gender domain: the sentiment distribution differs across sources, p < 0.001",
            paper="p < 0.001", sign=1 if est >= 0 else -1, estimate=est,
            interval=(float(big["model - WIKI_lo"]), float(big["model - WIKI_hi"])),
            pvalue=float(chi.pvalue), paper_alpha=0.001,
            n=f"{len(g):,} gender texts over {tab.shape[0]} sources; {int(big['pairs'])} pairs",
            statistic=f"negative share, {big['source']} - WIKI on the same prompts (largest "
                      "gap); p: chi-square over all sources",
            this_run=f"chi-square p = {stats.format_p(chi.pvalue)}; paired (McNemar) negative "
                     "share vs WIKI: " + ", ".join(
                         f"{r['source']} {r['model - WIKI']:+.3f} [{r['model - WIKI_lo']:+.3f}, "
                         f"{r['model - WIKI_hi']:+.3f}], p = {stats.format_p(r['p'])}"
                         for r in pp.to_dict("records")),
            comparability=Comp.STAND_IN,
            stand_in="offline LMs (" + ", ".join(sources) + ") for BERT, GPT-2, CTRL"))
    c_tox, n_tox = int(w["is_toxic"].sum()), len(w)
    share, lo, hi = _share(c_tox, n_tox)
    bound = 0.005
    claims.append(C.direction(
        id="bold.6.2.toxic-rare", section="6.2",
        claim="toxic texts are rare: < 0.5% of all texts", paper="< 0.5%", sign=1,
        estimate=bound - share, interval=(bound - hi, bound - lo), n=n_tox,
        statistic="0.5% - share of toxic WIKI texts (exact interval)", digits=4,
        this_run=f"{c_tox}/{n_tox:,} = {_pct(share, 3)} [{_pct(lo, 3)}, {_pct(hi, 3)}] (WIKI)",
        comparability=Comp.STAND_IN, stand_in=f"{TOXBLOCK}; {POOLED}"))
    # the paper's own race toxic shares as counts of its pooled texts (6 x prompts per group)
    n6 = np.array([6 * RACE_PROMPTS[x] for x in RACES])
    c6 = np.array([round(_paper("6.1.3", "toxic proportion", x) * k) for x, k in zip(RACES, n6)])
    p6, test6 = _k_test(c6, n6)
    evidence = (f"the paper's toxic shares are {', '.join(f'{c}/{k:,}' for c, k in zip(c6, n6))} "
                f"of its pooled texts; {test6} on them: p = {stats.format_p(p6)}")
    if p6 >= 0.001:
        claims.append(C.paper_inconsistent(
            id="bold.6.1.3.toxic-p-consistency", section="6.1.3",
            claim="race toxicity differs across groups with p < 0.001 (the paper's own shares)",
            paper="p < 0.001", consistent=False, n=f"{int(n6.sum()):,} pooled texts",
            evidence=evidence))
    else:
        checks.append(C.check(id="bold.6.1.3.toxic-p-consistency", section="6.1.3",
                              kind="diagnostic", check="the paper's toxic shares give its p",
                              expected="p < 0.001", this_run=evidence, passed=True))
    return claims, checks


# --------------------------------------------------------------------------- §6 gender, norms (04)
def section6_gender_norms(table3_wiki: pd.DataFrame, t3ci: pd.DataFrame, gpr: pd.DataFrame,
                          f2: pd.DataFrame, cats: pd.DataFrame, keys: pd.DataFrame,
                          count_tolerance: float = 0.10,
                          ) -> tuple[list[C.Claim], list[C.Check]]:
    """Table 3 (WIKI), §6.1.1, §6.2's WIKI ratio, Figure 2 and Tables 4 / 6 (WIKI) graded.

    ``table3_wiki``: :func:`nlgbias.bold.norms_gender.table3_wiki_text_sensitivity` (the WIKI
    counts, anonymised and raw); ``t3ci``: Table 3 as shares with intervals; ``gpr``: §6.1.1 /
    §6.2 beside the paper; ``f2``: Figure 2's data; ``cats`` / ``keys``: the norm categories
    per text and their ``group, source``. ``count_tolerance``: Table 3's counts reproduce when
    the summed absolute gap of a metric's 8 cells is at most this share of the paper's
    gender-polar texts."""
    claims, checks = [], []
    paper = paper_table3().xs(WIKI, level="source")
    total = int(paper["total"].sum())
    for m in GENDER_METRICS:
        t = table3_wiki[table3_wiki["metric"] == m]
        ref = int(t["male paper"].sum() + t["female paper"].sum())
        gap = int(t["male anonymised - paper"].abs().sum() + t["female anonymised - paper"].abs().sum())
        raw_gap = int(t["male raw - paper"].abs().sum() + t["female raw - paper"].abs().sum())
        cells = "; ".join(f"{r['group']}: {r['male anonymised']}/{r['female anonymised']} vs "
                          f"{r['male paper']}/{r['female paper']}" for r in t.to_dict("records"))
        claims.append(C.tolerance(
            id=f"bold.6.1.1.table3-{m.lower()}", section="6.1.1 / Table 3",
            claim=f"Table 3 WIKI counts of male and female texts per super-group, {m}",
            paper_value=0.0, estimate=gap / ref, tol=count_tolerance, n=f"{total:,} texts",
            paper=f"{ref} gender-polar texts in 8 cells",
            statistic="summed |cell - paper| / the paper's polar texts (anonymised texts)",
            this_run=f"summed gap {gap} ({gap / ref:.1%}); raw texts: {raw_gap} "
                     f"({raw_gap / ref:.1%}); male/female: {cells}"))
    # Table 3 WIKI male:female ratio per super-group (Gender-Max)
    ci = t3ci[(t3ci["source"] == WIKI) & (t3ci["metric"] == "Gender-Max")].set_index("group")
    for g in SUPER_GROUPS:
        if g not in ci.index:
            continue
        r = ci.loc[g]
        pv = float(paper.loc[g, "Gender-Max male:female"])
        if not np.isfinite(float(r["male:female"])) or not np.isfinite(float(r["male:female_lo"])):
            continue  # no female text at all: no ratio to grade
        hi = _cap(r["male:female_hi"])
        claims.append(C.value_in_interval(
            id=f"bold.6.1.1.ratio-{g.split(' ')[0]}", section="6.1.1 / Table 3",
            claim=f"Table 3 WIKI, Gender-Max: male:female ratio of {g}",
            paper_value=pv, estimate=float(r["male:female"]),
            interval=(float(r["male:female_lo"]), hi), null=1.0, n=int(r["n"]),
            statistic="male:female (Gender-Max), bootstrap 95% interval", digits=2))
    # §6.1.1: share of gender-polar texts, like-for-like from the paper's Table 3 WIKI row
    gm = table3_wiki[table3_wiki["metric"] == "Gender-Max"]
    ref = int(gm["male paper"].sum() + gm["female paper"].sum())
    cnt = int(gm["male anonymised"].sum() + gm["female anonymised"].sum())
    ours = int(ci["n"].sum()) if len(ci) else total  # this run's WIKI texts (a sample in smoke)
    share, lo, hi = _share(cnt, ours)
    claims.append(C.value_in_interval(
        id="bold.6.1.1.polar-share", section="6.1.1",
        claim="few profession texts are gender-polar (Gender-Max): the paper's WIKI row of "
              "Table 3 (its 6.57% pools six sources)",
        paper=f"{ref} / {total:,} = {_pct(ref / total)} (WIKI, Table 3; 6.57% pooled)",
        paper_value=ref / total, estimate=share, interval=(lo, hi), n=ours,
        statistic="share of WIKI profession texts male or female (Gender-Max)", digits=4,
        this_run=f"{cnt} / {ours:,} = {_pct(share)} [{_pct(lo)}, {_pct(hi)}]"))
    checks.append(C.check(
        id="bold.6.1.1.pooled-share", section="6.1.1", kind="diagnostic",
        check="the paper's 6.57% of gender-polar texts pools six sources; its WIKI row gives "
              f"{_pct(ref / total)}", expected=_pct(PAPER_POLAR_SHARE),
        this_run=f"WIKI {_pct(share)}", passed=True))
    # §6.2: mean male:female ratio over the four groups (WIKI, Gender-Max)
    r = gpr[(gpr["source"] == WIKI) & (gpr["section"] == "6.2")]
    if len(r) and np.isfinite(float(r.iloc[0]["this run"])) \
            and np.isfinite(float(r.iloc[0]["this run_lo"])):
        r = r.iloc[0]
        claims.append(C.value_in_interval(
            id="bold.6.2.mean-ratio", section="6.2",
            claim="WIKI: mean male:female ratio of the four super-groups (Gender-Max)",
            paper_value=PAPER_MEAN_RATIO[WIKI], estimate=float(r["this run"]),
            interval=(float(r["this run_lo"]), _cap(r["this run_hi"])), null=1.0,
            n=f"{total:,} texts", statistic="mean of 4 ratios, bootstrap 95% interval", digits=2))
    # Figure 2: nursing is female-skewed, and it is the only one
    d = f2[f2["source"] == WIKI].set_index("group")
    if "nursing_specialties" in d.index:
        r = d.loc["nursing_specialties"]
        claims.append(C.direction(
            id="bold.6.1.1.fig2-nursing-female", section="6.1.1 / Fig. 2",
            claim="nursing texts are female-skewed (Gender-Max)", paper="nursing female-skewed",
            sign=-1, estimate=float(r["male - female"]),
            interval=(float(r["male - female_lo"]), float(r["male - female_hi"])),
            n=int(r["n"]), statistic="male - female share (Gender-Max), bootstrap 95% interval"))
        others = d.drop(index=[g for g in PAPER_FIG2_FEMALE if g in d.index])
        sig_f = sorted(others.index[others["male - female_hi"] < 0])
        lean = int((others["male - female"] < 0).sum())
        claims.append(C.tolerance(
            id="bold.6.1.1.fig2-only-nursing", section="6.1.1 / Fig. 2",
            claim="no profession but nursing is female-skewed (Gender-Max)", paper_value=0,
            estimate=len(sig_f), tol=0, n=f"{len(others)} professions, "
                                         f"{int(others['n'].sum()):,} texts",
            paper="0 other professions", digits=0,
            statistic="other professions whose 95% interval of male - female lies below 0",
            this_run=f"{len(sig_f)} with an interval below 0"
                     + (f" ({', '.join(sig_f)})" if sig_f else "")
                     + f"; {lean} lean female with an interval spanning 0 or not"))
    # Tables 4 and 6: per emotion, WIKI direction (stand-in lexicon: a direction within run)
    df = pd.concat([keys[["group", "source"]].reset_index(drop=True),
                    cats.reset_index(drop=True)], axis=1)
    df = df[df["source"] == WIKI]
    for num, section in (("4", "6.1.2 / Table 4"), ("6", "6.1.4 / Table 6")):
        a, b = DIFF_GROUPS[num]
        pt = paper_norms_table(num).loc[WIKI]
        da, db = df[df["group"] == a], df[df["group"] == b]
        if not len(da) or not len(db):
            continue
        for emo in ("anger", "sad", "fear", "disgust", "joy"):
            pv = float(pt[emo])
            if pv == 0:
                continue
            ca, cb = int(da[emo].sum()), int(db[emo].sum())
            na, nb = len(da), len(db)
            lo, hi = stats.diff_proportions_interval(ca, na, cb, nb)
            p, test = stats.two_proportion_test(ca, na, cb, nb)
            more = a if pv > 0 else b
            # a category that holds every text (or none) of both groups carries no information
            # about the direction: the stand-in lexicon saturates at its threshold there
            saturated = (ca == na and cb == nb) or (ca == 0 and cb == 0)
            claims.append(C.direction(
                id=f"bold.{section.split(' ')[0]}.table{num}-{emo}", section=section,
                claim=f"Table {num} WIKI: {more.replace('_', ' ')} texts more often {emo}",
                paper=f"{pv:+.2f} points", sign=1 if pv > 0 else -1,
                estimate=100 * (ca / na - cb / nb), interval=(100 * lo, 100 * hi),
                paper_effect=pv, n=f"{na:,} {a} / {nb:,} {b} texts",
                n_effective=2 / (1 / na + 1 / nb), pvalue=p,
                statistic=f"% {a} - % {b} texts with {emo} (points; {test})",
                this_run=f"{ca}/{na} vs {cb}/{nb}: {100 * (ca / na - cb / nb):+.2f} "
                         f"[{100 * lo:+.2f}, {100 * hi:+.2f}], p = {stats.format_p(p)}",
                comparability=Comp.STAND_IN,
                stand_in=LEXICON + ("; it puts every text (or none) of both groups in this "
                                    "category" if saturated else ""),
                grades="direction" if saturated else "direction within run", digits=2))
    return claims, checks


# --------------------------------------------------------------------------- power
def mde_table(group_sizes: Mapping[str, Mapping[str, int]],
              comparisons: Sequence[tuple[str, str, str, str, float, float]] | None = None,
              ) -> pd.DataFrame:
    """Minimum detectable effect (80% power, two-sided 5%) of the §6 comparisons per profile.

    ``group_sizes``: ``{profile: {group: texts per source}}`` (e.g. a model's generations per
    group). ``comparisons``: ``(section, claim, group a, group b, base share, the paper's
    effect)``; by default BOLD's §6.1.2-6.1.4 and Table 4 / 6 comparisons. ``decides``: whether
    the MDE is at most the paper's effect."""
    if comparisons is None:
        comparisons = default_comparisons()
    rows = []
    for prof, sizes in group_sizes.items():
        for sec, claim, a, b, base, effect in comparisons:
            na, nb = int(sizes.get(a, 0)), int(sizes.get(b, 0))
            mde = stats.mde_two_proportions(base, na, nb) if na and nb else float("nan")
            n_need = stats.n_two_proportions(base + abs(effect) / 2, base - abs(effect) / 2) \
                if effect else float("nan")
            rows.append({"profile": prof, "section": sec, "comparison": claim,
                         "n a": na, "n b": nb, "base share": base, "paper effect": abs(effect),
                         "mde": mde, "n per group for the paper's effect": n_need,
                         "decides": bool(np.isfinite(mde) and mde <= abs(effect))})
    return pd.DataFrame(rows)


def default_comparisons() -> list[tuple[str, str, str, str, float, float]]:
    """BOLD §6's two-group comparisons: (section, claim, group a, group b, base share, the
    paper's effect), shares as fractions, from :mod:`nlgbias.bold.paper`."""
    neg_m, neg_f = _paper("6.1.2", "negative proportion", MALE), _paper("6.1.2", "negative proportion", FEMALE)
    pos_m, pos_f = _paper("6.1.2", "positive proportion", MALE), _paper("6.1.2", "positive proportion", FEMALE)
    race_n = {g: _paper("6.1.3", "negative proportion", g) for g in RACES}
    race_t = {g: _paper("6.1.3", "toxic proportion", g) for g in RACES}
    ath, isl = _paper("6.1.4", "negative proportion", "atheism"), _paper("6.1.4", "negative proportion", "islam")
    hin, bud = _paper("6.1.4", "negative proportion", "hinduism"), _paper("6.1.4", "negative proportion", "buddhism")
    t4, t6 = paper_norms_table(4).loc[WIKI], paper_norms_table(6).loc[WIKI]
    af, eu = "African_Americans", "European_Americans"
    return [
        ("6.1.2", "negative, male vs female", MALE, FEMALE, (neg_m + neg_f) / 2, neg_m - neg_f),
        ("6.1.2", "positive, male vs female", MALE, FEMALE, (pos_m + pos_f) / 2, pos_m - pos_f),
        ("6.1.3", "negative, African vs European Americans", af, eu,
         (race_n[af] + race_n[eu]) / 2, race_n[af] - race_n[eu]),
        ("6.1.3", "toxic, African vs European Americans", af, eu,
         (race_t[af] + race_t[eu]) / 2, race_t[af] - race_t[eu]),
        ("6.1.4", "negative, atheism vs islam", "atheism", "islam", (ath + isl) / 2, ath - isl),
        ("6.1.4", "negative, hinduism vs buddhism", "hinduism", "buddhism", (hin + bud) / 2,
         hin - bud),
        ("6.1.2 / Table 4", "fear, male vs female (WIKI)", MALE, FEMALE, 0.05,
         float(t4["fear"]) / 100),
        ("6.1.4 / Table 6", "joy, christianity vs islam (WIKI)", "christianity", "islam", 0.2,
         float(t6["joy"]) / 100),
    ]


def profile_group_sizes(bold: pd.DataFrame, per_group: Mapping[str, int | None]) -> dict:
    """``{profile: {group: texts}}`` for a model that sees ``per_group[profile]`` prompts per
    group (None: all), from the released prompts' group sizes."""
    size = bold.groupby("group").size()
    return {p: {g: int(n if k is None else min(n, k)) for g, n in size.items()}
            for p, k in per_group.items()}


__all__ = ["continuation_check", "default_comparisons", "mde_table", "paired_source_tests",
           "profile_group_sizes", "scoring_sensitivity", "scoring_sensitivity_text",
           "section3", "section6_gender_norms", "section6_sentiment_toxicity"]
