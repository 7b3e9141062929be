"""BOLD §4.4 psycholinguistic norms: aggregation, rescaling, POS filter, categories, tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlgbias.bold import norms_gender as BN
from nlgbias.bold.paper import paper_norms_table
from nlgbias.lexicons import norms as NL
from nlgbias.lexicons.word2vec import Embedding
from nlgbias.metrics import norms as N


def test_aggregate_hand_computed():
    # Σ sgn(w) w² / Σ|w| = (0.25 - 0.09 + 0.01) / 0.9 = 0.17 / 0.9
    assert N.aggregate([0.5, -0.3, 0.1]) == pytest.approx(0.17 / 0.9)
    assert N.aggregate([0.2, 0.2]) == pytest.approx(0.2)
    assert N.aggregate([0.0]) == 0.0
    assert np.isnan(N.aggregate([]))


def test_rescale():
    raw = pd.DataFrame({"valence": [1.0, 5.0, 9.0], "arousal": [3.0, 7.0, 5.0],
                        "joy": [1.0, 3.0, 5.0], "fear": [0.5, 2.0, 5.5]})
    s = N.rescale(raw)
    assert s["valence"].tolist() == [-1.0, 0.0, 1.0]
    assert s["arousal"].tolist() == [-0.5, 0.5, 0.0]
    assert s["joy"].tolist() == [0.0, 0.5, 1.0]
    assert s["fear"].tolist() == [0.0, 0.25, 1.0]  # clipped to [0, 1]


def test_content_words_skip_function_words():
    from nlgbias.resources import nltk_setup

    nltk_setup()
    words = N.content_words("She smiled at the happy children and they laughed, but he cried.")
    # pronouns (she, they, he), preposition (at), determiner (the), conjunctions (and, but),
    # punctuation are skipped
    assert words == ["smiled", "happy", "children", "laughed", "cried"]


def _lexicon() -> pd.DataFrame:
    # raw scales: VAD 1-9, BE5 1-5
    rows = {
        "happy": [9.0, 7.0, 7.0, 5.0, 1.0, 1.0, 1.0, 1.0],
        "cried": [1.0, 5.0, 3.0, 1.0, 2.0, 5.0, 3.0, 1.0],
        "children": [7.0, 5.0, 5.0, 3.0, 1.0, 1.0, 1.0, 1.0],
        "she": [1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 5.0, 5.0],  # must be ignored: a pronoun
    }
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(N.VARIABLES))


def test_compute_text_scores():
    out = N.compute(["She saw happy children.", "She cried.", "She and they."], _lexicon(),
                    progress=False)
    # text 1: happy, children (she skipped). valence rescaled: 1.0, 0.5 -> (1 + .25) / 1.5
    assert out.loc[0, "n_words"] == 2
    assert out.loc[0, "valence"] == pytest.approx(1.25 / 1.5)
    # arousal: 0.5, 0 -> 0.25 / 0.5 = 0.5 ; joy: 1.0, 0.5 -> 1.25 / 1.5
    assert out.loc[0, "arousal"] == pytest.approx(0.5)
    assert out.loc[0, "joy"] == pytest.approx(1.25 / 1.5)
    assert out.loc[0, "anger"] == 0.0
    # text 2: cried only: valence -1, sadness 1, dominance -0.5
    assert out.loc[1, ["valence", "sadness", "dominance"]].tolist() == [-1.0, 1.0, -0.5]
    # text 3: no content word in the lexicon
    assert out.loc[2, "n_words"] == 0 and out.loc[2, list(N.VARIABLES)].isna().all()


def test_categorize():
    scores = pd.DataFrame({v: [0.0, 0.3, -0.3, np.nan] for v in N.VARIABLES})
    c = N.categorize(scores, {"vad": 0.25, "be5": 0.25})
    assert c["valence (+ve)"].tolist() == [False, True, False, False]
    assert c["valence (-ve)"].tolist() == [False, False, True, False]
    assert c["joy"].tolist() == [False, True, False, False]
    c2 = N.categorize(scores, {"vad": 0.25, "be5": 0.25, "arousal_neg": 0.0, "joy": 0.5})
    assert c2["arousal (-ve)"].tolist() == [True, False, True, False]
    assert c2["joy"].tolist() == [False, False, False, False]


def test_proportions_difference_beside_paper():
    keys = pd.DataFrame({"group": ["a", "a", "b", "b", "a", "b"],
                         "source": ["WIKI"] * 4 + ["m", "m"]})
    cats = pd.DataFrame(False, index=range(6), columns=list(N.CATEGORY_NAMES))
    cats.loc[[0, 2, 3], "joy"] = True
    props = BN.proportions(cats, keys, ["group", "source"])
    assert props.loc[("a", "WIKI"), "joy"] == 50.0 and props.loc[("b", "WIKI"), "joy"] == 100.0
    assert props.loc[("a", "WIKI"), "total"] == 2
    diff = BN.difference(props, "a", "b")
    assert diff.loc["WIKI", "joy"] == -50.0 and diff.loc["m", "joy"] == 0.0
    t4 = BN.beside_paper(diff, paper_norms_table(4))
    assert t4.loc["WIKI (paper)", "joy"] == -0.51
    assert t4.loc["WIKI - paper", "joy"] == pytest.approx(-50 + 0.51)


def test_paper_tables_transcribed():
    t9 = paper_norms_table(9)
    assert t9.shape == (24, 12)
    assert t9.loc[("European_Americans", "WIKI"), "arousal (-ve)"] == 89.83
    assert paper_norms_table(6).loc["CTRL-THT", "fear"] == -6.16
    assert paper_norms_table(10).shape == (60, 12)
    assert paper_norms_table(11).loc[("right-wing", "CTRL-THT"), "disgust"] == 9.76


def test_seeds_and_kfold_on_toy_data(tmp_path):
    seeds = NL.load_seeds()
    assert len(seeds) == 13905 and list(seeds.columns) == list(N.VARIABLES)
    assert seeds.loc["aardvark", "valence"] == 6.26
    assert seeds.loc["aardvark", "joy"] == pytest.approx(2.8276, abs=1e-4)
    # the net learns a linear map of a toy embedding: held-out r close to 1
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 10)).astype(np.float32)
    y = np.column_stack([x[:, 0] * 2 + 5, x[:, 1] - x[:, 2]])
    cfg = NL.NetConfig(hidden=(32, 16), dropout_in=0.0, dropout_hidden=0.0, iterations=300)
    kf = NL.kfold_pearson(x, y, k=2, cfg=cfg, variables=["a", "b"])
    assert len(kf) == 4 and (kf["pearson_r"] > 0.9).all()
    # expansion: every embedding word predicted (MEmoLon-like), a seed without a vector keeps
    # its rating; or the seed ratings kept. Cached on disk.
    words = [f"w{i}" for i in range(400)]
    emb = Embedding(words, x)
    toy_seeds = pd.DataFrame(np.repeat(y[:300, :1], 8, axis=1), index=words[:300],
                             columns=list(N.VARIABLES))
    toy_seeds.loc["novector"] = 7.0
    lex, _ = NL.expand_lexicon(toy_seeds, emb, tmp_path, k=1, cfg=cfg)
    assert len(lex) == 401 and (lex.loc[words, "source"] == "predicted").all()
    assert lex.loc["novector", "source"] == "seed" and lex.loc["novector", "valence"] == 7.0
    assert lex.loc["w0", "valence"] != y[0, 0]
    assert NL.pearson(lex.loc[words[:300], "valence"], y[:300, 0]) > 0.9
    kept, _ = NL.expand_lexicon(toy_seeds, emb, tmp_path, k=1, cfg=cfg, keep_seed_ratings=True)
    assert kept.loc["w0", "valence"] == pytest.approx(y[0, 0]) and kept.loc["w0", "source"] == "seed"
    assert (kept.loc[words[300:], "source"] == "predicted").all()
    pd.testing.assert_frame_equal(kept.loc[words[300:]], lex.loc[words[300:]])


def test_norm_net_training_is_deterministic():
    """Two trainings on the same data (dropout on, float64, 1 thread inside) give identical
    predictions, whatever thread count the caller runs at; another seed gives other ones."""
    from nlgbias.hardware import torch_threads

    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 12)).astype(np.float32)
    y = np.column_stack([x[:, 0] - x[:, 3], x[:, 1] * 3 + 2])
    cfg = NL.NetConfig(hidden=(16, 8), iterations=200, seed=4)
    a = NL.train_net(x, y, cfg)(x[:50])
    with torch_threads(2):
        b = NL.train_net(x, y, cfg)(x[:50])
    assert a.dtype == np.float64 and np.array_equal(a, b)
    other = NL.train_net(x, y, NL.NetConfig(hidden=(16, 8), iterations=200, seed=5))(x[:50])
    assert not np.array_equal(a, other)


def test_own_name_reading_counts_raw_sentences():
    seeds = pd.DataFrame({"valence": [2.5], "sadness": [3.0], "fear": [2.75]}, index=["fascism"])
    texts = pd.DataFrame({"source": ["WIKI"] * 3 + ["lm"], "group": "fascism",
                          "text_raw": ["Fascism rose.", "It fell.", "Italian fascism.", "fascism"]})
    text = BN.own_name_reading(seeds, texts)
    assert "(valence 2.50 on 1–9, sadness 3.00 and fear 2.75 on 1–5), 2 of its 3 WIKI" in text


def test_content_words_equal_nltk_pos_tag_on_bold_sentences():
    """One tagger for every text (and remembered words) gives what ``nltk.pos_tag`` does, which
    builds a new tagger per call: on 400 real BOLD Wikipedia sentences of every domain."""
    import nltk

    from nlgbias.datasets.bold import load_bold
    from nlgbias.resources import nltk_setup

    nltk_setup()
    texts = load_bold().groupby("domain").head(80)["wiki_text"].tolist()
    for text in texts + texts[:5]:  # the repeated ones come from the remembered words
        expected = [w.lower() for w, t in nltk.pos_tag(nltk.word_tokenize(text), tagset="universal")
                    if t not in N.SKIP_POS]
        assert N.content_words(text) == expected


def test_train_nets_in_processes_equal_in_process(tmp_path):
    """expand_lexicons of several runs, their nets trained side by side in worker processes,
    writes the same lexicons and k-fold tables (bytes) as one expand_lexicon call per run with
    its nets trained here one after another."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(300, 12))
    y = x[:, :1] * 2 + 5
    words = [f"w{i}" for i in range(300)]
    emb = Embedding(words, x)
    seeds = pd.DataFrame(np.repeat(y[:250], 8, axis=1), index=words[:250], columns=list(N.VARIABLES))
    runs = [(2, NL.NetConfig(hidden=(16, 8), iterations=150, seed=0)),
            (1, NL.NetConfig(hidden=(16, 8), iterations=150, seed=3))]
    together = NL.expand_lexicons(seeds, emb, tmp_path / "together", runs, workers=2)
    for (k, cfg), (lex, kf) in zip(runs, together):
        one_lex, one_kf = NL.expand_lexicon(seeds, emb, tmp_path / "one", k=k, cfg=cfg)
        pd.testing.assert_frame_equal(lex, one_lex, check_exact=True)
        pd.testing.assert_frame_equal(kf, one_kf, check_exact=True)
    assert len(together[0][1]) == 2 * 8 and together[1][1].empty
    assert not together[0][0]["valence"].equals(together[1][0]["valence"])


def test_adam_foreach_gives_the_loop_s_weights(monkeypatch):
    """Adam's foreach form (the default here) trains the same weights, bit for bit, as its
    one-tensor-at-a-time loop: the real net's shape (300-256-128-8, dropout on), 150 steps."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1000, 300))
    y = rng.normal(size=(1000, 8))
    cfg = NL.NetConfig(iterations=150, seed=1)
    fast = NL._fit(x, y, cfg, "foreach")[0]
    monkeypatch.setattr(NL, "ADAM_FOREACH", False)
    loop = NL._fit(x, y, cfg, "loop")[0]
    assert all(np.array_equal(fast[k], loop[k]) for k in loop)
