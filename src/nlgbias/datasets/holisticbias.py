"""HolisticBias (Smith et al. 2022, §2): descriptors, nouns, templates and the sentences the
reference generator builds from them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.datasets.base import DataFormatError, _read_json
from nlgbias.resources import resolve

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


def holistic_bias_counts(version: str = "v1.0", path: str | Path | None = None) -> dict:
    """Table 2 quantities of a version: descriptor entries (``descriptors.json``), standalone
    noun phrases, distinct descriptor strings over both, axes, templates, nouns, noun phrases and
    sentences (as the reference generator enumerates them, without stylistic variants)."""
    f = _hb_files(version, path)
    nps = holistic_bias_noun_phrases(version, path)
    return {"version": version,
            "descriptor_entries": sum(len(v) for b in f["descriptors"].values() for v in b.values()),
            "standalone_noun_phrases": sum(len(v) for v in f["standalone_noun_phrases"].values()),
            "distinct_terms": int(nps.loc[nps["axis"] != "null", "descriptor"].nunique()),
            "axes": len(f["descriptors"]), "templates": len(f["sentence_templates"]),
            "nouns": sum(len(p) for p in f["nouns"].values()), "noun_phrases": len(nps),
            "sentences": len(holistic_bias_sentences(version, path))}


def sample_sentences(sentences: pd.DataFrame, *, descriptors_per_axis: int | None = None,
                     templates: int | list[str] | None = None, nouns: int | None = None,
                     seed: int = 0, keep_control: bool = False,
                     templates_per_descriptor: int | None = None,
                     complete_cells: bool = False) -> pd.DataFrame:
    """A seeded sample of HolisticBias sentences that keeps every axis.

    ``descriptors_per_axis``: descriptors drawn per axis (None: all); ``templates``: a number of
    templates drawn, or a list of templates, or None (all); ``nouns``: sentences drawn per
    (descriptor, template), i.e. nouns (None: all); ``templates_per_descriptor``: each
    (axis, descriptor) keeps only that many of the chosen templates, drawn at random (every
    descriptor appears, the templates rotate among them: Figure 2 on all descriptors at a
    fraction of the cost of every template). ``complete_cells``: descriptors are drawn only
    among those with at least ``nouns`` sentences under every chosen template, so every
    (template, descriptor) cell holds ``nouns`` sentences (a standalone noun phrase such as a
    fixed phrase takes no noun and has one sentence per template). The control axis ``null`` (bare nouns) is
    dropped unless ``keep_control``. Adds a stable ``prompt_id`` (``hb-`` + 12 hex digits of
    the sentence's axis, text, template and noun phrase; a descriptor listed on two axes keeps
    a row on each), sorted by axis, descriptor, template.
    """
    import hashlib

    rng = np.random.default_rng(seed)
    df = sentences if keep_control else sentences[sentences["axis"] != "null"]
    all_t = list(dict.fromkeys(df["template"]))
    if templates is None:
        chosen_t = all_t
    elif isinstance(templates, int):
        if not 1 <= templates <= len(all_t):
            raise ValueError(f"templates={templates}: choose 1..{len(all_t)}")
        chosen_t = [all_t[i] for i in sorted(rng.choice(len(all_t), templates, replace=False))]
    else:
        unknown = sorted(set(templates) - set(all_t))
        if unknown:
            raise ValueError(f"unknown template(s) {unknown}; HolisticBias has {all_t}")
        chosen_t = list(templates)
    df = df[df["template"].isin(chosen_t)]
    if complete_cells:
        if nouns is None:
            raise ValueError("complete_cells needs a number of nouns per cell")
        size = df.groupby(["axis", "descriptor", "template"]).size()
        per = size.groupby(level=[0, 1]).agg(["min", "size"])
        ok = per[(per["min"] >= nouns) & (per["size"] == len(chosen_t))].index
        df = df[pd.MultiIndex.from_frame(df[["axis", "descriptor"]]).isin(ok)]
    if descriptors_per_axis is not None:
        if descriptors_per_axis < 1:
            raise ValueError("descriptors_per_axis must be >= 1 or None")
        keep = []
        for ax, g in df.groupby("axis", sort=True):
            d = sorted(g["descriptor"].unique())
            k = min(descriptors_per_axis, len(d))
            keep += [(ax, d[i]) for i in sorted(rng.choice(len(d), k, replace=False))]
        pairs = pd.MultiIndex.from_frame(df[["axis", "descriptor"]])
        df = df[pairs.isin(keep)]
    if templates_per_descriptor is not None:
        if templates_per_descriptor < 1:
            raise ValueError("templates_per_descriptor must be >= 1 or None")
        keep_t = []
        for (ax, d), g in df.groupby(["axis", "descriptor"], sort=True):
            ts = list(dict.fromkeys(g["template"]))
            k = min(templates_per_descriptor, len(ts))
            keep_t += [(ax, d, ts[i]) for i in sorted(rng.choice(len(ts), k, replace=False))]
        df = df[pd.MultiIndex.from_frame(df[["axis", "descriptor", "template"]]).isin(keep_t)]
    if nouns is not None:
        if nouns < 1:
            raise ValueError("nouns must be >= 1 or None")
        order = rng.permutation(len(df))
        df = df.iloc[order]
        df = df[df.groupby(["descriptor", "template"], sort=False).cumcount() < nouns]
    df = df.sort_values(["axis", "descriptor", "template", "noun_phrase"], kind="stable").copy()
    df["prompt_id"] = ["hb-" + hashlib.sha1(f"{ax}\x1f{t}\x1f{tp}\x1f{np_}".encode()).hexdigest()[:12]
                       for ax, t, tp, np_ in zip(df["axis"], df["text"], df["template"],
                                                 df["noun_phrase"])]
    if df["prompt_id"].duplicated().any():
        df = df.drop_duplicates("prompt_id")
    return df.reset_index(drop=True)
