"""BOLD prompt construction and anonymisation (Dhamala et al. 2021, §3.2-3.3).

Prompt rule (§3.2): "The prompt is taken to be the first five words plus the profession /
name / religious belief / political ideology term", keeping only sentences where the term
occurs in the first 8 words. Post-processing (§3.3): sentences of ≤ 8 words are dropped; in
the gender and race domains only sentences with a person's name are kept.

Two readings of "word" are implemented (:data:`RULES`):

- ``literal``: words are runs of non-space characters; the prompt is the first
  ``5 + len(term.split())`` of them.
- ``bold``: words are what ``sentence.split(" ")`` gives (so a newline does not separate
  words and consecutive spaces make empty words, as in the released prompts), the prompt is
  the first ``5 + len(term.split())`` of them joined by spaces, and it never takes the last
  word (a prompt must leave a continuation). Every released prompt ends with a space.

Anonymisation (§3.3): person names → ``Person`` (gender and race; spaCy named-entity
recognition plus the known name), profession / religion / ideology terms → ``XYZ``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import pandas as pd

from nlgbias.bold.paper import BOLD_TABLE1, PAPER_TABLE2
from nlgbias.progress import tqdm
from nlgbias.resources import resolve

log = logging.getLogger(__name__)

RULES = ("literal", "bold")
PERSON_DOMAINS = ("gender", "race")
TERM_DOMAINS = ("profession", "religious_ideology", "political_ideology")

_NONSPACE = re.compile(r"\S+")


def rebuild_prompt(sentence: str, term: str, rule: str = "bold") -> str:
    """The BOLD prompt for ``sentence`` whose group term is ``term`` (§3.2), under ``rule``."""
    k = 5 + len(term.split())
    if rule == "literal":
        spans = [m.span() for m in _NONSPACE.finditer(sentence)]
        if not spans:
            return ""
        return sentence[: spans[min(k, len(spans)) - 1][1]] + " "
    if rule == "bold":
        words = sentence.split(" ")
        k = max(1, min(k, len(words) - 1))
        return " ".join(words[:k]) + " "
    raise ValueError(f"unknown prompt rule {rule!r}; choose from {', '.join(RULES)}")


def n_words(sentence: str) -> int:
    """Number of words (runs of non-space characters)."""
    return len(_NONSPACE.findall(sentence))


def _norm(token: str) -> str:
    return re.sub(r"[^\w]", "", token.lower())


def term_position(sentence: str, term: str) -> int | None:
    """0-based word index where ``term`` starts in ``sentence`` (case-insensitive, plural and
    possessive forms allowed), or None. A multi-word term may also match by its last word."""
    words = [_norm(w) for w in _NONSPACE.findall(sentence)]
    parts = [_norm(w) for w in term.split()]
    parts = [p for p in parts if p]
    if not parts:
        return None

    def same(w: str, p: str) -> bool:
        return w == p or (w.startswith(p) and len(w) - len(p) <= 3) or (
            len(p) > 4 and p.endswith("y") and w.startswith(p[:-1]))

    n = len(parts)
    for i in range(len(words) - n + 1):
        if all(same(words[i + j], parts[j]) for j in range(n)):
            return i
    for i, w in enumerate(words):  # e.g. "Astor" for "John Jacob Astor"
        if same(w, parts[-1]):
            return i
    return None


def prompt_agreement(bold: pd.DataFrame, rules: Sequence[str] = RULES) -> pd.DataFrame:
    """Share of official prompts each rule regenerates exactly from its Wikipedia sentence,
    per domain (rows) and rule (columns), with the prompt counts."""
    out = bold[["domain"]].copy()
    for rule in rules:
        out[rule] = [rebuild_prompt(w, n, rule) == p
                     for w, n, p in zip(bold["wiki_text"], bold["name"], bold["prompt"])]
    table = out.groupby("domain")[list(rules)].mean()
    table.insert(0, "prompts", out.groupby("domain").size())
    table.loc["all"] = [len(out), *out[list(rules)].mean()]
    table["prompts"] = table["prompts"].astype(int)
    return table


def length_offsets(bold: pd.DataFrame, rule: str = "bold") -> pd.DataFrame:
    """Crosstab of (official prompt words − rebuilt prompt words) per domain, for the
    prompts the rule does not regenerate (other than those that differ only in spaces,
    :func:`whitespace_only`): shows what remains is ±1 word."""
    rows = []
    for d, w, n, p in zip(bold["domain"], bold["wiki_text"], bold["name"], bold["prompt"]):
        r = rebuild_prompt(w, n, rule)
        if not _same_words(r, p):
            rows.append((d, len(p.rstrip(" ").split(" ")) - len(r.rstrip(" ").split(" "))))
    df = pd.DataFrame(rows, columns=["domain", "offset (words)"])
    return pd.crosstab(df["offset (words)"], df["domain"])


def _same_words(a: str, b: str) -> bool:
    return a.split() == b.split()


def whitespace_only(bold: pd.DataFrame, rule: str = "bold") -> pd.DataFrame:
    """The official prompts that ``rule`` does not regenerate byte for byte but that have the
    same words as the rebuilt prompt (they differ only in spaces, e.g. a double space before
    the cut): ``domain, name, prompt, rebuilt``."""
    rebuilt = [rebuild_prompt(w, t, rule) for w, t in zip(bold["wiki_text"], bold["name"])]
    df = bold.assign(rebuilt=rebuilt)
    keep = [(r != p) and _same_words(r, p) for r, p in zip(df["rebuilt"], df["prompt"])]
    return df[keep][["domain", "name", "prompt", "rebuilt"]].reset_index(drop=True)


def whitespace_reading(ws: pd.DataFrame) -> str:
    """One sentence on the prompts that differ from their rebuild only in spaces."""
    if not len(ws):
        return "No released prompt differs from its rebuild only in spaces."
    ex = ws.iloc[0]
    return (f"{len(ws)} of the released prompts the rule does not regenerate byte for byte "
            f"have the same words as their rebuild and differ only in spaces (e.g. "
            f"{ex['prompt']!r} vs {ex['rebuilt']!r}: "
            + ", ".join(f"{d.replace('_', ' ')} {k}" for d, k in ws["domain"].value_counts().items())
            + "); the examples below leave them out.")


def mismatches(bold: pd.DataFrame, rule: str = "bold", n: int = 10, seed: int = 0,
               ) -> pd.DataFrame:
    """``n`` random official prompts (per domain) that ``rule`` does not regenerate, other than
    those that differ from the rebuild only in spaces (:func:`whitespace_only`)."""
    rebuilt = [rebuild_prompt(w, t, rule) for w, t in zip(bold["wiki_text"], bold["name"])]
    df = bold.assign(rebuilt=rebuilt)
    df = df[[not _same_words(r, p) for r, p in zip(df["rebuilt"], df["prompt"])]]
    df = df.sample(frac=1.0, random_state=seed).groupby("domain").head(n).sort_values("domain")
    return df[["domain", "name", "prompt", "rebuilt", "wiki_text"]].reset_index(drop=True)


def filter_audit(bold: pd.DataFrame) -> pd.DataFrame:
    """How many released prompts break each §3.2-3.3 filter, per domain: sentence of ≤ 8
    words, term not found in the first 8 words, term not found at all."""
    pos = [term_position(w, n) for w, n in zip(bold["wiki_text"], bold["name"])]
    df = pd.DataFrame({
        "domain": bold["domain"].to_numpy(),
        "sentence ≤ 8 words": [n_words(w) <= 8 for w in bold["wiki_text"]],
        "term not in first 8 words": [p is None or p >= 8 for p in pos],
        "term not found": [p is None for p in pos],
    })
    table = df.groupby("domain").sum()
    table.loc["all"] = table.sum()
    return table


def build_prompts(sentences: pd.DataFrame, rule: str = "bold", nlp=None,
                  require_person: bool = True) -> pd.DataFrame:
    """Apply the whole §3.2-3.3 pipeline to Wikipedia sentences.

    ``sentences`` has ``domain, group, name, wiki_text``. Keeps sentences of more than 8 words
    whose term starts in the first 8 words; in gender/race also requires a PERSON entity
    (spaCy, standing in for NLTK's NE chunker which is not available offline) unless
    ``require_person`` is False. Returns the kept rows with a ``prompt`` column.
    """
    keep = np.array([n_words(w) > 8 and (p := term_position(w, n)) is not None and p < 8
                     for w, n in zip(sentences["wiki_text"], sentences["name"])], dtype=bool)
    out = sentences[keep].copy()
    if require_person:
        person_rows = out["domain"].isin(PERSON_DOMAINS).to_numpy()
        if person_rows.any():
            has = has_person(out.loc[person_rows, "wiki_text"].tolist(), nlp=nlp)
            mask = np.ones(len(out), dtype=bool)
            mask[np.flatnonzero(person_rows)] = has
            out = out[mask]
    out["prompt"] = [rebuild_prompt(w, n, rule) for w, n in zip(out["wiki_text"], out["name"])]
    return out


# --------------------------------------------------------------------------- anonymiser
@lru_cache(maxsize=2)
def load_ner(path: str | None = None):
    """The spaCy ``en_core_web_sm`` 3.8 pipeline with only what NER needs."""
    from nlgbias.extras import require

    spacy = require("spacy")
    folder = resolve("spacy_en_core_web_sm", path)
    return spacy.load(folder, exclude=["parser", "lemmatizer", "attribute_ruler", "tagger",
                                       "senter"])


@lru_cache(maxsize=1)
def _default_ner():
    """:func:`load_ner` once per process (the anonymiser runs once per cached chunk of texts)."""
    return load_ner()


#: texts from which :func:`person_spans` splits the default NER over worker processes
NER_POOL_MIN = 2000


def person_spans(texts: Iterable[str], nlp=None, batch_size: int = 256,
                 workers: int | None = None) -> list[list[tuple[int, int]]]:
    """Character spans of PERSON entities in each text (spaCy NER).

    With the default pipeline (``nlp=None``) and at least :data:`NER_POOL_MIN` texts, the texts
    are split in ``workers`` runs of whole batches (default: the project's thread count,
    :func:`nlgbias.hardware.default_threads`) tagged side by side by worker processes that load
    the pipeline once: every batch of ``batch_size`` texts is the one a single process would
    tag, so the spans are the same."""
    texts = list(texts)
    if nlp is None:
        if workers is None:
            from nlgbias.hardware import default_threads

            workers = default_threads() if len(texts) >= NER_POOL_MIN else 1
        batches = -(-len(texts) // batch_size)
        workers = max(1, min(workers, batches))
        if workers > 1:
            per = -(-batches // workers) * batch_size
            parts = [texts[i:i + per] for i in range(0, len(texts), per)]
            pool = _ner_pool(workers)
            return [sp for part in pool.map(_ner_spans, parts, [batch_size] * len(parts))
                    for sp in part]
    return _ner_spans(texts, batch_size, nlp)


def _ner_spans(texts: list[str], batch_size: int, nlp=None) -> list[list[tuple[int, int]]]:
    nlp = nlp or _default_ner()
    out = []
    for doc in tqdm(nlp.pipe(texts, batch_size=batch_size), total=len(texts), desc="NER",
                    disable=len(texts) < 500):
        out.append([(e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON"])
    return out


@lru_cache(maxsize=2)
def _ner_pool(workers: int):
    """Worker processes that each load the NER pipeline once; kept for the process's life
    (the anonymiser runs once per cached chunk)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_default_ner)


def has_person(texts: Sequence[str], nlp=None) -> np.ndarray:
    """Whether each text contains a PERSON entity."""
    return np.array([bool(s) for s in person_spans(texts, nlp=nlp)], dtype=bool)


# adherent / adjective forms of the religion and ideology group terms (§3.3 lists
# "Christianity, ..., Buddhism, Socialism, Communist")
GROUP_FORMS = {
    "christianity": ["Christianity", "Christians", "Christian"],
    "islam": ["Islamic", "Islam", "Muslims", "Muslim"],
    "judaism": ["Judaism", "Jewish", "Jews", "Jew"],
    "hinduism": ["Hinduism", "Hindus", "Hindu"],
    "buddhism": ["Buddhism", "Buddhists", "Buddhist"],
    "sikhism": ["Sikhism", "Sikhs", "Sikh"],
    "atheism": ["Atheism", "Atheists", "Atheist"],
    "left-wing": ["Left-wing", "left-wingers", "leftists", "leftist"],
    "right-wing": ["Right-wing", "right-wingers", "rightists", "rightist"],
    "democracy": ["Democracy", "democracies", "democrats", "democrat", "democratic"],
}


def _ism_forms(word: str) -> list[str]:
    w = word.lower()
    if w.endswith("ism"):
        stem = w[:-3]
        return [w, stem + "ists", stem + "ist"]
    return [w]


def term_forms(domain: str, group: str, name: str) -> list[str]:
    """Surface forms to replace by ``XYZ`` for a profession / religion / ideology row:
    the page term (singular and plural), and for religion/ideology the group's adherent
    forms (e.g. Christianity → Christian(s); socialism → socialist(s))."""
    forms = {name, name + "s", name + "es"}
    if name.endswith("y"):
        forms.add(name[:-1] + "ies")
    if domain in ("religious_ideology", "political_ideology"):
        forms.update(GROUP_FORMS.get(group.lower(), []))
        forms.update(_ism_forms(group))
        for w in name.split():
            if w.lower().endswith("ism"):
                forms.update(_ism_forms(w))
    return sorted((f for f in forms if len(f) > 2), key=len, reverse=True)


@lru_cache(maxsize=1 << 15)
def _terms_pattern(forms: tuple[str, ...]) -> re.Pattern:
    """Any of ``forms`` as a whole word (not inside a word or a hyphenated one), any case;
    compiled once per set of forms (``re``'s own cache holds 512 patterns, fewer than BOLD's
    names)."""
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(f) for f in forms) + r")(?![\w-])",
                      re.IGNORECASE)


def _replace_terms(text: str, forms: Sequence[str], repl: str) -> str:
    return _terms_pattern(tuple(forms)).sub(repl, text)


def _collapse(text: str, token: str) -> str:
    return re.sub(rf"\b{token}(?:\s+{token}\b)+", token, text)


def anonymize(df: pd.DataFrame, text_col: str = "text", nlp=None) -> pd.Series:
    """Anonymise BOLD texts (§3.3) using the frame's ``domain``, ``group`` and ``name``.

    - gender / race: PERSON entities (spaCy) and every part of the row's person name
      (e.g. "Jacob", "Zachar") → ``Person`` (adjacent ones merged: "Person");
    - profession / religious_ideology / political_ideology: the term and its forms
      (:func:`term_forms`) → ``XYZ``.

    Returns a Series aligned with ``df``.
    """
    for col in ("domain", "group", "name", text_col):
        if col not in df.columns:
            raise KeyError(f"anonymize needs a {col!r} column; got {list(df.columns)}")
    texts = df[text_col].fillna("").astype(str).tolist()
    out = list(texts)
    domains = df["domain"].tolist()
    person_idx = [i for i, d in enumerate(domains) if d in PERSON_DOMAINS]
    spans = person_spans([texts[i] for i in person_idx], nlp=nlp) if person_idx else []
    names, groups = df["name"].tolist(), df["group"].tolist()
    for i, sp in zip(person_idx, spans):
        t = texts[i]
        parts = [p for p in re.split(r"[\s]+", names[i]) if len(p.strip(".")) > 1]
        known = _terms_pattern(tuple(parts)) if parts else None
        for a, b in sorted(sp, reverse=True):
            # spaCy sometimes runs a PERSON span on past the row's own name ("Michael Rapaport
            # Discusses" as one PERSON): such a span ends with the last part of the own name
            own = list(known.finditer(t, a, b)) if known is not None else []
            if own:
                b = own[-1].end()
            t = t[:a] + "Person" + t[b:]
        if parts:
            t = _replace_terms(t, sorted(set(parts), key=len, reverse=True), "Person")
        out[i] = _collapse(t, "Person")
    for i, d in enumerate(domains):
        if d in TERM_DOMAINS:
            out[i] = _collapse(_replace_terms(texts[i], term_forms(d, groups[i], names[i]), "XYZ"), "XYZ")
        elif d not in PERSON_DOMAINS:
            raise ValueError(f"row {i}: unknown BOLD domain {d!r}")
    return pd.Series(out, index=df.index, name=f"{text_col}_anonymized")


# --------------------------------------------------------------------------- notebook 01



def paper_table2_lookup(bold: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2 prompts found in the data (matched after normalising quotes and
    trailing spaces); ``group``/``name`` are empty where a prompt is not in the release."""
    def key(s: str) -> str:
        return s.replace("’", "'").strip()

    index = {}
    for row in bold[["domain", "group", "name", "prompt"]].itertuples(index=False):
        index.setdefault((row.domain, key(row.prompt)), row)
    rows = []
    for d, p in PAPER_TABLE2.itertuples(index=False):
        hit = index.get((d, key(p)))
        rows.append((d, hit.group if hit else None, hit.name if hit else None,
                     hit.prompt if hit else p, "yes" if hit else "no"))
    return pd.DataFrame(rows, columns=["domain", "group", "name", "prompt", "in release"])


def offset_consistency(bold: pd.DataFrame, rule: str = "bold") -> pd.DataFrame:
    """Pages whose released prompts have different length offsets (official − rebuilt words)
    in different sentences: evidence that the offset is not a property of the page term."""
    off = [len(p.rstrip(" ").split(" ")) - len(rebuild_prompt(w, n, rule).rstrip(" ").split(" "))
           for w, n, p in zip(bold["wiki_text"], bold["name"], bold["prompt"])]
    df = bold[["domain", "name"]].assign(offset=off)
    g = df.groupby(["domain", "name"])["offset"]
    out = pd.DataFrame({"prompts": g.size(), "distinct offsets": g.nunique(),
                        "offsets": g.apply(lambda s: sorted(set(s)))})
    return out[out["distinct offsets"] > 1].sort_values("prompts", ascending=False).reset_index()


def bold_table1(bold: pd.DataFrame) -> pd.DataFrame:
    """BOLD Table 1 from the data: groups and prompts per domain, beside the paper's counts."""
    got = bold.groupby("domain").agg(groups=("group", "nunique"), prompts=("prompt", "size"))
    out = BOLD_TABLE1.set_index("domain").add_suffix(" (paper)").join(got.add_suffix(" (data)"))
    out.loc["total"] = out.sum()
    return out.astype(int)


def empty_prompts(bold: pd.DataFrame) -> pd.DataFrame:
    """Released prompts that are empty (or only spaces): nothing was cut from the sentence."""
    blank = bold["prompt"].fillna("").str.strip() == ""
    return bold.loc[blank, ["domain", "group", "name", "prompt", "wiki_text"]].reset_index(drop=True)


def offsets_reading(offsets: pd.DataFrame) -> str:
    """How the prompts the ``bold`` rule misses differ in length, from :func:`length_offsets`."""
    per = offsets.sum(axis=1)
    total = int(per.sum())
    one = int(per.loc[[o for o in (-1, 1) if o in per.index]].sum())
    two = int(per.loc[[o for o in (-2, -1, 1, 2) if o in per.index]].sum())
    zero = int(per.get(0, 0))
    return (f"Of the {total:,} released prompts the `bold` rule does not regenerate (other "
            "than those that differ from it only in spaces), "
            f"{one:,} ({one / total:.0%}) are one word longer or shorter than 5 + (words in the "
            f"page title), {two:,} ({two / total:.0%}) within two words; {zero:,} have the same "
            f"length but other words, and {total - two - zero:,} differ by three words or more.")


def pipeline_table(people: pd.DataFrame, pipeline: pd.DataFrame) -> pd.DataFrame:
    """Per domain: sentences checked, kept by the §3.2-3.3 filters, and kept with exactly the
    released prompt (``pipeline`` from :func:`build_prompts` with ``released_prompt``)."""
    return pd.DataFrame({
        "sentences": people.groupby("domain").size(),
        "kept by the filters": pipeline.groupby("domain").size(),
        "kept and prompt identical": (pipeline["prompt"] == pipeline["released_prompt"]
                                      ).groupby(pipeline["domain"]).sum(),
    }).fillna(0).astype(int)
