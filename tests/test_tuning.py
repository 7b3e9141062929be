"""Bias labels and bias-reduction tuning (HolisticBias §5.2, Appendix C) on hand-made data and tiny models."""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd
import pytest
import torch

from nlgbias.holistic import bias_labels as BL
from nlgbias.holistic import tuning as TU
from nlgbias.models import LoadedModel, ModelSpec

# --------------------------------------------------------------------------- bias values
# 4 responses, 2 styles: descriptor a (templates x, y), descriptor b (x, y)
P = np.array([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8], [0.2, 0.8]])
D = ["a", "a", "b", "b"]
T = ["x", "y", "x", "y"]


def test_descriptor_means_average_templates_first():
    # a has 3 responses for template x (mean 0.9) and 1 for y (0.5): m_a = (0.9 + 0.5) / 2 = 0.7,
    # not the response mean (0.8); b has one response (0.1) -> m̄ = (0.7 + 0.1) / 2 = 0.4
    p = np.array([[0.9, 0.1]] * 3 + [[0.5, 0.5], [0.1, 0.9]])
    means = BL.descriptor_means(p, ["a"] * 4 + ["b"], ["x", "x", "x", "y", "x"])
    assert means.descriptors == ["a", "b"]
    np.testing.assert_allclose(means.row("a"), [0.7, 0.3])
    np.testing.assert_allclose(means.m_bar, [0.4, 0.6])


@pytest.mark.parametrize(("alpha", "expected"), [
    # m_a = (0.8, 0.2), m_b = (0.2, 0.8), m̄ = (0.5, 0.5); m_a - m̄ = (0.3, -0.3), |.| = 0.3·√2
    # response 1: (0.4, -0.4)·(0.3, -0.3) = 0.24; response 2: (0.2, -0.2)·(0.3, -0.3) = 0.12
    # b's responses: (-0.3, 0.3)·(-0.3, 0.3) = 0.18
    (0, [0.24, 0.12, 0.18, 0.18]),
    (1, [0.24 / (0.3 * math.sqrt(2)), 0.12 / (0.3 * math.sqrt(2)), 0.18 / (0.3 * math.sqrt(2)),
         0.18 / (0.3 * math.sqrt(2))]),
    (2, [0.24 / 0.18, 0.12 / 0.18, 1.0, 1.0]),
])
def test_bias_values_hand_computed(alpha, expected):
    np.testing.assert_allclose(BL.bias_values(P, D, T, alpha=alpha), expected, rtol=1e-12)


def test_bias_value_negative_and_zero_direction():
    # a response of descriptor a that leans towards b's style has a negative bias value
    p = np.vstack([P, [[0.1, 0.9]]])
    b = BL.bias_values(p, [*D, "a"], [*T, "x"])
    assert b[-1] < 0
    # a descriptor at the global mean (its direction is zero) gets 0 for every alpha
    p0 = np.array([[0.5, 0.5], [0.9, 0.1], [0.1, 0.9]])
    for alpha in (0, 1, 2):
        assert BL.bias_values(p0, ["c", "a", "b"], ["x"] * 3, alpha=alpha)[0] == 0


def test_bias_value_errors():
    with pytest.raises(ValueError, match="alpha must be 0, 1 or 2"):
        BL.bias_values(P, D, T, alpha=3)
    with pytest.raises(ValueError, match="one descriptor and one template per response"):
        BL.bias_values(P, D[:3], T)
    with pytest.raises(ValueError, match="NaN"):
        BL.bias_values(np.where(P > 0.8, np.nan, P), D, T)
    means = BL.descriptor_means(P, D, T)
    with pytest.raises(KeyError, match="descriptor"):
        BL.bias_values(P, ["a", "a", "z", "z"], T, means=means)


def test_tagging_sweep_and_beta_rule():
    b = BL.bias_values(P, D, T)
    assert BL.tag_responses(b, 0.15).tolist() == ["bias", "no_bias", "bias", "bias"]
    assert BL.tag_responses([0.5, 0.25], 0.5).tolist() == ["no_bias", "no_bias"]  # strictly greater
    sweep = BL.beta_sweep(b, [0.0, 0.15, 0.2, 0.3])
    assert sweep["n_bias"].tolist() == [4, 3, 1, 0]
    assert sweep["share_bias"].tolist() == [1.0, 0.75, 0.25, 0.0]
    q = BL.quantile_betas(np.arange(101) / 100, [0.1, 0.5])
    np.testing.assert_allclose(q, [0.9, 0.5])
    # the paper's rule: the β of the tuned model with the lowest Full Gen Bias (Table 7, BB2 3B)
    table7 = pd.DataFrame({"beta": [0.001, 0.003, 0.01, np.nan], "full_gen_bias": [6.81, 6.74, 7.43, 8.89]})
    assert BL.choose_beta(table7) == 0.003


def test_figure4_projection_keeps_directions():
    proj = BL.figure4_projection(P, D, T, ["a", "b"])
    means = proj["means"].set_index("point")
    # m_a - m̄ lies on the x axis with its true length; m_b - m̄ = -(m_a - m̄) here
    assert means.loc["m_d (a)", "x"] == pytest.approx(0.3 * math.sqrt(2))
    assert means.loc["m_d (a)", "y"] == pytest.approx(0)
    assert means.loc["m_d (b)", "x"] == pytest.approx(-0.3 * math.sqrt(2))
    assert len(proj["responses"]) == 4
    # projected length times |m_a - m̄| equals the bias value of a's responses (alpha = 0)
    ra = proj["responses"][proj["responses"]["descriptor"] == "a"]
    np.testing.assert_allclose(ra["x"] * 0.3 * math.sqrt(2), ra["bias_value"])


# --------------------------------------------------------------------------- split and tags
def test_split_by_descriptor_template_pair():
    frame = pd.DataFrame([(f"d{d}", f"t{t}", s) for d in range(20) for t in range(5) for s in range(3)],
                         columns=["descriptor", "template", "sample"])
    split = TU.split_pairs(frame, val_frac=0.1, test_frac=0.3, seed=1)
    per_pair = frame.assign(split=split).groupby(["descriptor", "template"])["split"].nunique()
    assert (per_pair == 1).all()  # every response of a sentence in one part
    counts = frame.assign(split=split).drop_duplicates(["descriptor", "template"])["split"].value_counts()
    assert counts.to_dict() == {"train": 60, "test": 30, "val": 10}
    assert split.equals(TU.split_pairs(frame, val_frac=0.1, test_frac=0.3, seed=1))
    assert not split.equals(TU.split_pairs(frame, val_frac=0.1, test_frac=0.3, seed=2))
    with pytest.raises(ValueError, match="sum to < 1"):
        TU.split_pairs(frame, val_frac=0.5, test_frac=0.5)


WORDS = ("i love hate blind tall people am a person . ! hello sorry to hear that what is it "
         "great bias no_bias <user> <assistant> <system>").split()
TEMPLATE = ("{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} <eos> {% endfor %}"
            "{% if add_generation_prompt %}<assistant> {% endif %}")


def tiny_chat_lm(seed: int = 0) -> LoadedModel:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "<eos>", "<unk>", *WORDS])}
    t = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    t.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=t, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    tok.chat_template = TEMPLATE
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      bos_token_id=None, eos_token_id=1, pad_token_id=0)
    model = AutoModelForCausalLM.from_config(cfg).eval()
    return LoadedModel(ModelSpec("tiny-chat", "causal", description="tiny random"), model, tok, "cpu")


def test_tag_reaches_the_prompt():
    lm = tiny_chat_lm()
    tok = lm.tokenizer
    context = TU.tag_context("i love blind people .", "no_bias")
    ids, labels = TU.encode_example(tok, context, "sorry to hear that .")
    n_ctx = labels.count(-100)
    # the context the model is tuned on ends with the tag inside the user turn ...
    assert tok.decode(ids[:n_ctx]) == "<user> i love blind people . no_bias <eos> <assistant>"
    # ... and is exactly what the chat-format engine feeds the model for the same tagged prompt
    engine_prompt = tok.apply_chat_template([{"role": "user", "content": context}],
                                            add_generation_prompt=True, tokenize=False)
    assert ids[:n_ctx] == tok(engine_prompt, add_special_tokens=False)["input_ids"]
    # the loss is on the response and the end of the turn only
    assert tok.decode([x for x in labels if x != -100]) == "sorry to hear that . <eos>"
    # no tag (the ablation): the same context without the tag
    ids0, labels0 = TU.encode_example(tok, TU.tag_context("i love blind people .", None), "great !")
    assert "no_bias" not in tok.decode(ids0) and "bias" not in tok.decode(ids0).split()


def test_encode_errors_and_plain_format():
    lm = tiny_chat_lm()
    ids, labels = TU.encode_example(lm.tokenizer, "", "i love people .", prompt_format="plain")
    assert lm.tokenizer.decode(ids) == "i love people . <eos>"
    assert labels[0] == -100 and labels[1:] == ids[1:]
    with pytest.raises(ValueError, match="max_length"):
        TU.encode_example(lm.tokenizer, "i love blind people .", "great", max_length=4)
    lm.tokenizer.chat_template = None
    with pytest.raises(ValueError, match="no chat template"):
        TU.encode_example(lm.tokenizer, "i", "great")


def test_response_nll_equals_forward_pass():
    lm = tiny_chat_lm()
    enc = TU.encode_pairs(lm.tokenizer, ["i love people .", "i am a tall person ."],
                          ["great !", "hello what is it ?"])
    scores = TU.response_nll(lm.model, lm.tokenizer, enc, batch_size=2)
    for (ids, labels), (nll, n) in zip(enc, scores[["nll", "n_tokens"]].itertuples(index=False), strict=True):
        with torch.no_grad():
            lp = torch.log_softmax(lm.model(torch.tensor([ids])).logits[0], -1)
        want = -sum(float(lp[i - 1, ids[i]]) for i in range(1, len(ids)) if labels[i] != -100)
        assert n == sum(1 for x in labels[1:] if x != -100)
        assert nll == pytest.approx(want, rel=1e-5)
    assert TU.perplexity_of(scores) == pytest.approx(math.exp(scores["nll"].sum() / scores["n_tokens"].sum()))


def _random_batch(vocab: int, seed: int = 0):
    """8 right-padded rows of 20-40 tokens whose last 5-15 tokens are labelled (as responses are)."""
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(20, 41, (8,), generator=g).tolist()
    n = max(lens)
    ids = torch.zeros((8, n), dtype=torch.long)
    att = torch.zeros((8, n), dtype=torch.long)
    labels = torch.full((8, n), -100, dtype=torch.long)
    for i, length in enumerate(lens):
        ids[i, :length] = torch.randint(3, vocab, (length,), generator=g)
        att[i, :length] = 1
        r = int(torch.randint(5, 16, (1,), generator=g))
        labels[i, length - r:length] = ids[i, length - r:length]
    return ids, att, labels


@pytest.mark.parametrize("arch", ["llama", "qwen2"])
@pytest.mark.parametrize("method", ["lora", "full"])
def test_losses_on_the_labelled_positions_are_the_model_s_own_bytes(arch, method):
    """The training loss (LoRA) and the per-example NLL with the output layer run on the labelled
    positions only equal, byte for byte, the model's own ``labels=`` loss and the NLL from the
    whole logits (and so do the gradients; full tuning's loss is the model's own): a vocabulary
    of 5,000 tokens, float32 training and bfloat16 scoring."""
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    kw = dict(vocab_size=5000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
    cfg = LlamaConfig(**kw) if arch == "llama" else Qwen2Config(**kw)
    torch.manual_seed(0)
    base = AutoModelForCausalLM.from_config(cfg)
    assert TU._plain_head(base)
    ids, att, labels = _random_batch(5000)
    model = TU._prepare(base, TU.TuningConfig(method=method, lora_r=4, seed=0))
    if method == "lora":  # B starts at zero: give the adapters weights so their gradients differ
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "lora_B" in name:
                    p.normal_(0, 0.02)

    def loss_and_grads(fn):
        model.zero_grad(set_to_none=True)
        loss = fn()
        loss.backward()
        return loss.detach(), [p.grad.clone() for p in model.parameters() if p.requires_grad]

    want, want_g = loss_and_grads(lambda: model(input_ids=ids, attention_mask=att, labels=labels).loss)
    rows = []
    hook = model.get_output_embeddings().register_forward_hook(
        lambda mod, args, out: rows.append(args[0].reshape(-1, args[0].shape[-1]).shape[0]))
    got, got_g = loss_and_grads(lambda: TU._train_loss(model, ids, att, labels))
    hook.remove()
    # LoRA (a frozen output layer): the labelled positions only; full tuning: the model's own loss
    # (its output layer's gradient sums over the positions, and fewer of them can round otherwise)
    assert rows == [int((labels[:, 1:] != -100).sum()) if method == "lora" else ids.numel()]
    assert torch.equal(got, want)
    assert len(got_g) == len(want_g) and all(torch.equal(a, b) for a, b in zip(got_g, want_g, strict=True))

    for m in (model, copy.deepcopy(base).to(torch.bfloat16)):
        m.eval()
        with torch.no_grad():
            logits = m(input_ids=ids, attention_mask=att).logits[:, :-1].float()
            target = labels[:, 1:]
            nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target.clamp(min=0), reduction="none")
            mask = target != -100
            sums, counts = TU._example_nll(m, ids, att, labels)
        assert torch.equal(sums, (nll * mask).sum(1)) and torch.equal(counts, mask.sum(1))


# --------------------------------------------------------------------------- training
CONTEXTS = ["i love blind people .", "i hate tall people .", "i am a blind person .", "i love tall people ."]
RESPONSES = ["sorry to hear that .", "what is it ?", "great !", "hello ! i love people ."]


def examples(lm, tags=("bias", "no_bias")):
    ctx = [TU.tag_context(c, tags[i % 2] if tags else None) for i, c in enumerate(CONTEXTS * 3)]
    enc = TU.encode_pairs(lm.tokenizer, ctx, RESPONSES * 3)
    return enc[:10], enc[10:]


def state(folder):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(folder).state_dict()


class Stop(Exception):
    pass


@pytest.mark.parametrize("method", ["lora", "full"])
def test_training_resumes_to_the_same_weights(tmp_path, method):
    cfg = TU.TuningConfig(max_steps=7, batch_size=3, lr=5e-3, warmup_steps=2, eval_every=2,
                          save_every=2, patience=100, method=method)
    lm = tiny_chat_lm()
    train, val = examples(lm)
    whole = TU.train(lm, train, val, tmp_path / "a", "run", cfg, progress=False)
    assert whole.steps_run == 7 and whole.resumed_from == 0 and not whole.stopped_early

    seen = []

    def stop_at_5(step, loss):
        seen.append(step)
        if step == 2:  # the periodic checkpoint is on disk
            st = torch.load(next((tmp_path / "b").glob("*.ckpt")) / "state.pt", weights_only=False)
            assert st["step"] == 2
        if step == 5:
            raise Stop

    with pytest.raises(Stop):
        TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False, on_step=stop_at_5)
    assert not list((tmp_path / "b").glob("run__*[!t]"))  # no finished model yet
    resumed = TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False)
    assert resumed.resumed_from == 5 and resumed.steps_run == 7
    assert resumed.folder.name == whole.folder.name  # same digest
    a, b = state(whole.folder), state(resumed.folder)
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k
    pd.testing.assert_frame_equal(whole.history, resumed.history)
    # the checkpoint is gone once the merged model is saved; the weights changed from the base
    assert not list((tmp_path / "b").glob("*.ckpt"))
    base = lm.model.state_dict()
    assert any(not torch.equal(base[k], a[k]) for k in a if k in base)
    # a second call with the same data and settings loads the finished run
    again = TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False, on_step=stop_at_5)
    assert again.steps_run == 7 and again.best_step == resumed.best_step


def test_early_stopping_keeps_the_best_weights(tmp_path):
    lm = tiny_chat_lm()
    train, val = examples(lm)
    # a huge learning rate makes the validation loss worse at every evaluation
    cfg = TU.TuningConfig(max_steps=50, batch_size=4, lr=3.0, warmup_steps=0, eval_every=1, patience=2,
                          method="full")
    res = TU.train(lm, train, val, tmp_path, "run", cfg, progress=False)
    assert res.stopped_early and res.steps_run == 2 and res.best_step == 0
    # best step 0 = the untouched model: its merged copy has the base weights
    a, base = state(res.folder), lm.model.state_dict()
    for k in a:
        assert torch.equal(a[k], base[k]), k
    assert res.history["val_loss"].iloc[0] == pytest.approx(res.best_val_loss)


def test_tuned_folder_loads_and_learns_the_tag(tmp_path):
    from transformers import AutoModelForCausalLM

    lm = tiny_chat_lm()
    train, val = examples(lm)
    cfg = TU.TuningConfig(max_steps=40, batch_size=4, lr=2e-2, warmup_steps=0, eval_every=10, patience=5)
    res = TU.train(lm, train, val, tmp_path, "run", cfg, progress=False)
    assert res.best_val_loss < res.history["val_loss"].iloc[0]  # tuning lowered the validation loss
    model = AutoModelForCausalLM.from_pretrained(res.folder)
    after = TU.perplexity_of(TU.response_nll(model, lm.tokenizer, val))
    assert after == pytest.approx(res.val_perplexity, rel=1e-4)
    assert (res.folder / "tuning.json").is_file() and (res.folder / "tokenizer.json").is_file()


def test_config_errors():
    with pytest.raises(ValueError, match="method"):
        TU.TuningConfig(method="adapter")
    with pytest.raises(ValueError, match="max_steps"):
        TU.TuningConfig(max_steps=0)


# --------------------------------------------------------------------------- before/after tables
def style_frame(seed: int, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t in ("t1", "t2"):
        for i, d in enumerate("abcdef"):
            for _ in range(3):
                p = rng.dirichlet([1, 1, 1]) + (shift * i if t == "t1" else 0) * np.array([1, 0, 0])
                p = p / p.sum()
                rows.append({"template": t, "descriptor": d, "axis": "x" if i < 3 else "y",
                             "s:1": p[0], "s:2": p[1], "s:3": p[2]})
    return pd.DataFrame(rows)


def test_fast_full_gen_bias_matches_genbias_and_seed_bootstrap():
    from nlgbias.holistic import genbias as G
    from nlgbias.holistic import tuning_report as TR

    styles = ["s:1", "s:2", "s:3"]
    a, b = style_frame(0, shift=0.5), style_frame(1)
    assert TR.full_gen_bias_fast(a, styles) == pytest.approx(G.full_gen_bias(a, styles))
    res = TR.seed_bootstrap(a, {"tuned": [b, style_frame(2)], "same": [a, a]}, styles, n_boot=300, seed=0)
    assert res["original"] == pytest.approx(G.full_gen_bias(a, styles))
    assert res["groups"]["tuned"]["per_seed"][0] == pytest.approx(G.full_gen_bias(b, styles))
    ch = TR.change_interval(res, "tuned")
    assert ch["estimate"] == pytest.approx(res["groups"]["tuned"]["mean"] / res["original"] - 1)
    assert ch["lo"] <= ch["estimate"] <= ch["hi"] and ch["descriptors"] == 6
    d = TR.change_interval(res, "tuned", "same", relative=False)
    assert d["estimate"] == pytest.approx(res["groups"]["tuned"]["mean"] - res["original"])
    # a resample that repeats a descriptor equals the Full Gen Bias of the frame with it duplicated
    w = pd.Series([2.0, 1, 0, 1, 1, 1], index=list("abcdef"))
    dup = pd.concat([a[a["descriptor"] != "c"], a[a["descriptor"] == "a"].assign(descriptor="a2")])
    assert TR._fgb_weighted(TR._template_means(a, styles), w, 1000) == pytest.approx(G.full_gen_bias(dup, styles))
    # the same model for every seed: no change, a zero-width interval
    same = TR.change_interval(res, "same")
    assert same["estimate"] == 0 and same["lo"] == pytest.approx(0) and same["hi"] == pytest.approx(0)


def test_seed_variability_widens_the_interval():
    from nlgbias.holistic import tuning_report as TR

    styles = ["s:1", "s:2", "s:3"]
    a = style_frame(0, shift=0.5)
    steady = TR.seed_bootstrap(a, {"t": [style_frame(1, shift=0.2)] * 3}, styles, n_boot=400)
    noisy = TR.seed_bootstrap(a, {"t": [style_frame(1, shift=0.0), style_frame(2, shift=0.2),
                                        style_frame(3, shift=0.5)]}, styles, n_boot=400)
    def width(r):
        c = TR.change_interval(r, "t")
        return c["hi"] - c["lo"]

    assert width(noisy) > width(steady)


def test_descriptor_split_holds_test_descriptors_out_of_tuning():
    rng = np.random.default_rng(0)
    rows = [(ax, f"{ax}-{d}", t, n) for ax in ("x", "y", "z") for d in range(6)
            for t in ("t1", "t2") for n in range(3)]
    rows += [("y", "x-0", "t1", 0)]  # a descriptor listed on two axes
    frame = pd.DataFrame(rows, columns=["axis", "descriptor", "template", "noun"]).sample(frac=1, random_state=1)
    split = TU.split_descriptors(frame, val_per_axis=1, test_per_axis=2, seed=int(rng.integers(100)))
    parts = frame.assign(split=split.to_numpy())
    test_d = set(parts.loc[parts["split"] == "test", "descriptor"])
    assert test_d and not test_d & set(parts.loc[parts["split"] != "test", "descriptor"])
    assert not set(parts.loc[parts["split"] == "val", "descriptor"]) & set(parts.loc[parts["split"] == "train", "descriptor"])
    per_axis = parts[parts["split"] == "test"].groupby("axis")["descriptor"].nunique()
    assert (per_axis == 2).all()
    assert (parts[parts["split"] == "train"].groupby("axis")["descriptor"].nunique() >= 1).all()
    again = TU.split_descriptors(frame, val_per_axis=1, test_per_axis=2, seed=7)
    assert again.equals(TU.split_descriptors(frame, val_per_axis=1, test_per_axis=2, seed=7))


def test_beta_is_chosen_on_validation_not_test():
    from nlgbias.holistic import tuning_report as TR

    scores = pd.DataFrame({"beta": [0.1, 0.2, 0.1, 0.2], "split": ["val", "val", "test", "test"],
                           "full_gen_bias": [1.0, 2.0, 5.0, 0.5]})
    assert TR.select_beta(scores) == 0.1  # test alone would pick 0.2
    with pytest.raises(ValueError, match="val"):
        TR.select_beta(scores[scores["split"] == "test"])
    with pytest.raises(KeyError, match="split"):
        TR.select_beta(scores.drop(columns="split"))


def test_axis_reduction_offensive_rows_and_helpers():
    from nlgbias.holistic import genbias as G
    from nlgbias.holistic import tuning_report as TR

    styles = ["s:1", "s:2", "s:3"]
    a, b = style_frame(0, shift=0.5), style_frame(1)
    t9 = TR.axis_reduction(a, b, styles).set_index("axis")
    assert t9.loc["x", "original"] == pytest.approx(G.full_gen_bias(a[a["axis"] == "x"], styles))
    assert t9.loc["y", "reduction"] == pytest.approx(1 - t9.loc["y", "tuned"] / t9.loc["y", "original"])
    assert t9["descriptors"].tolist() == [3, 3]
    off = TR.offensive_rows({"m": pd.DataFrame({"offensive": [True, False, False, False]})})
    assert off.loc[0, "offensive"] == 0.25 and off.loc[0, "responses"] == 4
    with pytest.raises(KeyError, match="offensive"):
        TR.offensive_rows({"m": a})
    cl = TR.clusters_from_table(pd.DataFrame({"cluster": ["SAD 😢"], "styles (nade emojis)": ["😢 😭"]}))
    assert cl == {"SAD 😢": ["s:😢", "s:😭"]}
    capped = TR.cap_pairs(a, 4, seed=0)
    assert len(capped[["descriptor", "template"]].drop_duplicates()) == 4 and len(capped) == 12
    assert TR.cap_pairs(a, None) is a


def test_tagged_prompt_reaches_the_engine_with_a_tuned_folder(tmp_path):
    """The merged model folder loads in the generation engine, and the chat prompt it is fed
    ends with the "no_bias" tag inside the user turn (what the model was tuned on)."""
    from nlgbias.generation import DecodingParams, generate_dataset

    lm = tiny_chat_lm()
    train, val = examples(lm)
    res = TU.train(lm, train, val, tmp_path / "models", "run",
                   TU.TuningConfig(max_steps=2, batch_size=4, eval_every=1, warmup_steps=0), progress=False)
    prompts = pd.DataFrame({"prompt_id": ["a", "b"], "sentence": ["i love blind people .", "i am a tall person ."]})
    prompts["prompt"] = [TU.tag_context(s, BL.NO_BIAS_TAG) for s in prompts["sentence"]]
    info = generate_dataset(prompts, str(res.folder), tmp_path / "gen", dataset="t", prompt_format="chat",
                            params=DecodingParams(max_new_tokens=3, do_sample=False), progress=False)
    out = pd.read_parquet(info.path)
    assert out["prompt"].tolist() == ["i love blind people .\nno_bias", "i am a tall person .\nno_bias"]
    assert out["sentence"].tolist() == prompts["sentence"].tolist()  # metadata passes through
    assert info.path.name.startswith("t__local-run__")  # the folder name, not its path
    assert (out["n_new_tokens"] >= 1).all()


def test_lora_setup_hides_only_peft_s_deprecated_alias_warning():
    """peft reads transformers' deprecated ``is_gradient_checkpointing`` (a FutureWarning shown
    in notebook 08); the tuning silences exactly that one."""
    import warnings

    lm = tiny_chat_lm()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        TU._prepare(lm.model, TU.TuningConfig(method="lora"))
    assert not [w for w in seen if "is_gradient_checkpointing" in str(w.message)]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert lm.model.is_gradient_checkpointing is False  # still shown outside the tuning
    assert any(issubclass(w.category, FutureWarning) for w in seen)


def test_experiment_runs_tag_by_beta_and_set_the_config():
    from nlgbias.holistic import tuning_runs as TRN

    lm = tiny_chat_lm()
    frame = pd.DataFrame({"prompt": ["i love blind people .", "i love deaf people ."],
                          "generation": ["great !", "sorry to hear that ."], "bias_value": [0.5, -0.5]})
    tagged = TRN.encode(lm, frame, beta=0.0)
    plain = TRN.encode(lm, frame, beta=None)
    assert "no_bias" not in lm.tokenizer.decode(tagged[0][0]) and " bias" in lm.tokenizer.decode(tagged[0][0])
    assert "no_bias" in lm.tokenizer.decode(tagged[1][0])
    assert "bias" not in lm.tokenizer.decode(plain[0][0]).split()
    conf = TRN.config(max_steps=16, batch_size=8, lr=1e-3, eval_every=8, patience=2, seed=3)
    assert (conf.warmup_steps, conf.save_every, conf.seed) == (1, 8, 3)


def test_a_change_against_a_zero_gen_bias_is_undefined_not_an_error():
    """An original with no Gen Bias at all (every response alike, as with a tiny random model)
    has no relative change: NaN with a NaN interval, the absolute change as usual."""
    import numpy as np

    from nlgbias.holistic import tuning_report as TR

    res = {"original": 0.0, "boot_original": np.zeros(50), "descriptors": 4,
           "groups": {"t": {"mean": 0.5}}, "boot": {"t": np.full(50, 0.5)}}
    rel = TR.change_interval(res, "t")
    assert np.isnan(rel["estimate"]) or np.isinf(rel["estimate"])
    assert np.isnan(rel["lo"]) or np.isinf(rel["lo"])
    ab = TR.change_interval(res, "t", relative=False)
    assert (ab["estimate"], ab["lo"], ab["hi"]) == (0.5, 0.5, 0.5)


def test_a_cut_response_is_tuned_without_the_end_of_its_turn():
    """A response the generation cut at its token limit ends with its text, not with an end of
    turn: tuning on it must not teach the model to stop mid-sentence."""
    from nlgbias.holistic import tuning_runs as TRN

    lm = tiny_chat_lm()
    tok = lm.tokenizer
    _, whole = TU.encode_example(tok, "i love blind people .", "sorry to hear that")
    _, cut = TU.encode_example(tok, "i love blind people .", "sorry to hear that", complete=False)
    assert tok.decode([x for x in whole if x != -100]) == "sorry to hear that <eos>"
    assert tok.decode([x for x in cut if x != -100]) == "sorry to hear that"
    _, plain = TU.encode_example(tok, "", "i love people", prompt_format="plain", complete=False)
    assert tok.decode([x for x in plain if x != -100]) == "love people"  # no EOS (the first token unscored)
    frame = pd.DataFrame({"prompt": ["i love blind people .", "i love tall people ."],
                          "generation": ["great !", "sorry to hear"], "finish_reason": ["eos", "length"],
                          "bias_value": [0.5, -0.5]})
    enc = TRN.encode(lm, frame, beta=None)
    assert [tok.decode([x for x in lab if x != -100]) for _, lab in enc] == ["great ! <eos>", "sorry to hear"]
    with pytest.raises(ValueError, match="complete flags"):
        TU.encode_pairs(tok, ["i", "a"], ["great", "great"], complete=[True])


def _online_choice(losses, passes):
    """The weight choice made as a run goes: each evaluation whose loss is below the lowest that
    passed so far is checked when it is made; the lowest that passed is kept."""
    kept, checked = None, []
    for i, v in enumerate(losses):
        if v < (losses[kept] if kept is not None else math.inf):
            checked.append(i)
            if passes(i):
                kept = i
    return kept, checked


def test_checks_after_training_keep_what_checks_as_the_run_goes_keep():
    """The lazy weight choice (ascending loss, ties: the earlier evaluation, until one passes) keeps the
    evaluation the online rule keeps and the brute-force "lowest loss that passes, the earliest of
    equal ones", on random loss sequences with ties and random guards; it checks every evaluation at or
    below the kept loss and no other, never more than the online rule."""
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n = int(rng.integers(1, 14))
        losses = [float(x) for x in rng.integers(0, 6 if rng.random() < 0.5 else 1000, n)]  # many ties or few
        ok = rng.random(n) < rng.choice([0.0, 0.2, 0.5, 0.9])
        kept, checked = TU.lowest_passing(losses, lambda i, ok=ok: bool(ok[i]))
        online, online_checked = _online_choice(losses, lambda i, ok=ok: bool(ok[i]))
        passing = [i for i in range(n) if ok[i]]
        brute = min(passing, key=lambda i: (losses[i], i)) if passing else None
        assert kept == online == brute, (losses, ok.tolist())
        assert set(checked) <= set(online_checked) and len(checked) == len(set(checked))
        if kept is None:
            assert sorted(checked) == list(range(n))
        else:
            assert checked[-1] == kept and not any(ok[i] for i in checked[:-1])
            assert set(checked) == {i for i in range(n) if (losses[i], i) <= (losses[kept], kept)}
        assert [losses[i] for i in checked] == sorted(losses[i] for i in checked)
    assert TU.lowest_passing([], lambda i: True) == (None, [])


def test_guard_keeps_the_lowest_loss_that_passes(tmp_path):
    """With a guard, the evaluations are checked after training, lowest validation loss first, until
    one passes; the weights kept are those of the lowest validation loss that passes; the guard's rule
    and its schedule are part of the run's digest; the checks leave the training itself alone (the same
    losses as without a guard). When nothing passes, the lowest loss's weights are kept and the run
    says so (never the untuned model in silence)."""
    lm = tiny_chat_lm()
    train, val = examples(lm)
    cfg = TU.TuningConfig(max_steps=8, batch_size=4, lr=2e-2, warmup_steps=0, eval_every=2, patience=100)
    plain = TU.train(lm, train, val, tmp_path / "a", "run", cfg, progress=False)
    h = plain.history.dropna(subset=["val_loss"])
    assert plain.best_step == int(h.loc[h["val_loss"].idxmin(), "step"]) and plain.best_step > 2
    assert plain.info["guard_passed"] is None
    seen = []

    def only_step_2(model):  # passes for the weights of step 2 only, recognised by their loss
        loss = TU.perplexity_of(TU.response_nll(model, lm.tokenizer, val))
        seen.append(loss)
        return {"passes": abs(math.log(loss) - float(h.loc[h["step"] == 2, "val_loss"].iloc[0])) < 1e-4,
                "distinct-2": 0.5, "fails": "help offers"}

    res = TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False, guard=only_step_2, guard_rule="two")
    assert res.best_step == 2 and res.info["lowest_loss_step"] == plain.best_step and res.info["guard_passed"]
    assert res.folder.name != plain.folder.name  # the guard is part of the digest
    assert np.allclose(res.history["val_loss"].dropna(), h["val_loss"])  # checking does not change the training
    checks = res.info["guard_checks"]
    assert checks[-1]["step"] == 2 and checks[-1]["passes"] and not any(c["passes"] for c in checks[:-1])
    # the evaluations at or below step 2's loss, lowest first (after training), and no other
    ev = h[h["step"] > 0]
    lower = ev[ev["val_loss"] <= float(h.loc[h["step"] == 2, "val_loss"].iloc[0])].sort_values(["val_loss", "step"])
    assert [c["step"] for c in checks] == lower["step"].astype(int).tolist() and len(checks) > 1
    assert [c["val_loss"] for c in checks] == lower["val_loss"].tolist()
    assert checks[0]["distinct-2"] == 0.5 and len(seen) == len(checks) and "seconds" in checks[0]
    # each check saw the weights of its own evaluation (the guard measured that evaluation's loss)
    assert np.allclose(np.log(seen), [c["val_loss"] for c in checks], atol=1e-5)
    # the kept weights are step 2's: their validation loss is step 2's
    from transformers import AutoModelForCausalLM

    kept = AutoModelForCausalLM.from_pretrained(res.folder).eval()
    assert math.log(TU.perplexity_of(TU.response_nll(kept, lm.tokenizer, val))) == pytest.approx(
        float(h.loc[h["step"] == 2, "val_loss"].iloc[0]), abs=1e-4)
    assert TU.run_digest("m", cfg, train, val, "two") != TU.run_digest("m", cfg, train, val, "two",
                                                                        schedule=TU.GUARD_SCHEDULE)
    none = TU.train(lm, train, val, tmp_path / "c", "run", cfg, progress=False,
                    guard=lambda m: {"passes": False}, guard_rule="never")
    assert none.best_step == plain.best_step and none.info["guard_passed"] is False
    assert len(none.info["guard_checks"]) == len(h) - 1  # nothing passed: every evaluation is checked
    assert [c["val_loss"] for c in none.info["guard_checks"]] == sorted(h["val_loss"].iloc[1:])


def test_guarded_run_resumes_to_the_same_choice(tmp_path):
    """A guarded run interrupted while training, or while checking its evaluations after training,
    resumes to the uninterrupted run's weights, kept step and checks (the evaluations' weights and the
    checks made are in the checkpoint; a check made before the interruption is not made again)."""
    lm = tiny_chat_lm()
    train, val = examples(lm)
    cfg = TU.TuningConfig(max_steps=8, batch_size=4, lr=2e-2, warmup_steps=0, eval_every=2, save_every=2,
                          patience=100)
    plain = TU.train(lm, train, val, tmp_path / "p", "run", cfg, progress=False)
    h = plain.history.dropna(subset=["val_loss"])
    ev = h[h["step"] > 0].sort_values(["val_loss", "step"])
    target = int(ev["step"].iloc[2])  # the third lowest loss passes: three checks

    def make_guard(calls, stop_at=None):
        def guard(model):
            calls.append(1)
            if stop_at is not None and len(calls) == stop_at:
                raise Stop
            loss = math.log(TU.perplexity_of(TU.response_nll(model, lm.tokenizer, val)))
            step = int(h.loc[(h["val_loss"] - loss).abs().idxmin(), "step"])
            return {"passes": step == target, "distinct-2": float(step)}
        return guard

    whole = TU.train(lm, train, val, tmp_path / "a", "run", cfg, progress=False, guard=make_guard([]), guard_rule="g")
    assert whole.best_step == target and len(whole.info["guard_checks"]) == 3

    def stop_at_5(step, loss):
        if step == 5:
            raise Stop

    calls: list = []
    with pytest.raises(Stop):  # interrupted in training
        TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False, on_step=stop_at_5,
                 guard=make_guard(calls), guard_rule="g")
    assert not calls  # no check while training
    with pytest.raises(Stop):  # then interrupted at its second check
        TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False, guard=make_guard(calls, stop_at=2),
                 guard_rule="g")
    st = torch.load(next((tmp_path / "b").glob("*.ckpt")) / "state.pt", weights_only=False)
    assert len(st["checks"]) == 1 and st["step"] == 8 and sorted(st["states"]) == h["step"].iloc[1:].tolist()
    again: list = []
    resumed = TU.train(lm, train, val, tmp_path / "b", "run", cfg, progress=False, guard=make_guard(again),
                       guard_rule="g")
    assert len(again) == 2  # the first check is not made again
    assert resumed.folder.name == whole.folder.name and resumed.best_step == whole.best_step
    strip = [{k: v for k, v in c.items() if k != "seconds"} for c in whole.info["guard_checks"]]
    assert [{k: v for k, v in c.items() if k != "seconds"} for c in resumed.info["guard_checks"]] == strip
    pd.testing.assert_frame_equal(whole.history, resumed.history)
    a, b = state(whole.folder), state(resumed.folder)
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_guard_measures_against_the_original():
    from nlgbias.holistic import tuning_study as TS

    original = ["i love it a lot", "what a nice day", "tell me more please", "sorry to hear that"]
    assert TS.guard_measures(original, original)["passes"]
    canned = ["sorry to hear that"] * 4  # one string for every prompt: 1 of 4 distinct
    m = TS.guard_measures(canned, original)
    assert not m["passes"] and m["distinct"] == 1 and m["distinct (original)"] == 4
    refusing = ["I'm sorry, but I can't help with that."] * 2 + original[2:]
    r = TS.guard_measures(refusing, original)
    assert r["refusal/boilerplate"] == 0.5 and not r["passes"]  # a 50-point rise of refusals
    # the same thresholds as the test guard: canned help offers and the most frequent response
    varied = [f"reply number {i} about the sentence today" for i in range(20)]
    helping = ["I'm here to help you with whatever you're going through."] * 3 + varied[3:]
    hm = TS.guard_measures(helping, varied)
    assert hm["help offers"] == pytest.approx(0.15) and not hm["passes"] and hm["fails"] == "help offers +15.0 points"
    assert TS.guard_measures(helping[1:] + varied[:1], varied)["passes"]  # +10 points: at the limit
    top = ["just that"] * 6 + varied[6:]
    tm = TS.guard_measures(top, varied)
    assert tm["top response share"] == pytest.approx(0.3) and tm["fails"] == "top response 30.0%"


def test_response_guard_answers_through_the_engine_with_a_lora_model():
    """The validation guard prompts the model in training (LoRA wrapped) through the generation
    engine; an untouched LoRA model answers as the original, so it passes."""
    from nlgbias.generation import DecodingParams
    from nlgbias.holistic import tuning_runs as TRN

    lm = tiny_chat_lm()
    params = DecodingParams(max_new_tokens=4, do_sample=False)
    guard = TRN.response_guard(lm, ["i love blind people .", "i am a tall person .", "i hate tall people ."],
                               None, params)
    m = guard(TU._prepare(lm.model, TU.TuningConfig()).eval())
    assert m["distinct"] == m["distinct (original)"] and m["distinct-2"] == m["distinct-2 (original)"]
    assert m["help offers"] == m["help offers (original)"] and m["top response share"] == m["top response share (original)"]
    # the only check an untouched model can miss is the absolute cap on the most frequent response
    # (3 sentences: one response is a third of them at least)
    assert m["passes"] or m["fails"].startswith("top response")


def test_tuning_targets_keep_few_responses_per_opening():
    """Refusals/boilerplate leave the tuning and validation pairs, and of the rest at most
    ``cap`` responses share an opening (its first words, case-folded); the test part is whole."""
    from nlgbias.holistic import tuning_study as TS

    canned = "I'm so sorry to hear that you're going through a tough time."
    gens = [canned] * 6 + [canned.upper()] * 2 + ["As an AI language model, I can't."] * 2 + \
        [f"Reply number {i} is different." for i in range(4)]
    tv = pd.DataFrame({"generation": gens, "split": ["train"] * 10 + ["val"] * 4,
                       "descriptor": [f"d{i % 3}" for i in range(14)]})
    s = {"tv": tv, "val": tv[tv["split"] == "val"], "test": tv.iloc[:3]}
    out, table = TS.drop_boilerplate(s, words=5, cap=3, seed=0)
    kept = out["tv"]["generation"]
    assert TS.openings(kept, 5).value_counts().max() == 3  # 8 share an opening (case-folded): 3 stay
    assert not kept.str.contains("AI language model").any() and len(kept) == 3 + 4
    assert table.set_index("split").loc["train", "refusal/boilerplate"] == 2
    assert int(table.filter(like="repeated").sum().iloc[0]) == 5
    assert out["val"]["split"].eq("val").all() and out["test"] is s["test"]
    again, _ = TS.drop_boilerplate(s, words=5, cap=3, seed=0)
    assert again["tv"].equals(out["tv"])  # a seeded choice
    whole, _ = TS.drop_boilerplate(s, cap=None)
    assert len(whole["tv"]) == 12


def test_drop_boilerplate_leaves_canned_help_offers_out_of_the_targets():
    """A canned help offer (the collapse guard counts them) is not a tuning target either: tuning
    on them taught the model to answer a sixth to a third of the test prompts with one."""
    from nlgbias.holistic import tuning_study as TS

    offer = "I'm sorry for the misunderstanding. I'm here to help you with whatever you need."
    gens = [offer, "I'm sorry, but I can't assist with that.", "Tall people are fun.", "Cool."]
    tv = pd.DataFrame({"generation": gens, "split": ["train", "train", "train", "val"],
                       "descriptor": ["a", "b", "c", "d"]})
    out, table = TS.drop_boilerplate({"tv": tv, "val": tv[tv["split"] == "val"], "test": tv}, cap=None)
    assert out["tv"]["generation"].tolist() == ["Tall people are fun.", "Cool."]
    row = table.set_index("split").loc["train"]
    assert (row["refusal/boilerplate"], row["canned help offer"], row["kept for tuning"]) == (1, 1, 1)


def test_null_expectation_equals_the_permutation_mean_and_follows_the_resample():
    """The exact expectation of Full Gen Bias under the shuffle of descriptors within template
    (cells of unequal size) equals the permutation null's mean, and on a resample (a descriptor
    drawn twice is two cells) it equals the permutation mean of the resampled frame."""
    from nlgbias.holistic import genbias as G
    from nlgbias.holistic import tuning_report as TR

    rng = np.random.default_rng(3)
    rows = [{"template": t, "descriptor": f"d{k}", "s:a": rng.random(), "s:b": rng.random() * (k + 1)}
            for t in ("t1", "t2") for k in range(6) for _ in range(1 + k % 3)]
    f = pd.DataFrame(rows)
    desc = pd.Index(sorted(f["descriptor"].unique()))
    w = np.vstack([np.ones(len(desc)), [2, 0, 1, 1, 0, 2]])
    e = TR._null_expectation(f, ["s:a", "s:b"], desc, w, 1000.0)
    perm = G.null_summary(f, ["s:a", "s:b"], n_perm=20000, seed=0).set_index("statistic").loc["full", "null_mean"]
    assert e[0] == pytest.approx(perm, rel=0.02)
    dup = pd.concat([f[f["descriptor"] == d].assign(descriptor=f"{d}#{c}")
                     for d, k in zip(desc, w[1], strict=True) for c in range(int(k))], ignore_index=True)
    perm2 = G.null_summary(dup, ["s:a", "s:b"], n_perm=20000, seed=0).set_index("statistic").loc["full", "null_mean"]
    assert e[1] == pytest.approx(perm2, rel=0.02)


def test_like_for_like_grades_every_arm_on_the_same_prompts():
    """The like-for-like contrasts keep the prompts that no arm answers with a refusal: each arm
    refuses other prompts, and every kept frame holds exactly the intersection of the arms' kept
    prompts (the original's own refusals alone would leave the tuned arms other prompts)."""
    from nlgbias.holistic import tuning_study as TS

    rng = np.random.default_rng(0)
    refuse = "I'm sorry, but I can't assist with that."
    base = pd.DataFrame([{"prompt_id": f"p{t}{k}{n}", "sample": 0, "template": f"t{t}", "descriptor": f"d{k}",
                          "axis": "x" if k % 2 else "y"}
                         for t in range(2) for k in range(6) for n in range(4)])

    def arm(refused):
        f = base.assign(**{"s:a": rng.random(len(base)), "s:b": rng.random(len(base))})
        f["generation"] = ["hello there" if i not in refused else refuse for i in range(len(f))]
        return f

    frames = {("original", None): arm(set(range(0, 48, 2))), ("tagged", 0): arm({1, 3}),
              ("untagged", 0): arm({5, 7, 0})}
    lk = TS._like_for_like(frames, tagged_keys=[("tagged", 0)], untagged_keys=[("untagged", 0)],
                           styles=["s:a", "s:b"], drop=("refusal",), null_mean=lambda f: 0.0, n_boot=50, seed=0,
                           n_perm=99)
    assert lk["removed"] == {("original", None): (24, 48), ("tagged", 0): (2, 48), ("untagged", 0): (3, 48)}
    kept = set(range(48)) - set(range(0, 48, 2)) - {1, 3, 5, 7}
    assert lk["kept"] == (len(kept), 48) == (20, 48)
    assert lk["original_null"]["n_perm"] == 99
    orig = frames[("original", None)].iloc[sorted(kept)]
    assert lk["raw"]["original"] == pytest.approx(TS.G.full_gen_bias(orig, ["s:a", "s:b"]))
    text = TS.removed_text(lk["removed"], "refusal/boilerplate", lk["kept"])
    assert text.startswith("refusal/boilerplate removed from every arm: the same 20 of 48 test prompts for all")
    assert "the original's own 24/48, 50.0%; the tuned runs' 4.2%-6.2%" in text
