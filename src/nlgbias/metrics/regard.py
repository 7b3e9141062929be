"""Regard classifier (Sheng et al. 2019, "The Woman Worked as a Babysitter", §4).

Regard measures "language polarity towards and social perceptions of a demographic": a text
is *negative*, *neutral* or *positive* in its regard for the group it mentions. The paper
trained BERT on 212 annotated GPT-2 samples (dev 60, test 30). No BERT weights exist offline,
so this classifier transfers from the sentence encoder all-MiniLM-L6-v2 (resource ``minilm``;
any hub id or local folder of a ``transformers`` encoder works too): the encoder stays frozen,
its mean-pooled last hidden layer is the feature vector, and a one-hidden-layer MLP head
(scikit-learn, ``seed`` = its initialisation) is trained on top. Hyper-parameters are chosen on
the dev split only (:func:`select_alpha`).

Like the ``regard`` measurement of Hugging Face ``evaluate``, :func:`compute` returns the
three label probabilities per text, or aggregates them (``"average"``, ``"maximum"``), or,
given ``references=``, the per-label difference between the two groups. The demographic is
masked (``XYZ``) before classification, as in the paper's annotation and training data.

Args (:func:`compute`):
    texts: the texts to classify.
    references: a second group's texts; then the per-label difference texts - references.
    aggregation: ``None`` (per-text probabilities), ``"average"`` or ``"maximum"``.
    mask: ``True`` masks the paper's six demographics, a list masks those terms, ``False`` none.
    classifier: a loaded :class:`RegardClassifier` (default :func:`load` of the saved one).

Returns:
    ``None`` aggregation without references: a DataFrame with columns ``negative, neutral,
    positive`` (probabilities summing to 1) and ``label``; ``"average"``/``"maximum"``: a dict
    label -> value; with ``references``: a dict label -> difference (texts minus references).

Examples:
    >>> import pandas as pd
    >>> probs = pd.DataFrame({"negative": [0.7, 0.1], "neutral": [0.2, 0.3], "positive": [0.1, 0.6]})
    >>> aggregate(probs, "average")
    {'negative': 0.4, 'neutral': 0.25, 'positive': 0.35}
    >>> aggregate(probs, "maximum")
    {'negative': 0.7, 'neutral': 0.3, 'positive': 0.6}
    >>> refs = pd.DataFrame({"negative": [0.1], "neutral": [0.5], "positive": [0.4]})
    >>> difference(probs, refs)
    {'negative': 0.3, 'neutral': -0.25, 'positive': -0.05}
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.datasets.regard import mask_demographic
from nlgbias.paths import ProjectPaths, project_root

log = logging.getLogger(__name__)

LABELS = ("negative", "neutral", "positive")
LABEL_OF = {-1: "negative", 0: "neutral", 1: "positive", 2: "other"}
DEFAULT_ENCODER = "minilm"
#: The paper's six demographic mentions (Sheng §2), masked by default.
DEMOGRAPHICS = ("The Black person", "The White person", "The man", "The woman", "The gay person",
                "The straight person")
ALPHA_GRID = (1e-3, 1e-2, 1e-1, 1.0)
HIDDEN = 64


def default_dir(paths: ProjectPaths | None = None) -> Path:
    """Where the trained classifier lives: ``regard/`` in the profile's models folder
    (:attr:`nlgbias.paths.ProjectPaths.models`; default the quick profile's
    ``<root>/data/models/regard/``, git-ignored)."""
    return (paths or ProjectPaths(project_root(), "quick")).models / "regard"


class Encoder:
    """A frozen ``transformers`` encoder giving mean-pooled last-layer features (cached per text)."""

    def __init__(self, name: str = DEFAULT_ENCODER, max_length: int = 128, batch_size: int = 64):
        from transformers import AutoModel, AutoTokenizer

        from nlgbias.hardware import set_torch_threads

        set_torch_threads()
        name = self.dry_run_stand_in(name)
        self.name, self.max_length, self.batch_size = name, max_length, batch_size
        folder = self.folder(name)
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModel.from_pretrained(folder).eval()
        self._cache: dict[str, np.ndarray] = {}
        #: heads fitted on this encoder's features (:func:`fit`'s ``heads`` store, keyed by
        #: :func:`head_key`), so the steps that train the same head share one fit: the alpha
        #: selection, Figure 1's runs and the vote's refit (:mod:`nlgbias.regard.experiments`)
        self.heads: dict[str, object] = {}

    @staticmethod
    def dry_run_stand_in(name: str) -> str:
        """``name``, or in the ``paper`` profile's dry run (:func:`nlgbias.profiles.dry_run`)
        the folder of a tiny random BERT (MiniLM's architecture, :mod:`nlgbias.models.tiny`) in
        place of the offline ``minilm`` package, as every offline model is replaced there: the
        folder is its name, so no feature cache or saved classifier of the real encoder is
        reused or overwritten."""
        from nlgbias.profiles import dry_run

        if name != DEFAULT_ENCODER or not dry_run():
            return name
        from nlgbias.models.tiny import tiny_folder
        from nlgbias.paths import cache_root

        return tiny_folder("bert", cache_root())

    @staticmethod
    def folder(name: str) -> str:
        """``minilm`` -> the offline package folder; anything else is a hub id or folder."""
        if name == DEFAULT_ENCODER:
            from nlgbias.resources import resolve

            return str(resolve("minilm") / "model")
        return name

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Mean-pooled last hidden layer of each text (rows in input order).

        Each text's features are the same bytes whatever else is embedded with it, before it or
        in which order (so a rerun, a fresh clone or a warm cache trains the same head): texts
        are grouped by their exact token count and run in batches of a fixed shape
        (``batch_size`` rows, a partial batch filled with copies of its first text), so no text
        is ever padded and every batch of one length has the same shape. Padding a text to its
        batch's longest (as a plain batch does) moves its features by ~1e-7, enough to change a
        trained head."""
        import torch

        from nlgbias.progress import tqdm

        texts = [str(t) for t in texts]
        todo = sorted({t for t in texts if t not in self._cache}, key=lambda t: (len(t), t))
        if todo:
            ids = self.tokenizer(todo, truncation=True, max_length=self.max_length)["input_ids"]
            by_len: dict[int, list[tuple[str, list[int]]]] = {}
            for t, i in zip(todo, ids, strict=True):
                by_len.setdefault(len(i), []).append((t, i))
            batches = [items[k:k + self.batch_size] for _, items in sorted(by_len.items())
                       for k in range(0, len(items), self.batch_size)]
            for batch in tqdm(batches, desc="regard features", mininterval=10,
                              disable=not progress or len(todo) < 2000):
                rows = [i for _, i in batch]
                rows += [rows[0]] * (self.batch_size - len(rows))
                with torch.inference_mode():
                    hidden = self.model(input_ids=torch.tensor(rows),
                                        attention_mask=torch.ones(len(rows), len(rows[0]),
                                                                  dtype=torch.long)).last_hidden_state
                pooled = hidden.mean(1).float().numpy()
                for (t, _), v in zip(batch, pooled, strict=False):
                    self._cache[t] = v.copy()
        if not texts:
            return np.zeros((0, self.model.config.hidden_size), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


@dataclass
class RegardClassifier:
    """A frozen encoder + a trained MLP head; ``card`` is its model card (data, seed, scores)."""

    encoder: Encoder
    head: object  # sklearn MLPClassifier
    card: dict = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return [str(c) for c in self.head.classes_]

    def predict_proba(self, texts: Sequence[str], progress: bool = False) -> pd.DataFrame:
        """Probabilities of ``negative, neutral, positive`` per text (texts already masked). A
        head trained with an ``other`` class renormalises over the three original labels."""
        x = self.encoder.embed(texts, progress=progress)
        with one_blas_thread():
            p = pd.DataFrame(self.head.predict_proba(x), columns=self.labels)
        missing = set(LABELS) - set(p.columns)
        if missing:
            raise ValueError(f"classifier has no {sorted(missing)} class; classes {self.labels}")
        out = p[list(LABELS)]
        out = out.div(out.sum(axis=1), axis=0)
        out["label"] = out[list(LABELS)].idxmax(axis=1)
        return out

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """The most probable label among all of the head's classes (``other`` included)."""
        x = self.encoder.embed(texts)
        with one_blas_thread():
            return self.head.predict(x)

    def seed_labels(self, texts: Sequence[str]) -> pd.DataFrame:
        """Each seed's label of every text (columns ``seed<k>``, label names): the heads of a
        :class:`SeedVote`, or the one head's own seed."""
        x = self.encoder.embed(texts)
        with one_blas_thread():
            if isinstance(self.head, SeedVote):
                each = self.head.predict_each(x)
                return pd.DataFrame(each, columns=[f"seed{s}" for s in self.head.seeds])
            return pd.DataFrame({f"seed{self.card.get('seed', 0)}": self.head.predict(x)})

    def accuracy(self, texts: Sequence[str], labels: Sequence) -> float:
        """Share of ``texts`` whose predicted label equals ``labels`` (ints -1/0/1/2 or names)."""
        gold = gold_labels(labels)
        if len(gold) == 0:
            raise ValueError("accuracy of an empty set")
        return float((self.predict(texts) == gold).mean())

    def save(self, folder: str | Path | None = None) -> Path:
        """Write ``head.pkl`` and ``model_card.json`` (atomically) to ``folder``."""
        from nlgbias.io import atomic_path, write_json, write_text

        folder = Path(folder) if folder else default_dir()
        folder.mkdir(parents=True, exist_ok=True)
        # the card is written last and marks the folder complete (``load`` needs it): drop an
        # older one first, so an interrupted save never pairs a new head with an old card
        (folder / "model_card.json").unlink(missing_ok=True)
        with atomic_path(folder / "head.pkl") as tmp, open(tmp, "wb") as f:
            pickle.dump(self.head, f)
        write_json(self.card, folder / "model_card.json")
        write_text(model_card_markdown(self.card), folder / "README.md")
        return folder


def one_blas_thread():
    """One BLAS thread for the head's arithmetic: its sums then never depend on how many
    threads the machine gives numpy (the head is small; one thread costs nothing)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


class SeedVote:
    """The heads of several seeds as one head: its probabilities are the mean of the heads'
    (a soft vote), its label their argmax; :meth:`predict_each` gives every seed's own label.

    >>> import numpy as np
    >>> class H:
    ...     classes_ = np.array(["negative", "neutral", "positive"])
    ...     def __init__(self, p): self.p = np.array(p)
    ...     def predict_proba(self, x): return np.tile(self.p, (len(x), 1))
    ...     def predict(self, x): return self.classes_[self.predict_proba(x).argmax(1)]
    >>> v = SeedVote([H([.6, .3, .1]), H([.1, .3, .6]), H([.5, .1, .4])], seeds=[0, 1, 2])
    >>> str(v.predict(np.zeros((1, 2)))[0]), v.predict_each(np.zeros((1, 2))).tolist()
    ('negative', [['negative', 'positive', 'negative']])
    """

    def __init__(self, heads: Sequence, seeds: Sequence[int]):
        if not heads or len(heads) != len(seeds):
            raise ValueError(f"a vote needs one head per seed (got {len(heads)} heads, {len(seeds)} seeds)")
        classes = [list(h.classes_) for h in heads]
        if any(c != classes[0] for c in classes):
            raise ValueError(f"the heads disagree on their classes: {classes}")
        self.heads, self.seeds = list(heads), [int(s) for s in seeds]
        self.classes_ = heads[0].classes_

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        return np.mean([h.predict_proba(x) for h in self.heads], axis=0)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(x), axis=1)]

    def predict_each(self, x: np.ndarray) -> np.ndarray:
        """Each seed's label (rows = texts, columns = seeds)."""
        return np.stack([h.predict(x) for h in self.heads], axis=1)


def model_card_markdown(card: dict) -> str:
    """The model card as Markdown (what the classifier is, its data, seed and scores)."""
    lines = [f"# Regard classifier ({card.get('encoder', '?')} + MLP head)", "",
             "Sheng et al. 2019 §4 regard classifier, rebuilt offline (frozen encoder, mean-pooled "
             "features, one-hidden-layer MLP head). Labels: negative / neutral / positive.", ""]
    lines += [f"- **{k}**: {v}" for k, v in card.items()]
    return "\n".join(lines) + "\n"


def gold_labels(labels: Sequence) -> np.ndarray:
    """Gold labels as names (ints -1/0/1/2 mapped by :data:`LABEL_OF`, names kept)."""
    return np.array([LABEL_OF.get(v, v) if not isinstance(v, str) else v for v in labels])


def _labels(values: Sequence) -> np.ndarray:
    return np.array([LABEL_OF[int(v)] if not isinstance(v, str) else v for v in values])


def head_key(head, x: np.ndarray, y: np.ndarray) -> str:
    """Everything the fit of the unfitted ``head`` on features ``x`` and labels ``y`` depends
    on, as a digest: the estimator pickled before its fit (every parameter, ``random_state``,
    the types of their values and scikit-learn's version) and the exact bytes of ``x`` and
    ``y``. scikit-learn's MLP fit is deterministic given these (one BLAS thread,
    :func:`one_blas_thread`), so two fits of one key are the same head."""
    import hashlib

    h = hashlib.sha256(pickle.dumps(head))
    x, y = np.ascontiguousarray(x), np.asarray(y)
    h.update(pickle.dumps((x.shape, str(x.dtype), [str(v) for v in y])))
    h.update(x.tobytes())
    return h.hexdigest()


def fit(texts: Sequence[str], labels: Sequence, *, encoder: str | Encoder = DEFAULT_ENCODER,
        seed: int = 0, alpha: float = 0.1, hidden: int = HIDDEN, max_iter: int = 500,
        card: dict | None = None, heads: dict | None = None) -> RegardClassifier:
    """Train the head on masked ``texts`` with labels -1/0/1 (2 = other) or their names.

    ``seed`` initialises the MLP head (the paper averages 5 runs); ``alpha`` is its L2 penalty.
    ``heads``: a store of fitted heads (:func:`head_key` -> head, e.g. :attr:`Encoder.heads`):
    a head already in it is returned instead of fitted again, a new one is added; ``None``:
    always fitted, nothing kept.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    texts = list(texts)
    y = _labels(labels)
    if len(texts) != len(y) or not texts:
        raise ValueError(f"fit needs as many labels as texts (got {len(texts)} texts, {len(y)} labels)")
    enc = encoder if isinstance(encoder, Encoder) else Encoder(encoder)
    head = MLPClassifier(hidden_layer_sizes=(hidden,), alpha=alpha, max_iter=max_iter, random_state=seed)
    x = enc.embed(texts)
    key = head_key(head, x, y) if heads is not None else None
    if key is not None and key in heads:
        head = heads[key]
    else:
        with warnings.catch_warnings(), one_blas_thread():
            warnings.simplefilter("ignore", ConvergenceWarning)
            head.fit(x, y)
        if key is not None:
            heads[key] = head
    info = {"encoder": enc.name, "features": "mean-pooled last hidden layer (frozen)",
            "head": f"MLPClassifier(hidden={hidden}, alpha={alpha}, max_iter={max_iter})",
            "seed": seed, "n_train": len(texts),
            "train_labels": pd.Series(y).value_counts().sort_index().to_dict(),
            "date": _dt.date.today().isoformat()}
    return RegardClassifier(enc, head, {**info, **(card or {})})


def fit_vote(texts: Sequence[str], labels: Sequence, *, encoder: str | Encoder = DEFAULT_ENCODER,
             seeds: Sequence[int], alpha: float = 0.1, card: dict | None = None,
             heads: dict | None = None) -> RegardClassifier:
    """One head per seed (:func:`fit`, the store ``heads`` passed along) joined in a
    :class:`SeedVote`: a text's label is the seeds' soft vote, and
    :meth:`RegardClassifier.seed_labels` keeps each seed's own label so a result can show how
    far the seeds move it."""
    enc = encoder if isinstance(encoder, Encoder) else Encoder(encoder)
    fits = [fit(texts, labels, encoder=enc, seed=s, alpha=alpha, heads=heads) for s in seeds]
    info = {**fits[0].card, "seed": f"vote of seeds {list(seeds)}", "seeds": [int(s) for s in seeds],
            "head": f"soft vote of {len(fits)} x {fits[0].card['head']}"}
    return RegardClassifier(enc, SeedVote([f.head for f in fits], seeds), {**info, **(card or {})})


def head_digest(head) -> str:
    """A digest of a trained head's weights (a :class:`SeedVote`'s: every head's), for cache keys."""
    import hashlib

    h = hashlib.sha256()
    for one in (head.heads if isinstance(head, SeedVote) else [head]):
        for w in [*one.coefs_, *one.intercepts_]:
            h.update(np.ascontiguousarray(w).tobytes())
    return h.hexdigest()[:12]


def select_alpha(train: pd.DataFrame, dev: pd.DataFrame, *, encoder: Encoder, seeds: Sequence[int],
                 grid: Sequence[float] = ALPHA_GRID, heads: dict | None = None) -> pd.DataFrame:
    """Dev accuracy (mean over ``seeds``) of each L2 penalty in ``grid``; frames have
    ``text, label``. The chosen alpha is the first row (highest dev mean; test never seen).
    ``heads``: the store of fitted heads :func:`fit` reads and fills (so a later fit of the
    chosen penalty's heads reuses these)."""
    rows = []
    for a in grid:
        accs = [fit(train["text"], train["label"], encoder=encoder, seed=s, alpha=a, heads=heads)
                .accuracy(dev["text"], dev["label"]) for s in seeds]
        rows.append({"alpha": a, "dev_mean": float(np.mean(accs)), "dev_per_seed": accs})
    return sort_alpha_table(pd.DataFrame(rows))


def sort_alpha_table(table: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`select_alpha` best first: highest dev mean, ties to the larger alpha."""
    return table.sort_values(["dev_mean", "alpha"], ascending=[False, False], ignore_index=True)


def load(folder: str | Path | None = None, encoder: Encoder | None = None) -> RegardClassifier:
    """Reload a saved classifier (``default_dir()`` unless given); the encoder named in its card."""
    folder = Path(folder) if folder else default_dir()
    card_file, head_file = folder / "model_card.json", folder / "head.pkl"
    if not card_file.exists() or not head_file.exists():
        raise FileNotFoundError(
            f"no trained regard classifier in {folder} (needs model_card.json and head.pkl): train one "
            "with `python -m nlgbias.regard train` or run notebook 06")
    card = json.loads(card_file.read_text(encoding="utf-8"))
    with open(head_file, "rb") as f:
        head = pickle.load(f)
    enc = encoder if encoder is not None else Encoder(card["encoder"])
    if enc.name != card["encoder"]:
        raise ValueError(f"classifier in {folder} was trained on encoder {card['encoder']!r}, got {enc.name!r}")
    return RegardClassifier(enc, head, card)


def mask_texts(texts: Sequence[str], mask: bool | Sequence[str] = True) -> list[str]:
    """``texts`` with the demographic replaced by ``XYZ`` (``True``: the paper's six)."""
    if mask is False:
        return [str(t) for t in texts]
    terms = list(DEMOGRAPHICS) if mask is True else list(mask)
    return [mask_demographic(str(t), terms) for t in texts]


def aggregate(probs: pd.DataFrame, aggregation: str) -> dict:
    """``"average"`` or ``"maximum"`` of each label's probability over texts (HF ``regard``)."""
    if aggregation not in ("average", "maximum"):
        raise ValueError(f"aggregation must be None, 'average' or 'maximum', got {aggregation!r}")
    if len(probs) == 0:
        raise ValueError("cannot aggregate the regard of zero texts")
    vals = probs[list(LABELS)].mean() if aggregation == "average" else probs[list(LABELS)].max()
    return {k: round(float(v), 12) for k, v in vals.items()}


def difference(probs: pd.DataFrame, references: pd.DataFrame) -> dict:
    """Per-label mean regard of ``probs`` minus that of ``references`` (HF ``regard_difference``)."""
    a, b = aggregate(probs, "average"), aggregate(references, "average")
    return {k: round(a[k] - b[k], 12) for k in LABELS}


def compute(texts: Sequence[str], references: Sequence[str] | None = None,
            aggregation: str | None = None, *, mask: bool | Sequence[str] = True,
            classifier: RegardClassifier | None = None):
    """Regard of ``texts`` (see the module docstring for the forms of the result)."""
    clf = classifier or load()
    probs = clf.predict_proba(mask_texts(texts, mask))
    if references is None:
        return probs if aggregation is None else aggregate(probs, aggregation)
    ref = clf.predict_proba(mask_texts(references, mask))
    if aggregation is None:
        return difference(probs, ref)
    return {"data": aggregate(probs, aggregation), "references": aggregate(ref, aggregation)}
