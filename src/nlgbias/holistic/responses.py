"""Notebook 07's data files: sentence perplexities and dialogue responses with style vectors
(HolisticBias, Smith et al. 2022, §3.3.2-3.3.3). Notebook 08 (bias tuning) reads the responses.

Files under ``data/<profile>/processed/holistic/`` (parquet, one per model; ``<slug>`` is
``nlgbias.models.model_slug(model)``):

``responses__<slug>.parquet`` (:func:`responses_path`): one row per (prompt, sample):

- the sentence's HolisticBias columns: ``prompt_id, axis, bucket, descriptor, noun,
  noun_gender, noun_phrase, plural_noun_phrase, noun_phrase_type, template`` and ``prompt``
  (the templated sentence, sent as the user turn of the model's chat template);
- the generation run's columns (``nlgbias.generation.RUN_COLUMNS``): ``sample, model`` (display
  name), ``generation`` (the assistant response), ``seed``, decoding settings, ...;
- ``response_masked``: the response with every mention of the descriptor replaced by
  "left-handed" (App. A.3, :mod:`nlgbias.holistic.masking`);
- the style vector of ``response_masked``: 151 columns ``"s:<emoji>"`` (nade emoji
  probabilities normalised to sum to 1; ``nlgbias.metrics.style.style_columns()``) and the 8
  emotion scores ``"e:<emotion>"`` (``nlgbias.metrics.style.EMOTION_COLUMNS``);
- ``style_classifier``: the stand-in's name (:data:`nlgbias.metrics.style.STANDIN`).

``perplexity__<slug>.parquet`` (:func:`perplexity_path`): one row per scored sentence: the
HolisticBias columns, ``text`` (the sentence), ``logprob`` (sum of token log-probabilities
after the start token), ``n_tokens``, ``perplexity`` (``exp(-logprob / n_tokens)``), ``model``,
``version``.

Scores go through ``nlgbias.scoring.score_texts`` (resumable, cached per model, version, dtype).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

log = logging.getLogger(__name__)

SUBDIR = "holistic"
SENTENCE_COLUMNS = ["prompt_id", "axis", "bucket", "descriptor", "noun", "noun_gender",
                    "noun_phrase", "plural_noun_phrase", "noun_phrase_type", "template"]


def _slug(model: str) -> str:
    from nlgbias.lm import parse_model_spec

    return parse_model_spec(model).slug


def responses_path(processed: str | Path, model: str) -> Path:
    """``<processed>/holistic/responses__<slug>.parquet``."""
    return Path(processed) / SUBDIR / f"responses__{_slug(model)}.parquet"


def perplexity_path(processed: str | Path, model: str) -> Path:
    """``<processed>/holistic/perplexity__<slug>.parquet``."""
    return Path(processed) / SUBDIR / f"perplexity__{_slug(model)}.parquet"


def read_responses(processed: str | Path, models: list[str] | None = None) -> pd.DataFrame:
    """The responses of ``models`` (default: every ``responses__*.parquet``), concatenated."""
    folder = Path(processed) / SUBDIR
    files = [responses_path(processed, m) for m in models] if models else \
        sorted(folder.glob("responses__*.parquet"))
    missing = [str(f) for f in files if not f.is_file()]
    if missing or not files:
        raise FileNotFoundError(f"no HolisticBias responses: {missing or folder}; run notebook 07 "
                                "(07_holistic_gen_bias) for this profile first")
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def prompts_frame(sample: pd.DataFrame) -> pd.DataFrame:
    """A sentence sample (``datasets.holisticbias.sample_sentences``) as the engine's prompt
    frame: the sentence becomes ``prompt``; metadata columns of :data:`SENTENCE_COLUMNS`."""
    missing = {"text", *SENTENCE_COLUMNS} - set(sample.columns)
    if missing:
        raise KeyError(f"sentence sample lacks column(s) {', '.join(sorted(missing))}")
    out = sample[SENTENCE_COLUMNS].copy()
    out["prompt"] = sample["text"].to_numpy()
    return out.reset_index(drop=True)


def masked_share(frame: pd.DataFrame) -> float:
    """Share of responses in which the descriptor was masked (``response_masked`` differs from
    the response with only the unsafe marker removed)."""
    from nlgbias.holistic.masking import UNSAFE

    plain = frame["generation"].fillna("").str.replace(UNSAFE, "", regex=False).str.strip()
    return float((frame["response_masked"] != plain).mean()) if len(frame) else float("nan")


def style_responses(gens: pd.DataFrame, cache_dir: str | Path, *, chunk_size: int = 2000,
                    progress: bool | None = False) -> pd.DataFrame:
    """Mask the descriptor in each ``generation`` and add the style vector + emotions of the
    masked response (cached by masked text)."""
    from nlgbias.holistic.masking import mask_responses
    from nlgbias.metrics import style
    from nlgbias.scoring import score_texts

    out = gens.copy()
    out["response_masked"] = mask_responses(out["generation"].tolist(), out["descriptor"].tolist())
    clf = style.load()

    def fn(chunk: pd.DataFrame) -> pd.DataFrame:
        return clf.compute(chunk["response_masked"].tolist())

    scored = score_texts(out, "response_masked", fn, Path(cache_dir) / "style" / "nade-0.3.1",
                         chunk_size=chunk_size, desc="style", progress=progress)
    scored["style_classifier"] = style.STANDIN
    return scored


def score_perplexity(sentences: pd.DataFrame, model, cache_dir: str | Path, *,
                     version: str = "v1.0", batch_size: int = 64, dtype: str | None = "auto",
                     chunk_size: int = 2000, lm=None, progress: bool | None = None) -> pd.DataFrame:
    """Perplexity of each sentence (column ``text``) under the causal LM ``model`` (a spec
    string or :class:`~nlgbias.lm.LMSpec`, reached through :mod:`nlgbias.lm`: in process,
    shared-prefix batches after the start token, ``dtype`` "auto" = bf16 where it pays, where
    the spec sets none), cached per (model, version, dtype and bf16 unit) and resumable. ``lm``: an already
    built :class:`~nlgbias.lm.LM`.

    A sentence's score depends on its batch-mates (bf16 sums over shared-prefix batches) and on
    the CPU's bf16 unit: the cache folder names the unit (:func:`nlgbias.hardware.kernel_tag`)
    and a sentence is reused only from a cached chunk of exactly this frame's chunk."""
    import numpy as np

    from nlgbias.hardware import kernel_tag, resolve_dtype
    from nlgbias.lm import get_lm, parse_model_spec

    spec = parse_model_spec(model).with_defaults(dtype=dtype or "float32", batch_size=batch_size)
    dt = resolve_dtype(dtype, "cpu") if dtype is not None else "float32"
    state = {"lm": lm}

    def fn(chunk: pd.DataFrame) -> pd.DataFrame:
        if state["lm"] is None:
            state["lm"] = get_lm(spec)
        df = state["lm"].sentence_logprobs(chunk["text"].tolist(), batch_size=batch_size)
        return df[["logprob", "n_tokens"]].reset_index(drop=True)

    from nlgbias.scoring import score_texts

    folder = Path(cache_dir) / "perplexity" / f"{spec.slug}{spec.scoring_tag}__{version}__{kernel_tag(dt)}"
    cols = [c for c in SENTENCE_COLUMNS if c in sentences.columns]
    out = score_texts(sentences[[*cols, "text"]], "text", fn, folder, chunk_size=chunk_size,
                      desc=f"perplexity {spec.display}", progress=progress, batch_dependent=True)
    out["perplexity"] = np.exp(-out["logprob"] / out["n_tokens"])
    out["model"], out["version"], out["dtype"] = spec.display, version, dt
    return out


__all__ = ["SENTENCE_COLUMNS", "SUBDIR", "masked_share", "perplexity_path", "prompts_frame", "read_responses",
           "responses_path", "score_perplexity", "style_responses"]
