"""StereoSet dataset analysis (Nadeem et al. 2021, §4-5): Table 1 statistics, Table 2 sentiment
of stereotypes vs anti-stereotypes, Table 3 keywords (Kilgarriff 2009 "simple maths"), and why
the SentimentLM baseline (§6.3) scores as it does.

Every function takes the CAT frame of :func:`nlgbias.datasets.stereoset.load_stereoset` (dev,
test, or both concatenated).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from nlgbias.stereoset.evaluation import DOMAINS, LABELS, TASKS, sentence_table

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


# --------------------------------------------------------------------------- Table 1
def n_words(text: str) -> int:
    """Words of a text as whitespace-separated tokens (the unit of Table 1's "Avg Len")."""
    return len(text.split())


def instance_lengths(cats: pd.DataFrame) -> pd.Series:
    """Words per CAT instance, averaged over its three associations: intrasentence, the filled
    sentence; intersentence, the context plus the attribute sentence (Table 1 reports 8.02 vs
    15.39 words: an intersentence instance is two sentences)."""
    out = []
    for task, ctx, *sents in cats[["task", "context", "stereotype", "anti_stereotype",
                                   "unrelated"]].itertuples(index=False):
        extra = n_words(ctx) if task == "intersentence" else 0
        out.append(np.mean([extra + n_words(s) for s in sents]))
    return pd.Series(out, index=cats.index, dtype=float)


def dataset_statistics(cats: pd.DataFrame) -> pd.DataFrame:
    """Table 1: per task and domain, ``targets`` (distinct target terms), ``CATs`` and
    ``avg words`` (:func:`instance_lengths`), with a ``total`` row per task and an ``overall``
    row; columns ``task, domain, targets, CATs, avg words``."""
    cats = cats.assign(_len=instance_lengths(cats))
    rows = []
    for task in TASKS:
        sub = cats[cats["task"] == task]
        for domain in DOMAINS:
            d = sub[sub["bias_type"] == domain]
            rows.append((task, domain, d["target"].nunique(), len(d), d["_len"].mean()))
        rows.append((task, "total", sub["target"].nunique(), len(sub), sub["_len"].mean()))
    rows.append(("overall", "total", cats["target"].nunique(), len(cats), cats["_len"].mean()))
    return pd.DataFrame(rows, columns=["task", "domain", "targets", "CATs", "avg words"])


# --------------------------------------------------------------------------- Table 2
def association_sentences(cats: pd.DataFrame) -> pd.DataFrame:
    """One row per association: ``task, cat_id, bias_type, label, sentence`` (intrasentence: the
    filled sentence; intersentence: the attribute sentence, without the shared context)."""
    return sentence_table(cats)[["task", "cat_id", "bias_type", "label", "sentence"]]


def vader_negative(texts: Iterable[str], threshold: float = -0.05) -> np.ndarray:
    """Two classes from VADER: negative when the compound score is ``<= threshold`` (VADER's own
    −0.05), positive otherwise, neutral included, as the paper's two-class classifier puts
    neutral sentences with the positive ones (§5)."""
    from nlgbias.metrics.sentiment import analyzer

    sia = analyzer()
    return np.array([sia.polarity_scores(t)["compound"] <= threshold for t in texts])


def textblob_negative(texts: Iterable[str]) -> np.ndarray:
    """Two classes from TextBlob's pattern lexicon: negative when polarity < 0 (the pattern
    analyzer called directly: the same polarity as ``TextBlob(t).sentiment``, 4x faster)."""
    from textblob.en import sentiment

    return np.array([sentiment(t)[0] < 0 for t in texts])


CLASSIFIERS: dict[str, Callable[[Iterable[str]], np.ndarray]] = {
    "VADER (compound <= -0.05)": vader_negative,
    "TextBlob (polarity < 0)": textblob_negative,
}


def sentiment_shares(cats: pd.DataFrame,
                     classifiers: Mapping[str, Callable] | None = None) -> pd.DataFrame:
    """Table 2: per classifier and gold label (stereotype, anti-stereotype; unrelated for
    reference), ``n`` associations and the % classified negative / positive."""
    sents = association_sentences(cats)
    rows = []
    for name, fn in (classifiers or CLASSIFIERS).items():
        neg = np.asarray(fn(sents["sentence"].tolist()), dtype=bool)
        for label in LABELS:
            m = (sents["label"] == label).to_numpy()
            share = 100.0 * neg[m].mean()
            rows.append((name, label, int(m.sum()), 100.0 - share, share))
    return pd.DataFrame(rows, columns=["classifier", "label", "n", "% positive", "% negative"])


# --------------------------------------------------------------------------- Table 3
def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, with an inner apostrophe; a possessive 's dropped).

    >>> words("Paula's BLANK son didn't cry.")
    ['paula', 'blank', 'son', "didn't", 'cry']
    """
    return [w[:-2] if w.endswith("'s") else w for w in _WORD.findall(text.lower())]


def simple_maths(focus_counts: Mapping[str, int], reference_fpm: Mapping[str, float],
                 n: float = 1.0) -> pd.DataFrame:
    """Kilgarriff (2009) "simple maths" keyness of each word of a focus corpus:
    ``score = (fpm_focus + n) / (fpm_ref + n)`` with ``fpm`` = frequency per million words and
    ``n`` the smoothing constant (1: favours rarer words; larger: commoner ones).

    Returns columns ``word, count, fpm, ref_fpm, score`` sorted by score (then count) descending.

    >>> simple_maths({"a": 3, "b": 1}, {"a": 2.0e5, "b": 0.0}).round(3).values.tolist()
    [['b', 1, 250000.0, 0.0, 250001.0], ['a', 3, 750000.0, 200000.0, 3.75]]
    """
    if n <= 0:
        raise ValueError(f"the smoothing constant n must be > 0, got {n}")
    total = sum(focus_counts.values())
    if total == 0:
        raise ValueError("the focus corpus is empty")
    df = pd.DataFrame({"word": list(focus_counts), "count": list(focus_counts.values())})
    df["fpm"] = df["count"] * 1e6 / total
    df["ref_fpm"] = [float(reference_fpm.get(w, 0.0)) for w in df["word"]]
    df["score"] = (df["fpm"] + n) / (df["ref_fpm"] + n)
    return df.sort_values(["score", "count", "word"], ascending=[False, False, True],
                          ignore_index=True)


def wordfreq_fpm(words_: Iterable[str], lang: str = "en") -> dict[str, float]:
    """Frequency per million of each word in ``wordfreq``'s general-English reference (a blend
    of Wikipedia, subtitles, news, books, web text, Twitter and Reddit; 0 when unlisted)."""
    from wordfreq import word_frequency

    return {w: word_frequency(w, lang) * 1e6 for w in set(words_)}


def likely_typo(word: str, ratio: float = 1000.0, lang: str = "en") -> bool:
    """True when one edit (delete, transpose, replace, insert a letter) turns ``word`` into a
    word ``ratio`` times more frequent in ``wordfreq`` (e.g. "poeple" -> "people", "gentlement"
    -> "gentlemen"): a misspelling in the data, not a keyword.

    >>> likely_typo("poeple"), likely_typo("gentlement"), likely_typo("bossy")
    (True, True, False)
    """
    from wordfreq import word_frequency

    f = word_frequency(word, lang)
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    cands = {a + b[1:] for a, b in splits if b}
    cands |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    cands |= {a + c + b[1:] for a, b in splits if b for c in letters}
    cands |= {a + c + b for a, b in splits for c in letters}
    cands.discard(word)
    return any(word_frequency(c, lang) >= ratio * max(f, 1e-9) for c in cands if len(c) > 1)


def _stem(word: str) -> str:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer().stem(word)


def domain_keywords(cats: pd.DataFrame, *, n: float = 1.0, min_count: int = 5, top: int = 16,
                    reference: Callable[[Iterable[str]], Mapping[str, float]] = wordfreq_fpm,
                    drop_typos: bool = True) -> pd.DataFrame:
    """Table 3: the top ``top`` keywords of each domain by :func:`simple_maths` against a
    general-English reference (default :func:`wordfreq_fpm`; the paper used TenTen). The focus
    corpus is every sentence of the domain (contexts and the three associations; intrasentence
    contexts with their BLANK removed). Words of the domain's target terms are removed (as in the
    paper) and words seen fewer than ``min_count`` times are skipped. Word forms are grouped by
    their Porter stem (the paper's keywords are lemmas): a group's count and reference frequency
    are the sums over its forms, shown by its most frequent form. ``drop_typos``: skip words
    that :func:`likely_typo` flags as misspellings in the data.

    Columns ``domain, rank, keyword, forms, count, fpm, ref_fpm, score``."""
    out = []
    for domain in DOMAINS:
        sub = cats[cats["bias_type"] == domain]
        if not len(sub):
            continue
        targets = {w for t in sub["target"] for w in words(t)}
        target_stems = {_stem(w) for w in targets}
        counts: Counter = Counter()
        for col in ("context", "stereotype", "anti_stereotype", "unrelated"):
            for text in sub[col]:
                counts.update(w for w in words(text.replace("BLANK", " ")))
        ref = reference(counts)
        groups: dict[str, Counter] = {}
        for w, c in counts.items():
            s = _stem(w)
            if w in targets or s in target_stems:
                continue
            groups.setdefault(s, Counter())[w] += c
        total = sum(counts.values())
        focus = {s: sum(g.values()) for s, g in groups.items()}
        ref_stem = {s: sum(ref.get(w, 0.0) for w in g) for s, g in groups.items()}
        km = simple_maths(focus, ref_stem, n=n)
        km["fpm"] = km["count"] * 1e6 / total  # per million words of the whole domain corpus
        km["score"] = (km["fpm"] + n) / (km["ref_fpm"] + n)
        km = km[km["count"] >= min_count].sort_values(
            ["score", "count", "word"], ascending=[False, False, True], ignore_index=True)
        if drop_typos:  # misspellings in the data ("poeple") are not keywords
            keep: list[str] = []
            for st in km["word"]:
                if len(keep) >= top:
                    break
                if not likely_typo(groups[st].most_common(1)[0][0]):
                    keep.append(st)
            km = km[km["word"].isin(keep)]
        km = km.head(top).reset_index(drop=True)
        km.insert(0, "domain", domain)
        km.insert(1, "rank", np.arange(1, len(km) + 1))
        km["keyword"] = [groups[s].most_common(1)[0][0] for s in km["word"]]
        km["forms"] = [", ".join(sorted(groups[s])) for s in km["word"]]
        out.append(km[["domain", "rank", "keyword", "forms", "count", "fpm", "ref_fpm", "score"]])
    return pd.concat(out, ignore_index=True)


def keyword_overlap(ours: pd.DataFrame, paper: Mapping[str, list[str]]) -> pd.DataFrame:
    """Per domain: the paper's keywords, this run's, and which of the paper's are among this
    run's (matched by Porter stem, so "uncare" matches "uncaring")."""
    rows = []
    for domain, kws in paper.items():
        mine = ours[ours["domain"] == domain]
        stems = {_stem(f) for forms in mine["forms"] for f in forms.split(", ")}
        shared = [k for k in kws if _stem(k) in stems]
        rows.append({"domain": domain, "paper keywords (TenTen)": ", ".join(kws),
                     "this run (wordfreq)": ", ".join(mine["keyword"]),
                     "shared": ", ".join(shared), "n shared": len(shared), "of": len(kws)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- SentimentLM
def _pct(flags: np.ndarray) -> float:
    return 100.0 * float(flags.mean()) if len(flags) else float("nan")


def sentimentlm_ties(cats: pd.DataFrame, compound: Mapping[str, float]) -> pd.DataFrame:
    """Why VADER-SentimentLM's lms differs from the paper's (§6.3): per task, the share of
    (meaningful, unrelated) pairs whose VADER compound scores tie exactly (a continuous
    classifier probability, as the paper's, almost never ties), and among the pairs that do
    not tie, the % where the meaningful association is the more negative one (the lms the
    baseline would get if ties did not exist). ``compound``: sentence id → VADER compound."""
    rows = []
    for task in TASKS:
        sub = cats[cats["task"] == task]
        if not len(sub):
            continue
        pairs = []
        for col in ("stereotype_id", "anti_stereotype_id"):
            m = np.array([compound[i] for i in sub[col]])
            u = np.array([compound[i] for i in sub["unrelated_id"]])
            pairs.append((m, u))
        m = np.concatenate([p[0] for p in pairs])
        u = np.concatenate([p[1] for p in pairs])
        tie = m == u
        both_zero = (m == 0) & (u == 0)
        s = np.array([compound[i] for i in sub["stereotype_id"]])
        a = np.array([compound[i] for i in sub["anti_stereotype_id"]])
        sa_tie = s == a
        rows.append({"task": task, "pairs": len(m), "% tied": 100 * tie.mean(),
                     "% both neutral (0)": 100 * both_zero.mean(),
                     "% meaningful more negative (untied pairs)": _pct((m < u)[~tie]),
                     "% stereotype vs anti tied": 100 * sa_tie.mean(),
                     "% stereotype more negative (untied)": _pct((s < a)[~sa_tie])})
    return pd.DataFrame(rows)
