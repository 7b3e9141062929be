"""BOLD prompts and sources for generation (Dhamala et al. 2021, §3-§5): stable prompt ids, a
per-group sample, the WIKI baseline as a source (the rest of each Wikipedia sentence, written
like a model's generation file), the tables, prose and Table 7 examples of notebook 02."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from nlgbias.bold.paper import BOLD_TABLE1
from nlgbias.datasets.bold import load_bold
from nlgbias.generation import (
    RUN_COLUMNS,
    DecodingParams,
    GibbsParams,
    RunInfo,
    finish_table,
    output_columns,
    output_name,
    with_word_counts,
)
from nlgbias.io import write_parquet
from nlgbias.lm import parse_model_spec
from nlgbias.lm.spec import registry_entry
from nlgbias.models import KINDS
from nlgbias.profiles import defaults

DATASET = "bold"  #: the file-name prefix of BOLD generation files (``bold__<model>.parquet``)
#: the columns of a BOLD prompt passed to the generation engine (metadata + ``prompt_id, prompt``)
PROMPT_COLUMNS = ["domain", "group", "name", "prompt_id", "prompt"]
WIKI = "wiki"  #: the source name of the human-written baseline (model column of ``bold__wiki``)


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
    """BOLD prompts with ``prompt_id`` (and ``wiki_text``), sampled to ``sample`` per group
    (``None``: all 23,679)."""
    return sample_per_group(add_prompt_ids(load_bold()), sample, seed)


#: the domains a wider per-group sample covers (the §6 group comparisons; professions are
#: compared only through gender polarity, on all WIKI sentences)
WIDE_DOMAINS = ("gender", "race", "religious_ideology", "political_ideology")


def wide_prompts(prompts: pd.DataFrame, per_group: int | None, seed: int = 0,
                 domains: Sequence[str] = WIDE_DOMAINS) -> pd.DataFrame:
    """``prompts`` plus up to ``per_group`` prompts of every group of ``domains`` (the same
    seeded draw as :func:`bold_prompts`; ``None``: ``prompts`` unchanged), in BOLD's order."""
    if not per_group:
        return prompts
    more = bold_prompts(per_group, seed)
    more = more[more["domain"].isin(domains)]
    out = pd.concat([prompts, more[~more["prompt_id"].isin(set(prompts["prompt_id"]))]])
    order = {pid: i for i, pid in enumerate(add_prompt_ids(load_bold())["prompt_id"])}
    return out.sort_values("prompt_id", key=lambda s: s.map(order)).reset_index(drop=True)


def generation_prompts(prompts: pd.DataFrame) -> pd.DataFrame:
    """The prompt frame the engine gets: :data:`PROMPT_COLUMNS` (``wiki_text`` stays out of
    the model files)."""
    missing = set(PROMPT_COLUMNS) - set(prompts.columns)
    if missing:
        raise KeyError(f"BOLD prompts lack column(s) {', '.join(sorted(missing))} (use bold_prompts())")
    return prompts[PROMPT_COLUMNS].reset_index(drop=True)


def prompts_per_domain(prompts: pd.DataFrame) -> pd.DataFrame:
    """Groups and prompts per domain of ``prompts`` beside BOLD Table 1's, with a total row."""
    run = prompts.groupby("domain").agg(groups=("group", "nunique"), prompts=("prompt", "size"))
    paper = BOLD_TABLE1.set_index("domain").add_prefix("paper ")
    out = run.join(paper)
    out.loc["total"] = out.sum()
    return out.astype(int)


# --------------------------------------------------------------------------- sources
def wiki_generations(prompts: pd.DataFrame) -> pd.DataFrame:
    """The WIKI baseline (BOLD §5) as a generation file: ``generation`` = the Wikipedia
    sentence after the prompt, ``text`` = the whole Wikipedia sentence (``wiki_text``), model
    ``wiki``, ``finish_reason`` ``human``; the columns of a model's ``bold__<model>.parquet``
    (run settings empty)."""
    if "wiki_text" not in prompts.columns:
        raise KeyError("the wiki baseline needs a 'wiki_text' column (nlgbias.bold.sources.bold_prompts())")
    base = generation_prompts(prompts)
    wiki = prompts["wiki_text"].to_numpy()
    out = base.drop(columns="prompt").assign(sample=0, prompt=base["prompt"])
    for c in RUN_COLUMNS:
        if c not in out.columns:
            out[c] = pd.NA
    out["model"] = WIKI
    out["generation"] = [w[len(p):].strip() if w.startswith(p) else w for p, w in zip(base["prompt"], wiki)]
    out["text"] = wiki
    out["finish_reason"] = "human"
    out["model_source"] = "Wikipedia (BOLD wikipedia/*_wiki.json)"
    return out[output_columns(base)]


#: the non-model sources of BOLD generation files: name -> (description, builder)
SOURCES: dict[str, tuple[str, Callable[[pd.DataFrame], pd.DataFrame]]] = {
    WIKI: ("Wikipedia continuation (BOLD's human baseline)", wiki_generations),
}


def check_sources(sources: Sequence[str]) -> list[str]:
    """``sources`` as a list, each a key of :data:`SOURCES` (else a ValueError naming it)."""
    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown BOLD source(s) {', '.join(map(repr, unknown))}; known: {', '.join(SOURCES)}")
    return list(sources)


def write_sources(prompts: pd.DataFrame, sources: Sequence[str], out_dir: str | Path) -> list[RunInfo]:
    """Write ``bold__<source>.parquet`` for each of ``sources`` (e.g. ``["wiki"]``) into
    ``out_dir``; one :class:`~nlgbias.generation.RunInfo` per file (no tokens generated)."""
    infos = []
    for s in check_sources(sources):
        t0 = time.perf_counter()
        frame = SOURCES[s][1](prompts)
        path = write_parquet(frame, Path(out_dir) / output_name(DATASET, s))
        infos.append(RunInfo(s, path, len(frame), len(frame), 0, time.perf_counter() - t0, True))
    return infos


# --------------------------------------------------------------------------- notebook 02 tables
def _decoding_text(model, entry, params_for: Callable[[str], DecodingParams]) -> str:
    if KINDS[entry.kind].generator == "gibbs":
        return "Gibbs: " + ", ".join(f"{k} {v}" for k, v in GibbsParams().as_dict().items())
    return ", ".join(f"{k} {v}" for k, v in params_for(model).as_dict().items() if k != "do_sample")


def _label(model) -> str:
    """A model's label in tables (:attr:`nlgbias.lm.LMSpec.display`)."""
    return parse_model_spec(model).display


def models_table(models: Sequence[str], sources: Sequence[str],
                 params_for: Callable[[str], DecodingParams]) -> pd.DataFrame:
    """One row per model and source: ``model, description, stands in for (paper), control
    code, decoding`` (``params_for(model)``: the decoding settings of a sampled LM)."""
    rows = []
    for m in models:
        spec = registry_entry(parse_model_spec(m))
        rows.append({"model": _label(m), "description": spec.description,
                     "stands in for (paper)": spec.substitute_for or "itself",
                     "control code": spec.control_code or "",
                     "decoding": _decoding_text(m, spec, params_for)})
    for s in check_sources(sources):
        rows.append({"model": s, "description": SOURCES[s][0], "stands in for (paper)": s.upper(),
                     "control code": "", "decoding": "—"})
    return pd.DataFrame(rows)


def example_generations(gens: pd.DataFrame, per_domain: int = 1, seed: int = 0,
                        models: Sequence[str] | None = None) -> pd.DataFrame:
    """BOLD Table 7-style examples: for ``per_domain`` random prompts of each domain, the
    continuation of every model (WIKI first unless ``models`` orders them), as ``domain,
    prompt, model, generation`` (sample 0 of each prompt)."""
    models = list(models or sorted(gens["model"].unique(), key=lambda m: (m != WIKI, m)))
    if "sample" in gens.columns:
        gens = gens[gens["sample"] == 0]
    ids = (gens[["domain", "prompt_id"]].drop_duplicates().groupby("domain", sort=False)
           .sample(n=per_domain, random_state=seed)["prompt_id"])
    sub = gens[gens["prompt_id"].isin(set(ids)) & gens["model"].isin(models)].copy()
    sub["_m"] = sub["model"].map({m: i for i, m in enumerate(models)})
    sub = sub.sort_values(["domain", "prompt_id", "_m"])
    return sub[["domain", "prompt", "model", "generation"]].reset_index(drop=True)


# --------------------------------------------------------------------------- notebook 02 prose
def _pct(n: float, d: float) -> str:
    return f"{100 * n / d:.1f}%" if d else "n/a"


def generation_summary(prompts: pd.DataFrame, gens: pd.DataFrame, models: Sequence[str]) -> str:
    """Markdown: what notebook 02 generated (prompts, rows per model, finish reasons, lengths),
    every number computed from ``prompts`` and ``gens``."""
    n_all = int(BOLD_TABLE1["prompts"].sum())
    groups = prompts[["domain", "group"]].drop_duplicates()
    shown = [_label(m) for m in models]
    lines = [f"**{len(prompts):,} prompts** from {len(groups)} groups in "
             f"{prompts['domain'].nunique()} domains ({_pct(len(prompts), n_all)} of BOLD's {n_all:,})."]
    fin = finish_table(gens[gens["model"].isin(shown)]) if len(gens) else pd.DataFrame()
    words = with_word_counts(gens).groupby("model")["words"].mean()
    for m in shown:
        if m not in fin.index:
            lines.append(f"- **{m}**: no rows.")
            continue
        row, total = fin.loc[m], int(fin.loc[m].sum())
        parts = ", ".join(f"{_pct(int(row[r]), total)} {r}" for r in ("sentence", "eos", "length") if r in row)
        lines.append(f"- **{m}**: {total:,} continuations; {parts}; {words[m]:.1f} words on average.")
    if WIKI in words.index:
        lines.append(f"- **WIKI** (the rest of the Wikipedia sentence): {words[WIKI]:.1f} words on average.")
    return "\n".join(lines)


def replication_notes(prompts: pd.DataFrame, models: Sequence[str], sources: Sequence[str],
                      params_for: Callable[[str], DecodingParams]) -> str:
    """Markdown list: what of BOLD's generation set-up (§3, §4.2, Appendix A.2) this run
    replicates and what it does not, from the run's prompts, models and settings."""
    n_all, g_all = int(BOLD_TABLE1["prompts"].sum()), int(BOLD_TABLE1["groups"].sum())
    n_groups = len(prompts[["domain", "group"]].drop_duplicates())
    paper_models = defaults("bold-generation", "paper")["models"]
    items = []
    ok = n_groups == g_all
    items.append(f"- {'As in the paper' if ok else 'Not as in the paper'}: prompts from {n_groups} of the "
                 f"paper's {g_all} groups" + (f"; all {n_all:,} prompts." if len(prompts) == n_all else
                                              f", but {len(prompts):,} of its {n_all:,} prompts "
                                              f"({_pct(len(prompts), n_all)}, a per-group sample)."))
    same = [m for m in models if m in paper_models]
    subs = [m for m in models if m not in paper_models]
    if same:
        items.append(f"- As in the paper: the paper's model(s) {', '.join(map(_label, same))}.")
    missing = [m for m in paper_models if m not in models]
    if missing:
        items.append(f"- Not as in the paper: the paper's {', '.join(missing)} are not run here.")
    for m in subs:
        spec = registry_entry(parse_model_spec(m))
        what = spec.substitute_for or "no paper model"
        text = f"- Substitute: **{_label(m)}** ({spec.description}) stands in for {what}"
        if KINDS[spec.kind].generator == "sampling":
            d = params_for(m)
            text += (f", sampled with top-k {d.top_k}, top-p {d.top_p}, at most {d.max_new_tokens} "
                     f"new tokens{', cut at the first sentence end' if d.first_sentence else ''}")
        items.append(text + ".")
    for s in sources:
        items.append(f"- As in the paper: the {s.upper()} baseline ({SOURCES[s][0]}), from the BOLD files.")
    return "\n".join(items)
