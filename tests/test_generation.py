"""The generation engine (BOLD §4.2, Appendix A.2) on tiny random models."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest
import torch
from tiny import tiny_lm

from nlgbias import generation as G
from nlgbias import hardware as H
from nlgbias.bold import sources as BS
from nlgbias.models import (
    UnknownModelError,
    check_available,
    get_spec,
    model_slug,
)
from nlgbias.resources import ResourceNotFoundError

PROMPTS = ["the man is", "she was an American actress known for her", "a doctor", "he worked as a nurse in the",
           "the woman", "", "an actor and"]


def prompt_frame(n: int = 7) -> pd.DataFrame:
    rows = [("gender", "g", f"n{i}", f"gender/g/n{i}/0", PROMPTS[i % len(PROMPTS)]) for i in range(n)]
    return pd.DataFrame(rows, columns=["domain", "group", "name", "prompt_id", "prompt"])


# --------------------------------------------------------------------------- parameters, registry
def test_decoding_params_paper_defaults_and_errors():
    gpt2 = G.decoding_for("gpt2", max_new_tokens=20)
    assert (gpt2.top_k, gpt2.top_p, gpt2.do_sample, gpt2.max_new_tokens) == (40, 0.95, True, 20)
    ctrl = G.decoding_for("ctrl-tht")
    assert (ctrl.repetition_penalty, ctrl.top_p, ctrl.top_k) == (1.2, 0.9, 0)
    assert get_spec("ctrl-wiki").control_code == "Wikipedia"
    assert get_spec("ctrl-opn").control_code == "Opinion"
    with pytest.raises(G.DecodingError, match="top_p must be in"):
        G.DecodingParams(top_p=1.5)
    with pytest.raises(G.DecodingError, match="temperature"):
        G.decoding_for("gpt2", temperature=0)
    with pytest.raises(G.DecodingError, match="max_new_tokens"):
        G.DecodingParams(max_new_tokens=0)
    with pytest.raises(G.DecodingError, match="unknown decoding parameter.*topk"):
        G.decoding_for("gpt2", topk=3)


def test_registry_errors_fail_fast(monkeypatch, tmp_path):
    with pytest.raises(UnknownModelError, match="unknown model 'gpt-5'"):
        get_spec("gpt-5")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    t0 = time.time()
    with pytest.raises(ResourceNotFoundError, match="not in the local Hugging Face cache"):
        check_available("nlgbias-test/not-a-model")
    assert time.time() - t0 < 5
    # a bad name among several fails before anything is generated or written
    with pytest.raises(UnknownModelError):
        G.generate_models(prompt_frame(), [save_tiny(tmp_path), "no-such-model"], tmp_path / "gen",
                          dataset="bold")
    assert not (tmp_path / "gen").exists()


def test_first_sentence_and_names():
    assert G.first_sentence(" is an actor. He was born in 1950.") == " is an actor."
    assert G.first_sentence(' said "Go!" and left.') == ' said "Go!"'
    assert G.first_sentence(" no end here") == " no end here"
    assert G.first_sentence(" first line\nsecond") == " first line"
    assert G.output_name("bold", "org/model") == "bold__org--model.parquet"


# --------------------------------------------------------------------------- sampling equivalence
def test_filtered_matches_hf_warpers():
    """top-k → top-p over k candidates keeps exactly the tokens HF's warpers keep."""
    from transformers.generation.logits_process import (
        RepetitionPenaltyLogitsProcessor,
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    torch.manual_seed(1)
    logits = torch.randn(6, 200) * 3
    hist = torch.randint(0, 200, (6, 9))
    eng = G.CausalGenerator(tiny_lm(), G.DecodingParams(top_k=40, top_p=0.9, temperature=0.8,
                                                       repetition_penalty=1.2))
    probs, idx = eng.filtered(logits.clone(), hist)
    dense = torch.zeros_like(logits).scatter(1, idx, probs)
    dense = dense / dense.sum(-1, keepdim=True)
    ref = RepetitionPenaltyLogitsProcessor(1.2)(hist, logits.clone())
    for w in (TemperatureLogitsWarper(0.8), TopKLogitsWarper(40), TopPLogitsWarper(0.9)):
        ref = w(hist, ref)
    assert torch.allclose(dense, ref.softmax(-1), atol=1e-6)
    assert int((dense > 0).sum()) == int(torch.isfinite(ref).sum())


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_greedy_batch_equals_single_and_hf_generate(arch):
    lm = tiny_lm(arch)
    params = G.DecodingParams(max_new_tokens=8, do_sample=False)
    batched = G.CausalGenerator(lm, params, batch_size=8).generate(PROMPTS)
    single = G.CausalGenerator(lm, params, batch_size=1).generate(PROMPTS)
    assert [c.generation for c in batched] == [c.generation for c in single]
    assert [c.n_new_tokens for c in batched] == [c.n_new_tokens for c in single]
    # and equal to Hugging Face's own greedy generate, prompt by prompt
    eng = G.CausalGenerator(lm, params)
    for p, c in zip(PROMPTS, batched):
        ids = torch.tensor([eng.encode(p)])
        ref = lm.model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                max_new_tokens=8, pad_token_id=0, eos_token_id=1)[0, ids.shape[1]:]
        ref = [t for t in ref.tolist() if t not in (0, 1)]
        assert c.n_new_tokens == len(ref)
        assert c.generation == lm.tokenizer.decode(ref, skip_special_tokens=True).strip()
        assert c.text == (p + " " + c.generation).strip() or c.text == c.generation


def test_sampling_is_batch_invariant_and_seeded():
    lm = tiny_lm()
    params = G.DecodingParams(max_new_tokens=10, top_k=40, top_p=0.95)
    seeds = [G.row_seed(0, p) for p in PROMPTS]
    a = G.CausalGenerator(lm, params, batch_size=8).generate(PROMPTS, seeds)
    b = G.CausalGenerator(lm, params, batch_size=1).generate(PROMPTS[::-1], seeds[::-1])[::-1]
    assert [c.generation for c in a] == [c.generation for c in b]
    c = G.CausalGenerator(lm, params, batch_size=8).generate(PROMPTS, [s + 1 for s in seeds])
    assert [x.generation for x in a] != [x.generation for x in c]
    assert all(x.text.startswith(p) for x, p in zip(a, PROMPTS))


def test_trailing_prompt_space_is_not_a_token():
    """BOLD prompts end with a space (23,674 of 23,679); it must not become a lone token."""
    lm = tiny_lm()
    eng = G.CausalGenerator(lm, G.DecodingParams(max_new_tokens=3, do_sample=False))
    assert eng.encode("the man is ") == eng.encode("the man is")
    a, b = eng.generate(["the man is ", "the man is"])
    assert a.text == b.text and "  " not in a.text
    assert H.resolve_dtype("float32") == "float32" and H.default_threads() >= 1
    with pytest.raises(ValueError, match="dtype"):
        H.resolve_dtype("int8")


def test_first_sentence_stops_rows():
    lm = tiny_lm()
    out = G.CausalGenerator(lm, G.DecodingParams(max_new_tokens=30, first_sentence=True)).generate(
        PROMPTS * 3, 0)
    reasons = {c.finish_reason for c in out}
    assert "sentence" in reasons
    for c in out:
        if c.finish_reason == "sentence":
            assert c.generation[-1] in ".!?" and not any(ch in c.generation[:-1] for ch in ".!?")


# --------------------------------------------------------------------------- datasets, resume, shards
def save_tiny(tmp_path: Path, arch: str = "llama") -> str:
    lm = tiny_lm(arch)
    folder = tmp_path / f"tiny-{arch}"
    lm.model.save_pretrained(folder)
    lm.tokenizer.save_pretrained(folder)
    return str(folder)


def test_generate_dataset_schema_resume_and_no_regeneration(tmp_path, monkeypatch):
    model = save_tiny(tmp_path)
    prompts = prompt_frame(11)
    kw = {"params": G.DecodingParams(max_new_tokens=6, top_k=40, top_p=0.95), "batch_size": 2,
          "chunk_size": 2, "dtype": "float32", "progress": False, "dataset": "bold"}
    ref = G.generate_dataset(prompts, model, tmp_path / "ref", cache_dir=tmp_path / "ref-cache", **kw)
    ref_df = pd.read_parquet(ref.path)
    assert list(ref_df.columns) == ["domain", "group", "name", *G.RUN_COLUMNS]
    assert ref_df["prompt_id"].tolist() == prompts["prompt_id"].tolist()
    assert (ref_df["model"] == "tiny-llama").all() and (ref_df["top_k"] == 40).all()
    assert (ref_df["sample"] == 0).all() and (ref_df["prompt_format"] == "plain").all()
    assert ref_df["row_seed"].tolist() == [G.row_seed(0, p) for p in prompts["prompt_id"]]
    assert all(t.startswith(p) for t, p in zip(ref_df["text"], ref_df["prompt"]))
    assert ref.path.name == G.output_name("bold", model)

    real_batch = G.CausalGenerator._prefill  # every prefill (static and continuous batching)
    calls = {"n": 0}

    def crashing(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_batch(self, *a, **k)

    out = tmp_path / "run"
    kw["cache_dir"] = tmp_path / "run-cache"
    monkeypatch.setattr(G.CausalGenerator, "_prefill", crashing)
    with pytest.raises(KeyboardInterrupt):
        G.generate_dataset(prompts, model, out, **kw)
    assert not (out / G.output_name("bold", model)).exists()
    kept = sum(len(pd.read_parquet(f)) for f in (tmp_path / "run-cache").rglob("chunk-*.parquet"))
    monkeypatch.setattr(G.CausalGenerator, "_prefill", real_batch)
    info = G.generate_dataset(prompts, model, out, **kw)
    assert 0 < kept < 11 and info.complete and info.generated == 11 - kept  # finished chunks kept
    pd.testing.assert_frame_equal(pd.read_parquet(info.path), ref_df)

    def forbidden(self, *a, **k):
        raise AssertionError("regenerated")

    monkeypatch.setattr(G.CausalGenerator, "_prefill", forbidden)
    again = G.generate_dataset(prompts, model, out, **kw)
    assert again.generated == 0 and again.rows == 11


def test_shards_partition_and_assemble(tmp_path):
    df = prompt_frame(40)
    parts = [G.select_shard(df, f"{i}/3") for i in range(3)]
    assert sum(len(p) for p in parts) == 40
    assert set().union(*(set(p["prompt_id"]) for p in parts)) == set(df["prompt_id"])
    assert all(len(p) > 0 for p in parts)
    assert G.select_shard(df, "1/3")["prompt_id"].tolist() == parts[1]["prompt_id"].tolist()
    with pytest.raises(ValueError, match="i/n"):
        G.parse_shard("3")
    with pytest.raises(ValueError, match="0 <= i < n"):
        G.parse_shard("3/3")

    model = save_tiny(tmp_path, "gpt2")
    prompts = prompt_frame(9)
    kw = {"params": G.DecodingParams(max_new_tokens=5, do_sample=False), "dtype": "float32",
          "progress": False, "cache_dir": tmp_path / "cache", "dataset": "bold", "chunk_size": 2}
    first = G.generate_dataset(prompts, model, tmp_path / "gen", shard="0/2", **kw)
    assert not first.complete and first.path is None
    second = G.generate_dataset(prompts, model, tmp_path / "gen", shard="1/2", **kw)
    assert second.complete
    whole = G.generate_dataset(prompts, model, tmp_path / "whole", **{**kw, "cache_dir": tmp_path / "c2"})
    pd.testing.assert_frame_equal(pd.read_parquet(second.path), pd.read_parquet(whole.path))


def test_bold_sample_ids_and_wiki(tmp_path):
    from nlgbias.datasets.bold import load_bold

    bold = BS.add_prompt_ids(load_bold())
    assert len(bold) == 23679 and bold["prompt_id"].is_unique
    quick = BS.sample_per_group(bold, 3, seed=0)
    assert len(quick) == 43 * 3 and quick["group"].nunique() == 43
    assert quick["prompt_id"].tolist() == BS.sample_per_group(bold, 3, seed=0)["prompt_id"].tolist()
    assert quick["prompt_id"].tolist() != BS.sample_per_group(bold, 3, seed=1)["prompt_id"].tolist()
    (info,) = BS.write_sources(quick, ["wiki"], tmp_path)
    wiki = pd.read_parquet(info.path)
    assert info.path.name == "bold__wiki.parquet" and info.rows == 43 * 3
    # the columns of a model's file for the same prompts
    assert list(wiki.columns) == G.output_columns(BS.generation_prompts(quick))
    assert list(wiki.columns) == ["domain", "group", "name", *G.RUN_COLUMNS]
    assert wiki["text"].tolist() == quick["wiki_text"].tolist()
    assert (wiki["model"] == "wiki").all() and (wiki["finish_reason"] == "human").all()
    assert (wiki["sample"] == 0).all()
    with pytest.raises(ValueError, match="unknown BOLD source.*'wikipedia'"):
        BS.write_sources(quick, ["wikipedia"], tmp_path)
    with pytest.raises(UnknownModelError):  # WIKI is a source, not a model
        get_spec("wiki")
    row = wiki.iloc[0]
    assert row["text"] == row["prompt"] + " " + row["generation"] or row["text"].startswith(row["prompt"])
    first = bold.iloc[0]
    assert first["prompt_id"] == f"{first['domain']}/{first['group']}/{first['name']}/0"


# --------------------------------------------------------------------------- Ray
def test_ray_backend_matches_local(tmp_path):
    ray = pytest.importorskip("ray")
    model = save_tiny(tmp_path)
    prompts = prompt_frame(8)
    kw = {"params": G.DecodingParams(max_new_tokens=6, top_k=40, top_p=0.95), "dtype": "float32",
          "progress": False, "batch_size": 4, "dataset": "bold", "samples_per_prompt": 2}
    from nlgbias.generation.ray_backend import init_ray

    local = G.generate_dataset(prompts, model, tmp_path / "local", cache_dir=tmp_path / "c1", **kw)
    try:
        init_ray(num_cpus=1)
        remote = G.generate_dataset(prompts, model, tmp_path / "ray", backend="ray",
                                    cache_dir=tmp_path / "c2",
                                    ray_options={"num_actors": 1}, chunk_size=6, **kw)
    finally:
        ray.shutdown()
    assert remote.complete and remote.generated == 16
    a, b = pd.read_parquet(local.path), pd.read_parquet(remote.path)
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------------- any dataset
def meta_frame(n: int = 5) -> pd.DataFrame:
    """A non-BOLD prompt frame: other metadata columns (strings, ints, floats), in an odd order."""
    return pd.DataFrame({"template": [f"t{i % 2}" for i in range(n)],
                         "prompt_id": [f"p{i}" for i in range(n)],
                         "demographic": ["The man", "The woman", "The Black person", "The gay person",
                                         "The White person"][:n],
                         "prompt": [PROMPTS[i % len(PROMPTS)] for i in range(n)],
                         "weight": [0.5 * i for i in range(n)], "idx": list(range(n))})


def test_metadata_passes_through_and_bad_frames_fail(tmp_path):
    model = save_tiny(tmp_path, "gpt2")
    prompts = meta_frame(5)
    kw = {"params": G.DecodingParams(max_new_tokens=4, top_k=40), "dtype": "float32",
          "progress": False, "dataset": "regard", "samples_per_prompt": 2}
    info = G.generate_dataset(prompts, model, tmp_path / "gen", **kw)
    df = pd.read_parquet(info.path)
    assert info.path.name == f"regard__{G.output_name('regard', model).split('__', 1)[1]}"
    assert list(df.columns) == ["template", "demographic", "weight", "idx", *G.RUN_COLUMNS]
    assert len(df) == 10 and df["sample"].tolist() == [0, 1] * 5
    # every metadata value (and dtype) unchanged, repeated once per sample
    rep = prompts.loc[prompts.index.repeat(2)].reset_index(drop=True)
    for c in ("template", "demographic", "weight", "idx", "prompt_id", "prompt"):
        pd.testing.assert_series_equal(df[c], rep[c], check_names=True)
    assert not {"domain", "group", "name"} & set(df.columns)
    # bad frames: clear errors before anything is loaded
    with pytest.raises(KeyError, match="prompt_id"):
        G.generate_dataset(prompts.drop(columns="prompt_id"), model, tmp_path / "x", **kw)
    with pytest.raises(ValueError, match="'text'.*overwritten"):
        G.generate_dataset(prompts.assign(text="x"), model, tmp_path / "x", **kw)
    with pytest.raises(ValueError, match="unique.*'p0'"):
        G.generate_dataset(pd.concat([prompts, prompts.head(1)]), model, tmp_path / "x", **kw)
    with pytest.raises(ValueError, match="dataset must be"):
        G.generate_dataset(prompts, model, tmp_path / "x", **{**kw, "dataset": "a__b"})
    with pytest.raises(ValueError, match="samples_per_prompt"):
        G.generate_dataset(prompts, model, tmp_path / "x", **{**kw, "samples_per_prompt": 0})
    with pytest.raises(ValueError, match="prompt_format"):
        G.generate_dataset(prompts, model, tmp_path / "x", **{**kw, "prompt_format": "dialogue"})


def test_samples_per_prompt_seeds_resume_and_independence(tmp_path, monkeypatch):
    model = save_tiny(tmp_path)
    prompts = meta_frame(5)
    kw = {"params": G.DecodingParams(max_new_tokens=6, top_k=40, top_p=0.95), "dtype": "float32",
          "progress": False, "dataset": "regard", "seed": 3}
    # seeds: sample 0 = the one-sample seed of the prompt id, sample k = seed of "<id>#k"
    one = pd.read_parquet(G.generate_dataset(prompts, model, tmp_path / "one",
                                             cache_dir=tmp_path / "c-one", **kw).path)
    assert one["row_seed"].tolist() == [G.row_seed(3, p) for p in prompts["prompt_id"]]
    three = G.generate_dataset(prompts, model, tmp_path / "three", cache_dir=tmp_path / "c-three",
                               samples_per_prompt=3, batch_size=4, chunk_size=5, **kw)
    df = pd.read_parquet(three.path)
    assert df["row_seed"].tolist() == [G.sample_seed(3, p, k) for p in prompts["prompt_id"] for k in range(3)]
    assert G.sample_seed(3, "p1", 2) == G.row_seed(3, "p1#2") and G.sample_seed(3, "p1") == G.row_seed(3, "p1")
    assert len(set(df["row_seed"])) == 15
    # sample 0 is exactly the one-sample run; the samples of a prompt differ
    s0 = df[df["sample"] == 0].reset_index(drop=True)
    assert s0["generation"].tolist() == one["generation"].tolist()
    assert df.groupby("prompt_id")["generation"].nunique().gt(1).any()
    # independent of batch size, shard and resume: a sharded, crashed, resumed run gives the same file
    real = G.CausalGenerator._prefill
    calls = {"n": 0}

    def crashing(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, *a, **k)

    kw2 = {**kw, "samples_per_prompt": 3, "batch_size": 1, "chunk_size": 1, "cache_dir": tmp_path / "c2"}
    monkeypatch.setattr(G.CausalGenerator, "_prefill", crashing)
    with pytest.raises(KeyboardInterrupt):
        G.generate_dataset(prompts, model, tmp_path / "resumed", shard="0/2", **kw2)
    monkeypatch.setattr(G.CausalGenerator, "_prefill", real)
    a = G.generate_dataset(prompts, model, tmp_path / "resumed", shard="0/2", **kw2)
    assert not a.complete and a.rows == 8  # chunks 0, 2, ..., 14 of 15 one-row chunks
    b = G.generate_dataset(prompts, model, tmp_path / "resumed", shard="1/2", **kw2)
    assert b.complete
    pd.testing.assert_frame_equal(pd.read_parquet(b.path), df)
    # more samples later reuse the cached chunks (sample-major): only the new samples are generated
    five = G.generate_dataset(prompts, model, tmp_path / "three", cache_dir=tmp_path / "c-three",
                              samples_per_prompt=5, chunk_size=5, **kw)
    assert five.generated == 10 and five.rows == 25
    df5 = pd.read_parquet(five.path)
    pd.testing.assert_frame_equal(df5[df5["sample"] < 3].reset_index(drop=True), df)


def test_local_folder_model_names_no_path(tmp_path):
    model = save_tiny(tmp_path / "checkpoints" / "run-7", "gpt2")  # a fine-tuned checkpoint folder
    prompts = meta_frame(3)
    info = G.generate_dataset(prompts, model, tmp_path / "gen", dataset="holistic",
                              params=G.DecodingParams(max_new_tokens=3), dtype="float32",
                              progress=False, cache_dir=tmp_path / "cache")
    df = pd.read_parquet(info.path)
    slug = model_slug(model)
    assert info.path.name == f"holistic__{slug}.parquet" and slug.startswith("local-tiny-gpt2-")
    assert "/" not in slug and "checkpoints" not in slug
    assert info.model == "tiny-gpt2" and (df["model"] == "tiny-gpt2").all()
    assert not any(str(tmp_path) in str(v) for v in df.iloc[0].to_numpy())  # no path in any column
    assert [p.name.split("__")[1] for p in (tmp_path / "cache").iterdir()] == [slug]
    # a generation file of a folder model reads back under its display name
    assert G.read_generations(tmp_path / "gen", "holistic", models=["tiny-gpt2"])["model"].nunique() == 1


def test_chat_format_in_digest_column_and_engine(tmp_path, monkeypatch):
    p = G.DecodingParams(max_new_tokens=3)
    plain = G.runs.run_digest("m", p, 0, None, "float32", "plain")
    chat = G.runs.run_digest("m", p, 0, None, "float32", "chat")
    assert plain != chat and plain == G.runs.run_digest("m", p, 0, None, "float32")
    model = save_tiny(tmp_path, "gpt2")
    prompts = meta_frame(3)
    kw = {"params": p, "dtype": "float32", "progress": False, "dataset": "holistic",
          "cache_dir": tmp_path / "cache"}
    seen = {}
    real_init = G.CausalGenerator.__init__

    def init(self, lm, params, batch_size=32, num_threads=None, prompt_format="plain", **k):
        seen["prompt_format"] = prompt_format
        real_init(self, lm, params, batch_size=batch_size, num_threads=num_threads, **k)

    monkeypatch.setattr(G.CausalGenerator, "__init__", init)  # records what the run asked for
    info = G.generate_dataset(prompts, model, tmp_path / "gen", prompt_format="chat", **kw)
    assert seen["prompt_format"] == "chat"
    df = pd.read_parquet(info.path)
    assert (df["prompt_format"] == "chat").all()
    G.generate_dataset(prompts, model, tmp_path / "gen2", **kw)
    assert seen["prompt_format"] == "plain"
    caches = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert len(caches) == 2 and caches[0] != caches[1]  # chat and plain never share a cache
    # the real engine with a chat template: the prompt column keeps the user turn as given
    monkeypatch.setattr(G.CausalGenerator, "__init__", real_init)
    lm = tiny_lm("gpt2")
    lm.tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    folder = tmp_path / "chat-model"
    lm.model.save_pretrained(folder)
    lm.tokenizer.save_pretrained(folder)
    out = pd.read_parquet(G.generate_dataset(prompts, str(folder), tmp_path / "chat", prompt_format="chat",
                                             **kw).path)
    assert out["prompt"].tolist() == prompts["prompt"].tolist() and (out["prompt_format"] == "chat").all()
    assert out["n_new_tokens"].between(0, 3).all()


def test_run_summaries():
    gens = pd.DataFrame({"domain": ["a", "a", "b", "a", "b"], "prompt_id": list("12312"),
                         "model": ["m", "m", "m", "wiki", "wiki"],
                         "generation": ["one two", "x", "a b c d", "w w w", ""],
                         "finish_reason": ["sentence", "eos", "length", "human", "human"]})
    counts = G.count_table(gens, "domain")
    assert counts.to_dict() == {"m": {"a": 2, "b": 1, "total": 3}, "wiki": {"a": 1, "b": 1, "total": 2}}
    assert list(G.count_table(gens, "domain", ["wiki", "m"]).columns) == ["wiki", "m"]
    lengths = G.length_table(gens, ["wiki", "m"])
    assert lengths["mean words"].tolist() == [1.5, round(7 / 3, 2)]
    assert G.finish_table(gens).loc["m"].to_dict() == {"eos": 1, "human": 0, "length": 1, "sentence": 1}
    info = G.RunInfo("m", Path("x/bold__m.parquet"), 3, 3, 12, 2.0, True, 12, 4.0, 3)
    t = G.run_table([info, G.RunInfo("wiki", Path("bold__wiki.parquet"), 2, 2, 0, 0.1, True)])
    assert t.to_dict("records")[0] == {"model": "m", "rows": 3, "new tokens": 12, "generation seconds": 4.0,
                                       "tokens/s": 3.0, "file": "bold__m.parquet"}
    assert pd.isna(t.loc[1, "tokens/s"])


# --------------------------------------------------------------------------- the chunk schedule
def test_chunk_schedule_depends_on_the_rows_only(tmp_path):
    rows = G.runs.expand_samples(prompt_frame(7), 3, seed=1)
    chunks = G.chunk_schedule(rows, 4)
    assert [len(c.rows) for c in chunks] == [4, 4, 4, 4, 4, 1]
    assert [c.index for c in chunks] == list(range(6))
    assert sorted(i for c in chunks for i in c.rows) == list(range(21))
    # sample-major: every prompt's sample 0 in frame order, then sample 1, ...
    flat = [i for c in chunks for i in c.rows]
    assert rows["sample"].to_numpy()[flat].tolist() == [0] * 7 + [1] * 7 + [2] * 7
    assert rows["prompt_id"].to_numpy()[flat[:7]].tolist() == prompt_frame(7)["prompt_id"].tolist()
    assert G.chunk_schedule(rows.copy(), 4) == chunks  # a pure function of the rows
    assert len({c.id for c in chunks}) == 6
    # more samples keep every full chunk; another seed or prompt text makes other chunks
    more = G.chunk_schedule(G.runs.expand_samples(prompt_frame(7), 5, seed=1), 4)
    assert [c.id for c in more[:5]] == [c.id for c in chunks[:5]] and more[5].id != chunks[5].id
    assert not {c.id for c in G.chunk_schedule(G.runs.expand_samples(prompt_frame(7), 3, seed=2), 4)} \
        & {c.id for c in chunks}
    edited = prompt_frame(7).assign(prompt=lambda d: d["prompt"].where(d.index != 0, "Other text"))
    other = G.chunk_schedule(G.runs.expand_samples(edited, 3, seed=1), 4)
    # the chunks that hold a row of the edited prompt (flat positions 0, 7, 14) change, only them
    assert [c.id == d.id for c, d in zip(other, chunks)] == [False, False, True, False, True, True]
    with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
        G.chunk_schedule(rows, 0)
    # shards take whole chunks, round robin
    assert [c.index for c in G.runs.shard_chunks(chunks, "1/4")] == [1, 5]
    # generate_dataset writes the same chunks whatever the batch size and thread count
    model = save_tiny(tmp_path)
    kw = {"params": G.DecodingParams(max_new_tokens=4, top_k=40), "dtype": "float32",
          "progress": False, "dataset": "t", "samples_per_prompt": 3, "seed": 1, "chunk_size": 4}
    names = []
    for k, (bs, threads) in enumerate(((1, 1), (3, 2), (32, 1))):
        G.generate_dataset(prompt_frame(7), model, tmp_path / f"o{k}", batch_size=bs,
                           num_threads=threads, cache_dir=tmp_path / f"c{k}", **kw)
        names.append(sorted(p.name for p in (tmp_path / f"c{k}").rglob("chunk-*.parquet")))
    assert names[0] == names[1] == names[2] == sorted(f"chunk-{c.id}.parquet" for c in chunks)
