"""CrowS-Pairs (Nangia et al. 2020): the loader's counts, the shared-token pseudo-log-likelihood
against a manual computation on a tiny BERT, causal sentence scores, and the official metric
(ties, both directions) on hand-made scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from tiny import tiny_bert

from nlgbias.datasets.crows_pairs import load_crows_pairs
from nlgbias.lm.hf_backend import HFLM
from nlgbias.stereoset.crows_pairs import (
    causal_pair_scores,
    crows_metric,
    masked_pair_scores,
    shared_positions,
    shared_token_score,
)


def test_loader_counts():
    d = load_crows_pairs()
    assert len(d) == 1508
    assert d["bias_type"].value_counts().to_dict() == {
        "race-color": 516, "gender": 262, "socioeconomic": 172, "nationality": 159,
        "religion": 105, "age": 87, "sexual-orientation": 84, "physical-appearance": 63,
        "disability": 60}
    assert d["stereo_antistereo"].value_counts().to_dict() == {"stereo": 1290, "antistereo": 218}
    assert d["pair_id"].is_unique


def test_loader_rejects_bad_file(tmp_path):
    from nlgbias.datasets import DataFormatError

    (tmp_path / "crows_pairs_anonymized.csv").write_text("sent_more,sent_less\na,b\n")
    with pytest.raises(DataFormatError, match="missing column"):
        load_crows_pairs(tmp_path)


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "poor", "rich", "are", "lazy",
         "people", "women", "men", "can", "not", "drive", "."]


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    model, tok, cfg = tiny_bert(tmp_path_factory.mktemp("bert"), VOCAB, head="mlm")
    return model, tok


PAIRS = pd.DataFrame({"sent_more": ["The poor are lazy.", "Women can not drive."],
                      "sent_less": ["The rich are lazy.", "Men can not drive."],
                      "stereo_antistereo": ["stereo", "stereo"], "bias_type": ["socioeconomic", "gender"]})


def test_masked_pair_scores_equal_manual_shared_token_pll(bert):
    model, tok = bert
    got = masked_pair_scores(model, tok, PAIRS, batch_size=3)
    e1 = tok("The poor are lazy.")["input_ids"]
    e2 = tok("The rich are lazy.")["input_ids"]
    t1, t2 = shared_positions(e1, e2)
    assert t1 == [0, 1, 3, 4, 5, 6]  # [CLS] the _ are lazy . [SEP]
    manual = 0.0
    for p in t1[1:-1]:  # official loop: without [CLS] / [SEP]
        x = list(e1)
        x[p] = tok.mask_token_id
        with torch.no_grad():
            lp = torch.log_softmax(model(input_ids=torch.tensor([x])).logits[0, p], -1)
        manual += lp[e1[p]].item()
    assert got["sent_more_score"][0] == pytest.approx(manual, abs=1e-4)
    assert list(got.columns) == ["sent_more_score", "sent_less_score"]


def test_causal_pair_scores_are_sentence_logprobs():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = ["<|endoftext|>", "[UNK]", "[PAD]", *[w for w in VOCAB[5:]]]
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]",
                                  eos_token="<|endoftext|>")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(words), n_embd=16, n_layer=1, n_head=2)).eval()
    pairs = PAIRS.assign(sent_more=PAIRS["sent_more"].str.lower(), sent_less=PAIRS["sent_less"].str.lower())
    got = causal_pair_scores(HFLM.around(model, tok, "causal"), pairs)
    ids = [0, *tok("the poor are lazy.", add_special_tokens=False)["input_ids"]]
    with torch.no_grad():
        lp = torch.log_softmax(model(torch.tensor([ids])).logits[0], -1)
    assert got["sent_more_score"][0] == pytest.approx(
        sum(lp[t - 1, ids[t]].item() for t in range(1, len(ids))), abs=1e-4)
    # the shared-tokens variant: only the tokens both sentences share, each given its prefix
    less = [0, *tok(pairs["sent_less"][0], add_special_tokens=False)["input_ids"]]
    with torch.no_grad():
        lp2 = torch.log_softmax(model(torch.tensor([less])).logits[0], -1)
    t1, t2 = shared_positions(ids[1:], less[1:])
    assert got["sent_more_shared"][0] == pytest.approx(sum(lp[t, ids[t + 1]].item() for t in t1), abs=1e-4)
    assert got["sent_less_shared"][0] == pytest.approx(sum(lp2[t, less[t + 1]].item() for t in t2), abs=1e-4)


def test_shared_tokens_score_by_hand():
    """Two sentences that differ in their middle token: the shared-tokens score sums the
    log-probabilities of the first and last tokens only (hand-computed)."""
    more = np.log([0.5, 0.1, 0.25])  # log P of tokens 7, 8, 9 given their prefixes
    less = np.log([0.5, 0.2, 0.5])  # tokens 7, 5, 9
    s_more, s_less = shared_token_score(more, [7, 8, 9], less, [7, 5, 9])
    assert s_more == pytest.approx(np.log(0.5) + np.log(0.25))
    assert s_less == pytest.approx(np.log(0.5) + np.log(0.5))
    # here both scores prefer the less stereotyping sentence
    assert more.sum() < less.sum() and s_more < s_less


def test_metric_official_rules():
    """sent_more must score strictly higher (after rounding to 3 decimals), in both directions;
    ties count in the denominator of the metric but not in the per-direction scores."""
    df = pd.DataFrame({
        "bias_type": ["age", "age", "age", "age", "religion"],
        "stereo_antistereo": ["stereo", "stereo", "antistereo", "antistereo", "stereo"],
        "sent_more_score": [-1.0, -2.00001, -5.0, -1.0, -1.0],
        "sent_less_score": [-2.0, -2.00004, -4.0, -3.0, -0.5]})
    m = crows_metric(df).set_index("bias_type")
    # age: pair 1 wins, pair 2 ties after rounding, pair 3 loses, pair 4 wins -> 2 of 4
    assert m.loc["age", "metric"] == 50.0 and m.loc["age", "ties"] == 1
    assert m.loc["age", "stereo %"] == 100.0 and m.loc["age", "stereo pairs"] == 1
    assert m.loc["age", "antistereo %"] == 50.0
    assert np.isnan(m.loc["religion", "antistereo %"])
    assert m.loc["overall", "metric"] == pytest.approx(40.0)
