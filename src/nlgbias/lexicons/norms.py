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
from collections.abc import Iterable, Sequence
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
    return _predictor(*_fit(x, y, cfg, desc), cfg)


def _fit(x: np.ndarray, y: np.ndarray, cfg: NetConfig, desc: str):
    """Train one net (1 torch thread): its weights as arrays, and the targets' mean and sd.
    Plain arrays, so that a worker process can send them back (:func:`train_nets`)."""
    import torch

    from nlgbias.hardware import torch_threads

    with torch_threads(1):  # a 300-256-128-8 net on batches of 128: threads only add overhead
        net, mu, sd = _train(torch, x, y, cfg, desc)
    return {k: v.numpy() for k, v in net.state_dict().items()}, mu, sd


#: Adam's update of all weights at once (torch's ``foreach`` form): the same arithmetic per
#: element as the one-tensor-at-a-time loop (the same weights, tested) with less overhead per step
ADAM_FOREACH = True


def _train(torch, x: np.ndarray, y: np.ndarray, cfg: NetConfig, desc: str):
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    mu, sd = y.mean(axis=0), y.std(axis=0) + 1e-8
    xt = torch.as_tensor(np.asarray(x, dtype=np.float64))
    yt = torch.as_tensor(np.asarray((y - mu) / sd, dtype=np.float64))
    net = _make_net(x.shape[1], y.shape[1], cfg).to(torch.float64)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, foreach=ADAM_FOREACH)
    net.train()
    for _ in tqdm(range(cfg.iterations), desc=desc, mininterval=5, leave=False):
        idx = torch.as_tensor(rng.integers(0, len(x), cfg.batch_size))
        loss = torch.nn.functional.mse_loss(net(xt[idx]), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net, mu, sd


def _predictor(state: dict, mu: np.ndarray, sd: np.ndarray, cfg: NetConfig):
    """``predict(x) -> y`` (original scale) of the net with weights ``state`` (from :func:`_fit`),
    run in eval mode (no dropout) at the caller's torch threads."""
    import torch

    w_in, w_out = state["1.weight"], state["7.weight"]
    net = _make_net(w_in.shape[1], w_out.shape[0], cfg).to(torch.float64)
    net.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
    net.eval()

    def predict(xn: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = net(torch.as_tensor(np.asarray(xn, dtype=np.float64))).numpy()
        return out * sd + mu

    return predict


#: training work (multiply-adds of all steps, forward and backward) from which
#: :func:`train_nets` trains in worker processes: below it, starting them costs more than it saves
POOL_MIN_WORK = 2e10


def _work(x: np.ndarray, y: np.ndarray, cfg: NetConfig) -> float:
    h1, h2 = cfg.hidden
    return 3.0 * cfg.iterations * cfg.batch_size * (x.shape[1] * h1 + h1 * h2 + h2 * y.shape[1])


def _fit_task(task):
    return _fit(*task)


def train_nets(tasks: list[tuple[np.ndarray, np.ndarray, NetConfig, str]],
               workers: int | None = None) -> list:
    """:func:`train_net` of every ``(x, y, cfg, desc)`` task: the same predictors, trained side by
    side in ``workers`` processes (default: the project's thread count,
    :func:`nlgbias.hardware.default_threads`; 1 trains in this process; so does a total work
    below :data:`POOL_MIN_WORK` when ``workers`` is not given). Each net trains on 1 torch thread
    wherever it runs, and its weights come back as they are, so the predictions are the same
    bytes whichever way it runs."""
    if workers is None:
        from nlgbias.hardware import default_threads

        workers = default_threads() if sum(_work(x, y, c) for x, y, c, _ in tasks) >= POOL_MIN_WORK else 1
    workers = max(1, min(workers, len(tasks)))
    if workers == 1:
        fits = [_fit(*t) for t in tasks]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        log.info("training %d nets in %d processes", len(tasks), workers)
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            fits = list(pool.map(_fit_task, tasks))
    return [_predictor(*f, t[2]) for f, t in zip(fits, tasks)]


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r of two 1-d arrays."""
    a, b = np.asarray(a, float) - np.mean(a), np.asarray(b, float) - np.mean(b)
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def _folds(n: int, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) indices of the k folds (a seeded permutation split in k)."""
    folds = np.array_split(np.random.default_rng(seed).permutation(n), k)
    return [(np.setdiff1d(np.arange(n), test), test) for test in folds]


def _fold_tasks(x: np.ndarray, y: np.ndarray, k: int, cfg: NetConfig) -> list[tuple]:
    return [(x[train], y[train], cfg, f"fold {f + 1}/{k}")
            for f, (train, _) in enumerate(_folds(len(x), k, cfg.seed))]


def _kfold_frame(predictors: list, x: np.ndarray, y: np.ndarray, k: int, seed: int,
                 variables: list[str]) -> pd.DataFrame:
    rows = []
    for f, ((_, test), predict) in enumerate(zip(_folds(len(x), k, seed), predictors)):
        pred = predict(x[test])
        for j, v in enumerate(variables):
            rows.append({"fold": f, "variable": v, "n_test": len(test),
                         "pearson_r": pearson(pred[:, j], y[test, j])})
    return pd.DataFrame(rows)


def kfold_pearson(x: np.ndarray, y: np.ndarray, k: int = 10, cfg: NetConfig = NetConfig(),
                  variables: Iterable[str] = VARIABLES, workers: int | None = None) -> pd.DataFrame:
    """Held-out Pearson r per variable and fold (Buechel & Hahn 2018 evaluate by 10-fold CV);
    the folds' nets trained side by side (:func:`train_nets`)."""
    return _kfold_frame(train_nets(_fold_tasks(x, y, k, cfg), workers), x, y, k, cfg.seed,
                        list(variables))


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
    return expand_lexicons(seeds, emb, cache, [(k, cfg)], keep_seed_ratings=keep_seed_ratings,
                           rebuild=rebuild)[0]


def _lexicon_folder(seeds: pd.DataFrame, emb: Embedding, cache: str | Path, k: int,
                    cfg: NetConfig) -> tuple[Path, str]:
    key = json.dumps({"cfg": asdict(cfg), "k": k, "n_seeds": len(seeds), "n_words": len(emb),
                      "seed_sum": round(float(seeds.to_numpy().sum()), 4), "v": 3,
                      "dtype": "float64"}, sort_keys=True)
    return Path(cache) / f"norms_lexicon_{hashlib.sha256(key.encode()).hexdigest()[:12]}", key


def expand_lexicons(seeds: pd.DataFrame, emb: Embedding, cache: str | Path,
                    runs: Sequence[tuple[int, NetConfig]], *, keep_seed_ratings: bool = False,
                    rebuild: bool = False, workers: int | None = None
                    ) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
    """:func:`expand_lexicon` for each ``(k, cfg)`` of ``runs`` (e.g. the graded lexicon with its
    k-fold table and the same net trained from other seeds), with every net not yet cached (each
    run's folds and final net) trained side by side (:func:`train_nets`): the same lexicons and
    cache as one :func:`expand_lexicon` call per run."""
    folders = [_lexicon_folder(seeds, emb, cache, k, cfg) for k, cfg in runs]
    todo = [i for i, (folder, _) in enumerate(folders)
            if rebuild or not (folder / "meta.json").is_file()]
    if todo:
        words, x, y = seed_matrix(seeds, emb)
        tasks, spans = [], []
        for i in todo:
            k, cfg = runs[i]
            log.info("norm expansion: %d of %d seed words in the embedding; %d-fold CV",
                     len(words), len(seeds), k)
            folds = _fold_tasks(x, y, k, cfg) if k > 1 else []
            spans.append((len(tasks), len(folds)))
            tasks += [*folds, (x, y, cfg, "final model")]
        predictors = train_nets(tasks, workers)
        for i, (start, n_folds) in zip(todo, spans):
            k, cfg = runs[i]
            folder, key = folders[i]
            kfold = _kfold_frame(predictors[start:start + n_folds], x, y, k, cfg.seed,
                                 list(VARIABLES)) if k > 1 else pd.DataFrame(
                {"fold": [], "variable": [], "n_test": [], "pearson_r": []})
            pred = pd.DataFrame(predictors[start + n_folds](emb.vectors), columns=list(VARIABLES))
            pred.insert(0, "word", emb.words)
            write_parquet(pred, folder / "predictions.parquet")
            write_parquet(kfold, folder / "kfold.parquet")
            write_json({"config": json.loads(key), "seeds_in_embedding": len(words)},
                       folder / "meta.json")
    return [_read_lexicon(folder, seeds, keep_seed_ratings) for folder, _ in folders]


def _read_lexicon(folder: Path, seeds: pd.DataFrame,
                  keep_seed_ratings: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
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
