"""Hard debiasing (Bolukbasi et al. 2016 §5) on a small hand-made embedding."""

from __future__ import annotations

import numpy as np
import pytest

from nlgbias.lexicons.word2vec import (
    Embedding,
    drop,
    gender_direction,
    hard_debias,
    load_embedding,
    save_embedding,
)


def _toy() -> Embedding:
    """6-d toy space: axis 0 is 'gender', the others are content."""
    vecs = {
        "woman": [1.0, 0.5, 0.0, 0.0, 0.2, 0.0],
        "man": [-1.0, 0.5, 0.0, 0.0, 0.0, 0.0],
        "she": [0.9, 0.0, 0.6, 0.0, 0.0, 0.1],
        "he": [-0.7, 0.0, 0.6, 0.0, 0.0, 0.0],
        "queen": [0.8, 0.1, 0.0, 0.9, 0.0, 0.0],
        "king": [-0.6, 0.0, 0.1, 0.8, 0.0, 0.0],
        "nurse": [0.5, 0.0, 0.0, 0.0, 1.0, 0.0],
        "engineer": [-0.4, 0.0, 0.0, 0.0, 0.0, 1.0],
        "table": [0.1, 0.3, 0.3, 0.3, 0.3, 0.3],
    }
    return Embedding(list(vecs), np.array(list(vecs.values()), dtype=np.float32))


DEF = [["woman", "man"], ["she", "he"]]
SPECIFIC = ["woman", "man", "she", "he", "queen", "king"]
EQ = [["she", "he"], ["queen", "king"]]


def test_drop_removes_projection():
    u, v = np.array([3.0, 4.0]), np.array([1.0, 0.0])
    assert np.allclose(drop(u, v), [0.0, 4.0])
    assert np.allclose(drop(np.array([[3.0, 4.0], [1.0, 1.0]]), v), [[0, 4], [0, 1]])


def test_gender_direction_is_pca_of_pair_differences():
    emb = _toy().normalize()
    g = gender_direction(emb, DEF)
    assert np.isclose(np.linalg.norm(g), 1.0, atol=1e-6)
    # the centred rows are ±(a-b)/2: the first PC maximises the summed squared projections
    rows = np.array([(emb.v(a) - emb.v(b)) / 2 for a, b in DEF])
    m = np.vstack([rows, -rows])
    vals = np.linalg.eigvalsh(m.T @ m)
    assert np.isclose(float(np.sum((m @ g) ** 2)), vals[-1], rtol=1e-5)
    assert (emb.v("woman") - emb.v("man")) @ g > 0  # sign: first word of the first pair positive


def test_hard_debias_neutralises_and_equalises():
    emb = _toy()
    out, g = hard_debias(emb, DEF, SPECIFIC, EQ)
    # unit norm everywhere
    assert np.allclose(np.linalg.norm(out.vectors, axis=1), 1.0, atol=1e-6)
    # neutralised words: zero projection on the gender direction
    for w in ("nurse", "engineer", "table"):
        assert abs(float(out.v(w) @ g)) < 1e-6
    # equalised pairs: same neutral part, opposite gender components
    for a, b in EQ:
        va, vb = out.v(a), out.v(b)
        assert np.isclose(float(va @ g), -float(vb @ g), atol=1e-6)
        assert np.allclose(drop(va, g), drop(vb, g), atol=1e-6)
        # every neutral word is equidistant from both members
        for w in ("nurse", "engineer", "table"):
            assert np.isclose(float(out.v(w) @ va), float(out.v(w) @ vb), atol=1e-6)
    # specific, non-equalised word keeps its (normalised) vector
    assert np.allclose(out.v("woman"), emb.copy().normalize().v("woman"), atol=1e-6)
    # the input is untouched
    assert np.allclose(emb.vectors, _toy().vectors)


def test_she_minus_he_parallel_to_direction_after_equalise():
    out, g = hard_debias(_toy(), DEF, SPECIFIC, EQ)
    d = out.v("she") - out.v("he")
    cos = float(d @ g) / float(np.linalg.norm(d))
    assert np.isclose(abs(cos), 1.0, atol=1e-6)


def test_save_load_roundtrip(tmp_path):
    emb = _toy()
    save_embedding(emb, tmp_path / "e", {"x": 1})
    back = load_embedding(tmp_path / "e")
    assert back.words == emb.words and np.allclose(back.vectors, emb.vectors)
    with pytest.raises(KeyError, match="not in the embedding"):
        back.v("zebra")
