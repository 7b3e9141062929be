"""The generation engine (BOLD §4.2, Appendix A.2) on tiny random models."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest
import torch

from nlgbias import generation as G
from nlgbias import hardware as H
from nlgbias.bold import sources as BS
from nlgbias.models import (
    GPT2_DECODING,
    LoadedModel,
    ModelSpec,
    UnknownModelError,
    check_available,
    get_spec,
)
from nlgbias.resources import ResourceNotFoundError

WORDS = ("the a an man woman he she is was American actor actress doctor nurse worked as known "
         "for his her film . ! ? , and in born died city").split()


def tiny_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "<eos>", "<unk>", *WORDS])}
    t = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    t.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=t, pad_token="<pad>", eos_token="<eos>",
                                   unk_token="<unk>")


def tiny_lm(arch: str = "llama", seed: int = 0) -> LoadedModel:
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig

    torch.manual_seed(seed)
    tok = tiny_tokenizer()
    v = len(tok)
    if arch == "gpt2":
        cfg = GPT2Config(vocab_size=v, n_embd=32, n_layer=2, n_head=2, n_positions=128,
                         bos_token_id=1, eos_token_id=1, pad_token_id=0)
    else:
        cfg = LlamaConfig(vocab_size=v, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                          bos_token_id=None, eos_token_id=1, pad_token_id=0)
    model = AutoModelForCausalLM.from_config(cfg).eval()
    spec = ModelSpec(f"tiny-{arch}", "causal", description="tiny random", decoding=GPT2_DECODING)
    return LoadedModel(spec, model, tok, "cpu")


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
        G.generate_models(prompt_frame(), ["wiki", "no-such-model"], tmp_path / "gen")
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
          "flush_every": 2, "dtype": "float32", "progress": False}
    ref = G.generate_dataset(prompts, model, tmp_path / "ref", cache_dir=tmp_path / "ref-cache", **kw)
    ref_df = pd.read_parquet(ref.path)
    assert list(ref_df.columns) == G.COLUMNS
    assert ref_df["prompt_id"].tolist() == prompts["prompt_id"].tolist()
    assert (ref_df["model"] == model).all() and (ref_df["top_k"] == 40).all()
    assert all(t.startswith(p) for t, p in zip(ref_df["text"], ref_df["prompt"]))
    assert ref.path.name == G.output_name("bold", model)

    real_batch = G.CausalGenerator._batch
    calls = {"n": 0}

    def crashing(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_batch(self, *a, **k)

    out = tmp_path / "run"
    kw["cache_dir"] = tmp_path / "run-cache"
    monkeypatch.setattr(G.CausalGenerator, "_batch", crashing)
    with pytest.raises(KeyboardInterrupt):
        G.generate_dataset(prompts, model, out, **kw)
    assert not (out / G.output_name("bold", model)).exists()
    monkeypatch.setattr(G.CausalGenerator, "_batch", real_batch)
    info = G.generate_dataset(prompts, model, out, **kw)
    assert info.complete and info.generated == 11 - 4  # 2 batches of 2 were kept
    pd.testing.assert_frame_equal(pd.read_parquet(info.path), ref_df)

    def forbidden(self, *a, **k):
        raise AssertionError("regenerated")

    monkeypatch.setattr(G.CausalGenerator, "_batch", forbidden)
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
          "progress": False, "cache_dir": tmp_path / "cache"}
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
    info = G.generate_dataset(quick, "wiki", tmp_path, progress=False)
    wiki = pd.read_parquet(info.path)
    assert info.path.name == "bold__wiki.parquet" and list(wiki.columns) == G.COLUMNS
    assert wiki["text"].tolist() == quick["wiki_text"].tolist()
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
          "progress": False, "batch_size": 4}
    from nlgbias.generation.ray_backend import init_ray

    local = G.generate_dataset(prompts, model, tmp_path / "local", cache_dir=tmp_path / "c1", **kw)
    try:
        init_ray(num_cpus=1)
        remote = G.generate_dataset(prompts, model, tmp_path / "ray", backend="ray",
                                    cache_dir=tmp_path / "c2",
                                    ray_options={"num_actors": 1, "rows_per_task": 3}, **kw)
    finally:
        ray.shutdown()
    assert remote.complete and remote.generated == 8
    a, b = pd.read_parquet(local.path), pd.read_parquet(remote.path)
    pd.testing.assert_frame_equal(a, b)
