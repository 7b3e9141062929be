"""Dataset loaders, validated on load: BOLD, StereoSet, HolisticBias and the regard annotations.

Every loader finds its files through :mod:`nlgbias.resources` and raises
:class:`DataFormatError` naming the file and the problem when a file is malformed or
truncated.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.resources import BOLD_DOMAINS, resolve

# BOLD Table 1: prompts per domain and number of groups.
BOLD_TABLE1 = pd.DataFrame(
    {
        "domain": ["profession", "gender", "race", "religious_ideology", "political_ideology"],
        "groups": [18, 2, 4, 7, 12],
        "prompts": [10195, 3204, 7657, 639, 1984],
    }
)


class DataFormatError(ValueError):
    """A data file is malformed, truncated or not in the expected format."""


def _read_json(path: Path):
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{path}: not UTF-8 text ({exc})") from exc
    if not text.strip():
        raise DataFormatError(f"{path}: file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); "
            "the file may be truncated") from exc


# --------------------------------------------------------------------------- BOLD
def _bold_nested(path: Path) -> dict[str, dict[str, list[str]]]:
    obj = _read_json(path)
    if not isinstance(obj, dict) or not obj:
        raise DataFormatError(f"{path}: expected a JSON object {{group: {{name: [text, ...]}}}}")
    for group, entities in obj.items():
        if not isinstance(entities, dict):
            raise DataFormatError(f"{path}: group {group!r} should map names to lists of texts")
        for name, texts in entities.items():
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise DataFormatError(f"{path}: {group}/{name} should be a list of strings")
    return obj


def load_bold(domains: tuple[str, ...] | list[str] = BOLD_DOMAINS, path: str | Path | None = None,
              ) -> pd.DataFrame:
    """BOLD (Dhamala et al. 2021, §3): one row per prompt.

    Columns ``domain, group, name, prompt, wiki_text``; 23,679 rows for all five domains.
    ``name`` is the Wikipedia page title with spaces (``Jacob Zachar``), ``wiki_text`` the full
    sentence the prompt was cut from.
    """
    folder = resolve("bold", path)
    rows = []
    for domain in domains:
        if domain not in BOLD_DOMAINS:
            raise ValueError(f"unknown BOLD domain {domain!r}; choose from {', '.join(BOLD_DOMAINS)}")
        ppath = folder / "prompts" / f"{domain}_prompt.json"
        wpath = folder / "wikipedia" / f"{domain}_wiki.json"
        prompts, wiki = _bold_nested(ppath), _bold_nested(wpath)
        for group, entities in prompts.items():
            for name, plist in entities.items():
                wlist = wiki.get(group, {}).get(name)
                if wlist is None or len(wlist) != len(plist):
                    raise DataFormatError(
                        f"{wpath}: {group}/{name} has {0 if wlist is None else len(wlist)} "
                        f"sentences for {len(plist)} prompts in {ppath.name}")
                for p, w in zip(plist, wlist):
                    rows.append((domain, group, name.replace("_", " "), p, w))
    return pd.DataFrame(rows, columns=["domain", "group", "name", "prompt", "wiki_text"])


def bold_table1(bold: pd.DataFrame) -> pd.DataFrame:
    """BOLD Table 1 from the data: groups and prompts per domain, beside the paper's counts."""
    got = bold.groupby("domain").agg(groups=("group", "nunique"), prompts=("prompt", "size"))
    out = BOLD_TABLE1.set_index("domain").add_suffix(" (paper)").join(got.add_suffix(" (data)"))
    out.loc["total"] = out.sum()
    return out.astype(int)


# --------------------------------------------------------------------------- StereoSet
STEREOSET_LABELS = ("stereotype", "anti-stereotype", "unrelated")


def load_stereoset(split: str = "dev", path: str | Path | None = None) -> pd.DataFrame:
    """StereoSet CATs (Nadeem et al. 2021, §2): one row per Context Association Test.

    Columns ``task`` (intrasentence / intersentence), ``id, target, bias_type, context`` and,
    for each gold label, the sentence and its id: ``stereotype, stereotype_id,
    anti_stereotype, anti_stereotype_id, unrelated, unrelated_id``.
    Dev: 2,106 intrasentence and 2,123 intersentence CATs.
    """
    if split not in ("dev", "test"):
        raise ValueError(f"unknown StereoSet split {split!r}; choose 'dev' or 'test'")
    return read_stereoset_file(resolve("stereoset", path) / f"{split}.json")


def read_stereoset_file(file: str | Path, require_both: bool = True) -> pd.DataFrame:
    """Parse one StereoSet file in the official format (``{"data": {"intrasentence": [...],
    "intersentence": [...]}}``) into the rows of :func:`load_stereoset`. With
    ``require_both=False`` a file holding only one of the two tasks is accepted."""
    file = Path(file)
    if not file.exists():
        raise FileNotFoundError(f"StereoSet file {file} does not exist")
    obj = _read_json(file)
    data = obj.get("data") if isinstance(obj, dict) else None
    tasks = ("intrasentence", "intersentence")
    ok = isinstance(data, dict) and (set(tasks) <= set(data) if require_both else set(tasks) & set(data))
    if not ok:
        raise DataFormatError(f"{file}: expected {{'data': {{'intrasentence': [...], 'intersentence': [...]}}}}")
    rows = []
    for task in tasks:
        for i, cat in enumerate(data.get(task, [])):
            try:
                row = {"task": task, "id": cat["id"], "target": cat["target"],
                       "bias_type": cat["bias_type"], "context": cat["context"]}
                sents = {s["gold_label"]: s for s in cat["sentences"]}
            except (KeyError, TypeError) as exc:
                raise DataFormatError(f"{file}: {task} CAT #{i} lacks field {exc}") from exc
            if set(sents) != set(STEREOSET_LABELS) or len(cat["sentences"]) != 3:
                raise DataFormatError(
                    f"{file}: {task} CAT {cat['id']} should have one sentence per gold label "
                    f"{STEREOSET_LABELS}, has {[s.get('gold_label') for s in cat['sentences']]}")
            for label in STEREOSET_LABELS:
                col = label.replace("-", "_")
                try:
                    row[col] = sents[label]["sentence"]
                    row[f"{col}_id"] = sents[label]["id"]
                except KeyError as exc:
                    raise DataFormatError(f"{file}: {task} CAT #{i} lacks field {exc}") from exc
            rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- HolisticBias
HB_NONE = "(none)"
HB_NO_PREFERENCE = "no_data"


def _article(word: str) -> str:
    return "an" if word[0].lower() in "aeiou" else "a"


def _hb_files(version: str, path: str | Path | None):
    if version not in ("v1.0", "v1.1"):
        raise ValueError(f"unknown HolisticBias version {version!r}; choose 'v1.0' or 'v1.1'")
    folder = resolve("holisticbias", path) / version
    out = {}
    for name, kind in (("descriptors", dict), ("nouns", dict), ("sentence_templates", dict),
                       ("standalone_noun_phrases", dict)):
        obj = _read_json(folder / f"{name}.json")
        if not isinstance(obj, kind) or not obj:
            raise DataFormatError(f"{folder / (name + '.json')}: expected a non-empty JSON object")
        out[name] = obj
    for gender, pairs in out["nouns"].items():
        if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise DataFormatError(f"{folder / 'nouns.json'}: {gender} should list [noun, plural] pairs")
    return out


def holistic_bias_noun_phrases(version: str = "v1.0", path: str | Path | None = None) -> pd.DataFrame:
    """Every HolisticBias noun phrase (Smith et al. 2022, §2.1), as the reference generator
    enumerates them (v1.0: 18,382), sorted the same way."""
    f = _hb_files(version, path)
    nouns = [(g, n, pn) for g, pairs in f["nouns"].items() for n, pn in pairs]
    rows = []
    for g, n, pn in nouns:  # bare nouns ("a man") as the control
        rows.append(("null", HB_NONE, HB_NONE, HB_NONE, HB_NONE, n, pn, g,
                     f"{_article(n)} {n}", pn, "noun"))
    for axis, buckets in f["descriptors"].items():
        for bucket, descs in buckets.items():
            for d in descs:
                d = {"descriptor": d} if isinstance(d, str) else d
                desc = d["descriptor"]
                dg = d.get("gender", HB_NONE)
                art = d.get("article", _article(desc))
                pref = d.get("preference", HB_NO_PREFERENCE)
                rows.append((axis, bucket, desc, dg, pref, HB_NONE, HB_NONE, HB_NONE, desc, desc,
                             "descriptor"))
                for g, n, pn in nouns:
                    if dg in (HB_NONE, g):
                        rows.append((axis, bucket, desc, dg, pref, n, pn, g, f"{art} {desc} {n}",
                                     f"{desc} {pn}", "descriptor_noun"))
    for axis, phrases in f["standalone_noun_phrases"].items():
        for obj in phrases:
            obj = {"noun_phrase": obj} if isinstance(obj, str) else obj
            np_, pref = obj["noun_phrase"], obj.get("preference", HB_NO_PREFERENCE)
            pnp = obj.get("plural_noun_phrase", np_)
            if "{noun}" in np_:
                desc = np_.format(article="", noun="").lstrip()
                for g, n, pn in nouns:
                    rows.append((axis, HB_NONE, desc, HB_NONE, pref, n, pn, g,
                                 np_.format(article=_article(n), noun=n),
                                 pnp.format(article="", noun=pn).lstrip(), "noun_descriptor"))
            else:
                rows.append((axis, HB_NONE, np_, HB_NONE, pref, HB_NONE, HB_NONE, "neutral", np_,
                             pnp, "fixed_phrase"))
    cols = ["axis", "bucket", "descriptor", "descriptor_gender", "descriptor_preference", "noun",
            "plural_noun", "noun_gender", "noun_phrase", "plural_noun_phrase", "noun_phrase_type"]
    return pd.DataFrame(rows, columns=cols).sort_values(cols, kind="stable").reset_index(drop=True)


def holistic_bias_sentences(version: str = "v1.0", path: str | Path | None = None) -> pd.DataFrame:
    """Every HolisticBias sentence: noun phrase × compatible template (Smith et al. 2022, §2.1).

    The same set and row count as the reference generator's full enumeration
    (``HolisticBiasSentenceGenerator``; v1.0: 472,991), without stylistic variants (see
    :func:`holistic_bias_stylistic_variants`). Columns: ``text, axis, bucket, descriptor,
    descriptor_gender, descriptor_preference, noun, plural_noun, noun_gender, noun_phrase,
    plural_noun_phrase, noun_phrase_type, template, first_turn_only, must_be_noun``.
    """
    nps = holistic_bias_noun_phrases(version, path)
    templates = _hb_files(version, path)["sentence_templates"]
    parts = []
    for template, specs in templates.items():
        if "{noun_phrase}" in template:
            field = "noun_phrase"
        elif "{plural_noun_phrase}" in template:
            field = "plural_noun_phrase"
        else:
            raise DataFormatError(f"HolisticBias {version}: template {template!r} has no noun phrase field")
        must = bool(specs.get("must_be_noun", False))
        sub = nps[nps["noun"] != HB_NONE] if must else nps
        placeholder = "{" + field + "}"
        part = sub.copy()
        part.insert(0, "text", [template.replace(placeholder, v) for v in sub[field]])
        part["template"] = template
        part["first_turn_only"] = bool(specs.get("first_turn_only", False))
        part["must_be_noun"] = must
        part["_order"] = np.arange(len(sub)) * len(templates) + list(templates).index(template)
        part["_np"] = sub.index.to_numpy()
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    # the reference loops noun phrases in sorted order, then templates in file order
    out = out.sort_values(["_np", "_order"], kind="stable").drop(columns=["_np", "_order"])
    return out.reset_index(drop=True)


def holistic_bias_stylistic_variants(sentences: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Apply the paper's random stylistic variations to each sentence (Smith et al. 2022, §2.1,
    as in the reference ``get_sentence``): each with probability 1/2, "I'm" → "I am", descriptor
    hyphens → spaces, lower-cased noun phrase, final period dropped. Adds the four boolean
    columns and ``variant_noun_phrase``; ``text`` is replaced."""
    rng = np.random.default_rng(seed)
    flags = rng.random((len(sentences), 4)) < 0.5
    out = sentences.copy()
    texts, vnps = [], []
    for (text, tmpl, np_, pnp), (im, hy, low, per) in zip(
            sentences[["text", "template", "noun_phrase", "plural_noun_phrase"]].itertuples(index=False),
            flags):
        vnp = pnp if "{plural_noun_phrase}" in tmpl else np_
        if im:
            text = re.sub(r"\bI'm\b", "I am", text)
        if hy:
            new = vnp.replace("-", " ")
            text = re.sub(rf"\b{re.escape(vnp)}\b", new, text)
            vnp = new
        if low:
            new = vnp.lower()
            text = re.sub(rf"\b{re.escape(vnp)}\b", new, text)
            vnp = new
        if per:
            text = text.rstrip(".")
        texts.append(text)
        vnps.append(vnp)
    out["text"] = texts
    out["remove_im_contraction"], out["remove_descriptor_hyphens"] = flags[:, 0], flags[:, 1]
    out["lowercase_descriptor"], out["remove_final_period"] = flags[:, 2], flags[:, 3]
    out["variant_noun_phrase"] = vnps
    return out


# --------------------------------------------------------------------------- regard
REGARD_SPLITS = ("train", "dev", "test", "train_other")
REGARD_LABELS = {-1: "negative", 0: "neutral", 1: "positive", 2: "other"}


def _read_regard_tsv(file: Path) -> pd.DataFrame:
    rows = []
    text = file.read_text(encoding="utf-8")
    if not text.strip():
        raise DataFormatError(f"{file}: file is empty")
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        label, sep, sentence = line.partition("\t")
        try:
            value = int(label)
        except ValueError:
            value = None
        if not sep or value not in REGARD_LABELS or not sentence.strip():
            raise DataFormatError(
                f"{file}: line {lineno} should be 'LABEL<TAB>text' with LABEL in -1/0/1/2, got {line[:60]!r}")
        rows.append((value, sentence))
    return pd.DataFrame(rows, columns=["label", "text"])


def load_regard_annotations(splits: tuple[str, ...] = REGARD_SPLITS, path: str | Path | None = None,
                            ) -> pd.DataFrame:
    """The regard annotations of Sheng et al. 2019 (§3): columns ``split, label, label_name, text``.

    Labels -1 negative, 0 neutral, 1 positive, 2 other (``train_other`` only); the demographic
    is masked as ``XYZ``. Counts: train 212, dev 60, test 30, train_other 235.
    """
    folder = resolve("regard", path)
    parts = []
    for split in splits:
        if split not in REGARD_SPLITS:
            raise ValueError(f"unknown regard split {split!r}; choose from {', '.join(REGARD_SPLITS)}")
        df = _read_regard_tsv(folder / f"{split}.tsv")
        df.insert(0, "split", split)
        parts.append(df)
    out = pd.concat(parts, ignore_index=True)
    out.insert(2, "label_name", out["label"].map(REGARD_LABELS))
    return out


def load_regard_prompts(path: str | Path | None = None) -> pd.DataFrame:
    """Regard prompts (Sheng et al. 2019, Table 1): demographic × template, with the context
    (``respect`` or ``occupation``). Columns ``demographic, context, template, prompt``."""
    folder = resolve("regard", path)
    demos = [d.strip() for d in (folder / "demographics.txt").read_text().splitlines() if d.strip()]
    tmpl = pd.read_csv(folder / "templates.tsv", sep="\t")
    if list(tmpl.columns) != ["context", "template"]:
        raise DataFormatError(f"{folder / 'templates.tsv'}: expected columns context, template")
    rows = [(d, c, t, t.replace("XYZ", d)) for d in demos for c, t in tmpl.itertuples(index=False)]
    return pd.DataFrame(rows, columns=["demographic", "context", "template", "prompt"])
