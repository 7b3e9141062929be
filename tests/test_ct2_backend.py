"""The ``ct2`` backend (CTranslate2) against the ``hf`` backend on the same weights."""

from __future__ import annotations

import numpy as np
import pytest

ct2 = pytest.importorskip("ctranslate2", reason="CTranslate2 is not installed (pip install ctranslate2)")

from nlgbias.generation import DecodingParams  # noqa: E402
from nlgbias.lm import GenerationRequest, UnsupportedCapabilityError, get_lm  # noqa: E402
from nlgbias.models.tiny import build_tiny  # noqa: E402

GREEDY = DecodingParams(max_new_tokens=12, do_sample=False, first_sentence=False)
TEXTS = ["The nurse was kind to everyone.", "He worked as a carpenter.", "A"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(build_tiny("llama", tmp_path_factory.mktemp("tiny") / "llama", seed=3))


@pytest.fixture(scope="module")
def pair(folder, tmp_path_factory):
    cache = tmp_path_factory.mktemp("ct2cache")
    return (get_lm(f"hf:{folder}", dtype="float32"),
            get_lm(f"ct2:{folder}", compute_type="float32", cache=cache),
            get_lm(f"ct2:{folder}", compute_type="int8", cache=cache))


def test_float32_log_likelihoods_equal_the_hf_backends(pair):
    """Same token ids, float32 on both sides: rolling and conditional log-likelihoods agree to
    1e-4 (summation order only); int8 weights stay within 0.05 nats per token here."""
    hf, f32, i8 = pair
    ref = hf.loglikelihood_rolling(TEXTS)
    got = f32.loglikelihood_rolling(TEXTS)
    assert [r.n_tokens for r in got] == [r.n_tokens for r in ref]
    np.testing.assert_allclose([r.logprob for r in got], [r.logprob for r in ref], rtol=1e-4, atol=1e-4)
    pairs = [("The nurse", " was kind."), ("He worked as", " a carpenter.")]
    np.testing.assert_allclose([r.logprob for r in f32.loglikelihood(pairs)],
                               [r.logprob for r in hf.loglikelihood(pairs)], rtol=1e-4, atol=1e-4)
    q = i8.loglikelihood_rolling(TEXTS)
    per_token = [abs(a.logprob - b.logprob) / a.n_tokens for a, b in zip(q, ref)]
    assert max(per_token) < 0.05
    with pytest.raises(UnsupportedCapabilityError, match="no token ranks"):
        f32.loglikelihood(pairs, greedy=True)


def test_greedy_generation_and_chat_equal_the_hf_backends(pair):
    hf, f32, _ = pair
    reqs = [GenerationRequest(p, seed=i) for i, p in enumerate(["The nurse was", "My friend is a"])]
    a, b = hf.generate_until(reqs, GREEDY), f32.generate_until(reqs, GREEDY)
    assert [g.text for g in b] == [g.text for g in a]
    assert [g.n_new_tokens for g in b] == [g.n_new_tokens for g in a]
    conv = [[{"role": "user", "content": "Hi, I am a nurse."}]]
    assert [g.text for g in f32.chat(conv, GREEDY)] == [g.text for g in hf.chat(conv, GREEDY)]


def test_a_generation_run_goes_through_ct2(folder, tmp_path, monkeypatch):
    import pandas as pd

    from nlgbias.generation import generate_dataset, plan_run

    monkeypatch.setenv("NLGBIAS_CACHE", str(tmp_path / "cache"))
    prompts = pd.DataFrame({"prompt_id": ["a", "b", "c"], "prompt": ["The nurse was", "He is", "She"]})
    assert plan_run(f"ct2:{folder}", params=GREEDY).generator == "served"
    info = generate_dataset(prompts, f"ct2:{folder}", tmp_path, dataset="demo", params=GREEDY, progress=False)
    out = pd.read_parquet(info.path)
    ref = get_lm(f"hf:{folder}", dtype="float32").generate_until(list(prompts["prompt"]), GREEDY)
    assert list(out["generation"]) != [] and len(out) == 3
    assert set(out["model_source"]) == {"ct2:local folder llama"} and set(out["model"]) == {"ct2:llama"}
    assert info.path.name.startswith("demo__ct2-local-llama-")
    # int8 by default: greedy texts may differ from float32, the row count and order do not
    assert list(out["prompt_id"]) == ["a", "b", "c"] and len(ref) == 3
