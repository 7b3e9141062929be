"""The generation engine's batching: continuous batching gives exactly the rows of
the static path, chat prompting, the matmul peak. Tiny random models in float32."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from tiny import mixed_prompts, tiny_lm

from nlgbias import generation as G
from nlgbias import hardware as H
from nlgbias.engine import causal as E

SETTINGS = {
    "first-sentence": G.DecodingParams(max_new_tokens=20, top_k=40, top_p=0.95, first_sentence=True),
    "penalty": G.DecodingParams(max_new_tokens=15, top_p=0.9, repetition_penalty=1.2),
    "greedy": G.DecodingParams(max_new_tokens=10, do_sample=False),
}


def rows(out):
    return [(c.generation, c.text, c.n_new_tokens, c.finish_reason) for c in out]


# --------------------------------------------------------------------------- continuous == static
@pytest.mark.parametrize("arch", ["llama", "gpt2", "gemma3"])
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_continuous_equals_static_row_by_row(arch, setting):
    lm, params, prompts = tiny_lm(arch), SETTINGS[setting], mixed_prompts(40)
    static = G.CausalGenerator(lm, params, batch_size=8, continuous=False)
    ref = static.generate(prompts, 0)
    reasons = {c.finish_reason for c in ref}
    assert "eos" in reasons and "length" in reasons  # the tiny models stop both ways
    if setting == "first-sentence":
        assert "sentence" in reasons
    for bs, refill in ((8, None), (32, None), (3, 1)):
        eng = G.CausalGenerator(lm, params, batch_size=bs, refill=refill)
        assert rows(eng.generate(prompts, 0)) == rows(ref), (bs, refill)
        assert eng.tokens_generated == static.tokens_generated == sum(c.n_new_tokens for c in ref)
        assert eng.rows_done == len(prompts)


def test_slots_are_refilled_and_padding_stays_bounded(monkeypatch):
    lm, params, prompts = tiny_lm(), SETTINGS["first-sentence"], mixed_prompts()
    widths, merges = [], {"n": 0}
    real_forward, real_merge = lm.model.forward, E._merge_cache

    def forward(*a, **k):
        widths.append(k["attention_mask"].shape[1])
        return real_forward(*a, **k)

    def merge(*a, **k):
        merges["n"] += 1
        return real_merge(*a, **k)

    monkeypatch.setattr(lm.model, "forward", forward)
    monkeypatch.setattr(E, "_merge_cache", merge)
    eng = G.CausalGenerator(lm, params, batch_size=8, refill=2)
    eng.generate(prompts, 0)
    longest = max(len(eng.encode(p)) for p in prompts)
    assert merges["n"] >= 10  # waiting prompts joined running batches
    assert max(widths) <= longest + params.max_new_tokens  # cropped: no unbounded padding
    static = G.CausalGenerator(lm, params, batch_size=8, continuous=False)
    static.generate(prompts, 0)
    assert eng.forwards < static.forwards  # fewer, fuller model calls


def test_rows_are_yielded_as_they_finish():
    lm, prompts = tiny_lm(), mixed_prompts(20)
    eng = G.CausalGenerator(lm, SETTINGS["first-sentence"], batch_size=32)
    seeds = [G.row_seed(0, str(i)) for i in range(len(prompts))]
    chunks = list(eng.iter_generate(prompts, seeds))
    assert len(chunks) > 1 and len(chunks[0]) < len(prompts)  # one batch, several yields
    idx = [i for ch in chunks for i, _ in ch]
    assert sorted(idx) == list(range(len(prompts)))
    # all rows start together: a row leaves at the step of its last sampled token
    steps = [[c.n_new_tokens + (c.finish_reason == "eos") for _, c in ch] for ch in chunks]
    assert all(len(set(st)) == 1 for st in steps)
    assert [st[0] for st in steps] == sorted(st[0] for st in steps)


def test_threads_do_not_change_rows():
    lm, params, prompts = tiny_lm(), SETTINGS["first-sentence"], mixed_prompts(40)
    with H.torch_threads():
        one = rows(G.CausalGenerator(lm, params, batch_size=8, num_threads=1).generate(prompts, 0))
        two = rows(G.CausalGenerator(lm, params, batch_size=8, num_threads=2).generate(prompts, 0))
    assert one == two


def test_sliding_window_too_short_uses_static_batches(monkeypatch):
    """Rows longer than a sliding window: the cache drops columns, so no re-packing."""
    lm, params, prompts = tiny_lm("gemma3", window=12), SETTINGS["penalty"], mixed_prompts(20)
    monkeypatch.setattr(E, "_merge_cache", lambda *a, **k: (_ for _ in ()).throw(AssertionError("merged")))
    eng = G.CausalGenerator(lm, params, batch_size=4)
    out = eng.generate(prompts, 0)
    ref = G.CausalGenerator(lm, params, batch_size=4, continuous=False).generate(prompts, 0)
    assert rows(out) == rows(ref)


def test_resumed_continuous_run_equals_uninterrupted(tmp_path, monkeypatch):
    lm = tiny_lm()
    folder = tmp_path / "tiny-llama"
    lm.model.save_pretrained(folder)
    lm.tokenizer.save_pretrained(folder)
    prompts = pd.DataFrame({"prompt_id": [f"p{i}" for i in range(30)], "prompt": mixed_prompts(30)})
    kw = {"dataset": "t", "params": SETTINGS["first-sentence"], "batch_size": 4, "chunk_size": 6,
          "dtype": "float32", "progress": False}
    ref = pd.read_parquet(G.generate_dataset(prompts, str(folder), tmp_path / "ref",
                                             cache_dir=tmp_path / "c-ref", **kw).path)
    real, calls = G.CausalGenerator._prefill, {"n": 0}

    def crashing(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(self, *a, **k)

    monkeypatch.setattr(G.CausalGenerator, "_prefill", crashing)
    with pytest.raises(KeyboardInterrupt):
        G.generate_dataset(prompts, str(folder), tmp_path / "run", cache_dir=tmp_path / "c", **kw)
    monkeypatch.setattr(G.CausalGenerator, "_prefill", real)
    info = G.generate_dataset(prompts, str(folder), tmp_path / "run", cache_dir=tmp_path / "c", **kw)
    assert 0 < info.generated < 30 and info.complete
    pd.testing.assert_frame_equal(pd.read_parquet(info.path), ref)


def test_bad_engine_arguments():
    lm = tiny_lm()
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        G.CausalGenerator(lm, SETTINGS["greedy"], batch_size=0)
    with pytest.raises(ValueError, match="refill must be an integer in 1..batch_size"):
        G.CausalGenerator(lm, SETTINGS["greedy"], batch_size=4, refill=5)
    with pytest.raises(ValueError, match="prompt_format must be 'plain' or 'chat'"):
        G.CausalGenerator(lm, SETTINGS["greedy"], prompt_format="dialogue")
    with pytest.raises(ValueError, match="2 prompts but 1 seeds"):
        list(G.CausalGenerator(lm, SETTINGS["greedy"]).iter_generate(["a", "b"], [1]))


# --------------------------------------------------------------------------- chat prompting
def test_chat_prompt_is_the_user_turn_and_generation_the_response():
    lm = tiny_lm(chat=True)
    params = G.DecodingParams(max_new_tokens=8, do_sample=False)
    eng = G.CausalGenerator(lm, params, prompt_format="chat")
    tok = lm.tokenizer
    assert eng.encode("the man is ") == tok("<|user|> the man is <|end|> <|assistant|>")["input_ids"]
    prompts = ["the man is", "she was an American actress", "a doctor"]
    out = eng.generate(prompts)
    for p, c in zip(prompts, out):
        ids = torch.tensor([eng.encode(p)])
        ref = lm.model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                max_new_tokens=8, pad_token_id=0, eos_token_id=1)[0, ids.shape[1]:]
        ref = [t for t in ref.tolist() if t not in (0, 1)]
        assert c.n_new_tokens == len(ref)
        assert c.generation == c.text == tok.decode(ref, skip_special_tokens=True).strip()
    # chat differs from plain prompting of the same text
    plain = G.CausalGenerator(lm, params).generate(prompts)
    assert [c.generation for c in plain] != [c.generation for c in out]
    # continuous and static batching agree in chat mode too
    static = G.CausalGenerator(lm, params, prompt_format="chat", continuous=False, batch_size=2)
    assert rows(static.generate(prompts)) == rows(out)


def test_chat_needs_a_template():
    with pytest.raises(ValueError, match="has no chat template"):
        G.CausalGenerator(tiny_lm(chat=False), SETTINGS["greedy"], prompt_format="chat")


# --------------------------------------------------------------------------- hardware
def test_matmul_peak_measures_gflops():
    before = torch.get_num_threads()
    g32 = H.matmul_peak("float32", n=256, threads=1)
    assert torch.get_num_threads() == before  # the thread setting is restored
    assert 0.05 < g32 < 1e5
    assert 0.05 < H.matmul_peak("bfloat16", n=256) < 1e6
    with pytest.raises(ValueError, match="dtype must be 'float32' or 'bfloat16'"):
        H.matmul_peak("int8")
    with pytest.raises(ValueError, match="n must be an integer >= 16"):
        H.matmul_peak("float32", n=4)


def test_topk_on_model_logits_equals_float_path():
    """The temperature-1 fast path (top-k before the float conversion) keeps the same
    candidates in the same order as converting the whole row first, ties included."""
    eng = G.CausalGenerator(tiny_lm(), G.DecodingParams(top_k=40, top_p=0.95))
    torch.manual_seed(0)
    logits = (torch.randn(16, 5000) * 3).bfloat16()  # bf16: many tied values
    probs, idx = eng.filtered(logits)
    vals, ref_idx = logits.float().topk(40, dim=-1)
    assert (vals[:, 1:] == vals[:, :-1]).any()  # ties are there
    assert torch.equal(idx, ref_idx)
    assert torch.equal(probs, eng._top_p(vals.softmax(-1)))


def test_prepacked_bf16_weights_give_the_same_rows():
    lm = tiny_lm()
    lm.model.to(torch.bfloat16)
    if not E._can_pack(lm.model):
        pytest.skip("no oneDNN bf16 kernels on this CPU")
    params, prompts = SETTINGS["first-sentence"], mixed_prompts(40)
    plain = G.CausalGenerator(lm, params, batch_size=8, packed=False).generate(prompts, 0)
    eng = G.CausalGenerator(lm, params, batch_size=8)
    assert eng.packed
    assert rows(eng.generate(prompts, 0)) == rows(plain)
    assert not any("forward" in m.__dict__ for m in lm.model.modules())  # model restored
    assert not E._can_pack(tiny_lm().model)  # float32: not packed


# OpenMP's wait policy and the decode threads: tests/test_thread_policy.py
