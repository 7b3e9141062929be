"""The sentences notebook 06 prints under its tables, built from the values above them (each
number is read from the table or result it describes, at this run's n)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from nlgbias import stats
from nlgbias.bold.paper import calibration_margin
from nlgbias.regard import paper
from nlgbias.regard.claims import FIG2_SENT_FAMILY

GPT2_SRC = "GPT-2 (paper's samples)"
LM1B_SRC = "LM 1B (paper's samples)"


def dataset_text(table4: pd.DataFrame, both: pd.DataFrame) -> str:
    """Table 4 against the paper, and the doubly annotated texts Table 5 can use."""
    n_ann = int(table4["total"].sum())
    return (
        f"Table 4 counts match the paper in {int(table4['matches paper'].sum())} of {len(table4)} splits "
        f"({n_ann} texts). {len(both)} texts carry both a regard and a sentiment annotation (joined on "
        f"the text; {int((both['context'] == 'respect').sum())} respect, "
        f"{int((both['context'] == 'occupation').sum())} occupation). The paper's Table 5 used all "
        f"{paper.N_ANNOTATED}: the sentiment files hold the same kind of samples, but only these "
        f"{len(both)} texts are in both.")


def _verdict(c) -> str:
    return f"**{c.verdict}** ({c.tally}; `{c.id}`)"


def _alpha_tie(alpha_table: pd.DataFrame | None) -> str:
    """The penalties tied with the chosen one on dev (``alpha_table``: :func:`nlgbias.metrics.
    regard.select_alpha`, best first), and the rule that broke the tie."""
    if alpha_table is None or len(alpha_table) < 2:
        return ""
    best = float(alpha_table.loc[0, "dev_mean"])
    tied = [float(a) for a, d in zip(alpha_table["alpha"][1:], alpha_table["dev_mean"][1:],
                                     strict=True) if np.isclose(float(d), best)]
    if not tied:
        return ""
    return (f"; tied on dev ({best:.4f}) with {', '.join(f'{a:g}' for a in tied)}: a tie goes to "
            "the larger penalty, nlgbias.metrics.regard.sort_alpha_table")


def figure1_text(summary: pd.DataFrame, ours_name: str, other_name: str, n_split: dict[str, int],
                 alpha: float, n_alphas: int, claims: dict,
                 alpha_table: pd.DataFrame | None = None) -> str:
    """Our classifier's Figure 1 accuracy as the seeds' vote (the classifier every later step
    uses; its interval and verdict from the calibration claim), the seeds' own range (Figure 1's
    bars), the margin over the best comparison model (the vote against that model), VADER
    against the LSTMs, and the second anchor (the paper's repository, not the paper); every
    number with an interval is read from ``claims`` (id -> :class:`~nlgbias.claims.Claim`)."""
    acc_c = claims["regard.fig1.test_accuracy"]
    margin_c = claims["regard.fig1.beats_other_models"]
    vl = claims.get("regard.fig1.vader_ge_lstms")
    by_model = summary.set_index("model")
    ours, other = by_model.loc[ours_name], by_model.loc[other_name]
    rest = summary[~summary["model"].isin([ours_name, other_name])]
    best_rest = rest.loc[rest["test_mean"].idxmax()]
    return (
        f"**Our classifier** ({ours_name}), the soft vote of its {int(ours['runs'])} seeds' heads "
        f"(the classifier every later step uses): test accuracy **{acc_c.this_run}**; the test "
        f"texts are the paper's own {n_split['test']}, so the calibration is a recount graded on "
        f"the vote and every seed against the margin ({_verdict(acc_c)}: {acc_c.reason}), the "
        f"interval only context. Figure 1's bars are the seeds' own "
        f"heads: test {ours['test_min']:.3f}-{ours['test_max']:.3f} (mean {ours['test_mean']:.3f}), "
        f"dev {ours['dev_min']:.3f}-{ours['dev_max']:.3f}; the dev values are those of the "
        f"setting selected on dev (head L2 penalty {alpha:g}, the best of {n_alphas} tried"
        f"{_alpha_tie(alpha_table)}), so they are optimistic. The paper's BERT reaches about {paper.FIGURE1_BERT_TEST:.3f} test "
        f"accuracy (footnote 9) on the same test texts; one of the {n_split['test']} test texts "
        f"moves accuracy by {1 / n_split['test']:.3f}.\n\n"
        f"The best comparison model on test is *{best_rest['model']}* ({best_rest['test_mean']:.3f}, "
        f"mean over seeds); the vote is {margin_c.this_run} (95% Newcombe interval over the "
        f"{n_split['test']} test texts, widened to that model's seeds; paper: BERT more than "
        f"{paper.FIGURE1_MARGIN * 100:.0f} points above every other model): {_verdict(margin_c)}: "
        f"{margin_c.reason}."
        + (f" VADER against the best LSTM (§4: 'VADER does better than or comparable with the "
           f"LSTMs'): {vl.this_run}: {_verdict(vl)}: {vl.reason}." if vl is not None else "")
        + "\n\n"
        f"**Second anchor** (the README of the paper's repository, ewsheng/nlg-bias, not the "
        f"paper's text, which prints no such numbers): its released BERT ensembles reach dev "
        f"{paper.REPO_ANCHORS.loc[0, 'dev']:.2f} / test {paper.REPO_ANCHORS.loc[0, 'test']:.2f} "
        f"trained on `train.tsv` and {paper.REPO_ANCHORS.loc[1, 'dev']:.2f} / "
        f"{paper.REPO_ANCHORS.loc[1, 'test']:.2f} on `train_other.tsv`; ours: the vote "
        f"{acc_c.estimate:.3f} on test (`train.tsv`), and {other['dev_mean']:.3f} / "
        f"{other['test_mean']:.3f} (mean over seeds) for the `train_other` heads (they also "
        f"predict the 'other' class, which counts as wrong on dev/test).")


def saved_text(where: str, reload_ok: bool, seeds: list[int], acc_claim, margin: float) -> str:
    """Where the classifier (the seeds' vote) was saved, whether it reloads identically, and the
    vote's calibration against the paper's BERT: the claim ``acc_claim`` (a recount of the
    paper's test texts, the vote and every seed graded with the ``margin`` of the calibration
    rule, a quarter of the paper's error rate)."""
    return (f"Saved to `{where}`; reloaded predictions identical: **{reload_ok}**. The classifier "
            f"used below labels each text by the soft vote of the {len(seeds)} seeds' heads "
            f"({', '.join(map(str, seeds))}); each seed's own label is kept beside it and every "
            f"regard interval below holds every seed's estimate. Calibration against the paper's "
            f"BERT (the vote, what is used, and each seed; margin ±{margin:g}, the one calibration rule of this "
            f"repository: a quarter of the paper's share, here of its error rate, because the "
            f"stand-in is used to measure gaps of about a quarter of a share): "
            f"this run {acc_claim.this_run}: {_verdict(acc_claim)}: {acc_claim.reason}.")


def table5_text(table5: pd.DataFrame, n_held_out: int, claims_df: pd.DataFrame) -> str:
    """Table 5's correlations against the paper's, and the respect-above-occupation reading,
    counted over the VADER rows only (the annotation-annotation row does not bear on VADER as a
    proxy), read from the claims table ``claims_df``."""
    t5w = table5.set_index(["comparison", "context"])
    sr = t5w.loc[("sentiment ann. vs regard ann.", "both")]
    vr, vs = t5w.loc[("VADER pred. vs regard ann.", "both")], t5w.loc[("VADER pred. vs sentiment ann.", "both")]
    cl = claims_df.set_index("id")
    vader = [m for m in ("sentiment", "regard")
             if f"regard.t5.vader_{m}_respect" in cl.index and f"regard.t5.vader_{m}_occupation" in cl.index]
    higher = [m for m in vader if cl.loc[f"regard.t5.vader_{m}_respect", "estimate"]
              > cl.loc[f"regard.t5.vader_{m}_occupation", "estimate"]]
    d = cl.loc["regard.t5.vader_regard_respect_gt_occupation"] \
        if "regard.t5.vader_regard_respect_gt_occupation" in cl.index else None
    return (
        f"On the {int(sr['n'])} doubly annotated texts, sentiment and regard annotations correlate at "
        f"{sr['this run']:.2f} (paper {sr['paper']:.2f}); VADER against the sentiment annotations "
        f"{vs['this run']:.2f} (paper {vs['paper']:.2f}) and against regard {vr['this run']:.2f} "
        f"(paper {vr['paper']:.2f}) (the pooled 'both' rows restate the two contexts: checks). The "
        f"paper's reading — sentiment is a better proxy for regard in respect than in occupation "
        f"contexts — VADER correlates higher in respect in {len(higher)} of {len(vader)} VADER rows "
        f"({', '.join(f'against the {m} annotations' for m in higher) or 'none'})"
        + (f"; against regard, respect - occupation {d['this run']}: **{d['verdict']}** "
           f"({d['tally']})" if d is not None else "")
        + f". Our classifier's row uses only the {n_held_out} test texts (not the dev texts, which "
        f"selected its setting, nor the training texts).")


def new_samples_text(n_samples: int, per_prompt: int) -> str:
    return (f"{n_samples} new samples ({per_prompt} per prompt, "
            f"{per_prompt * 5} per context × demographic; paper {paper.N_PER_CELL}).")


def figure2_text(claims_df: pd.DataFrame, bias: pd.DataFrame, checks: Sequence = ()) -> str:
    """§5's findings on the paper's GPT-2 samples, the LM 1B comparison and regard against
    sentiment, every count and interval read from the claims table (``claims_df``) and the
    checks (``checks``: the pooled reading, a restatement of two claims)."""
    cl = claims_df.set_index("id")
    ck = {k.id: k for k in checks}
    fam = claims_df[claims_df["id"].str.match(r"regard\.fig2\.(respect|occupation)_[a-z]+_vs_")]
    counts = fam["verdict"].value_counts()
    bw = bias[bias["metric"] == "regard"].set_index("source")["mean_abs_gap"]
    ng = bias[bias["metric"] == "regard"].set_index("source")["n_gaps"]
    parts = [
        f"On the paper's GPT-2 samples the stand-in classifier replicates §5's {len(fam)} written "
        f"findings as: " + ", ".join(f"{counts[v]} {v}" for v in counts.index)
        + f" (Holm over the {len(fam)}; intervals hold every seed): "
        + "; ".join(f"{r['claim'].removeprefix('GPT-2 samples, ')}: {r['this run']} ({r['verdict']})"
                    for r in fam.to_dict("records")) + ".",
        f"Mean absolute regard gap between paired demographics (over {int(ng.get(GPT2_SRC, 0))} "
        f"gaps: 3 pairs × 2 contexts × negative and positive shares): GPT-2 {bw.get(GPT2_SRC, np.nan):.3f}, "
        f"LM 1B {bw.get(LM1B_SRC, np.nan):.3f}; their difference with its interval is the next row."]
    if "regard.fig2.lm1b_less_biased" in cl.index:
        r = cl.loc["regard.fig2.lm1b_less_biased"]
        parts.append(f"LM 1B less biased than GPT-2: {r['this run']}: **{r['verdict']}** "
                     f"({r['tally']}).")
    if "regard.fig2.neg_gap_regard_gt_vader" in ck:
        k = ck["regard.fig2.neg_gap_regard_gt_vader"]
        parts.append("Sentiment under-states regard's negative gaps (GPT-2, mean |negative gap| "
                     "over both contexts; it restates the two context rows, so a check): "
                     f"{k.this_run}: check {'passed' if k.passed else 'failed'}.")
    # §5's readings of regard against sentiment: every member of the family, named from it
    sent = claims_df[claims_df["family"].astype(str).str.startswith(FIG2_SENT_FAMILY)]
    if len(sent):
        parts.append(f"§5's readings of regard against sentiment, one Holm family of {len(sent)} "
                     f"({', '.join(f'{v} {k}' for k, v in sent['verdict'].value_counts().items())}):")
    for i, r in enumerate(sent.to_dict("records"), start=1):
        lead = r["claim"]
        if r["id"] == "regard.fig2.row3_neg_gap_regard_gt_sentiment":
            lead += (" (§5 states it in one sentence with LM 1B's row, 'similar trends ... in "
                     "both the LM 1B-generated samples in row (2) and the annotated samples in "
                     "row (3)', so it is a member of the family)")
        reason = str(r["reason"])
        edge = reason.partition("; on the boundary: ")[2].partition("; the paper gives")[0]
        need = reason.partition("; the paper gives no effect size: ")[2]
        parts.append(f"({i}) {lead}: {r['this run']}: **{r['verdict']}** ({r['tally']})"
                     + (f"; on the boundary: {edge}" if edge else "")
                     + (f"; the paper gives no effect size: {need}" if need else "") + ".")
    return " ".join(parts)


def bold_sources_text(names: dict[str, str], n_sources: int, generations: str) -> str:
    return (f"BOLD sources found: {', '.join(names.values())} "
            f"({n_sources - 1} model(s) from notebook 02's `{generations}`).")


def _vote_beyond(cells: pd.DataFrame, paper_v: pd.Series) -> str:
    """Where the seeds' vote (the classifier every later step uses) lies beyond the graded
    margin (the paper's value +/- :func:`calibration_margin` + half its printed unit) in the
    WIKI share cells, and on which side, with the cell furthest beyond."""
    from nlgbias.regard.claims import BOLD_TABLE5_PAPER_RESOLUTION

    est = cells["estimate"].astype(float)
    margin = paper_v.map(lambda v: round(calibration_margin(v), 4)) + BOLD_TABLE5_PAPER_RESOLUTION / 2
    above, below = est > paper_v + margin, est < paper_v - margin
    k = int((above | below).sum())
    if not len(cells) or not k:
        return "; in none of the WIKI cells is the vote beyond the margin"
    far = ((est - paper_v).abs() - margin).idxmax()
    r = cells.loc[far]
    bound = paper_v[far] + margin[far] if above[far] else paper_v[far] - margin[far]
    name = r["claim"].removeprefix("WIKI, ").replace(": share of ", " ").removesuffix(" regard")
    return (f"; in {'all ' if k == len(cells) else ''}{k} of the {len(cells)} WIKI cells the vote "
            "(the classifier every later step uses) is itself beyond the margin, "
            f"{int(above.sum())} above the paper's value and {int(below.sum())} below (furthest: "
            f"{name} {est[far]:.3f} against the {'upper' if above[far] else 'lower'} bound "
            f"{bound:.4f})")


def bold_text(bold_t5: pd.DataFrame, chi: dict, names: dict[str, str], wiki: str,
              claims_df: pd.DataFrame, seed_spread: dict[str, tuple[float, float]] | None = None,
              test_spread: float | None = None) -> str:
    """BOLD Table 5: WIKI's regard against the paper's (the calibration rows, recounts graded on
    the seeds, with their verdicts, from ``claims_df``), whether WIKI has the highest positive regard, European vs
    African American positive regard, and the chi-square test. ``seed_spread``: WIKI cell ->
    (lowest, highest) seed's share; ``test_spread``: the seeds' range of test accuracy."""
    cal = claims_df[claims_df["id"].str.startswith("regard.bold.calib.")]
    calib = ""
    if len(cal):
        counts = cal["verdict"].value_counts()
        calib = (f"The stand-in against the paper's classifier on the WIKI texts (calibration, "
                 f"{len(cal)} rows: " + ", ".join(f"{counts[v]} {v}" for v in counts.index) + "): "
                 + "; ".join(f"{r['claim'].removeprefix('WIKI, ').removeprefix('WIKI: ')} "
                             f"{r['this run']} (paper {r['paper']}; {r['verdict']})"
                             for r in cal.to_dict("records")) + ". ")
    spread = ""
    if seed_spread:
        cells = cal[~cal["id"].str.contains("_gt_")]
        paper_v = pd.to_numeric(cells["paper"], errors="coerce")
        margins = dict(zip(cells["claim"].str.removeprefix("WIKI, ").str.replace(": share of ", " ")
                           .str.removesuffix(" regard"), paper_v.map(calibration_margin), strict=True))
        widest = max(seed_spread, key=lambda k: seed_spread[k][1] - seed_spread[k][0])
        lo, hi = seed_spread[widest]
        m = margins.get(widest, float("nan"))
        # the seeds' full range against the full width of the agreement band (2 x the margin)
        wider = sum(bool(seed_spread[k][1] - seed_spread[k][0] > 2 * margins.get(k, np.inf))
                    for k in seed_spread)
        spread = (f"The seeds' heads disagree on WIKI by up to {(hi - lo) * 100:.0f} points ({widest}: "
                  f"{lo:.3f} to {hi:.3f}, against a calibration margin of ±{m * 100:.3g} points"
                  + (f"; on the paper's 30 test texts their accuracy spans {test_spread * 100:.0f} "
                     "points" if test_spread is not None else "")
                  + f"); in {wider} of the {len(seed_spread)} WIKI cells the seeds' range is wider "
                  "than the cell's whole agreement band (the paper's value ± the margin, a "
                  "quarter of the paper's share each side). ")
        lo_, hi_ = cells["estimate_lo"].astype(float), cells["estimate_hi"].astype(float)
        above, below = int((lo_ > paper_v).sum()), int((hi_ < paper_v).sum())
        stuck = int(cells["reason"].str.contains("depends on the classifier seed").sum())
        undecided = int((cells["verdict"] == "undecided").sum())
        if len(cells):
            spread += (f"In {above + below} of the {len(cells)} WIKI cells every seed lies on one "
                       f"side of the paper's value ({above} above it, {below} below)"
                       + (": the seeds agree on the side the stand-in errs on and disagree on how "
                          "far. " if above + below == len(cells) else ". ")
                       + f"Of the {undecided} undecided cells, {stuck} are undecided because the "
                       "seeds' own shares fall both within and beyond the margin (the outcome "
                       "depends on the classifier seed)" + _vote_beyond(cells, paper_v)
                       + ": every WIKI text of the group is scored, so each cell is a recount "
                       "graded on the seeds, with no sampling interval and no n needed. ")
    pos_cols = [c for c in paper.BOLD_TABLE5.columns if c.startswith("positive_")]
    wiki_highest = None
    if wiki in set(bold_t5["source"]) and len(bold_t5) > 1:
        wiki_highest = sum(bool(bold_t5.set_index("source")[c].idxmax() == wiki) for c in pos_cols)
    eu = claims_df.set_index("id").loc["regard.bold.eu_ge_af_positive"] \
        if "regard.bold.eu_ge_af_positive" in set(claims_df["id"]) else None
    return (
        calib + spread
        + (f"WIKI has the highest positive regard in {wiki_highest} of {len(pos_cols)} columns (paper: all). "
           if wiki_highest is not None else "")
        + (f"European American positive regard ≥ African American (paper: "
           f"{paper.BOLD_EU_GE_AF_POSITIVE[0]} of {paper.BOLD_EU_GE_AF_POSITIVE[1]} sources): "
           f"{eu['this run']}: **{eu['verdict']}** (another pool than the paper's generators"
           + (f"; {str(eu['reason']).partition('not graded; ')[2]}" if "not graded; "
              in str(eu["reason"]) else f"; {eu['reason']}") + "). " if eu is not None else "")
        + f"Chi-square test of positive regard across {', '.join(names[s] for s in chi['sources'])}: "
        f"{stats.p_text(chi['p'], 4) if 'p' in chi else 'p = n/a'} (dof {chi['dof']}; the paper, over four generators: p < "
        f"{paper.BOLD_CHI2_P_BELOW}).")


def margin_text(sens: pd.DataFrame) -> str:
    """The calibration rows whose verdict changes inside the calibration margin's stated range
    (``sens``: :func:`nlgbias.regard.claims.calibration_margin_claims`' verdict table)."""
    cols = [c for c in sens.columns if c.startswith("verdict (")]
    moved = sens[sens["depends"]]
    head = (f"Calibration margins {' / '.join(c[len('verdict ('):-1] for c in cols)}: "
            f"{len(moved)} of {len(sens)} calibration rows change verdict inside this range")
    if not len(moved):
        return head + "."
    rows = []
    for r in moved.to_dict("records"):
        per = ", ".join(f"{c[len('verdict ('):-1]}: {r[c]}" for c in cols)
        rows.append(f"{r['id']} ({per})")
    return (head + ", each marked *sensitive to* calibration margin (graded and counted at the "
            "stated margin): " + "; ".join(rows) + ".")


def placeholder_text(sens: pd.DataFrame, stated: str) -> str:
    """What the regard classifier sees on BOLD's texts, and the rows whose verdict changes when
    the person placeholder is the classifier's training placeholder instead of the stated one
    (``sens``: :func:`nlgbias.regard.claims.bold_claims_by_placeholder`'s verdict table)."""
    others = [c[len("verdict (placeholder "):-1] for c in sens.columns
              if c.startswith("verdict (placeholder ") and c != f"verdict (placeholder {stated})"]
    moved = sens[sens["depends"]]
    head = (f"The classifier sees BOLD's anonymised texts (§3.3): every person name of the gender "
            f"and race prompts reads \"{stated}\" (the stated placeholder, "
            f"`nlgbias.bold.choices.REGARD_PLACEHOLDER`); the regard classifier was trained on "
            f"texts with {' / '.join(others)} in that place, so the {len(sens)} BOLD rows are graded "
            f"again with {' / '.join(others)} in place of \"{stated}\" "
            f"(`regard_bold_placeholder_sensitivity`): ")
    if not len(moved):
        return head + "no verdict changes."
    rows = []
    for r in moved.to_dict("records"):
        per = ", ".join(f"{c[len('verdict (placeholder '):-1]}: {r[c]} "
                        f"({r['estimate (placeholder ' + c[len('verdict (placeholder '):]]:.3f})"
                        for c in sens.columns if c.startswith("verdict (placeholder "))
        rows.append(f"{r['claim'].removeprefix('WIKI, ').removeprefix('WIKI: ')} ({per})")
    return (head + f"{len(moved)} of {len(sens)} change verdict, each marked *sensitive to* "
            "regard placeholder (graded and counted at the stated placeholder): "
            + "; ".join(rows) + ".")
