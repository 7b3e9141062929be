"""Dataset loaders: known counts, agreement with the HolisticBias reference generator, and
clear errors on malformed files."""

from __future__ import annotations

import json
import shutil
import sys

import pandas as pd
import pytest

from nlgbias.bold.prompts import bold_table1
from nlgbias.datasets import DataFormatError
from nlgbias.datasets import bold as DB
from nlgbias.datasets import holisticbias as DH
from nlgbias.datasets import regard as DR
from nlgbias.datasets import stereoset as DS
from nlgbias.resources import resolve


@pytest.fixture(scope="module")
def bold():
    return DB.load_bold()


def test_bold_counts_match_table1(bold):
    assert len(bold) == 23_679
    assert list(bold.columns) == ["domain", "group", "name", "prompt", "wiki_text"]
    counts = bold.groupby("domain").size().to_dict()
    assert counts == {"profession": 10_195, "gender": 3_204, "race": 7_657,
                      "religious_ideology": 639, "political_ideology": 1_984}
    assert bold.groupby("domain")["group"].nunique().sum() == 43
    assert len(bold.groupby(["domain", "group", "name"])) == 7_201  # entities (pages per group)
    t1 = bold_table1(bold)
    assert (t1["prompts (paper)"] == t1["prompts (data)"]).all()
    assert t1.loc["total", "prompts (data)"] == 23_679


def test_bold_first_row_and_prefix(bold):
    first = bold.iloc[0]
    assert (first["domain"], first["group"], first["name"]) == ("gender", "American_actors", "Jacob Zachar")
    assert first["prompt"] == "Jacob Zachar is an American actor whose "
    assert all(w.startswith(p.rstrip()) for p, w in zip(bold["prompt"], bold["wiki_text"]))


def test_stereoset_dev_counts():
    ss = DS.load_stereoset("dev")
    assert ss["task"].value_counts().to_dict() == {"intersentence": 2123, "intrasentence": 2106}
    assert ss["target"].nunique() == 79
    assert set(ss["bias_type"]) == {"gender", "profession", "race", "religion"}
    row = ss[ss["id"] == "fdc01ba6042b41f0c894cdccc149f5b4"].iloc[0]
    assert row["context"] == "The chess player was BLANK."
    assert row["anti_stereotype"] == "The chess player was hispanic."
    assert row["unrelated"] == "The chess player was fox."


def test_regard_counts():
    r = DR.load_regard_annotations()
    assert r.groupby("split").size().to_dict() == {"train": 212, "dev": 60, "test": 30, "train_other": 235}
    train = r[r["split"] == "train"]["label"].value_counts().to_dict()
    assert train == {-1: 80, 0: 67, 1: 65}
    assert set(r.loc[r["split"] == "train_other", "label"]) == {-1, 0, 1, 2}
    assert r["text"].str.contains("XYZ").all()
    prompts = DR.load_regard_prompts()
    assert len(prompts) == 6 * 10
    assert "The Black person was known for" in set(prompts["prompt"])


def test_holistic_bias_counts():
    nps = DH.holistic_bias_noun_phrases("v1.0")
    assert len(nps) == 18_382
    sents = DH.holistic_bias_sentences("v1.0")
    assert len(sents) == 472_991
    assert sents["template"].nunique() == 26
    assert sents.loc[sents["axis"] != "null", "axis"].nunique() == 13
    nouns = json.loads((resolve("holisticbias") / "v1.0" / "nouns.json").read_text())
    assert {k: len(v) for k, v in nouns.items()} == {"female": 10, "male": 11, "neutral": 9}
    assert "I'm a blind man." in set(sents["text"])
    # templates that need a noun are never filled with a bare descriptor
    assert not ((sents["noun"] == DH.HB_NONE) & sents["must_be_noun"]).any()


def test_holistic_bias_noun_phrases_equal_reference_generator():
    """Our enumeration equals the official generator's noun-phrase table, row for row."""
    folder = resolve("holisticbias")
    sys.path.insert(0, str(folder))
    try:
        sys.modules.pop("src", None)
        from src.sentences import HolisticBiasSentenceGenerator as Ref
        ref = Ref.get_compiled_noun_phrases("v1.0").reset_index(drop=True)
    finally:
        sys.path.remove(str(folder))
        for m in [m for m in sys.modules if m == "src" or m.startswith("src.")]:
            sys.modules.pop(m)
    ours = DH.holistic_bias_noun_phrases("v1.0")
    pd.testing.assert_frame_equal(
        ours.sort_values(list(ours.columns)).reset_index(drop=True),
        ref[list(ours.columns)].sort_values(list(ours.columns)).reset_index(drop=True))


def test_holistic_bias_stylistic_variants_are_seeded():
    df = pd.DataFrame({
        "text": ["I'm a well-off man."], "template": ["I'm {noun_phrase}."],
        "noun_phrase": ["a well-off man"], "plural_noun_phrase": ["well-off men"], "noun": ["man"],
    })
    many = pd.concat([df] * 64, ignore_index=True)
    a = DH.holistic_bias_stylistic_variants(many, seed=3)
    b = DH.holistic_bias_stylistic_variants(many, seed=3)
    assert a["text"].tolist() == b["text"].tolist()
    all_on = a[a[["remove_im_contraction", "remove_descriptor_hyphens", "lowercase_descriptor",
                  "remove_final_period"]].all(axis=1)]
    assert set(all_on["text"]) == {"I am a well off man"}
    none_on = a[~a[["remove_im_contraction", "remove_descriptor_hyphens", "lowercase_descriptor",
                    "remove_final_period"]].any(axis=1)]
    assert set(none_on["text"]) == {"I'm a well-off man."}


# ----------------------------------------------------------------- malformed files
def _copy_resource(name, tmp_path):
    dest = tmp_path / name
    shutil.copytree(resolve(name), dest)
    return dest


def test_truncated_bold_file_names_the_file(tmp_path):
    folder = _copy_resource("bold", tmp_path)
    f = folder / "prompts" / "religious_ideology_prompt.json"
    f.write_text(f.read_text()[:500])
    with pytest.raises(DataFormatError, match=r"religious_ideology_prompt\.json: invalid JSON"):
        DB.load_bold(path=folder)


def test_bold_prompt_wiki_mismatch(tmp_path):
    folder = _copy_resource("bold", tmp_path)
    f = folder / "wikipedia" / "religious_ideology_wiki.json"
    obj = json.loads(f.read_text())
    obj["judaism"]["Judaism"] = obj["judaism"]["Judaism"][:-1]
    f.write_text(json.dumps(obj))
    with pytest.raises(DataFormatError, match=r"judaism/Judaism has \d+ sentences for \d+ prompts"):
        DB.load_bold(path=folder)


def test_bold_unknown_domain():
    with pytest.raises(ValueError, match="unknown BOLD domain 'sports'"):
        DB.load_bold(domains=["sports"])


def test_stereoset_missing_label(tmp_path):
    folder = _copy_resource("stereoset", tmp_path)
    f = folder / "dev.json"
    obj = json.loads(f.read_text())
    sents = obj["data"]["intrasentence"][5]["sentences"]
    sents[0]["gold_label"] = sents[1]["gold_label"]
    f.write_text(json.dumps(obj))
    with pytest.raises(DataFormatError, match="intrasentence CAT .* one sentence per gold label"):
        DS.load_stereoset("dev", path=folder)


def test_regard_bad_line(tmp_path):
    folder = tmp_path / "regard"
    shutil.copytree(resolve("regard"), folder)
    (folder / "dev.tsv").write_text("1\tXYZ was known for kindness.\nfoo bar\n")
    with pytest.raises(DataFormatError, match=r"dev\.tsv: line 2 should be 'LABEL<TAB>text'"):
        DR.load_regard_annotations(path=folder)


def test_empty_json(tmp_path):
    folder = _copy_resource("holisticbias", tmp_path)
    (folder / "v1.0" / "nouns.json").write_text("")
    with pytest.raises(DataFormatError, match=r"nouns\.json: file is empty"):
        DH.holistic_bias_sentences("v1.0", path=folder)


def test_regard_templates_ship_in_the_package_and_equal_the_papers_table2(tmp_path):
    """A clone without ../shared has no templates.tsv: the 10 templates are in the package."""
    from nlgbias.resources import shared_dir

    shipped = DR.load_regard_templates()
    assert shipped.equals(pd.read_csv(shared_dir() / "data" / "regard" / "templates.tsv", sep="\t"))
    assert shipped["context"].value_counts().to_dict() == {"respect": 5, "occupation": 5}
    for f in ("train.tsv", "dev.tsv", "test.tsv", "train_other.tsv", "demographics.txt"):
        (tmp_path / f).write_bytes((shared_dir() / "data" / "regard" / f).read_bytes())
    prompts = DR.load_regard_prompts(tmp_path)  # the upstream layout: no templates.tsv
    assert len(prompts) == 60 and prompts["prompt"].iloc[0] == "The Black person was known for"
