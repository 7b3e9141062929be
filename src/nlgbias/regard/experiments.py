"""The classifier experiments of Sheng et al. 2019 §4 (Figure 1) and the cached classification of
many texts with the trained regard classifier and VADER (Figure 2, BOLD Table 5)."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.io import ShardCache
from nlgbias.metrics import regard as R
from nlgbias.regard import baselines as B
from nlgbias.regard.analysis import ANON_PERSON, SEED_PREFIX, placeholder_text, seed_columns
from nlgbias.scoring import score_texts

log = logging.getLogger(__name__)

OURS = "MiniLM-L6 (frozen) + MLP [stand-in for BERT]"
OURS_OTHER = "MiniLM-L6 + MLP, train_other.tsv"


def splits(ann: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """``train, dev, test, train_other`` frames (``text, label``) of the regard annotations."""
    return {s: ann[ann["split"] == s][["text", "label"]].reset_index(drop=True)
            for s in ("train", "dev", "test", "train_other")}


def _figure1_caches(cache_dir: str | Path | None, ann: pd.DataFrame, encoder: R.Encoder,
                    lstm_epochs: int, w2v) -> tuple[ShardCache, ShardCache] | None:
    """(alpha, run) resume caches under ``cache_dir``/``figure1_<digest>``: the digest covers
    everything a cached accuracy depends on (annotations, encoder, LSTM epochs, embeddings)."""
    if cache_dir is None:
        return None
    h = hashlib.sha256(json.dumps({"encoder": encoder.name, "lstm_epochs": lstm_epochs,
                                   "head": R.HIDDEN, "version": 2}, sort_keys=True).encode())
    h.update(pd.util.hash_pandas_object(ann[["split", "text", "label"]].astype(str),
                                        index=False).to_numpy().tobytes())
    if w2v is not None:
        h.update("\x1f".join(w2v.words).encode())
        h.update(np.ascontiguousarray(w2v.vectors).tobytes())
    folder = Path(cache_dir) / f"figure1_{h.hexdigest()[:10]}"
    return ShardCache(folder / "alpha", key="alpha"), ShardCache(folder / "runs", key="run")


def _cached_row(cache: ShardCache | None, done: dict, key, compute) -> dict:
    """``compute()`` (a dict of values), or the row ``cache`` holds for ``key``; new rows are
    appended (one atomic shard each) so an interrupted run keeps every finished one."""
    if key in done:
        return done[key]
    row = compute()
    if cache is not None:
        cache.append(pd.DataFrame([{cache.key: key, **row}]))
    return row


def _done(cache: ShardCache | None) -> dict:
    if cache is None:
        return {}
    df = cache.load()
    return {r[cache.key]: {k: v for k, v in r.items() if k != cache.key}
            for r in df.to_dict(orient="records")} if len(df) else {}


def figure1_runs(ann: pd.DataFrame, seeds: Sequence[int], *, encoder: R.Encoder,
                 grid: Sequence[float] = R.ALPHA_GRID, lstm_epochs: int = 15, w2v=None,
                 cache_dir: str | Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Dev and test accuracy per model and seed (Sheng Figure 1): our classifier (alpha chosen
    on dev over ``grid``), the same trained on ``train_other.tsv`` (the repository's regard2
    anchor), VADER and TextBlob as regard (deterministic: one value repeated per seed) and
    2-layer LSTMs on random and word2vec embeddings. Returns (runs, alpha selection table).

    ``cache_dir``: each finished alpha of the selection and each trained (model, seed) run is
    kept there (:class:`~nlgbias.io.ShardCache`), so an interrupted call resumes where it
    stopped and returns the same tables as an uninterrupted one.

    Every head is fitted through ``encoder``'s store (:attr:`~nlgbias.metrics.regard.Encoder.heads`):
    our classifier's runs reuse the selection's heads of the chosen penalty, and a later
    :func:`train_classifier` with the same encoder reuses them again (a resumed call, its
    selection read from the cache, fits them where it needs them)."""
    sp = splits(ann)
    tr, dv, te, other = sp["train"], sp["dev"], sp["test"], sp["train_other"]
    caches = _figure1_caches(cache_dir, ann, encoder, lstm_epochs, w2v)
    alpha_cache, run_cache = caches if caches is not None else (None, None)
    done_alpha, done_runs = _done(alpha_cache), _done(run_cache)
    t0 = time.perf_counter()

    def one_alpha(a: float) -> dict:
        r = R.select_alpha(tr, dv, encoder=encoder, seeds=seeds, grid=[a], heads=encoder.heads).iloc[0]
        return {"dev_mean": float(r["dev_mean"]), "dev_per_seed": [float(x) for x in r["dev_per_seed"]]}

    sel_rows = []
    for a in grid:
        r = _cached_row(alpha_cache, done_alpha, float(a), lambda a=a: one_alpha(a))
        sel_rows.append({"alpha": a, "dev_mean": float(r["dev_mean"]),
                         "dev_per_seed": [float(x) for x in r["dev_per_seed"]]})
    sel = R.sort_alpha_table(pd.DataFrame(sel_rows))
    alpha = float(sel.loc[0, "alpha"])

    def accuracies(data: pd.DataFrame, s: int) -> dict:
        clf = R.fit(data["text"], data["label"], encoder=encoder, seed=s, alpha=alpha, heads=encoder.heads)
        return {"dev": clf.accuracy(dv["text"], dv["label"]), "test": clf.accuracy(te["text"], te["label"])}

    rows = []
    for s in seeds:
        for name, data in ((OURS, tr), (OURS_OTHER, other)):
            r = _cached_row(run_cache, done_runs, f"{name}\x1f{s}\x1falpha={alpha!r}",
                            lambda data=data, s=s: accuracies(data, s))
            rows.append((name, s, float(r["dev"]), float(r["test"])))
    log.info("regard classifier runs: %.0f s", time.perf_counter() - t0)
    for name, fn in (("VADER as regard", B.vader_labels), ("TextBlob as regard", B.textblob_labels)):
        d, t = float((fn(dv["text"]) == dv["label"]).mean()), float((fn(te["text"]) == te["label"]).mean())
        rows += [(name, s, d, t) for s in seeds]
    for name, emb in (("2-layer LSTM, random emb.", None), ("2-layer LSTM, word2vec emb. (tuned)", w2v)):
        if name.endswith("(tuned)") and w2v is None:
            continue
        t1 = time.perf_counter()
        for s in seeds:
            def lstm(s=s, emb=emb) -> dict:
                pred = B.train_lstm(tr["text"], tr["label"], seed=s, embeddings=emb, epochs=lstm_epochs)
                return {"dev": float((pred(dv["text"]) == dv["label"]).mean()),
                        "test": float((pred(te["text"]) == te["label"]).mean())}

            r = _cached_row(run_cache, done_runs, f"{name}\x1f{s}", lstm)
            rows.append((name, s, float(r["dev"]), float(r["test"])))
        log.info("%s: %.0f s", name, time.perf_counter() - t1)
    return pd.DataFrame(rows, columns=["model", "seed", "dev", "test"]), sel


def classifier_key(clf: R.RegardClassifier) -> str:
    """A short digest of what changes a classifier's predictions (for cache folder names)."""
    keep = {k: clf.card.get(k) for k in ("encoder", "head", "seed", "n_train", "train_file")}
    keep["weights"] = R.head_digest(clf.head)
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:10]


def regard_cache(clf: R.RegardClassifier, cache_root: str | Path, text_col: str) -> ShardCache:
    """The per-text cache of ``clf``'s regard scores under ``cache_root`` (keyed by ``text_col``)."""
    return ShardCache(Path(cache_root) / f"regard_{classifier_key(clf)}", key=text_col)


def embed_pending(clf: R.RegardClassifier, frames: Sequence[pd.DataFrame], cache_root: str | Path,
                  text_col: str, *, chunk_size: int = 2000) -> int:
    """Embed, in one pass of ``clf``'s encoder, every distinct text that :func:`classify` of each
    of ``frames`` (same ``chunk_size``) would score now; returns how many. The encoder keeps
    each text's features, so :func:`classify` then reads them instead of embedding chunk by chunk.

    One pass is what makes it fast: the encoder runs batches of one token count and a fixed
    shape (a partial batch filled with copies, :meth:`~nlgbias.metrics.regard.Encoder.embed`),
    so embedding a 2,000-text chunk at a time leaves a partial batch per token count and chunk
    (BOLD's texts: 3.4 M token rows run for 0.6 M real tokens); all pending texts at once leave
    one partial batch per token count (1.0 M token rows). A text's features do not depend on
    its batch-mates, so the scores are the same bytes either way (the head's are not
    independent of its rows: :func:`classify` still gives it the same chunks)."""
    from nlgbias.scoring import pending

    folder = regard_cache(clf, cache_root, text_col).folder
    todo = list(dict.fromkeys(t for f in frames for t in pending(
        f[[text_col]].astype(str), text_col, folder, chunk_size=chunk_size, batch_dependent=True)[text_col]))
    if todo:
        t0 = time.perf_counter()
        clf.encoder.embed(todo, progress=True)
        log.info("regard features of %d texts in one pass: %.0f s", len(todo), time.perf_counter() - t0)
    return len(todo)


def classify(frame: pd.DataFrame, text_col: str, clf: R.RegardClassifier, cache_root: str | Path,
             *, chunk_size: int = 2000, one_pass: bool = True) -> pd.DataFrame:
    """``frame`` + regard probabilities (``negative, neutral, positive``) and ``regard`` label of
    ``frame[text_col]`` (already masked; a :class:`~nlgbias.metrics.regard.SeedVote`'s label is
    the seeds' vote), each seed's own label (``regard_seed<k>``, :data:`SEED_PREFIX`), + VADER
    ``compound`` and ``sentiment`` (±0.05) of the same text; cached under ``cache_root`` per
    chunk of ``chunk_size`` texts (the head's sums depend on the rows scored with it, so a text
    is reused only from a cached chunk of exactly this frame's chunk: a warm run writes a cold
    run's bytes). ``one_pass``: the texts not cached yet are embedded in one pass first
    (:func:`embed_pending`; ``False``: the encoder embeds chunk by chunk what it does not hold
    yet, the same numbers)."""
    def regard_fn(chunk: pd.DataFrame) -> pd.DataFrame:
        texts = chunk[text_col].tolist()
        p = clf.predict_proba(texts).rename(columns={"label": "regard"}).reset_index(drop=True)
        each = clf.seed_labels(texts).add_prefix(SEED_PREFIX.removesuffix("seed"))
        return pd.concat([p, each.reset_index(drop=True)], axis=1)

    def vader_fn(chunk: pd.DataFrame) -> pd.DataFrame:
        from nlgbias.metrics.sentiment import compute

        c = compute(chunk[text_col].tolist(), pos=B.VADER_POS, neg=B.VADER_NEG)
        return pd.DataFrame({"compound": c["compound"], "sentiment": c["sentiment"]})

    root = Path(cache_root)
    base = frame[[text_col]].astype(str)
    if one_pass:
        embed_pending(clf, [base], root, text_col, chunk_size=chunk_size)
    reg = score_texts(base, text_col, regard_fn, regard_cache(clf, root, text_col).folder,
                      chunk_size=chunk_size, desc="regard", batch_dependent=True)
    vad = score_texts(base, text_col, vader_fn, root / "vader_0.05", chunk_size=chunk_size * 5,
                      desc="VADER")
    out = frame.copy()
    for c in ("negative", "neutral", "positive", "regard", *seed_columns(reg)):
        out[c] = reg[c].to_numpy()
    out["compound"], out["sentiment"] = vad["compound"].to_numpy(), vad["sentiment"].to_numpy()
    return out


def spearman_inputs(both: pd.DataFrame, clf: R.RegardClassifier) -> pd.DataFrame:
    """The doubly annotated texts with VADER labels (-1/0/1, ±0.05) and the classifier's label."""
    out = both.copy()
    out["vader"] = B.vader_labels(out["text"])
    lab = clf.predict_proba(out["text"].tolist())["label"]
    out["classifier"] = lab.map({"negative": -1, "neutral": 0, "positive": 1}).to_numpy()
    return out


def identical_reload(clf: R.RegardClassifier, folder: str | Path, texts: Sequence[str]) -> bool:
    """Reload the saved classifier from ``folder`` and check it gives identical probabilities."""
    again = R.load(folder, encoder=clf.encoder)
    a = clf.predict_proba(list(texts))[list(R.LABELS)].to_numpy()
    b = again.predict_proba(list(texts))[list(R.LABELS)].to_numpy()
    return bool(np.array_equal(a, b))


def vote_seeds(profile: str = "quick", seed: int = 0) -> list[int]:
    """The seeds of the classifier's heads in ``profile`` (the regard study's ``seeds`` from
    ``seed`` on): the reproduction's vote, also the audit's and ``python -m nlgbias.regard``'s."""
    from nlgbias.profiles import study

    return list(range(seed, seed + int(study("regard").defaults(profile)["seeds"])))


def train_classifier(ann: pd.DataFrame, encoder: R.Encoder, *, seeds: Sequence[int],
                     alpha: float | None = None, alphas: Sequence[float] = R.ALPHA_GRID,
                     ours: pd.Series | None = None, profile: str) -> R.RegardClassifier:
    """The regard classifier used downstream: the heads of every seed in ``seeds`` with the
    penalty chosen on dev (``alpha``; ``None``: chosen here over ``alphas`` by
    :func:`~nlgbias.metrics.regard.select_alpha`), trained on ``train.tsv`` and joined in a soft
    vote (:func:`~nlgbias.metrics.regard.fit_vote`), so no one seed's head decides a label and
    each seed's own labels stay available; its model card holds the selection, the seed runs'
    means and per-seed accuracies (``ours``: our row of the Figure 1 summary; ``None``: the dev
    accuracies of the selection and each seed's head's own test accuracy, read from the vote's
    heads) and the vote's own dev and test accuracy. Each head is fitted once: through
    ``encoder``'s store of heads (:attr:`~nlgbias.metrics.regard.Encoder.heads`) the vote reuses
    the selection's heads of the chosen penalty, or those :func:`figure1_runs` fitted."""
    sp = splits(ann)
    per_seed_test = alpha is None or ours is None  # the Figure 1 row is made here
    if per_seed_test:
        if alpha is None:
            best = R.select_alpha(sp["train"], sp["dev"], encoder=encoder, seeds=seeds,
                                  grid=alphas, heads=encoder.heads).iloc[0]
            alpha = float(best["alpha"])
            dev = {"dev_mean": best["dev_mean"], "dev_per_seed": list(best["dev_per_seed"])}
        else:
            dev = {"dev_mean": float("nan"), "dev_per_seed": []}
        ours = pd.Series({**dev, "test_mean": float("nan"), "test_per_seed": []})
    clf = R.fit_vote(sp["train"]["text"], sp["train"]["label"], encoder=encoder, seeds=seeds,
                     alpha=alpha, heads=encoder.heads,
                     card={"train_file": "train.tsv (Sheng et al. 2019, nlg-bias data/)",
                           "alpha_selection": "highest mean dev accuracy over seeds " + str(list(seeds))
                           + " among " + str(list(alphas)),
                           "dev_accuracy_vote": None, "test_accuracy_vote": None,
                           "dev_mean_over_seeds": round(float(ours["dev_mean"]), 4),
                           "test_mean_over_seeds": round(float(ours["test_mean"]), 4),
                           "dev_per_seed": ours["dev_per_seed"], "test_per_seed": ours["test_per_seed"],
                           "profile": profile})
    for split in ("dev", "test"):
        clf.card[f"{split}_accuracy_vote"] = round(clf.accuracy(sp[split]["text"], sp[split]["label"]), 4)
    if per_seed_test:  # each seed's head's own test accuracy, from the vote's heads
        each = clf.seed_labels(sp["test"]["text"])
        gold = R.gold_labels(sp["test"]["label"])
        accs = [round(float((each[c].to_numpy() == gold).mean()), 4) for c in each.columns]
        clf.card.update(test_per_seed=accs, test_mean_over_seeds=round(float(np.mean(accs)), 4))
    return clf


#: the paper's released sample sets and their source labels in Figure 2
PAPER_SOURCES = {"gpt2": "GPT-2 (paper's samples)", "lm1b": "LM 1B (paper's samples)"}


def paper_samples(per_cell: int | None = None, seed: int = 0) -> pd.DataFrame:
    """The paper's GPT-2 and LM 1B samples (their released masked copies), ``per_cell`` per
    (source, context, demographic) drawn with ``seed`` when given, sources named as in Figure 2."""
    from nlgbias.datasets import regard as D

    out = pd.concat([D.load_generated_samples(s) for s in PAPER_SOURCES], ignore_index=True)
    if per_cell:
        out = (out.groupby(["source", "context", "demographic"])
               .sample(n=per_cell, random_state=seed).reset_index(drop=True))
    return out.replace({"source": PAPER_SOURCES})


def generate_samples(models: Sequence[str], generations: str | Path, *, samples_per_prompt: int,
                     max_new_tokens: int, batch_size: int, seed: int = 0,
                     timings: dict | None = None) -> pd.DataFrame:
    """New samples for Figure 2: the 60 prompts (10 templates x 6 demographics) continued by each
    model with its GPT-2-style decoding, cut to the first sentence (Sheng §4 step 2), through the
    shared generation engine (resumable, ``regard__<model>.parquet`` in ``generations``); each
    row's ``source`` names the model and ``masked`` is its text with the demographic masked.
    ``timings`` (if given) gets each model's seconds."""
    from nlgbias.datasets import regard as D
    from nlgbias.generation import generate_dataset
    from nlgbias.io import read_table
    from nlgbias.lm import decoding_of, parse_model_spec

    prompts = D.regard_prompts()
    frames = []
    for m in models:
        t = time.perf_counter()
        spec = parse_model_spec(m)
        params = decoding_of(spec, max_new_tokens=max_new_tokens, first_sentence=True)
        run = generate_dataset(prompts, m, generations, dataset="regard",
                               samples_per_prompt=samples_per_prompt, seed=seed, params=params,
                               batch_size=batch_size)
        if timings is not None:
            timings[f"generate {spec.display}"] = time.perf_counter() - t
        g = read_table(run.path)
        g["source"] = f"{spec.display} (offline, this run)"
        g["masked"] = [D.mask_demographic(tx, d) for tx, d in zip(g["text"], g["demographic"], strict=True)]
        frames.append(g)
    return pd.concat(frames, ignore_index=True)


def chat_labels(models: Sequence) -> dict[str, str]:
    """Figure 2 titles for the chat-tuned models among ``models`` (their ``source`` as
    :func:`generate_samples` names it -> the same name saying the model is chat-tuned and was
    given the raw prompts); a base model keeps its name."""
    from nlgbias.lm import parse_model_spec
    from nlgbias.lm.spec import registry_entry

    out = {}
    for m in models:
        spec = parse_model_spec(m)
        try:
            chat = bool(getattr(registry_entry(spec), "chat", False))
        except Exception:  # an unregistered model: a base LM
            chat = False
        if chat:
            out[f"{spec.display} (offline, this run)"] = (
                f"{spec.display} (chat-tuned, this run)")
    return out


def bold_texts(sources: dict[str, pd.DataFrame], groups: Sequence[str],
               placeholder: str = ANON_PERSON) -> pd.DataFrame:
    """BOLD's prepared texts of every source (``model`` column: the source) in ``groups`` (Table
    5's gender and race groups), with ``masked``: the text the regard classifier scores, the
    anonymised text (BOLD §3.3: person names -> "Person") with that placeholder read as
    ``placeholder`` (:data:`nlgbias.bold.choices.REGARD_PLACEHOLDER` and the range graded beside
    it; :func:`~nlgbias.regard.analysis.placeholder_text`)."""
    bold = pd.concat([df.assign(model=name) for name, df in sources.items()], ignore_index=True)
    if "text_raw" not in bold.columns:
        raise ValueError("bold_texts needs prepared (anonymised) texts with a 'text_raw' column "
                         "(nlgbias.bold.texts.prepare_sources / load_prepared)")
    bold = bold[bold["group"].isin(groups)].copy()
    bold["masked"] = [placeholder_text(str(t), str(r), placeholder)
                      for t, r in zip(bold["text"], bold["text_raw"], strict=True)]
    return bold


def classify_placeholders(sources: dict[str, pd.DataFrame], groups: Sequence[str],
                          clf: R.RegardClassifier, cache_root: str | Path,
                          placeholders: Sequence[str], *, chunk_size: int = 2000,
                          ) -> dict[str, pd.DataFrame]:
    """:func:`classify` of :func:`bold_texts` once per person ``placeholder`` (the stated one
    and the range graded beside it): placeholder -> the scored texts. The texts of every
    placeholder not cached yet are embedded in one pass first (:func:`embed_pending`; a text
    that reads the same with each placeholder is embedded once, and scored with each
    placeholder's chunk-mates)."""
    texts = {p: bold_texts(sources, groups, p) for p in placeholders}
    embed_pending(clf, list(texts.values()), cache_root, "masked", chunk_size=chunk_size)
    return {p: classify(b, "masked", clf, cache_root, chunk_size=chunk_size, one_pass=False)
            for p, b in texts.items()}


def wiki_whole_groups(sources: dict[str, pd.DataFrame], groups: Sequence[str],
                      cache_root: str | Path | None, seed: int = 0) -> dict[str, pd.DataFrame]:
    """``sources`` with WIKI's texts of ``groups`` replaced by every WIKI text of those groups
    (BOLD Table 5's calibration on the whole groups rather than a sample), prepared
    (anonymised) like the rest through the same cache."""
    from nlgbias.bold import texts as BT

    every = BT.wiki_texts(None, 0, seed)
    full = BT.prepare_sources({BT.WIKI: every[every["group"].isin(groups)]}, cache_root)[BT.WIKI]
    w = sources[BT.WIKI]
    return {**sources, BT.WIKI: pd.concat([w[~w["group"].isin(groups)], full], ignore_index=True)}


def card_table(clf: R.RegardClassifier) -> pd.DataFrame:
    """The classifier's model card as a two-column table (values as text)."""
    return pd.DataFrame({"field": list(clf.card), "value": [str(v) for v in clf.card.values()]})


def timing_table(timings: dict[str, float]) -> pd.DataFrame:
    """Seconds per step, rounded to 0.1 s."""
    return pd.DataFrame({"step": list(timings), "seconds": [round(v, 1) for v in timings.values()]})


#: Figure 2 row (3)'s source name
ANNOTATED_SOURCE = "Annotated samples (paper's GPT-2)"


def annotated_samples(ann: pd.DataFrame, sentiment: pd.DataFrame | None = None) -> pd.DataFrame:
    """Figure 2 row (3): the annotated samples (train / dev / test, original categories: the
    paper's 302) with the demographic each was generated for, read from the paper's own GPT-2
    samples (every annotated text is one of their masked copies; a text whose copy occurs for
    more than one demographic is left out), the regard annotation, the sentiment annotation
    (``sentiment``: :func:`nlgbias.datasets.regard.load_sentiment_annotations`, read when None;
    missing where a text has none) and VADER's sentiment (±0.05), all as label names. Columns
    ``source, context, demographic, text, regard, sentiment, vader``.

    Sheng §4 chose these samples per template as three positive and three negative by VADER, so
    VADER's shares on them are about one half each by design and its negative gap about 0: row
    (3) compares the two annotations (:func:`row3_samples`), not regard against VADER."""
    from nlgbias.datasets import regard as D

    g = D.load_generated_samples("gpt2")
    demo = g.groupby(g["masked"].str.strip())["demographic"].agg(
        lambda s: s.iloc[0] if s.nunique() == 1 else None)
    a = ann[ann["split"].isin(["train", "dev", "test"]) & (ann["label"] != 2)].copy()
    a["demographic"] = a["text"].str.strip().map(demo)
    a = a.dropna(subset=["demographic"])
    sen = D.load_sentiment_annotations() if sentiment is None else sentiment
    sen = sen[sen["label"] != 2].drop_duplicates("text")
    sen_of = dict(zip(sen["text"].str.strip(), sen["label"].map(R.LABEL_OF), strict=True))
    tmpl = D.load_regard_templates()
    return pd.DataFrame({
        "source": ANNOTATED_SOURCE, "context": [D.context_of(t, tmpl) for t in a["text"]],
        "demographic": a["demographic"].to_numpy(), "text": a["text"].to_numpy(),
        "regard": a["label"].map(R.LABEL_OF).to_numpy(),
        "sentiment": a["text"].str.strip().map(sen_of).to_numpy(),
        "vader": pd.Series(B.vader_labels(a["text"])).map(R.LABEL_OF).to_numpy()}
    ).reset_index(drop=True)


def row3_samples(annotated: pd.DataFrame) -> pd.DataFrame:
    """Figure 2 row (3) as graded and drawn: the annotated samples that carry both a regard and
    a sentiment annotation (regard and sentiment both the paper's annotations)."""
    return annotated.dropna(subset=["sentiment"]).reset_index(drop=True)
