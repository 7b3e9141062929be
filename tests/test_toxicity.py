"""tox-block BiLSTM in torch (BOLD §4.2 stand-in): published outputs, tokenizer conventions."""

import pickle

import numpy as np
import pytest
import torch

from nlgbias.hardware import torch_threads
from nlgbias.metrics import toxicity as T
from nlgbias.resources import resolve

# tox-block 0.1.2 README, make_predictions(..., rescale=True)
README = {
    "Good morning my friend, I hope you're having a fantastic day!":
        [0.05347811430692673, 0.0006274021579883993, 0.004466842859983444, 0.009578478522598743,
         0.00757843442261219, 0.002106667961925268],
    "I will kill you, you fucking idiot!":
        [0.9998679757118225, 0.7870362997055054, 0.9885633587837219, 0.8483908176422119,
         0.9883397221565247, 0.171059250831604],
    "I do strongly disagree with the fascist views of this joke that calls itself a political "
    "party.":
        [0.026190076023340225, 7.185135473264381e-05, 0.0009493605466559529,
         0.00012321282702032477, 0.0029190618079155684, 0.0022098885383456945],
}


@pytest.fixture(scope="module")
def model():
    return T.load_toxblock()


@pytest.mark.slow
def test_reproduces_published_outputs(model):
    got = model.predict(list(README), rescale=True)
    np.testing.assert_allclose(got, np.array(list(README.values())), atol=1e-3)
    # the headline example, rounded as in the brief
    assert np.round(got[1], 4).tolist() == pytest.approx(
        [0.9999, 0.787, 0.9886, 0.8484, 0.9883, 0.1711], abs=1e-4)


@pytest.mark.slow
def test_compute_thresholds_raw_probabilities(model):
    df = T.compute(list(README))
    assert list(df.columns) == [*T.LABELS, "toxicity", "is_toxic"]
    assert df["is_toxic"].tolist() == [False, True, False]
    # raw severe_toxic = rescaled * (max - min) + min
    lo, hi = T.RESCALE_PROBA["severe_toxic"]
    assert df.loc[1, "severe_toxic"] == pytest.approx(0.7870363 * (hi - lo) + lo, abs=1e-5)
    assert df.loc[1, "toxicity"] == df.loc[1, list(T.LABELS)].max()


@pytest.mark.slow
def test_batching_does_not_change_scores(model):
    texts = list(README) + ["", "a " * 300 + "idiot", "Person is an American actor."]
    one = np.vstack([model.predict([t]) for t in texts])
    np.testing.assert_allclose(model.predict(texts, batch_size=4), one, atol=1e-6)


@pytest.mark.slow
def test_threads_and_batch_size_do_not_change_labels(model):
    """1 vs 2 threads and batch 8 vs 32 give the same labels; probabilities agree to
    1e-6 (float32 sums may round differently per thread split, never by a label's worth)."""
    texts = [*README, "Person is an American actor.", "you are a stupid idiot", "XYZ is a nurse."] * 6
    runs = []
    for threads, bs in ((1, 8), (2, 32), (1, 32), (2, 8)):
        with torch_threads(threads):
            runs.append(model.predict(texts, batch_size=bs))
    for r in runs[1:]:
        np.testing.assert_allclose(r, runs[0], atol=1e-6)
        assert ((r >= 0.5) == (runs[0] >= 0.5)).all()


@pytest.mark.slow
def test_tokenizer_conventions(model):
    tok = model.tokenizer
    assert tok.num_words == 20000 and tok.maxlen == 100
    assert tok.word_index["the"] == 1 and tok.word_index["to"] == 2 and tok.word_index["you"] == 6
    assert tok.words("I will kill you, you fucking idiot!") == [
        "i", "will", "kill", "you", "you", "fucking", "idiot"]
    assert tok.words("Hello\tworld--it's  me") == ["hello", "world", "it's", "me"]
    ids = tok(["I will kill you, you fucking idiot!"])[0]
    # pre-padding: the 7 known words sit at the end
    assert (ids[:93] == 0).all() and (ids[93:] > 0).all()
    assert ids[-4:-2].tolist() == [6, 6]  # "you", "you"
    # pre-truncation: a long text keeps its LAST 100 tokens
    long = " ".join(["the"] * 150 + ["to"] * 50)
    ids = tok([long])[0]
    assert ids.tolist() == [1] * 50 + [2] * 50
    # words ranked >= num_words are dropped, not mapped to an OOV id
    assert tok.encode("zzzqqqxxx the") == [1]


def test_hard_sigmoid():
    x = torch.tensor([-3.0, -2.5, 0.0, 1.0, 2.5, 3.0])
    assert T.hard_sigmoid(x).tolist() == pytest.approx([0.0, 0.0, 0.5, 0.7, 1.0, 1.0])


def test_tiny_network_matches_numpy_reference():
    """Keras LSTM equations with gate order (i, f, c, o), both directions, max pool."""
    torch.manual_seed(0)
    net = T.ToxBlockBiLSTM(vocab=7, emb=3, units=2, dense=4, n_labels=6)
    with torch.no_grad():
        for p in net.parameters():
            p.normal_()
    ids = torch.tensor([[0, 0, 3, 5, 1], [2, 4, 6, 1, 3]])
    got = net(ids).detach().numpy()

    def hs(x):
        return np.clip(0.2 * x + 0.5, 0, 1)

    def lstm(xs, W, U, b):
        h, c, outs = np.zeros(2), np.zeros(2), []
        for x in xs:
            z = x @ W + h @ U + b
            i, f, g, o = z[:2], z[2:4], z[4:6], z[6:]
            c = hs(f) * c + hs(i) * np.tanh(g)
            h = hs(o) * np.tanh(c)
            outs.append(h)
        return np.array(outs)

    E = net.embedding.weight.detach().numpy()
    K, R, B = (t.detach().numpy() for t in (net.kernel, net.recurrent, net.bias))
    for row, seq in enumerate(ids.numpy()):
        x = E[seq]
        fwd = lstm(x, K[0], R[0], B[0])
        bwd = lstm(x[::-1], K[1], R[1], B[1])[::-1]
        pooled = np.concatenate([fwd, bwd], axis=1).max(axis=0)
        hid = np.maximum(pooled @ net.dense.weight.detach().numpy().T
                         + net.dense.bias.detach().numpy(), 0)
        ref = 1 / (1 + np.exp(-(hid @ net.out.weight.detach().numpy().T
                                + net.out.bias.detach().numpy())))
        np.testing.assert_allclose(got[row], ref, atol=1e-5)


def test_rescale_and_labels():
    p = np.full((1, 6), 0.5)
    r = T.rescale_probabilities(p)
    assert r[0, 0] == pytest.approx((0.5 - 0.002116) / (0.999858 - 0.002116), rel=1e-6)
    assert r[0, 1] == pytest.approx((0.5 - 0.000011) / (0.648682 - 0.000011), rel=1e-6)
    df = T.label_frame(np.array([[0.1, 0.2, 0.3, 0.49, 0.0, 0.0], [0.1, 0.0, 0.0, 0.0, 0.0, 0.5]]))
    assert df["is_toxic"].tolist() == [False, True]
    assert df["toxicity"].tolist() == pytest.approx([0.49, 0.5])
    assert T.label_frame(df[list(T.LABELS)].to_numpy(), 0.3)["is_toxic"].tolist() == [True, True]


def test_rescale_constants_match_package():
    assert T.read_rescale(resolve("toxblock")) == T.RESCALE_PROBA


def test_unpickler_refuses_code(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        with open(path, "rb") as fh:
            T._EncoderUnpickler(fh).load()


@pytest.mark.slow
def test_hub_model_path_maps_labels(tmp_path):
    """The optional hub path (transformers text-classification, sigmoid per label) with a tiny
    random BERT saved locally; labels in another order and with Detoxify-style names."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "you", "idiot", "good", "morning"]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab))
    tok = BertTokenizerFast(str(tmp_path / "vocab.txt"))
    names = ["insult", "severe_toxicity", "toxic", "identity_attack", "threat", "obscene"]
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=8, num_hidden_layers=1,
                     num_attention_heads=2, intermediate_size=16, num_labels=6,
                     id2label=dict(enumerate(names)), label2id={n: i for i, n in enumerate(names)})
    torch.manual_seed(0)
    net = BertForSequenceClassification(cfg).eval()
    with torch.no_grad():
        net.classifier.bias.copy_(torch.tensor([-3.0, -1.0, 0.0, 1.0, 2.0, 3.0]))
    net.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    texts = ["you idiot", "good morning"]
    df = T.compute(texts, model=str(tmp_path))
    with torch.no_grad():
        ref = torch.sigmoid(net(**tok(texts[:1], return_tensors="pt")).logits)[0].numpy()
    want = {"insult": ref[0], "severe_toxic": ref[1], "toxic": ref[2], "identity_hate": ref[3],
            "threat": ref[4], "obscene": ref[5]}
    for lab in T.LABELS:
        assert df.loc[0, lab] == pytest.approx(want[lab], abs=1e-5)
    assert df.loc[0, "is_toxic"]  # obscene ~ sigmoid(3) > 0.5
    with pytest.raises(ValueError, match="rescale"):
        T.compute(texts, model=str(tmp_path), rescale=True)
