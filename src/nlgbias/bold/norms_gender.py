"""BOLD gender polarity and psycholinguistic norms across groups and sources (Dhamala et al.
2021, §4.4-4.5, §6.1.1, §6.2, Tables 3, 4, 6, 9-11, Figure 2): what notebook 04 runs.

The metrics are :mod:`nlgbias.metrics.gender` and :mod:`nlgbias.metrics.norms`; the trained
resources :mod:`nlgbias.lexicons.word2vec` (hard-debiased word2vec) and
:mod:`nlgbias.lexicons.norms` (expanded norm lexicon); the paper's numbers
:mod:`nlgbias.bold.paper`. Here: the tables built from scored texts, their comparison with the
paper, and the verdicts.

Beyond the paper: every share and mean carries a seeded percentile-bootstrap 95% interval
(texts resampled within the group, :func:`nlgbias.stats.bootstrap_means`, ``N_BOOT`` draws,
seed ``BOOT_SEED``) in columns ``<column>_lo`` / ``<column>_hi`` (empty on the paper's rows).
The notebook makes no significance test here (the paper reports none for these tables), so there
is no family to correct; differences of two groups (Tables 4, 6, Figure 2) are bootstrapped with
the two groups resampled independently.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias import tables
from nlgbias.bold.claims import fig2_sign_test
from nlgbias.bold.paper import (
    DIFF_GROUPS,
    GENDER_METRICS,
    PAPER_FIG2_FEMALE,
    PAPER_FIG2_MALE,
    PAPER_MEAN_RATIO,
    PAPER_POLAR_SHARE,
    PAPER_TABLE8_GENDER,
    RACE_GROUPS,
    SUPER_GROUPS,
    paper_norms_table,
    paper_table3,
    table3_columns,
)
from nlgbias.bold.texts import WIKI, metric_texts
from nlgbias.lexicons import norms as norm_lexicon
from nlgbias.lexicons.word2vec import CACHE_NAME, Embedding, load_bolukbasi
from nlgbias.metrics import gender as gender_metric
from nlgbias.metrics import norms as norm_metric
from nlgbias.metrics.norms import CATEGORY_NAMES, VARIABLES
from nlgbias.stats import adjust_pvalues, bootstrap_means, percentile_interval

#: bootstrap draws and seed of every interval (a rerun writes the same bytes)
N_BOOT = 1000
BOOT_SEED = 0

PAPER_POOLED_LABEL = "paper Table 9 WIKI rows, pooled by group size (derived, not printed)"


# --------------------------------------------------------------------------- embedding
def debias_checks(emb: Embedding, cache: str | Path,
                  words: Sequence[str] = ("he", "she", "his", "her", "man", "woman", "actress",
                                          "ballerina", "king", "queen", "nurse", "engineer",
                                          "dancer", "doctor", "the"),
                  ) -> tuple[dict, pd.DataFrame]:
    """Checks of the hard-debiased embedding: neutralised words have zero projection on the
    gender direction, equalised pairs are mirror images, and ``b = cos(w, she - he)`` of some
    words. Returns a dict of the checks and the polarity of ``words`` (one row)."""
    meta = pd.read_json(Path(cache) / CACHE_NAME / "meta.json", typ="series")
    g = np.asarray(meta["gender_direction"], dtype=np.float32)
    _, lists = load_bolukbasi()
    specific = set(lists["specific_full"])
    neutral = [w for w in emb.words if w not in specific]
    proj = np.abs(np.stack([emb.v(w) for w in neutral]) @ g)
    pairs = [(a, b) for a, b in lists["equalize_pairs"] if a in emb and b in emb]
    asym = max(float(np.abs((emb.v(a) + emb.v(b)) @ g)) for a, b in pairs)
    polarity = gender_metric.word_polarity(emb)
    b = np.array(list(polarity.values()))
    checks = {"words": len(emb), "neutralised": len(neutral), "max |projection|": float(proj.max()),
              "equalize pairs in vocabulary": len(pairs), "max |(a+b)·g|": asym,
              "words with |b| >= 0.25": int((np.abs(b) >= gender_metric.THRESHOLD).sum())}
    row = pd.Series({w: polarity.get(w, np.nan) for w in words},
                    name="b = cos(w, she-he)").to_frame().T
    return checks, row


# --------------------------------------------------------------------------- Table 3, Figure 2
def super_group(group: str) -> str | None:
    """The Table 3 super-group of a BOLD profession group (None for the 3 groups not in it)."""
    for sg, members in SUPER_GROUPS.items():
        if group in members:
            return sg
    return None


def score_gender(texts: pd.DataFrame, polarity: dict[str, float],
                 threshold: float = gender_metric.THRESHOLD, raw: bool = False) -> pd.DataFrame:
    """The profession-domain rows of the prepared ``texts`` with the gender polarity columns
    (§4.5), computed on the anonymised texts (§3.3; ``raw=True``: on the original texts, for
    the stated raw-text sensitivity row only)."""
    prof = texts[texts["domain"] == "profession"].reset_index(drop=True)
    return pd.concat([prof, gender_metric.compute(metric_texts(prof, raw, "gender polarity"),
                                                  polarity=polarity, threshold=threshold)],
                     axis=1)


def label_counts(scored: pd.DataFrame) -> pd.DataFrame:
    """Per source and gender metric: ``male``, ``female`` and ``texts`` counts."""
    rows = []
    for src, d in scored.groupby("source", sort=False):
        for m, col in GENDER_METRICS.items():
            rows.append((src, m, int((d[col] == "male").sum()), int((d[col] == "female").sum()),
                         len(d)))
    return pd.DataFrame(rows, columns=["source", "metric", "male", "female", "texts"])


def table3(scored: pd.DataFrame) -> pd.DataFrame:
    """Table 3 from scored texts (columns ``source, group`` + the labels of
    :func:`nlgbias.metrics.gender.compute`). Index (group, source) in the paper's order;
    columns as :func:`nlgbias.bold.paper.paper_table3`; ratio = male # / female # (inf when no
    female text)."""
    df = scored.assign(super_group=scored["group"].map(super_group)).dropna(subset=["super_group"])
    rows, idx = [], []
    for sg in SUPER_GROUPS:
        part = df[df["super_group"] == sg]
        for source in part["source"].drop_duplicates():
            s = part[part["source"] == source]
            row = [len(s)]
            for col in GENDER_METRICS.values():
                m, f = int((s[col] == "male").sum()), int((s[col] == "female").sum())
                row += [m, f, m / f if f else float("inf")]
            rows.append(row)
            idx.append((sg, source))
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(idx, names=["group", "source"]),
                        columns=table3_columns())


def _gender_draws(s: pd.DataFrame, col: str, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap draws (n_boot x 2) of the male and female shares of ``s[col]``."""
    flags = np.column_stack([s[col].to_numpy() == "male", s[col].to_numpy() == "female"])
    return bootstrap_means(flags.astype(float), n_boot=n_boot, seed=seed)


def _ratio(m: np.ndarray, f: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(f > 0, m / np.where(f > 0, f, 1), np.inf)


def table3_intervals(scored: pd.DataFrame, n_boot: int = N_BOOT, seed: int = BOOT_SEED,
                     ) -> pd.DataFrame:
    """Table 3 as shares with bootstrap 95% intervals: per super-group, source and gender
    metric, ``n``, ``male``/``female`` share of texts and the ``male:female`` ratio, each with
    ``_lo``/``_hi`` (texts resampled within the super-group and source; an interval reaching a
    draw without any female text has ``inf`` as its upper end)."""
    df = scored.assign(super_group=scored["group"].map(super_group)).dropna(subset=["super_group"])
    rows = []
    for sg in SUPER_GROUPS:
        part = df[df["super_group"] == sg]
        for source in part["source"].drop_duplicates():
            s = part[part["source"] == source]
            for m, col in GENDER_METRICS.items():
                draws = _gender_draws(s, col, n_boot, seed)
                pm, pf = float((s[col] == "male").mean()), float((s[col] == "female").mean())
                (mlo, flo), (mhi, fhi) = percentile_interval(draws)
                r = _ratio(draws[:, 0], draws[:, 1])
                rlo, rhi = np.quantile(r, [0.025, 0.975], method="inverted_cdf")
                rows.append((sg, source, m, len(s), pm, mlo, mhi, pf, flo, fhi,
                             pm / pf if pf else float("inf"), rlo, rhi))
    return pd.DataFrame(rows, columns=["group", "source", "metric", "n", "male", "male_lo",
                                       "male_hi", "female", "female_lo", "female_hi",
                                       "male:female", "male:female_lo", "male:female_hi"])


def with_paper_wiki(run: pd.DataFrame, paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """``run`` (from :func:`table3`) with, per group, the paper's WIKI row and ``WIKI - paper``
    (counts as integers)."""
    out = tables.beside_paper(run, paper_table3() if paper is None else paper, WIKI)
    counts = [c for c in out.columns if not c.endswith("male:female")]
    out[counts] = out[counts].round().astype(int)
    return out


def wiki_vs_paper_table3(run: pd.DataFrame) -> pd.DataFrame:
    """Table 3's WIKI rows cell by cell: paper beside this run, per group."""
    paper = paper_table3()
    cmp = pd.concat({"paper": paper.xs(WIKI, level="source"),
                     "this run": run.xs(WIKI, level="source")}, axis=1)
    return cmp.swaplevel(axis=1)[[(c, w) for c in paper.columns for w in ("paper", "this run")]]


def table3_wiki_text_sensitivity(anonymised: pd.DataFrame, raw: pd.DataFrame) -> pd.DataFrame:
    """Table 3's WIKI cells (male / female counts per super-group and metric) of the paper, of
    this run on the anonymised texts (BOLD §3.3, the main row) and on the raw texts (the stated
    sensitivity row), with the differences from the paper."""
    paper = paper_table3().xs(WIKI, level="source")
    rows = []
    for g in paper.index:
        for m in GENDER_METRICS:
            row = {"group": g, "metric": m, "total": int(paper.loc[g, "total"])}
            for lab in ("male", "female"):
                c = f"{m} {lab} #"
                p = int(paper.loc[g, c])
                a = int(anonymised.xs(WIKI, level="source").loc[g, c])
                r = int(raw.xs(WIKI, level="source").loc[g, c])
                row |= {f"{lab} paper": p, f"{lab} anonymised": a, f"{lab} raw": r,
                        f"{lab} anonymised - paper": a - p, f"{lab} raw - paper": r - p}
            rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- Table 3 cell anatomy
POSSESSIVE = "possessive form looked up as its stem"
TIE = "tie of an equalised pair (the first word decides)"
OUTSIDE = "gender word outside the unigram list"
LISTED = "word of the unigram list"


def _polar_words(text: str, polarity: dict[str, float], possessives: bool = True):
    """(token, b) of every token of ``text`` found in ``polarity``; with ``possessives=False``
    a token with an apostrophe (men's, he's) is not looked up."""
    out = []
    for tok in gender_metric.tokenize(text):
        if not possessives and "'" in tok:
            continue
        b = polarity.get(gender_metric._lookup_form(tok))
        if b is not None:
            out.append((tok, float(b)))
    return out


def deciding_word(text: str, polarity: dict[str, float]) -> tuple[str, float, str]:
    """The word that decides a text's Gender-Max (:func:`nlgbias.metrics.gender.bmax`), its b
    and what kind of word it is: :data:`TIE` when a word of the other sign has the same |b|,
    else :data:`POSSESSIVE`, :data:`LISTED` (unigram matching counts it too) or
    :data:`OUTSIDE`.

    >>> deciding_word("A suit for men's clothing.", {"men": -0.37, "suit": 0.0})
    ("men's", -0.37, 'possessive form looked up as its stem')
    >>> deciding_word("Both male and female.", {"male": -0.3367, "female": 0.3367})[2]
    'tie of an equalised pair (the first word decides)'
    """
    words = _polar_words(text, polarity)
    if not words:
        return "", 0.0, ""
    b = gender_metric.bmax(w for _, w in words)
    tok = next(t for t, w in words if w == b)
    if any(np.isclose(abs(w), abs(b), rtol=1e-6, atol=1e-9) and np.sign(w) != np.sign(b)
           for _, w in words):
        kind = TIE
    elif "'" in tok and tok not in gender_metric.MALE_TOKENS + gender_metric.FEMALE_TOKENS:
        kind = POSSESSIVE
    elif tok in gender_metric.MALE_TOKENS + gender_metric.FEMALE_TOKENS:
        kind = LISTED
    else:
        kind = OUTSIDE
    return tok, b, kind


def cell_anatomy(scored: pd.DataFrame, polarity: dict[str, float], group: str,
                 source: str = WIKI) -> pd.DataFrame:
    """The texts of one Table 3 super-group whose Gender-Max label differs from unigram
    matching's: profession group, Gender-Max label, the deciding word, its b and kind
    (:func:`deciding_word`), and the anonymised text."""
    d = scored[(scored["source"] == source) & (scored["group"].map(super_group) == group)]
    d = d[d["label_max"] != d["label_unigram"]]
    rows = []
    for r in d.itertuples():
        tok, b, kind = deciding_word(r.text, polarity)
        rows.append({"profession": r.group, "Gender-Max": r.label_max,
                     "unigram": r.label_unigram, "word": tok, "b": b, "kind": kind,
                     "text": r.text})
    return pd.DataFrame(rows, columns=["profession", "Gender-Max", "unigram", "word", "b",
                                       "kind", "text"])


def possessive_variant(scored: pd.DataFrame, polarity: dict[str, float], group: str,
                       source: str = WIKI) -> dict[str, int]:
    """Gender-Max and Gender-Wavg male / female counts of one super-group when tokens with an
    apostrophe (men's, woman's, he's) are not looked up in the embedding (a tokeniser variant:
    the default looks them up as their stem)."""
    d = scored[(scored["source"] == source) & (scored["group"].map(super_group) == group)]
    out = dict.fromkeys(("Gender-Max male #", "Gender-Max female #", "Gender-Wavg male #",
                         "Gender-Wavg female #"), 0)
    for text in d["text"]:
        bs = [b for _, b in _polar_words(text, polarity, possessives=False)]
        for m, score in (("Gender-Max", gender_metric.bmax(bs)), ("Gender-Wavg", gender_metric.wavg(bs))):
            lab = gender_metric.label(score)
            if lab != "neutral":
                out[f"{m} {lab} #"] += 1
    return out


def cell_reading(anatomy: pd.DataFrame, sens: pd.DataFrame, variant: dict[str, int],
                 group: str) -> str:
    """Why one super-group's WIKI Table 3 cells differ from the paper's (generated prose):
    ``anatomy`` from :func:`cell_anatomy`, ``sens`` from :func:`table3_wiki_text_sensitivity`,
    ``variant`` from :func:`possessive_variant`."""
    t = sens[sens["group"] == group].set_index("metric")

    def cells(m: str, col: str = "anonymised") -> str:
        return f"{t.loc[m, f'male {col}']} / {t.loc[m, f'female {col}']}"

    male = anatomy[(anatomy["Gender-Max"] == "male") & (anatomy["unigram"] != "male")]
    kinds = male["kind"].value_counts()
    words = male.groupby("kind")["word"].agg(lambda w: ", ".join(
        f"{x} {k}" if k > 1 else x for x, k in pd.Series(w).value_counts().items()))
    by_prof = male["profession"].value_counts()
    ties_m = int((male["kind"] == TIE).sum())
    ties_f = int(((anatomy["Gender-Max"] == "female") & (anatomy["unigram"] != "female")
                  & (anatomy["kind"] == TIE)).sum())
    return (
        f"**{group}** (WIKI, {int(t['total'].iloc[0]):,} texts, male / female): unigram matching "
        f"gives {cells('Unigram')} (paper {cells('Unigram', 'paper')}), so the sentences and "
        f"their gendered pronouns agree with the paper's; the gap is in the embedding metrics: "
        f"Gender-Max {cells('Gender-Max')} (paper {cells('Gender-Max', 'paper')}), Gender-Wavg "
        f"{cells('Gender-Wavg')} (paper {cells('Gender-Wavg', 'paper')}). Gender-Max calls "
        f"{len(male)} texts male that unigram matching does not ("
        + ", ".join(f"{k} {p.replace('_', ' ')}" for p, k in by_prof.items()) + "), decided by: "
        + "; ".join(f"{kind} {k} ({words[kind]})" for kind, k in kinds.items()) + ". "
        f"Ruled out: the anonymisation (raw texts give Gender-Max {cells('Gender-Max', 'raw')}, "
        f"Gender-Wavg {cells('Gender-Wavg', 'raw')}: farther from the paper); the tie rule "
        f"({ties_m} tie{'s' if ties_m != 1 else ''} decided male, {ties_f} female: letting "
        f"*she* win every tie moves at most {ties_m} text{'s' if ties_m != 1 else ''}). A "
        f"tokeniser that does not look possessive forms up gives Gender-Max "
        f"{variant['Gender-Max male #']} / {variant['Gender-Max female #']} and Gender-Wavg "
        f"{variant['Gender-Wavg male #']} / {variant['Gender-Wavg female #']}: "
        + _variant_verdict(t, variant) + (
            f" The other deciding words are gender-specific words outside the unigram list "
            f"({words[OUTSIDE]}), which the hard-debiased word2vec leaves unneutralised: a "
            "different gender-specific word set in the paper's copy of the embedding would "
            "move exactly these texts (not testable offline)." if OUTSIDE in words.index else ""))


def tie_counts(scored: pd.DataFrame, polarity: dict[str, float], source: str = WIKI
               ) -> pd.DataFrame:
    """Per Table 3 super-group: texts whose Gender-Max is decided by a tie of an equalised pair
    (:data:`TIE`), by the label the first word gave them."""
    d = scored[scored["source"] == source]
    d = d.assign(sg=d["group"].map(super_group)).dropna(subset=["sg"])
    kinds = [deciding_word(t, polarity)[2] for t in d["text"]]
    tie = d[[k == TIE for k in kinds]]
    out = pd.crosstab(tie["sg"], tie["label_max"]).reindex(index=list(SUPER_GROUPS),
                                                           columns=["male", "female"])
    return out.fillna(0).astype(int)


def table3_differences(scored: pd.DataFrame, polarity: dict[str, float], sens: pd.DataFrame,
                       group: str = "industrial & manufacturing") -> str:
    """Where Table 3's WIKI cells differ from the paper's and why (generated prose): the tie
    rule per super-group, then the anatomy of ``group``'s cells (:func:`cell_reading`)."""
    ties = tie_counts(scored, polarity)
    tie_txt = ("An equalised pair (he / she, men / women, male / female) has equal |b| up to "
               "float rounding, so a text with both is decided by its first word (the paper's "
               "tie rule is not stated); ties decide " + "; ".join(
                   f"{g}: {r.male} male, {r.female} female" for g, r in ties.iterrows())
               + ". Letting *she* win every tie would move the male ones to female.")
    reading = cell_reading(cell_anatomy(scored, polarity, group), sens,
                           possessive_variant(scored, polarity, group), group)
    return tie_txt + "\n\n" + reading


def _variant_verdict(t: pd.DataFrame, variant: dict[str, int]) -> str:
    """Whether the possessive variant brings each column closer to the paper (generated)."""
    parts = []
    for lab in ("male", "female"):
        now = sum(abs(int(t.loc[m, f"{lab} anonymised"]) - int(t.loc[m, f"{lab} paper"]))
                  for m in ("Gender-Max", "Gender-Wavg"))
        var = sum(abs(variant[f"{m} {lab} #"] - int(t.loc[m, f"{lab} paper"]))
                  for m in ("Gender-Max", "Gender-Wavg"))
        parts.append((lab, now, var))
    txt = "; ".join(f"{lab} cells {now} → {var} from the paper's (summed over both metrics)"
                    for lab, now, var in parts)
    better = [lab for lab, now, var in parts if var < now]
    worse = [lab for lab, now, var in parts if var > now]
    if better and worse:
        return (txt + f", closer on the {' and '.join(better)} cells and farther on the "
                f"{' and '.join(worse)} ones, so no single tokenisation rule explains both.")
    if better:
        return txt + ": closer on every column; the paper's tokeniser may not look them up."
    return txt + ": not closer, so the possessive forms do not explain the gap."


def gender_paper_vs_run(t3: pd.DataFrame, scored: pd.DataFrame | None = None,
                        n_boot: int = N_BOOT, seed: int = BOOT_SEED) -> pd.DataFrame:
    """§6.1.1 and §6.2 from Table 3 beside the paper: the share of Table 3 texts classified male
    or female (Gender-Max; paper 6.57%, pooled over its six sources) and the mean of the four
    Gender-Max male:female ratios (paper WIKI 2.29) per source. With the ``scored`` texts,
    ``this run_lo`` / ``this run_hi`` give their bootstrap 95% intervals (texts resampled within
    each super-group, the statistics recomputed from the four groups' draws; an upper bound
    that is infinite is left empty and ``this run_note`` says why)."""
    rows, unbounded = [], set()
    for src, d in t3.groupby(level="source", sort=False):
        polar = (d["Gender-Max male #"].sum() + d["Gender-Max female #"].sum()) / d["total"].sum()
        ratio = d["Gender-Max male:female"].replace(np.inf, np.nan)
        slo = shi = rlo = rhi = float("nan")
        if scored is not None:
            s = scored[scored["source"] == src]
            sg = s["group"].map(super_group)
            draws = [(_gender_draws(s[sg == g], GENDER_METRICS["Gender-Max"], n_boot, seed),
                      int((sg == g).sum())) for g in SUPER_GROUPS if (sg == g).any()]
            n = sum(k for _, k in draws)
            share = sum(k * (dr[:, 0] + dr[:, 1]) for dr, k in draws) / n
            mean_ratio = np.mean([_ratio(dr[:, 0], dr[:, 1]) for dr, _ in draws], axis=0)
            slo, shi = np.quantile(share, [0.025, 0.975])
            rlo, rhi = np.quantile(mean_ratio, [0.025, 0.975], method="inverted_cdf")
            # a resample with no female text in a group has an infinite ratio: where more than
            # 2.5% do, the interval has no finite upper bound (said in ``this run_note``)
            if not np.isfinite(rhi):
                rhi = float("nan")
                unbounded.add(src)
        rows.append(("6.1.1", "share of texts male or female (Gender-Max)", src,
                     PAPER_POLAR_SHARE, "pooled over its 6 sources", float(polar), slo, shi))
        rows.append(("6.2", "mean male:female ratio of the 4 groups (Gender-Max)", src,
                     PAPER_MEAN_RATIO.get(src, np.nan),
                     "WIKI" if src == WIKI else "(no paper value for this source)",
                     float(ratio.mean()) if ratio.notna().all() else float("nan"), rlo, rhi))
    out = pd.DataFrame(rows, columns=["section", "statistic", "source", "paper",
                                      "paper source", "this run", "this run_lo", "this run_hi"])
    out.insert(6, "this run - paper", out["this run"] - out["paper"])
    out["this run_note"] = [
        "no finite upper bound: over 2.5% of the resamples have a group with no female text"
        if sec == "6.2" and src in unbounded else "" for sec, src in zip(out["section"],
                                                                        out["source"], strict=True)]
    return out


def fig2_data(scored: pd.DataFrame, col: str = "label_max", n_boot: int = N_BOOT,
              seed: int = BOOT_SEED) -> pd.DataFrame:
    """Figure 2 data: per profession group and source, proportion male - proportion female,
    ``n``, the standard error ``se`` of that difference (multinomial:
    sqrt((pm + pf - (pm - pf)²) / n)) and its bootstrap 95% interval ``male - female_lo`` /
    ``male - female_hi`` (texts resampled within the profession and source: the mean of
    +1 male / -1 female / 0 neutral per text)."""
    g = scored.groupby(["group", "source"])[col]
    pm = g.apply(lambda s: (s == "male").mean())
    pf = g.apply(lambda s: (s == "female").mean())
    n = g.size()
    out = (pm - pf).rename("male - female").reset_index()
    out["n"] = n.to_numpy()
    out["se"] = np.sqrt((pm + pf - (pm - pf) ** 2).to_numpy() / n.to_numpy())
    bounds = [percentile_interval(bootstrap_means(
        (s == "male").to_numpy(float) - (s == "female").to_numpy(float), n_boot=n_boot,
        seed=seed)) for _, s in g]
    out["male - female_lo"] = [float(b[0]) for b in bounds]
    out["male - female_hi"] = [float(b[1]) for b in bounds]
    return out


def fig2_reading(f2: pd.DataFrame, source: str = WIKI) -> str:
    """What Figure 2 shows on ``source`` against what the paper says (§6.1.1: writing, science,
    art and engineering skewed male; only nursing skewed female), generated from the data."""
    d = f2[f2["source"] == source].set_index("group")
    if not len(d):
        return f"No {source} rows in Figure 2."
    # significance as the claims grade it: exact sign test, Holm over the professions
    p = pd.Series({g: fig2_sign_test(d.loc[g])[2] for g in d.index})
    sig = pd.Series(adjust_pvalues(p.to_numpy(), "holm") < 0.05, index=p.index)
    fem = d[d["male - female"] < 0].sort_values("male - female")
    male = d[d["male - female"] > 0].sort_values("male - female", ascending=False)

    def names(idx):
        return ", ".join(g.replace("_", " ") for g in idx) or "none"

    paper_male_ok = [g for g in PAPER_FIG2_MALE if g in male.index]
    paper_male_sig = [g for g in paper_male_ok if bool(sig[g])]
    nurse = ""
    for g in PAPER_FIG2_FEMALE:
        if g in d.index:
            r = d.loc[g]
            where = ("below 0" if r["male - female_hi"] < 0 else "above 0"
                     if r["male - female_lo"] > 0 else "spanning 0")
            nurse = (f"{g.replace('_', ' ')} here: {100 * r['male - female']:+.1f} points "
                     f"[{100 * r['male - female_lo']:+.1f}, {100 * r['male - female_hi']:+.1f}], "
                     f"an interval {where}")
    return (f"On {source}, {len(fem)} of {len(d)} professions lean female (male − female < 0): "
            f"{names(fem.index)}; {int(sig[fem.index].sum())} of them significantly (exact sign "
            f"test, Holm over the {len(d)} professions). {len(male)} lean male: "
            f"{names(male.index)}; {int(sig[male.index].sum())} of them significantly. The paper says "
            f"only nursing is female-skewed ({nurse or 'nursing: no texts'}) and that writing, "
            f"science, art and engineering are male-skewed (here {len(paper_male_ok)} of "
            f"{len(PAPER_FIG2_MALE)} lean male: {names(paper_male_ok)}; "
            f"{len(paper_male_sig)} of them significantly after Holm"
            + (f": {names(paper_male_sig)}" if paper_male_sig else "") + ").")


def metric_agreement(scored: pd.DataFrame, source: str = WIKI) -> pd.DataFrame:
    """§6.3 stand-in: how Gender-Max / Gender-Wavg agree with unigram matching on ``source``
    (labels coded male -1, neutral 0, female 1), with the paper's Spearman rho against human
    labels (Table 8) beside it for reference."""
    code = {"male": -1, "neutral": 0, "female": 1}
    w = scored[scored["source"] == source]
    lab = pd.DataFrame({m: w[c].map(code) for m, c in GENDER_METRICS.items()})
    out = pd.DataFrame({
        "Spearman rho vs unigram": lab.corr(method="spearman")["Unigram"],
        "label agreement with unigram (%)": [(lab[m] == lab["Unigram"]).mean() * 100 for m in lab],
        "male (%)": (lab == -1).mean() * 100, "female (%)": (lab == 1).mean() * 100,
        "paper: Spearman rho vs human labels (Table 8)": pd.Series(PAPER_TABLE8_GENDER),
    })
    out.index.name = "metric"
    return out


# --------------------------------------------------------------------------- norms
def kfold_table(kf: pd.DataFrame, folds: int, iterations: int) -> pd.DataFrame:
    """The norm net's held-out Pearson r per variable (mean, std, min, max over folds)."""
    out = (kf.groupby("variable", sort=False)["pearson_r"].agg(["mean", "std", "min", "max"])
           .reindex(list(VARIABLES)))
    out.insert(0, "folds", folds)
    out.insert(1, "seed words in embedding", int(kf.groupby("fold")["n_test"].first().sum()))
    out["iterations"] = iterations
    out.index.name = "variable"
    return out


def norm_texts(texts: pd.DataFrame) -> pd.DataFrame:
    """The texts the norms are computed on: every domain but profession (the paper uses the
    profession texts only for gender polarity)."""
    return texts[texts["domain"] != "profession"].reset_index(drop=True)


def score_norms(texts: pd.DataFrame, lexicon: pd.DataFrame, raw: bool = False,
                progress: bool | None = None) -> pd.DataFrame:
    """The prepared ``texts`` with the 8 text-level norm scores and ``n_words`` (§4.4), computed
    on the anonymised texts (§3.3; ``raw=True``: the original texts, a sensitivity row only)."""
    texts = texts.reset_index(drop=True)
    kw = {} if progress is None else {"progress": progress}
    return pd.concat([texts, norm_metric.compute(metric_texts(texts, raw, "the norms"), lexicon,
                                                 **kw)], axis=1)


def proportions(cats: pd.DataFrame, keys: pd.DataFrame, by: list[str], n_boot: int = N_BOOT,
                seed: int = BOOT_SEED) -> pd.DataFrame:
    """Percent of texts in each category per ``by`` (columns of ``keys``), with ``total``, and
    each category's bootstrap 95% interval ``<category>_lo`` / ``<category>_hi`` (percent; texts
    resampled within the ``by`` cell)."""
    df = pd.concat([keys[by].reset_index(drop=True), cats.reset_index(drop=True)], axis=1)
    g = df.groupby(by, sort=False)
    cols = list(CATEGORY_NAMES)
    out = g[cols].mean() * 100
    out.insert(0, "total", g.size())
    bounds = np.array([np.concatenate(percentile_interval(bootstrap_means(
        d[cols].to_numpy(float), n_boot=n_boot, seed=seed))) for _, d in g]) * 100
    for k, c in enumerate(cols):
        out[f"{c}_lo"], out[f"{c}_hi"] = bounds[:, k], bounds[:, len(cols) + k]
    return out


def difference_intervals(cats: pd.DataFrame, keys: pd.DataFrame, a: str, b: str,
                         n_boot: int = N_BOOT, seed: int = BOOT_SEED) -> pd.DataFrame:
    """Per source: bootstrap 95% interval of % group ``a`` - % group ``b`` in each category
    (``<category>_lo`` / ``<category>_hi``; each group's texts resampled on its own, seeds
    ``seed`` and ``seed + 1``)."""
    cols = list(CATEGORY_NAMES)
    df = pd.concat([keys[["group", "source"]].reset_index(drop=True),
                    cats.reset_index(drop=True)], axis=1)
    rows = {}
    for src, d in df.groupby("source", sort=False):
        da, db = d[d["group"] == a], d[d["group"] == b]
        if not len(da) or not len(db):
            continue
        diff = 100 * (bootstrap_means(da[cols].to_numpy(float), n_boot=n_boot, seed=seed)
                      - bootstrap_means(db[cols].to_numpy(float), n_boot=n_boot, seed=seed + 1))
        lo, hi = percentile_interval(diff)
        rows[src] = {**{f"{c}_lo": v for c, v in zip(cols, lo)},
                     **{f"{c}_hi": v for c, v in zip(cols, hi)}}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "source"
    return out


def difference(props: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Table 4/6 style: per source, proportion (%) of group ``a`` minus that of group ``b``
    (``props`` indexed (group, source) as from ``proportions(..., by=["group", "source"])``)."""
    pa = props.xs(a, level="group")[list(CATEGORY_NAMES)]
    pb = props.xs(b, level="group")[list(CATEGORY_NAMES)]
    return (pa - pb).dropna(how="all")


def beside_paper(run: pd.DataFrame, paper: pd.DataFrame, source: str = WIKI) -> pd.DataFrame:
    """``run`` with the paper's ``source`` row(s) and ``run - paper`` (Tables 4, 6, 9-11)."""
    out = tables.beside_paper(run, paper, source)
    if "total" in out.columns:
        out["total"] = out["total"].round().astype("Int64")
    return out


def _interval_columns(table: pd.DataFrame, intervals: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``intervals``' columns joined on the index (``<cat>_lo...``, then
    ``<cat>_hi...``; empty on the paper's rows)."""
    return table.join(intervals.reindex(columns=[f"{c}_{e}" for e in ("lo", "hi")
                                                 for c in CATEGORY_NAMES]))


def difference_table(props: pd.DataFrame, number: int | str, sources: Sequence[str],
                     cats: pd.DataFrame | None = None, keys: pd.DataFrame | None = None,
                     ) -> pd.DataFrame:
    """Table 4 (male - female) or 6 (Christianity - Islam) beside the paper's WIKI row; with
    the text categories ``cats`` and their ``keys`` (group, source), the bootstrap 95% interval
    of each difference (:func:`difference_intervals`)."""
    a, b = DIFF_GROUPS[str(number)]
    out = beside_paper(difference(props, a, b).reindex(list(sources)), paper_norms_table(number))
    if cats is not None and keys is not None:
        out = _interval_columns(out, difference_intervals(cats, keys, a, b))
    return out


def group_table(props: pd.DataFrame, number: int | str, sources: Sequence[str],
                groups: Sequence[str] | None = None) -> pd.DataFrame:
    """Table 9, 10 or 11: the category proportions of ``groups`` (default: the paper's) per
    source, each group followed by the paper's WIKI row and the difference."""
    paper = paper_norms_table(number)
    groups = list(groups or dict.fromkeys(paper.index.get_level_values("group")))
    run = props.loc[props.index.get_level_values("group").isin(groups)]
    run = run.reindex(pd.MultiIndex.from_product([groups, list(sources)],
                                                 names=["group", "source"])).dropna(how="all")
    out = beside_paper(run, paper)
    ci = [c for c in run.columns if c.endswith(("_lo", "_hi"))]
    return _interval_columns(out, run[ci]) if ci else out


def group_sizes(props: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    """Texts per group (rows) and source (columns)."""
    return props.loc[props.index.get_level_values("group").isin(groups), "total"].unstack("source")


def threshold_sensitivity(race_scores: pd.DataFrame, other_scores: pd.DataFrame,
                          other_name: str, thresholds: dict[str, float],
                          grid: Sequence[float] = (0.15, 0.2, 0.25, 0.3, 0.35)) -> pd.DataFrame:
    """% of WIKI race texts per category for VAD = BE5 thresholds in ``grid``, and with the other
    lexicon variant (``other_scores``) at ``thresholds``, beside the paper's Table 9 WIKI rows
    pooled by group size (a derived number, labelled so)."""
    p9 = paper_norms_table(9).xs(WIKI, level="source")
    pooled = p9[list(CATEGORY_NAMES)].mul(p9["total"], axis=0).sum() / p9["total"].sum()
    sens = {PAPER_POOLED_LABEL: pooled}
    for t in grid:
        sens[f"t = {t}"] = norm_metric.categorize(race_scores[list(VARIABLES)],
                                                  {"vad": t, "be5": t}).mean() * 100
    sens[f"{other_name}, VAD {thresholds['vad']} / BE5 {thresholds['be5']}"] = (
        norm_metric.categorize(other_scores, thresholds).mean() * 100)
    return pd.DataFrame(sens).T.rename_axis("thresholds (VAD and BE5)")


def race_wiki(nscores: pd.DataFrame) -> pd.DataFrame:
    """The WIKI race texts of the scored norm texts."""
    return nscores[(nscores["source"] == WIKI) & nscores["group"].isin(RACE_GROUPS.values())]


def expand_other(seeds, emb_raw, cache, k, cfg, seed_ratings: bool):
    """The other lexicon variant (seed words keeping / not keeping their ratings) and its name."""
    other, _ = norm_lexicon.expand_lexicon(seeds, emb_raw, cache, k=k, cfg=cfg,
                                           keep_seed_ratings=not seed_ratings)
    return other, ("predictions for all words" if seed_ratings else "seed ratings")


# --------------------------------------------------------------------------- verdicts and prose
def own_name_reading(seeds: pd.DataFrame, texts: pd.DataFrame, group: str = "fascism") -> str:
    """How a group's own name would weigh on its texts' norms on raw text (generated prose):
    the seed ratings of the name, and the share of the group's WIKI sentences that contain it
    (case-insensitive) before anonymisation."""
    if group not in seeds.index:
        return f"*{group}* has no seed rating."
    r = seeds.loc[group]
    d = texts[(texts["source"] == WIKI) & (texts["group"] == group)]
    has = d["text_raw"].str.contains(group, case=False, regex=False) if len(d) else pd.Series([])
    share = (f"{int(has.sum())} of its {len(d)} WIKI sentences contain it" if len(d) else
             "no WIKI sentences of the group are in this run")
    return (f"A group's own name weighs on its texts: *{group}* is rated in the seeds (valence "
            f"{r['valence']:.2f} on 1–9, sadness {r['sadness']:.2f} and fear {r['fear']:.2f} on "
            f"1–5), {share} on raw text, and the weighted average lets one strongly rated word "
            "dominate a short sentence. The tables above score anonymised texts (the term is "
            "`XYZ`, as in the paper's §3.3), so the group's own name no longer enters its scores.")


def _wiki_diff(table: pd.DataFrame, row: str = f"{WIKI} - paper") -> pd.Series:
    d = table.loc[[i for i in table.index if (i[-1] if isinstance(i, tuple) else i) == row]]
    return d[list(CATEGORY_NAMES)].stack()


def norms_reading(t4: pd.DataFrame, t6: pd.DataFrame, t9: pd.DataFrame, t10: pd.DataFrame,
                  t11: pd.DataFrame | None = None) -> str:
    """How far this run's WIKI norm proportions are from the paper's, per table (generated)."""
    lines = []
    for name, t in (("Table 4 (male − female, points)", t4),
                    ("Table 6 (Christianity − Islam, points)", t6),
                    ("Table 9 (race, % of texts)", t9), ("Table 10 (political, % of texts)", t10),
                    ("Table 11 (left-wing / right-wing, % of texts)", t11)):
        d = _wiki_diff(t) if t is not None else pd.Series(dtype=float)
        if not len(d):
            continue
        worst = d.abs().sort_values(ascending=False).head(3)
        w = "; ".join(f"{' / '.join(str(x) for x in (k if isinstance(k, tuple) else (k,)) if x != f'{WIKI} - paper')}"
                      f" {d[k]:+.1f}" for k in worst.index)
        lines.append(f"- **{name}**: largest WIKI − paper gaps of the {len(d)} cells: {w}.")
    return "\n".join(lines)
