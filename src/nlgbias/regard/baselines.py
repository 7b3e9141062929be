"""Figure 1's comparison models (Sheng et al. 2019, §4 "Building an automatic regard classifier"):
sentiment analysers re-purposed as regard classifiers (VADER, TextBlob) and a 2-layer LSTM
classifier on random or pre-trained (word2vec, tunable) word embeddings."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import numpy as np

log = logging.getLogger(__name__)

#: VADER's own documented thresholds on the compound score (Hutto & Gilbert 2014 README):
#: >= 0.05 positive, <= -0.05 negative. Sheng et al. do not state theirs.
VADER_POS, VADER_NEG = 0.05, -0.05


def vader_labels(texts: Sequence[str], pos: float = VADER_POS, neg: float = VADER_NEG) -> np.ndarray:
    """VADER sentiment as a regard label -1/0/1 (Sheng §4: "taking sentiment predictions as
    regard predictions")."""
    from nlgbias.metrics.sentiment import compute

    c = compute(list(texts), pos=pos, neg=neg)["compound"].to_numpy()
    return np.where(c >= pos, 1, np.where(c <= neg, -1, 0))


def textblob_labels(texts: Sequence[str]) -> np.ndarray:
    """TextBlob polarity as a regard label: > 0 positive, < 0 negative, 0 neutral."""
    from textblob import TextBlob

    pol = np.array([TextBlob(str(t)).sentiment.polarity for t in texts])
    return np.where(pol > 0, 1, np.where(pol < 0, -1, 0))


_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]")


def tokenize(text: str) -> list[str]:
    """Words, numbers and punctuation marks (case kept: word2vec is cased)."""
    return _TOKEN.findall(str(text))


def train_lstm(train_texts: Sequence[str], train_labels: Sequence[int], *, seed: int = 0,
               embeddings=None, dim: int = 100, hidden: int = 64, epochs: int = 15,
               lr: float = 3e-3, batch_size: int = 16):
    """A 2-layer LSTM classifier (last hidden state -> linear -> 3 labels), embeddings random
    (``embeddings=None``, ``dim``) or initialised from a word2vec ``Embedding`` and tuned.
    Returns ``predict(texts) -> labels -1/0/1``."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    toks = [tokenize(t) for t in train_texts]
    vocab = {"<pad>": 0, "<unk>": 1}
    for ts in toks:
        for w in ts:
            vocab.setdefault(w, len(vocab))
    if embeddings is not None:
        dim = embeddings.vectors.shape[1]
    emb = torch.nn.Embedding(len(vocab), dim, padding_idx=0)
    if embeddings is not None:
        with torch.no_grad():
            hits = 0
            for w, i in vocab.items():
                if w in embeddings:
                    emb.weight[i] = torch.tensor(embeddings.v(w), dtype=torch.float32)
                    hits += 1
        log.info("LSTM: %d of %d vocabulary words have a word2vec vector", hits, len(vocab))
    lstm = torch.nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
    out = torch.nn.Linear(hidden, 3)
    params = list(emb.parameters()) + list(lstm.parameters()) + list(out.parameters())
    opt = torch.optim.Adam(params, lr=lr)

    def encode(texts):
        ids = [[vocab.get(w, 1) for w in tokenize(t)] or [1] for t in texts]
        n = max(len(i) for i in ids)
        x = torch.tensor([i + [0] * (n - len(i)) for i in ids])
        return x, torch.tensor([len(i) for i in ids])

    def forward(x, lengths):
        packed = torch.nn.utils.rnn.pack_padded_sequence(emb(x), lengths, batch_first=True,
                                                         enforce_sorted=False)
        _, (h, _) = lstm(packed)
        return out(h[-1])

    y = torch.tensor(np.asarray(train_labels, dtype=int) + 1)
    texts = list(train_texts)
    for _ in range(epochs):
        order = rng.permutation(len(texts))
        for i in range(0, len(order), batch_size):
            idx = order[i:i + batch_size]
            x, lengths = encode([texts[j] for j in idx])
            loss = torch.nn.functional.cross_entropy(forward(x, lengths), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()

    def predict(texts: Sequence[str]) -> np.ndarray:
        with torch.no_grad():
            x, lengths = encode(list(texts))
            return forward(x, lengths).argmax(-1).numpy() - 1

    return predict
