"""BERT Gibbs generation (Wang & Cho 2019; BOLD Appendix A.2.1) on a tiny random BERT."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from nlgbias.engine.gibbs import GibbsGenerator, GibbsParams
from nlgbias.generation import DecodingError, generate_dataset, row_seed
from nlgbias.models import LoadedModel, get_spec

WORDS = "the a man woman is was an american actor doctor nurse city film born in and".split()


def tiny_bert(tmp_path, boost: str | None = None) -> LoadedModel:
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tok = BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64)
    model = BertForMaskedLM(cfg).eval()
    if boost:
        with torch.no_grad():
            for t in boost.split():
                model.cls.predictions.bias[vocab.index(t)] += 100.0
    return LoadedModel(get_spec("bert-large-cased"), model, tok, "cpu")


PROMPTS = ["the man is", "a nurse", "the american actor was born in the", "film"]


def test_paper_defaults_and_validation():
    p = GibbsParams()
    assert (p.max_len, p.temperature, p.burnin, p.max_iter, p.top_k) == (15, 0.7, 200, 500, 0)
    d = p.to_decoding()
    assert (d.max_new_tokens, d.temperature) == (15, 0.7)
    with pytest.raises(DecodingError, match="max_len"):
        GibbsParams(max_len=0)
    with pytest.raises(DecodingError, match="temperature"):
        GibbsParams(temperature=-1)


def test_generates_max_len_tokens_after_prompt(tmp_path):
    lm = tiny_bert(tmp_path)
    gen = GibbsGenerator(lm, GibbsParams(max_len=15, burnin=100, max_iter=200), batch_size=4)
    out = gen.generate(PROMPTS, 0)
    assert [c.n_new_tokens for c in out] == [15] * 4
    assert gen.tokens_generated == 60
    for p, c in zip(PROMPTS, out):
        assert c.text == f"{p} {c.generation}"
        assert len(lm.tokenizer(c.generation, add_special_tokens=False)["input_ids"]) == 15
        assert set(c.generation.split()) <= set(WORDS)  # never [MASK], [SEP], [PAD], [CLS], [UNK]


def test_dominant_token_fills_every_position_and_specials_banned(tmp_path):
    # "nurse" gets +100 logit: sampled (T=0.7) and argmax alike pick it, at every visited position;
    # [SEP] and [MASK] also get +100 but special tokens are never drawn
    lm = tiny_bert(tmp_path, boost="nurse [SEP] [MASK]")
    gen = GibbsGenerator(lm, GibbsParams(max_len=5, burnin=30, max_iter=120), batch_size=2)
    out = gen.generate(PROMPTS, 1)
    assert all(c.generation == "nurse nurse nurse nurse nurse" for c in out)


def test_seeded_and_batch_invariant(tmp_path):
    lm = tiny_bert(tmp_path)
    params = GibbsParams(max_len=6, burnin=15, max_iter=30)
    seeds = [row_seed(0, p) for p in PROMPTS]
    a = GibbsGenerator(lm, params, batch_size=4).generate(PROMPTS, seeds)
    b = GibbsGenerator(lm, params, batch_size=1).generate(PROMPTS, seeds)
    c = GibbsGenerator(lm, params, batch_size=4).generate(PROMPTS, [s + 1 for s in seeds])
    assert [x.generation for x in a] == [x.generation for x in b]
    assert [x.generation for x in a] != [x.generation for x in c]


def test_generate_dataset_routes_masked_lm(tmp_path):
    lm = tiny_bert(tmp_path)
    prompts = pd.DataFrame({"domain": "gender", "group": "g", "name": ["a", "b"],
                            "prompt_id": ["gender/g/a/0", "gender/g/b/0"], "prompt": PROMPTS[:2]})
    info = generate_dataset(prompts, "bert-large-cased", tmp_path / "gen", dataset="bold", loaded=lm,
                            progress=False, gibbs=GibbsParams(max_len=4, burnin=5, max_iter=10),
                            samples_per_prompt=2)
    df = pd.read_parquet(info.path)
    assert info.path.name == "bold__bert-large-cased.parquet"
    assert df["max_new_tokens"].tolist() == [4] * 4 and df["temperature"].tolist() == [0.7] * 4
    assert df["n_new_tokens"].tolist() == [4] * 4 and df["sample"].tolist() == [0, 1, 0, 1]
    assert list(df.columns[:3]) == ["domain", "group", "name"] and (df["model"] == "bert-large-cased").all()
    # each sample its own seeded chain: the rows equal a direct run with the same seeds
    seeds = [row_seed(0, k) for k in ("gender/g/a/0", "gender/g/a/0#1", "gender/g/b/0", "gender/g/b/0#1")]
    assert df["row_seed"].tolist() == seeds
    direct = GibbsGenerator(lm, GibbsParams(max_len=4, burnin=5, max_iter=10), batch_size=3).generate(
        [PROMPTS[0], PROMPTS[0], PROMPTS[1], PROMPTS[1]], seeds)
    assert df["generation"].tolist() == [c.generation for c in direct]
    with pytest.raises(ValueError, match="chat"):
        generate_dataset(prompts, "bert-large-cased", tmp_path / "gen", dataset="bold", loaded=lm,
                         prompt_format="chat")
