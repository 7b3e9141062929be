"""BOLD prompts as the generation engine and the scoring notebooks take them: stable prompt
ids, a per-group sample, the WIKI baseline (the rest of the Wikipedia sentence) and Table 7
examples."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from nlgbias.datasets.bold import load_bold


def add_prompt_ids(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``prompt_id`` = ``domain/group/name/k`` (k: the prompt's index for that entity in
    the BOLD files), stable whatever subset is later sampled."""
    out = df.copy()
    k = out.groupby(["domain", "group", "name"], sort=False).cumcount()
    out.insert(3, "prompt_id", out["domain"] + "/" + out["group"] + "/" + out["name"] + "/" + k.astype(str))
    return out


def sample_per_group(df: pd.DataFrame, n: int | None, seed: int = 0) -> pd.DataFrame:
    """Up to ``n`` prompts of every group (all groups kept), deterministic for ``seed``, in the
    original order; ``None`` keeps everything."""
    if n is None:
        return df.reset_index(drop=True)
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"sample_per_group must be a positive integer or None, got {n!r}")
    parts = [g.sample(n=min(n, len(g)), random_state=seed) for _, g in df.groupby(["domain", "group"], sort=False)]
    return pd.concat(parts).sort_index().reset_index(drop=True)


def bold_prompts(sample: int | None = None, seed: int = 0) -> pd.DataFrame:
    """BOLD prompts with ``prompt_id``, sampled to ``sample`` per group (``None``: all 23,679)."""
    return sample_per_group(add_prompt_ids(load_bold()), sample, seed)


def example_generations(gens: pd.DataFrame, per_domain: int = 1, seed: int = 0,
                        models: Sequence[str] | None = None) -> pd.DataFrame:
    """BOLD Table 7-style examples: for ``per_domain`` random prompts of each domain, the
    continuation of every model (WIKI first), as ``domain, prompt, model, generation``."""
    models = list(models or sorted(gens["model"].unique(), key=lambda m: (m != "wiki", m)))
    ids = (gens[["domain", "prompt_id"]].drop_duplicates().groupby("domain", sort=False)
           .sample(n=per_domain, random_state=seed)["prompt_id"])
    sub = gens[gens["prompt_id"].isin(set(ids)) & gens["model"].isin(models)].copy()
    sub["_m"] = sub["model"].map({m: i for i, m in enumerate(models)})
    sub = sub.sort_values(["domain", "prompt_id", "_m"])
    return sub[["domain", "prompt", "model", "generation"]].reset_index(drop=True)


def wiki_rows(prompts: pd.DataFrame) -> pd.DataFrame:
    """The WIKI baseline (BOLD §5): generation = the Wikipedia sentence after the prompt, text =
    the whole Wikipedia sentence (``wiki_text``)."""
    if "wiki_text" not in prompts.columns:
        raise KeyError("the wiki baseline needs a 'wiki_text' column (nlgbias.datasets.bold.load_bold())")
    gen = [w[len(p):].strip() if w.startswith(p) else w for p, w in zip(prompts["prompt"], prompts["wiki_text"])]
    out = prompts[["domain", "group", "name", "prompt_id", "prompt"]].copy()
    out["model"] = "wiki"
    out["generation"] = gen
    out["text"] = prompts["wiki_text"].to_numpy()
    out["n_new_tokens"] = pd.NA
    out["finish_reason"] = "human"
    return out
