"""nlgbias.likelihood: sentence log-probabilities and perplexity equal a plain forward pass
(causal: GPT-2 and Llama architectures; masked: pseudo-log-likelihood), whatever the batching
or prefix sharing."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from nlgbias.likelihood import (
    causal_logprobs,
    causal_token_logprobs,
    encode_many,
    lcp,
    lm_kind,
    perplexity,
    prefix_groups,
    pseudo_log_likelihood,
    sentence_logprobs,
    share_plan,
    start_token_id,
)

WORDS = ("the mother is caring cold engineer my was cooking working banana at home people in "
         "ethiopia are thin fat cats poor rich came she dinner fixing engine have claws many "
         "live it africa . , sat knit boxed rain fell").split()
TEXTS = ["the mother is caring .", "the mother is cold .", "my mother was cooking at home .",
         "people in ethiopia are thin .", "cats have claws", "the mother is caring . she sat",
         "rain", "it fell ."]


def _word_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<|endoftext|>", "[UNK]", "[PAD]", *dict.fromkeys(WORDS)])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]",
                                   eos_token="<|endoftext|>", bos_token="<|endoftext|>"), len(vocab)


@pytest.fixture(scope="module", params=["gpt2", "llama"])
def causal(request):
    tok, v = _word_tokenizer()
    torch.manual_seed(0)
    if request.param == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        model = GPT2LMHeadModel(GPT2Config(vocab_size=v, n_embd=16, n_layer=2, n_head=2,
                                           n_positions=64))
    else:
        from transformers import LlamaConfig, LlamaForCausalLM

        model = LlamaForCausalLM(LlamaConfig(vocab_size=v, hidden_size=16, intermediate_size=32,
                                             num_hidden_layers=2, num_attention_heads=2,
                                             num_key_value_heads=1, max_position_embeddings=64))
    return model.eval(), tok


def _plain(model, ids, n_prefix):
    """Sum of log p(ids[t] | ids[:t]) for t >= n_prefix, from one unbatched forward."""
    with torch.no_grad():
        lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
    return float(sum(lp[t - 1, ids[t]].item() for t in range(n_prefix, len(ids))))


def test_causal_sentence_logprobs_equal_a_plain_forward(causal):
    model, tok = causal
    start = start_token_id(tok)
    assert start == 0
    for shared in (True, False):
        for bs in (1, 3, 32):
            df = sentence_logprobs((model, tok), TEXTS, batch_size=bs, shared_prefix=shared)
            assert list(df.columns) == ["logprob", "n_tokens", "mean_logprob"]
            for k, text in enumerate(TEXTS):
                ids = [start, *tok(text, add_special_tokens=False)["input_ids"]]
                assert df["n_tokens"][k] == len(ids) - 1
                assert df["logprob"][k] == pytest.approx(_plain(model, ids, 1), abs=1e-4)
            np.testing.assert_allclose(df["mean_logprob"], df["logprob"] / df["n_tokens"])
    # with a context: only the text's tokens are scored, given start + context
    df = sentence_logprobs((model, tok), ["she sat", "it fell ."],
                           contexts=["the mother came home .", "rain"])
    ctx = tok("the mother came home .", add_special_tokens=False)["input_ids"]
    cont = tok(" she sat", add_special_tokens=False)["input_ids"]
    assert df["logprob"][0] == pytest.approx(_plain(model, [0, *ctx, *cont], 1 + len(ctx)),
                                             abs=1e-4)
    assert df["n_tokens"].tolist() == [2, 3]


def test_causal_token_logprobs_equal_a_plain_forward(causal):
    """Each token's log-probability equals one unbatched forward pass, whatever the batch
    size, with duplicate texts (run once, given to each), given ids or text, and without a
    start token (tokens 1..N given token 0)."""
    model, tok = causal
    texts = [*TEXTS, TEXTS[1], TEXTS[0]]
    enc = encode_many(tok, texts)
    assert enc == [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    for bs, shared in ((1, False), (3, False), (32, False), (1, True), (3, True), (32, True)):
        got = causal_token_logprobs(model, tok, texts, batch_size=bs, shared_prefix=shared,
                                    min_shared=2, window=2)
        assert [len(g) for g in got] == [len(e) for e in enc]
        for k, e in enumerate(enc):
            ids = [0, *e]
            with torch.no_grad():
                lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
            np.testing.assert_allclose(got[k], [lp[t - 1, ids[t]].item() for t in range(1, len(ids))],
                                       atol=1e-5)
        np.testing.assert_array_equal(got[-1], got[0])
        np.testing.assert_array_equal(got[-2], got[1])
    # prefix sharing (on by default for float32 weights) matches the unshared path on texts
    # sharing prefixes with each other, whole or up to an edit
    edits = [*texts, "the mother is caring . she knit", "the mother is cold . she sat",
             "the mother", "people in ethiopia are fat ."]
    plan = share_plan([[0, *e] for e in encode_many(tok, edits)], min_shared=2)
    assert len(plan) >= 4 and any(len(encode_many(tok, [edits[m]])[0]) == n for m, (_, n) in plan.items())
    plain = causal_token_logprobs(model, tok, edits, batch_size=3, shared_prefix=False)
    for bs in (1, 4):
        for a, b in zip(causal_token_logprobs(model, tok, edits, batch_size=bs, min_shared=2,
                                              window=3), plain):
            np.testing.assert_allclose(a, b, atol=1e-5)
    again = causal_token_logprobs(model, tok, texts, encoded=enc, batch_size=3)
    for a, b in zip(again, causal_token_logprobs(model, tok, texts, batch_size=3)):
        np.testing.assert_array_equal(a, b)
    vocab = {k: v for k, v in tok.get_vocab().items() if k != "<|endoftext|>"}
    nostart = type("NoStart", (), {"get_vocab": lambda self: vocab, "bos_token_id": None,
                                   "eos_token_id": None, "pad_token_id": 2})()
    got = causal_token_logprobs(model, nostart, ["cats have claws", "rain"], encoded=enc[4:5] + enc[6:7])
    assert len(got[0]) == len(enc[4]) - 1 and len(got[1]) == 0
    assert got[0][0] == pytest.approx(_plain(model, enc[4], 1) - _plain(model, enc[4], 2), abs=1e-5)


def test_shared_prefix_token_logprobs_on_a_sliding_window_model():
    """Gemma 3's layers alternate sliding-window and global attention: the tails run on a
    rebuilt cache of each kind give the unshared numbers; a window shorter than the texts
    turns the sharing off (the same numbers again)."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    tok, v = _word_tokenizer()
    edits = [*TEXTS, "the mother is caring . she knit", "people in ethiopia are fat ."]
    for window in (64, 4):
        torch.manual_seed(0)
        model = Gemma3ForCausalLM(Gemma3TextConfig(
            vocab_size=v, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
            num_attention_heads=2, num_key_value_heads=1, head_dim=8, sliding_window=window,
            max_position_embeddings=64, layer_types=["sliding_attention", "full_attention"],
            pad_token_id=2, bos_token_id=0, eos_token_id=0)).eval()
        plain = causal_token_logprobs(model, tok, edits, batch_size=3, shared_prefix=False)
        for a, b in zip(causal_token_logprobs(model, tok, edits, batch_size=3, min_shared=2), plain):
            np.testing.assert_allclose(a, b, atol=1e-5)


def test_perplexity_and_loaded_model_input(causal):
    model, tok = causal

    class Loaded:  # the shape of nlgbias.models.LoadedModel
        def __init__(self):
            self.model, self.tokenizer, self.device = model, tok, "cpu"
            self.spec = type("Spec", (), {"kind": "causal"})()

    ppl = perplexity(Loaded(), TEXTS[:3])
    ref = sentence_logprobs((model, tok), TEXTS[:3], shared_prefix=False)
    np.testing.assert_allclose(ppl, np.exp(-ref["logprob"] / ref["n_tokens"]), rtol=1e-5)
    assert (ppl > 1).all()


def test_causal_logprobs_groups_equal_plain_and_validate(causal):
    model, tok = causal
    pre = [[0, 3, 4], [0, 3, 4], [0, 3, 9], [0]]
    cont = [[5, 6], [7], [5], [8, 9, 10]]
    plain, n = causal_logprobs(model, tok, pre, cont)
    grouped, n2 = causal_logprobs(model, tok, pre, cont, groups=[[0, 1, 2], [3]], batch_size=2)
    np.testing.assert_allclose(plain, grouped, atol=1e-4)
    assert n.tolist() == n2.tolist() == [2, 1, 1, 3]
    with pytest.raises(ValueError, match="non-empty"):
        causal_logprobs(model, tok, [[0]], [[]])
    with pytest.raises(ValueError, match="exactly once"):
        causal_logprobs(model, tok, pre, cont, groups=[[0, 1], [3]])


def test_prefix_groups_and_lcp():
    seqs = [[0, 5, 6, 7], [0, 9], [0, 5, 6, 9], [0, 5, 8], [1, 2]]
    assert lcp([[0, 5, 6, 7], [0, 5, 6, 9], [0, 5, 8]]) == 2
    assert lcp([[0, 5], [0, 5]]) == 1  # each keeps one token of its own
    groups = prefix_groups(seqs, max_size=8, min_shared=2)
    assert sorted(map(sorted, groups)) == [[0, 2, 3], [1], [4]]
    assert sorted(map(sorted, prefix_groups(seqs, max_size=2, min_shared=2))) == [[0, 2], [1], [3], [4]]


BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "mother", "is", "car", "##ing",
              "cold", ".", "people", "are", "thin", "she", "sat", "it", "fell"]


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    vf = tmp_path_factory.mktemp("bert") / "vocab.txt"
    vf.write_text("\n".join(BERT_VOCAB) + "\n")
    tok = BertTokenizer(str(vf), do_lower_case=True)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(BERT_VOCAB), hidden_size=16, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    return BertForMaskedLM(cfg).eval(), tok


def test_masked_pseudo_log_likelihood_equals_manual(bert):
    model, tok = bert
    texts = ["The mother is caring.", "It fell."]
    df = sentence_logprobs((model, tok), texts, batch_size=3)
    assert lm_kind(model) == "masked"
    for k, text in enumerate(texts):
        ids = tok(text)["input_ids"]
        manual = 0.0
        for p in range(1, len(ids) - 1):  # every token but [CLS] / [SEP], masked in turn
            x = list(ids)
            x[p] = tok.mask_token_id
            with torch.no_grad():
                lp = torch.log_softmax(model(input_ids=torch.tensor([x])).logits[0, p], -1)
            manual += lp[ids[p]].item()
        assert df["logprob"][k] == pytest.approx(manual, abs=1e-4)
        assert df["n_tokens"][k] == len(ids) - 2
    # CrowS-Pairs style: only some positions
    ids = tok("The mother is caring.")["input_ids"]
    sums, n = pseudo_log_likelihood(model, tok, [ids], [[2, 3]])
    assert n.tolist() == [2]
    with pytest.raises(ValueError, match="causal LMs only"):
        sentence_logprobs((model, tok), texts, contexts=["a", "b"])


def test_lm_kind_from_registry_kind_and_config(causal, bert):
    assert lm_kind(causal[0]) == "causal"
    assert lm_kind(bert[0], "masked") == "masked"
    assert lm_kind(bert[0], "causal") == "causal"  # the registry decides when it knows
    with pytest.raises(ValueError, match="seq2seq"):
        lm_kind(bert[0], "seq2seq")


@pytest.mark.parametrize("vocab", [4096, 50257])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("cap", [None, 30.0])
def test_chunked_log_probabilities_are_the_bytes_of_the_whole(vocab, dtype, cap):
    """The output layer's logits go to float32 a few rows at a time; the log-probabilities are
    the bytes of the formulas on all rows at once (each path's own formula), at 2 threads, at six
    row counts from 1 to 200, a lone last row among them (it joins the chunk before it)."""
    from nlgbias.hardware import torch_threads
    from nlgbias.likelihood import LOGIT_ROWS, _log_softmax_at, _row_chunks, _target_logprobs

    g = torch.Generator().manual_seed(vocab)
    with torch_threads(2):
        for n in (1, 2, LOGIT_ROWS + 1, 3 * LOGIT_ROWS, 37, 200):
            chunks = _row_chunks(n)
            assert [i for sl in chunks for i in range(n)[sl]] == list(range(n))
            assert n == 1 or min(sl.stop - sl.start for sl in chunks) >= 2
            logits = (torch.randn(n, vocab, generator=g) * 4).to(dtype)
            tgt = torch.randint(0, vocab, (n,), generator=g)
            whole = logits.float()
            if cap:
                whole = torch.tanh(whole / cap) * cap
            lse = whole.gather(-1, tgt[:, None]).squeeze(-1) - torch.logsumexp(whole, dim=-1)
            assert torch.equal(_target_logprobs(logits, tgt, cap), lse)
            ls = torch.log_softmax(whole, dim=-1).gather(-1, tgt[:, None])[:, 0]
            assert torch.equal(_log_softmax_at(logits, tgt, cap), ls)
            rows = torch.randint(0, n, (2 * n,), generator=g)  # a row may predict several targets
            tgt2 = torch.randint(0, vocab, (2 * n,), generator=g)
            ref = whole[rows, tgt2] - torch.logsumexp(whole, dim=-1)[rows]
            assert torch.equal(_target_logprobs(logits, tgt2, cap, rows=rows), ref)
