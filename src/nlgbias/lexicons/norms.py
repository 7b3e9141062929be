"""The expanded psycholinguistic norm lexicon of BOLD §4.4 (Dhamala et al. 2021).

Seeds: the Warriner et al. 2013 valence / arousal / dominance ratings (1-9, 5 neutral) and
their basic-emotion ratings Joy, Anger, Sadness, Fear, Disgust (1-5, 1 neutral). BOLD used
MEmoLon (Buechel et al. 2020), which expands such seeds to 2M words with the multi-task
feed-forward network of Buechel & Hahn 2018 on fastText vectors. MEmoLon is not available
offline, so :func:`expand_lexicon` trains the same kind of network on the Bolukbasi GoogleNews
word2vec (substitute for fastText) and predicts all 8 variables for every embedding word (as in
MEmoLon, seed words get the prediction too; optionally their ratings). The text-level metric
that uses the lexicon is :mod:`nlgbias.metrics.norms`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.io import write_json, write_parquet
from nlgbias.lexicons.word2vec import Embedding
from nlgbias.progress import tqdm
from nlgbias.resources import resolve

log = logging.getLogger(__name__)

VAD = ("valence", "arousal", "dominance")
BE5 = ("joy", "anger", "sadness", "fear", "disgust")
VARIABLES = VAD + BE5


# --------------------------------------------------------------------------- seeds
def load_seeds(folder: str | Path | None = None) -> pd.DataFrame:
    """Warriner VAD means and the matching BE5 ratings: one row per word, 8 columns (raw scales)."""
    folder = Path(folder) if folder else resolve("norms")
    vad = pd.read_csv(folder / "Ratings_Warriner_et_al.csv", keep_default_na=False, low_memory=False)
    need = {"Word", "V.Mean.Sum", "A.Mean.Sum", "D.Mean.Sum"}
    if not need <= set(vad.columns):
        raise ValueError(f"{folder / 'Ratings_Warriner_et_al.csv'} lacks columns {sorted(need - set(vad.columns))}")
    vad = vad.rename(columns={"Word": "word", "V.Mean.Sum": "valence", "A.Mean.Sum": "arousal",
                              "D.Mean.Sum": "dominance"})[["word", *VAD]]
    be = pd.read_csv(folder / "Warriner_BE.tsv", sep="\t", keep_default_na=False)
    be.columns = [c.lower() for c in be.columns]
    if not {"word", *BE5} <= set(be.columns):
        raise ValueError(f"{folder / 'Warriner_BE.tsv'} lacks columns {sorted({'word', *BE5} - set(be.columns))}")
    df = vad.merge(be[["word", *BE5]], on="word", how="inner")
    df["word"] = df["word"].astype(str).str.strip().str.lower()
    df = df.drop_duplicates("word").set_index("word")
    return df.astype(float)


# --------------------------------------------------------------------------- expansion
@dataclass(frozen=True)
class NetConfig:
    """Multi-task FFN of Buechel & Hahn 2018 (§3): 2 hidden layers, leaky ReLU, dropout, Adam."""

    hidden: tuple[int, int] = (256, 128)
    dropout_in: float = 0.2
    dropout_hidden: float = 0.5
    lr: float = 1e-3
    batch_size: int = 128
    iterations: int = 15000
    seed: int = 0


def _make_net(d_in: int, d_out: int, cfg: NetConfig):
    import torch.nn as nn

    h1, h2 = cfg.hidden
    return nn.Sequential(nn.Dropout(cfg.dropout_in), nn.Linear(d_in, h1), nn.LeakyReLU(0.01),
                         nn.Dropout(cfg.dropout_hidden), nn.Linear(h1, h2), nn.LeakyReLU(0.01),
                         nn.Dropout(cfg.dropout_hidden), nn.Linear(h2, d_out))


def train_net(x: np.ndarray, y: np.ndarray, cfg: NetConfig = NetConfig(), desc: str = "train"):
    """Train the multi-task net on ``x`` (n x d) -> ``y`` (n x k, all variables jointly, MSE on
    z-scored targets). Returns ``predict(x) -> y`` (original scale).

    Deterministic: float64 weights and data, 1 torch thread (a fixed reduction order), batches
    drawn from ``numpy.random.default_rng(cfg.seed)`` and dropout masks from
    ``torch.manual_seed(cfg.seed)``, so two trainings on the same data give identical
    predictions. float64 costs about 3x float32's time here (6.7 vs 2.1 s per 1,000 steps on
    this 2-core CPU) and keeps kernel rounding differences 9 digits below float32's."""
    import torch

    from nlgbias.hardware import torch_threads

    with torch_threads(1):  # a 300-256-128-8 net on batches of 128: threads only add overhead
        return _train(torch, x, y, cfg, desc)


def _train(torch, x: np.ndarray, y: np.ndarray, cfg: NetConfig, desc: str):
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    mu, sd = y.mean(axis=0), y.std(axis=0) + 1e-8
    xt = torch.as_tensor(np.asarray(x, dtype=np.float64))
    yt = torch.as_tensor(np.asarray((y - mu) / sd, dtype=np.float64))
    net = _make_net(x.shape[1], y.shape[1], cfg).to(torch.float64)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    net.train()
    for _ in tqdm(range(cfg.iterations), desc=desc, mininterval=5, leave=False):
        idx = torch.as_tensor(rng.integers(0, len(x), cfg.batch_size))
        loss = torch.nn.functional.mse_loss(net(xt[idx]), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()

    def predict(xn: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = net(torch.as_tensor(np.asarray(xn, dtype=np.float64))).numpy()
        return out * sd + mu

    return predict


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r of two 1-d arrays."""
    a, b = np.asarray(a, float) - np.mean(a), np.asarray(b, float) - np.mean(b)
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def kfold_pearson(x: np.ndarray, y: np.ndarray, k: int = 10, cfg: NetConfig = NetConfig(),
                  variables: Iterable[str] = VARIABLES) -> pd.DataFrame:
    """Held-out Pearson r per variable and fold (Buechel & Hahn 2018 evaluate by 10-fold CV)."""
    variables = list(variables)
    folds = np.array_split(np.random.default_rng(cfg.seed).permutation(len(x)), k)
    rows = []
    for f, test in enumerate(folds):
        train = np.setdiff1d(np.arange(len(x)), test)
        pred = train_net(x[train], y[train], cfg, desc=f"fold {f + 1}/{k}")(x[test])
        for j, v in enumerate(variables):
            rows.append({"fold": f, "variable": v, "n_test": len(test),
                         "pearson_r": pearson(pred[:, j], y[test, j])})
    return pd.DataFrame(rows)


def seed_matrix(seeds: pd.DataFrame, emb: Embedding) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Seed words found in ``emb``: (words, vectors, 8 targets)."""
    words = [w for w in seeds.index if w in emb]
    x = np.stack([emb.v(w) for w in words]) if words else np.zeros((0, emb.vectors.shape[1]))
    return words, x, seeds.loc[words, list(VARIABLES)].to_numpy(float)


def expand_lexicon(seeds: pd.DataFrame, emb: Embedding, cache: str | Path, *, k: int = 10,
                   cfg: NetConfig = NetConfig(), keep_seed_ratings: bool = False,
                   rebuild: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Expand the seed norms to the embedding vocabulary (BOLD §4.4 after Buechel et al. 2020).

    Returns ``(lexicon, kfold)``: the lexicon (raw scales, index ``word``, 8 variable columns
    and ``source`` = ``seed`` | ``predicted``) and the k-fold Pearson table of
    :func:`kfold_pearson`. Like MEmoLon, whose entries are all model outputs, every embedding
    word gets the final net's prediction (seed words included); seed words without a vector
    keep their ratings. ``keep_seed_ratings=True`` instead keeps the ratings of every seed word.
    The net's predictions and the k-fold table are cached under
    ``cache/norms_lexicon_<hash>/`` (hash of the config, k and data sizes), written atomically.
    """
    key = json.dumps({"cfg": asdict(cfg), "k": k, "n_seeds": len(seeds), "n_words": len(emb),
                      "seed_sum": round(float(seeds.to_numpy().sum()), 4), "v": 3,
                      "dtype": "float64"}, sort_keys=True)
    folder = Path(cache) / f"norms_lexicon_{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    done = folder / "meta.json"
    if rebuild or not done.is_file():
        words, x, y = seed_matrix(seeds, emb)
        log.info("norm expansion: %d of %d seed words in the embedding; %d-fold CV", len(words),
                 len(seeds), k)
        kfold = kfold_pearson(x, y, k, cfg) if k > 1 else pd.DataFrame(
            {"fold": [], "variable": [], "n_test": [], "pearson_r": []})
        predict = train_net(x, y, cfg, desc="final model")
        pred = pd.DataFrame(predict(emb.vectors), columns=list(VARIABLES))
        pred.insert(0, "word", emb.words)
        write_parquet(pred, folder / "predictions.parquet")
        write_parquet(kfold, folder / "kfold.parquet")
        write_json({"config": json.loads(key), "seeds_in_embedding": len(words)}, done)
    pred = pd.read_parquet(folder / "predictions.parquet").drop_duplicates("word").set_index("word")
    kfold = pd.read_parquet(folder / "kfold.parquet")
    # keep the rating ranges: VAD 1-9, BE5 1-5
    pred[list(VAD)] = pred[list(VAD)].clip(1, 9)
    pred[list(BE5)] = pred[list(BE5)].clip(1, 5)
    pred["source"] = "predicted"
    seed_part = seeds[list(VARIABLES)].copy()
    seed_part["source"] = "seed"
    if keep_seed_ratings:
        lex = pd.concat([seed_part, pred[~pred.index.isin(seed_part.index)]])
    else:
        lex = pd.concat([pred, seed_part[~seed_part.index.isin(pred.index)]])
    lex.index.name = "word"
    return lex, kfold
