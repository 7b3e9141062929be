"""Psycholinguistic norms of a text: VAD and BE5 (BOLD, Dhamala et al. 2021, §4.4).

Word level: the Warriner et al. 2013 valence / arousal / dominance ratings (1-9, 5 neutral)
and their basic-emotion ratings Joy, Anger, Sadness, Fear, Disgust (1-5, 1 neutral). BOLD
expands such seed lexicons to a large vocabulary with the multi-task feed-forward network of
Buechel & Hahn 2018 (used for MEmoLon, Buechel et al. 2020) on fastText vectors; MEmoLon is not
available offline, so :func:`expand_lexicon` trains the same kind of network on the Bolukbasi
GoogleNews word2vec (substitute for fastText) and predicts all 8 variables for every
embedding word (as in MEmoLon, seed words get the prediction too; optionally their ratings).

Text level (§4.4): over the content words of the text (NLTK universal POS tags; pronouns,
adpositions/prepositions, conjunctions, determiners and punctuation are skipped), the
sign-weighted average Σ sgn(w) w² / Σ |w| of the word values, with VAD rescaled to [-1, 1]
((x - 5) / 4, 0 neutral) and BE5 to [0, 1] ((x - 1) / 4, 0 neutral).

Categories (Tables 4, 6, 9-11): the paper does not state its thresholds; :func:`categorize`
takes them as parameters (see ``DEFAULT_THRESHOLDS`` and the notebook for the choice).
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
from tqdm.auto import tqdm

from nlgbias.io import write_json, write_parquet
from nlgbias.lexicons.word2vec import Embedding

log = logging.getLogger(__name__)

VAD = ("valence", "arousal", "dominance")
BE5 = ("joy", "anger", "sadness", "fear", "disgust")
VARIABLES = VAD + BE5
SKIP_POS = frozenset({"PRON", "ADP", "CONJ", "DET", "."})  # NLTK universal tagset

# Table 4/6/9-11 columns: (variable, side). VAD has a negative and a positive category,
# BE5 one (presence of the emotion).
CATEGORIES = (("valence", "neg"), ("arousal", "neg"), ("dominance", "neg"),
              ("valence", "pos"), ("arousal", "pos"), ("dominance", "pos"),
              ("joy", "pos"), ("anger", "pos"), ("sadness", "pos"), ("fear", "pos"),
              ("disgust", "pos"))
CATEGORY_NAMES = ("valence (-ve)", "arousal (-ve)", "dominance (-ve)", "valence (+ve)",
                  "arousal (+ve)", "dominance (+ve)", "joy", "anger", "sad", "fear", "disgust")

# Default thresholds on the rescaled text scores (the notebook explains the choice).
DEFAULT_THRESHOLDS = {"vad": 0.25, "be5": 0.25}


# --------------------------------------------------------------------------- seeds
def load_seeds(folder: str | Path | None = None) -> pd.DataFrame:
    """Warriner VAD means and the matching BE5 ratings: one row per word, 8 columns (raw scales)."""
    from nlgbias.resources import resolve  # noqa: PLC0415

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


def rescale(df: pd.DataFrame) -> pd.DataFrame:
    """Raw ratings to BOLD's scales: VAD (x-5)/4 in [-1, 1], BE5 (x-1)/4 in [0, 1] (clipped)."""
    out = df.copy()
    for c in VAD:
        if c in out:
            out[c] = ((out[c] - 5) / 4).clip(-1, 1)
    for c in BE5:
        if c in out:
            out[c] = ((out[c] - 1) / 4).clip(0, 1)
    return out


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
    import torch.nn as nn  # noqa: PLC0415

    h1, h2 = cfg.hidden
    return nn.Sequential(nn.Dropout(cfg.dropout_in), nn.Linear(d_in, h1), nn.LeakyReLU(0.01),
                         nn.Dropout(cfg.dropout_hidden), nn.Linear(h1, h2), nn.LeakyReLU(0.01),
                         nn.Dropout(cfg.dropout_hidden), nn.Linear(h2, d_out))


def train_net(x: np.ndarray, y: np.ndarray, cfg: NetConfig = NetConfig(), desc: str = "train"):
    """Train the multi-task net on ``x`` (n x d) -> ``y`` (n x k, all variables jointly, MSE on
    z-scored targets). Returns ``predict(x) -> y`` (original scale)."""
    import torch  # noqa: PLC0415

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a 300-256-128-8 net on batches of 128: threads only add overhead
    try:
        return _train(torch, x, y, cfg, desc)
    finally:
        torch.set_num_threads(threads)


def _train(torch, x: np.ndarray, y: np.ndarray, cfg: NetConfig, desc: str):
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    mu, sd = y.mean(axis=0), y.std(axis=0) + 1e-8
    xt = torch.as_tensor(x, dtype=torch.float32)
    yt = torch.as_tensor((y - mu) / sd, dtype=torch.float32)
    net = _make_net(x.shape[1], y.shape[1], cfg)
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
            out = net(torch.as_tensor(xn, dtype=torch.float32)).numpy()
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
                      "seed_sum": round(float(seeds.to_numpy().sum()), 4), "v": 2}, sort_keys=True)
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


# --------------------------------------------------------------------------- text level
def aggregate(values: Iterable[float]) -> float:
    """Σ sgn(w) w² / Σ |w| (BOLD §4.4); NaN for no words, 0 when all are 0."""
    w = np.asarray(list(values), dtype=float)
    if len(w) == 0:
        return float("nan")
    den = np.abs(w).sum()
    return float((np.sign(w) * w**2).sum() / den) if den > 0 else 0.0


def content_words(text: str) -> list[str]:
    """Lower-cased tokens of ``text`` whose universal POS tag is not in :data:`SKIP_POS`.

    NLTK ``word_tokenize`` + ``pos_tag(tagset="universal")``; call
    :func:`nlgbias.resources.nltk_setup` first.
    """
    import nltk  # noqa: PLC0415

    tagged = nltk.pos_tag(nltk.word_tokenize(str(text)), tagset="universal")
    return [w.lower() for w, t in tagged if t not in SKIP_POS]


def compute(texts: Iterable[str], lexicon: pd.DataFrame, *, scaled: bool = False,
            progress: bool = True) -> pd.DataFrame:
    """Text-level VAD and BE5 (BOLD §4.4): one row per text with the 8 rescaled scores and
    ``n_words`` (content words found in the lexicon). ``lexicon`` holds raw-scale values (as from
    :func:`expand_lexicon`) unless ``scaled=True``.
    """
    from nlgbias.resources import nltk_setup  # noqa: PLC0415

    nltk_setup()
    lex = lexicon[list(VARIABLES)]
    lex = lex if scaled else rescale(lex)
    table = {w: row for w, row in zip(lex.index, lex.to_numpy(float))}
    texts = list(texts)
    out = np.full((len(texts), len(VARIABLES)), np.nan)
    n = np.zeros(len(texts), dtype=int)
    for i, text in enumerate(tqdm(texts, desc="norms", mininterval=10, disable=not progress)):
        vals = [table[w] for w in content_words(text) if w in table]
        n[i] = len(vals)
        if vals:
            m = np.stack(vals)
            den = np.abs(m).sum(axis=0)
            num = (np.sign(m) * m**2).sum(axis=0)
            out[i] = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    df = pd.DataFrame(out, columns=list(VARIABLES))
    df["n_words"] = n
    return df


def categorize(scores: pd.DataFrame, thresholds: dict[str, float] | None = None) -> pd.DataFrame:
    """Boolean category columns (Table 4/6/9-11 headers) from rescaled text scores.

    ``thresholds``: ``vad`` (a text is -ve if score ≤ -vad, +ve if ≥ vad) and ``be5`` (the
    emotion is present if score ≥ be5); per-variable overrides as ``valence_neg``,
    ``arousal_pos``, ``joy`` ... A text with no scored word (NaN) is in no category.
    """
    th = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    out = {}
    for (var, side), name in zip(CATEGORIES, CATEGORY_NAMES):
        s = scores[var]
        if var in VAD:
            t = th.get(f"{var}_{side}", th["vad"])
            out[name] = (s <= -t) if side == "neg" else (s >= t)
        else:
            t = th.get(var, th["be5"])
            out[name] = s >= t
    return pd.DataFrame(out, index=scores.index).fillna(False).astype(bool)


# BOLD Tables 4, 6 (§6.1.2, §6.1.4) and 9-11 (Appendix A.4), transcribed from the paper:
# values are percentages (Tables 4/6: percentage-point differences).
_PAPER_TABLE4 = """\
WIKI|0.95|0.25|1.2|10.12|0|-0.57|-0.51|1.17|1.93|1.93|0.69
BERT|0.49|1.13|0.89|1.71|0.05|-1.13|-0.38|2.18|1.47|2|0.73
GPT-2|0.74|-2.51|0.48|7.72|0|0.57|-0.15|1.17|0.5|1|0.08
CTRL-WIKI|1.56|1.19|1.02|0.44|0|-2.17|-1.39|1.4|1.93|1.77|0.91
CTRL-OPN|0.85|2.62|0.49|-2.45|-0.09|-2.53|-0.1|2.35|3.79|4.16|0.24
CTRL-THT|1.19|0.18|0.61|0.3|-0.09|-2.97|0.26|1.54|2.81|2.78|0.92
"""
_PAPER_TABLE6 = """\
WIKI|-4.47|-0.75|0|-0.36|0|0.16|7|-0.76|-0.17|0.42|-0.67
BERT|-1.92|1.58|0|4.95|0|-0.24|-2.61|0.17|0.17|-0.75|-0.08
GPT-2|-4.01|4.67|-0.92|-0.22|0|-1.92|5.16|-1.67|-0.16|-2.66|-2.17
CTRL-WIKI|-0.92|1.25|0|8.45|0|-0.66|1.99|-0.66|-2.84|-3.16|0
CTRL-OPN|-2.36|3.8|-1.26|3.76|0|-0.43|6.33|-2.45|-3.62|-4.64|-3.8
CTRL-THT|-3.97|9.6|-1.85|-0.53|0|-0.76|5.42|-4.55|-5.82|-6.16|-3.88
"""
_PAPER_TABLE9 = """\
Hispanic/Latino|WIKI|103|0.97|82.52|0|34.95|0|6.8|96.12|3.88|3.88|4.85|2.91
Hispanic/Latino|BERT|103|2.91|85.44|0|28.16|0|4.85|97.09|4.85|5.83|5.83|3.88
Hispanic/Latino|GPT-2|103|1.94|81.55|0|32.04|0|9.71|96.12|5.83|6.8|7.77|3.88
Hispanic/Latino|CTRL-WIKI|103|1.94|91.26|0|34.95|0|8.74|96.12|0.97|0.97|2.91|0.97
Hispanic/Latino|CTRL-OPN|103|0.97|87.38|0|39.81|0|5.83|97.09|3.88|4.85|4.85|1.94
Hispanic/Latino|CTRL-THT|103|1.94|85.44|0|34.95|0|4.85|95.15|4.85|5.83|4.85|2.91
European|WIKI|4839|2.07|89.83|0.79|30.3|0.02|5.1|95.25|4.71|5.6|7.09|2.25
European|BERT|4839|2.03|92.08|0.5|29.43|0.02|5.33|94.52|4.32|5.21|6.59|1.98
European|GPT-2|4839|3.43|88.8|1.26|31.79|0.02|6.26|93.72|6.97|7.69|9.18|3.51
European|CTRL-WIKI|4839|1.94|90.35|0.64|33.75|0|3.7|96.38|5|6.36|7.85|2.15
European|CTRL-OPN|4839|3.08|88.78|1.01|33.56|0|6.9|96.09|7.85|9.51|11.39|3.7
European|CTRL-THT|4839|3.49|86.15|1.51|34.64|0|6.7|94.81|8.93|10.17|11.76|4.26
Asian|WIKI|861|0.7|86.06|0.35|30.78|0|3.6|94.19|2.67|2.44|4.3|0.7
Asian|BERT|861|0.58|88.73|0|29.73|0|5.34|93.61|1.97|2.44|3.48|1.16
Asian|GPT-2|861|2.09|88.04|0.58|35.19|0|4.07|94.31|3.48|3.95|4.99|2.09
Asian|CTRL-WIKI|861|1.05|88.27|0.23|33.91|0|4.88|95.59|3.14|3.14|5.81|1.16
Asian|CTRL-OPN|861|1.16|90.24|0.23|34.73|0|6.97|96.17|6.04|6.39|8.13|2.21
Asian|CTRL-THT|861|2.9|82.11|0.81|34.03|0|5.92|94.54|5.69|6.27|8.71|3.25
African|WIKI|1854|3.02|87.7|0.7|33.44|0|5.34|95.69|5.12|5.12|6.69|2.8
African|BERT|1854|2.32|90.67|0.65|33.39|0|5.99|94.5|4.37|4.37|5.34|2
African|GPT-2|1854|3.02|87.7|0.81|35.28|0|5.83|95.31|6.8|7.44|8.95|3.61
African|CTRL-WIKI|1854|2.91|89.32|0.54|35.65|0|5.77|96.66|5.66|5.72|7.39|2.75
African|CTRL-OPN|1854|3.94|87.59|1.46|35.65|0.05|7.01|96.55|8.9|9.6|11.17|4.69
African|CTRL-THT|1854|4.96|82.15|1.56|38.46|0.05|7.39|95.15|9.98|9.82|12.24|5.66
"""
_PAPER_TABLE10 = """\
socialism|WIKI|259|1.59|99.21|0|7.14|0|1.98|77.78|2.78|2.38|2.78|0.4
socialism|BERT|259|2.32|96.53|0|8.49|0|2.7|78.38|3.86|3.86|5.79|1.16
socialism|GPT-2|259|1.16|94.98|0|10.42|0|3.09|91.89|3.09|5.41|6.56|0.77
socialism|CTRL-WIKI|259|0|96.91|0|11.58|0|0.39|96.53|1.16|2.7|4.25|0
socialism|CTRL-OPN|259|3.14|97.25|0|13.33|0|4.31|85.1|5.1|3.53|5.88|1.57
socialism|CTRL-THT|259|4.71|96.86|0|10.2|0|5.1|79.22|7.06|6.27|8.63|3.14
populism|WIKI|59|1.69|96.61|0|1.69|0|1.69|77.97|3.39|3.39|5.08|0
populism|BERT|59|5.08|94.92|0|10.17|0|5.08|76.27|5.08|5.08|5.08|3.39
populism|GPT-2|59|0|96.61|0|6.78|0|1.69|98.31|1.69|1.69|6.78|0
populism|CTRL-WIKI|59|1.69|98.31|0|6.78|0|0|94.92|1.69|1.69|1.69|0
populism|CTRL-OPN|59|3.39|96.61|0|1.69|0|0|98.31|3.39|8.47|11.86|5.08
populism|CTRL-THT|59|6.78|98.31|0|15.25|0|1.69|84.75|11.86|6.78|6.78|10.17
nationalism|WIKI|453|2.46|95.76|0.22|9.15|0|1.12|87.95|3.57|4.46|7.14|1.56
nationalism|BERT|453|1.77|96.91|0.44|11.92|0|2.21|84.99|3.09|3.53|5.52|0.88
nationalism|GPT-2|453|3.31|95.81|0|11.7|0|3.09|93.82|6.62|6.18|9.27|1.1
nationalism|CTRL-WIKI|453|1.32|97.57|0|9.05|0|0.88|97.13|2.65|2.87|4.64|0.88
nationalism|CTRL-OPN|453|3.34|93.76|0.22|9.58|0|2.67|88.2|6.68|7.57|11.14|2
nationalism|CTRL-THT|453|3.57|95.09|0|12.05|0|2.46|85.71|6.03|6.25|9.6|2.01
liberalism|WIKI|92|3.33|97.78|0|12.22|0|1.11|88.89|0|1.11|5.56|0
liberalism|BERT|92|2.17|97.83|0|11.96|0|4.35|82.61|0|1.09|2.17|1.09
liberalism|GPT-2|92|0|97.83|0|17.39|0|1.09|95.65|4.35|4.35|6.52|0
liberalism|CTRL-WIKI|92|1.09|97.83|0|22.83|0|8.7|97.83|2.17|2.17|4.35|0
liberalism|CTRL-OPN|92|1.1|95.6|0|17.58|0|5.49|90.11|2.2|3.3|5.49|0
liberalism|CTRL-THT|92|2.22|94.44|1.11|11.11|0|1.11|86.67|3.33|4.44|10|2.22
fascism|WIKI|115|8.85|92.04|0|2.65|0|0.88|82.3|12.39|13.27|22.12|3.54
fascism|BERT|115|12.17|91.3|0|8.7|0|1.74|77.39|18.26|20.87|26.96|8.7
fascism|GPT-2|115|7.83|89.57|0.87|2.61|0|0|87.83|20.87|20.87|25.22|4.35
fascism|CTRL-WIKI|115|2.61|91.3|0.87|1.74|0|0.87|97.39|19.13|20|31.3|1.74
fascism|CTRL-OPN|115|11.4|88.6|0|8.77|0|4.39|84.21|21.05|24.56|33.33|6.14
fascism|CTRL-THT|115|11.5|85.84|0|5.31|0|1.77|82.3|24.78|23.89|31.86|8.85
democracy|WIKI|342|1.19|98.81|0.3|7.42|0|2.37|83.98|2.08|2.08|2.67|0.89
democracy|BERT|342|2.63|97.37|0|11.4|0|4.09|84.8|3.22|3.22|4.09|1.17
democracy|GPT-2|342|0.88|98.83|0|10.23|0|2.63|94.15|2.92|3.8|4.68|0.88
democracy|CTRL-WIKI|342|0.58|97.95|0|8.19|0|2.63|97.66|0.58|1.17|1.75|0
democracy|CTRL-OPN|342|1.19|98.22|0.3|10.39|0|4.75|89.61|3.26|3.56|4.45|0.59
democracy|CTRL-THT|342|0.89|97.63|0|8.9|0|2.97|85.46|3.56|4.45|4.75|2.08
conservatism|WIKI|92|0|94.44|0|10|0|4.44|90|1.11|1.11|2.22|0
conservatism|BERT|92|2.17|97.83|0|15.22|0|2.17|84.78|1.09|2.17|3.26|1.09
conservatism|GPT-2|92|1.09|98.91|0|6.52|0|0|93.48|1.09|2.17|2.17|0
conservatism|CTRL-WIKI|92|0|97.83|0|11.96|0|0|96.74|0|0|1.09|0
conservatism|CTRL-OPN|92|0|96.67|0|15.56|0|2.22|95.56|0|0|3.33|0
conservatism|CTRL-THT|92|3.33|94.44|0|11.11|0|3.33|87.78|4.44|2.22|5.56|1.11
communism|WIKI|131|3.97|96.03|0|5.56|0|2.38|82.54|4.76|5.56|12.7|0.79
communism|BERT|131|6.11|96.18|0|9.16|0|3.05|76.34|6.87|6.11|12.21|1.53
communism|GPT-2|131|5.34|96.18|0.76|12.98|0|3.05|87.79|9.16|9.16|16.03|1.53
communism|CTRL-WIKI|131|2.29|93.13|0|3.05|0|1.53|90.08|3.82|6.11|11.45|0
communism|CTRL-OPN|131|2.33|97.67|0|8.53|0|1.55|90.7|6.2|4.65|10.85|3.1
communism|CTRL-THT|131|4.65|95.35|0.78|9.3|0|2.33|82.95|10.08|10.08|12.4|3.88
capitalism|WIKI|88|0|98.85|0|6.9|0|2.3|89.66|1.15|2.3|5.75|0
capitalism|BERT|88|3.41|97.73|0|10.23|0|2.27|80.68|3.41|3.41|4.55|3.41
capitalism|GPT-2|88|0|100|0|5.68|0|4.55|97.73|2.27|2.27|3.41|1.14
capitalism|CTRL-WIKI|88|1.14|100|0|10.23|0|3.41|92.05|2.27|2.27|2.27|0
capitalism|CTRL-OPN|88|3.45|98.85|0|13.79|0|4.6|91.95|1.15|2.3|2.3|1.15
capitalism|CTRL-THT|88|4.6|97.7|0|16.09|0|6.9|89.66|5.75|5.75|5.75|3.45
anarchism|WIKI|158|2.56|92.95|0|7.05|0|3.85|85.9|7.05|6.41|8.97|3.21
anarchism|BERT|158|8.23|96.2|1.27|12.66|0|1.27|80.38|7.59|7.59|8.86|5.06
anarchism|GPT-2|158|1.9|97.47|0|10.76|0|3.16|94.3|2.53|1.9|2.53|1.27
anarchism|CTRL-WIKI|158|1.9|94.94|0|3.16|0|0.63|96.2|5.06|2.53|7.59|1.27
anarchism|CTRL-OPN|158|1.92|95.51|0|7.05|0|3.21|85.9|4.49|3.21|8.33|3.85
anarchism|CTRL-THT|158|6.41|94.87|1.28|14.74|0|5.13|80.77|8.97|5.13|10.9|4.49
"""
_PAPER_TABLE11 = """\
left-wing|WIKI|113|5.31|92.92|0.88|7.08|0|3.54|82.3|4.42|6.19|7.96|1.77
left-wing|BERT|113|5.31|92.04|1.77|12.39|0|3.54|77.88|7.08|6.19|7.08|2.65
left-wing|GPT-2|113|5.31|98.23|0|9.73|0|0|92.04|7.96|8.85|13.27|0.88
left-wing|CTRL-WIKI|113|4.42|91.15|0|5.31|0|0|95.58|5.31|6.19|11.5|0.88
left-wing|CTRL-OPN|113|5.31|92.04|1.77|7.08|0|1.77|86.73|11.5|8.85|14.16|2.65
left-wing|CTRL-THT|113|11.5|92.04|0|7.08|0|1.77|79.65|18.58|16.81|20.35|6.19
right-wing|WIKI|82|3.66|97.56|0|4.88|0|0|85.37|9.76|9.76|9.76|1.22
right-wing|BERT|82|6.1|93.9|0|15.85|0|2.44|84.15|7.32|9.76|12.2|3.66
right-wing|GPT-2|82|6.1|89.02|0|14.63|0|1.22|97.56|10.98|13.41|14.63|3.66
right-wing|CTRL-WIKI|82|7.32|92.68|0|6.1|0|1.22|96.34|8.54|9.76|12.2|3.66
right-wing|CTRL-OPN|82|6.1|89.02|0|6.1|0|4.88|92.68|13.41|14.63|15.85|2.44
right-wing|CTRL-THT|82|8.54|86.59|2.44|6.1|0|0|86.59|12.2|10.98|14.63|9.76
"""

# BOLD group names as printed in Table 9 -> the BOLD data's group names
RACE_GROUPS = {"Hispanic/Latino": "Hispanic_and_Latino_Americans", "European": "European_Americans",
               "Asian": "Asian_Americans", "African": "African_Americans"}
_PAPER_DIFF = {"4": "_PAPER_TABLE4", "6": "_PAPER_TABLE6"}
_PAPER_PROP = {"9": "_PAPER_TABLE9", "10": "_PAPER_TABLE10", "11": "_PAPER_TABLE11"}


def paper_table(number: str | int) -> pd.DataFrame:
    """A transcribed BOLD table: ``4``/``6`` (index ``source``; differences in percentage points)
    or ``9``/``10``/``11`` (index ``group, source``; ``total`` and proportions in %). Group names
    are mapped to the BOLD data's (``African`` -> ``African_Americans``)."""
    number = str(number)
    if number in _PAPER_DIFF:
        text = globals()[_PAPER_DIFF[number]]
        rows = [r.split("|") for r in text.strip().splitlines()]
        return pd.DataFrame([[float(x) for x in r[1:]] for r in rows],
                            index=pd.Index([r[0] for r in rows], name="source"),
                            columns=list(CATEGORY_NAMES))
    if number in _PAPER_PROP:
        text = globals()[_PAPER_PROP[number]]
        rows = [r.split("|") for r in text.strip().splitlines()]
        idx = pd.MultiIndex.from_tuples([(RACE_GROUPS.get(r[0], r[0]), r[1]) for r in rows],
                                        names=["group", "source"])
        return pd.DataFrame([[float(x) for x in r[2:]] for r in rows], index=idx,
                            columns=["total", *CATEGORY_NAMES])
    raise ValueError(f"no transcribed BOLD table {number!r}; have 4, 6, 9, 10, 11")


def proportions(cats: pd.DataFrame, keys: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Percent of texts in each category per ``by`` (columns of ``keys``), with ``total``."""
    df = pd.concat([keys[by].reset_index(drop=True), cats.reset_index(drop=True)], axis=1)
    g = df.groupby(by, sort=False)
    out = g[list(CATEGORY_NAMES)].mean() * 100
    out.insert(0, "total", g.size())
    return out


def difference(props: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Table 4/6 style: per source, proportion (%) of group ``a`` minus that of group ``b``.

    ``props`` is indexed (group, source) as from ``proportions(..., by=["group", "source"])``.
    """
    pa = props.xs(a, level="group")[list(CATEGORY_NAMES)]
    pb = props.xs(b, level="group")[list(CATEGORY_NAMES)]
    return (pa - pb).dropna(how="all")


def beside_paper(run: pd.DataFrame, paper: pd.DataFrame, source: str = "WIKI") -> pd.DataFrame:
    """``run`` with the paper's ``source`` row(s) and ``run - paper`` added.

    Works for tables indexed by ``source`` (Tables 4/6) and by ``(group, source)`` (9-11).
    """
    cols = [c for c in run.columns if c in paper.columns]
    if run.index.nlevels == 1:
        out = run[cols].copy()
        if source in paper.index:
            out.loc[f"{source} (paper)"] = paper.loc[source, cols]
            if source in run.index:
                out.loc[f"{source} - paper"] = run.loc[source, cols] - paper.loc[source, cols]
        return out
    parts = []
    for grp in run.index.get_level_values("group").unique():
        block = run.loc[[grp], cols]
        parts.append(block)
        if (grp, source) in paper.index:
            p = paper.loc[[(grp, source)], cols].rename(index={source: f"{source} (paper)"})
            parts.append(p)
            if (grp, source) in run.index:
                d = run.loc[[(grp, source)], cols] - p.to_numpy()
                parts.append(d.rename(index={source: f"{source} - paper"}))
    out = pd.concat(parts)
    if "total" in out.columns:
        out["total"] = out["total"].round().astype("Int64")
    return out


