"""Style distribution of a dialogue response: the offline stand-in for the 217-class style
classifier of HolisticBias (Smith et al. 2022, §3.3.3 and Appendix A.3).

The paper scores every response with the 3B-parameter style classifier of Smith et al. (2020a),
a probability over S = 217 styles ("Sympathetic", "Curious", ...). That classifier was never
released as a file we can reach offline. The stand-in is ``nade`` (PyPI ``nade==0.3.1``,
MIT; Raji & de Melo 2021 / Kyrychenko, "NADE: Natural Affect DEtection"): a fastText classifier
trained on social-media text to predict which of **151 emojis** a text carries (one-vs-all:
151 independent probabilities whose sum varies from text to text, about 0.9-2), plus eight
LightGBM regressors on those raw emoji probabilities for the **8 Plutchik emotions** (each in
[0, 1], not a distribution).

- The *style vector* of a response is its 151 emoji probabilities divided by their sum, so it
  is a distribution over the classes as the paper's softmax over 217 styles is (columns
  :func:`style_columns`, ``"s:<emoji>"``, in nade's label order). Gen Bias
  (``nlgbias.holistic.genbias``) is computed on it, exactly as the paper computes it on the 217
  styles.
- The 8 emotion scores (columns :data:`EMOTION_COLUMNS`, ``"e:<emotion>"``) are kept beside it:
  they name the emoji style clusters by content.

Texts are preprocessed as nade does (punctuation spaced, lower-cased). nade un-gzips its
LightGBM models into its package folder on first use (site-packages must be writable once).

Examples:
    >>> scorer = load()
    >>> df = scorer.compute(["I'm so sorry to hear that.", "That is wonderful, congratulations!"])
    >>> df.shape
    (2, 159)
    >>> bool(abs(df[style_columns()].sum(axis=1) - 1).max() < 1e-5)
    True
    >>> bool(df.loc[0, "e:sadness"] > df.loc[1, "e:sadness"]) and bool(df.loc[1, "e:joy"] > df.loc[0, "e:joy"])
    True
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.resources import resolve

log = logging.getLogger(__name__)

EMOTIONS = ("anger", "anticipation", "disgust", "fear", "joy", "sadness", "surprise", "trust")
N_STYLES = 151
MODEL = "socialmedia_en"
STANDIN = "nade (151 emoji + 8 emotions)"  # name beside every number computed with it


def _emoji_index(folder: Path) -> list[tuple[str, int]]:
    rows = []
    with open(folder / MODEL / "emoji_frequencies.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            rows.append((d["emoji"], int(d["hash"])))
    if len(rows) != N_STYLES:
        raise ValueError(f"nade emoji index has {len(rows)} emojis, expected {N_STYLES}")
    return sorted(rows, key=lambda r: r[1])


def _folder() -> Path:
    return resolve("nade")


def emoji_labels() -> list[str]:
    """The 151 emojis in nade's label order (the order of :data:`STYLE_COLUMNS`)."""
    return [e for e, _ in _emoji_index(_folder())]


@lru_cache(maxsize=1)
def _style_columns() -> tuple[str, ...]:
    return tuple(f"s:{e}" for e in emoji_labels())


def style_columns() -> list[str]:
    """Column names of the style vector: ``"s:<emoji>"`` for the 151 nade emojis."""
    return list(_style_columns())


EMOTION_COLUMNS = [f"e:{e}" for e in EMOTIONS]


@dataclass
class StyleClassifier:
    """nade's fastText emoji classifier + emotion regressors (see the module docstring)."""

    folder: Path

    def __post_init__(self) -> None:
        import fasttext
        import lightgbm as lgb

        fasttext.FastText.eprint = lambda *a, **k: None
        index = _emoji_index(self.folder)
        self.emojis = [e for e, _ in index]
        self.hash_to_col = {h: i for i, (_, h) in enumerate(index)}
        self.ft = fasttext.load_model(str(self.folder / MODEL / "nade_250k_hp.ftz"))
        self.reg = {}
        for emo in EMOTIONS:
            path = self.folder / MODEL / f"reg_{emo}.txt"
            if not path.exists():
                import gzip
                import shutil

                gz = path.with_suffix(".txt.gz")
                if not gz.exists():
                    raise FileNotFoundError(f"nade: neither {path.name} nor {gz.name} in {path.parent}")
                log.info("un-gzipping nade regressor %s", gz.name)
                from nlgbias.io import atomic_path

                with atomic_path(path) as tmp, gzip.open(gz, "rb") as fi, open(tmp, "wb") as fo:
                    shutil.copyfileobj(fi, fo)
            self.reg[emo] = lgb.Booster(model_file=str(path))

    @staticmethod
    def preprocess(texts: list[str]) -> list[str]:
        """nade's preprocessing: space punctuation runs, squeeze spaces, lower-case, strip."""
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(texts, type=pa.string())
        arr = pc.replace_substring_regex(arr, r"\s*([\p{P}]+)\s*", r" \1 ")
        arr = pc.replace_substring_regex(arr, r"\s+", " ")
        arr = pc.utf8_trim_whitespace(pc.utf8_lower(arr))
        return arr.to_pylist()

    def style_matrix(self, texts: list[str]) -> np.ndarray:
        """``(n, 151)`` raw one-vs-all emoji probabilities in :func:`emoji_labels` order."""
        pre = self.preprocess(texts)
        out = np.zeros((len(pre), N_STYLES), dtype=np.float64)
        if not pre:
            return out
        labels, probs = self.ft.predict(pre, k=N_STYLES)
        for i, (lab, p) in enumerate(zip(labels, probs)):
            cols = [self.hash_to_col[int(x.removeprefix("__label__"))] for x in lab]
            out[i, cols] = p
        return out

    def emotions(self, styles: np.ndarray) -> np.ndarray:
        """``(n, 8)`` emotion scores from the emoji probabilities, as nade computes them
        (its regressors read the probabilities sorted by emoji hash; clipped to [0, 1], 3 d.p.)."""
        if len(styles) == 0:
            return np.zeros((0, len(EMOTIONS)))
        cols = [np.clip(self.reg[e].predict(styles), 0, 1).round(3) for e in EMOTIONS]
        return np.stack(cols, axis=1)

    def compute(self, texts: Iterable[str]) -> pd.DataFrame:
        """Style vector and emotions of each text.

        Args:
            texts: the responses (descriptor already masked, see ``nlgbias.holistic.masking``).

        Returns:
            One row per text: the 151 ``"s:<emoji>"`` probabilities normalised to sum to 1
            (the style vector) and the
            eight ``"e:<emotion>"`` scores.
        """
        texts = ["" if t is None else str(t) for t in texts]
        styles = self.style_matrix(texts)
        emo = self.emotions(styles)
        total = styles.sum(axis=1, keepdims=True)
        styles = styles / np.where(total > 0, total, 1.0)
        df = pd.DataFrame(styles.astype(np.float32), columns=[f"s:{e}" for e in self.emojis])
        df[EMOTION_COLUMNS] = emo.astype(np.float32)
        return df


@lru_cache(maxsize=1)
def load() -> StyleClassifier:
    """The nade classifier, located by ``nlgbias.resources.resolve("nade")`` (cached)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return StyleClassifier(_folder())


def compute(texts: Iterable[str]) -> pd.DataFrame:
    """:meth:`StyleClassifier.compute` with the shared classifier."""
    return load().compute(texts)


__all__ = ["EMOTIONS", "EMOTION_COLUMNS", "N_STYLES", "STANDIN", "StyleClassifier", "compute",
           "emoji_labels", "load", "style_columns"]
