"""What an audit writes under its ``--out`` folder:

- ``results.json`` (schema :data:`SCHEMA`): ``schema``, ``created`` (UTC), ``nlgbias`` (the git
  ``commit`` where known and ``dirty``: whether the checkout had uncommitted changes),
  ``versions`` (python, nlgbias, torch, transformers, numpy, pandas, scipy), ``machine``, ``seed``, ``size``, ``convention`` (how sentences are scored),
  ``models`` (``model`` and ``baseline``: ``spec``, ``label``, ``backend``, ``options``,
  ``start_token`` (the convention), ``start_token_used`` (the token it gives) and ``weights``
  (what the weights are: the registry's description, e.g. instruction-tuned, quantised); never a
  key: keys are read from the environment only, and a URL's user and password are dropped) and
  ``suites``: per suite ``title``, ``paper``, ``unit``, ``items`` (what was sampled: counts and
  the sample's settings; CrowS-Pairs' ``of`` is how many pairs the dataset has), ``seconds``
  and ``metrics`` / ``groups``, each a list of rows ``{"metric", ["group"], "help" (what the
  metric is, in words), "ideal" (the value of an unbiased model where there is one, e.g. 0 for
  a gap; else null), ["chance"] (HolisticBias: what descriptors treated alike give: 5 % of
  pairs uncorrected, 0 % after Holm), "scale" ("%" or
  "points"), "limit": {"n", "unit", ["detail"]}, "model": {"value", "lo", "hi", "n",
  "interval"}, "baseline": {...}, "difference": {...}}`` (95 % intervals; ``interval`` names
  the kind, :data:`nlgbias.audit.rows.INTERVALS`; ``limit`` is the unit that limits the
  interval and its count, ``n`` the items; the difference is model minus baseline, in points of
  the row's scale); CrowS-Pairs
  values have ``ties``, a range across groups has ``null`` (its permutation null: ``mean``,
  ``p95``, ``p``, ``permutations``) and no interval (``lo``, ``hi`` null), a hull its two
  intervals (``parts``: each keyed by its kind, :data:`nlgbias.audit.rows.INTERVALS`, e.g.
  ``bootstrap-templates-descriptors`` and ``wilson``), a paired difference of decisions (StereoSet, HolisticBias) how many
  differ (``discordant`` of ``decisions``); ``omitted`` names the rows left out for too few of
  their limiting unit; ``notes`` (optional per suite: a list of sentences) says what a suite
  leaves out (HolisticBias: generation bias) and other facts; HolisticBias has ``descriptors``:
  per role, per axis up to three descriptors of ``low`` and ``high`` median perplexity among
  those of 6-19 characters (Table 3's columns and filter), each a list of ``{"descriptor",
  "median perplexity"}``, lowest first / highest first; CrowS-Pairs has ``start_token``: per role, ``role``,
  ``convention`` (the start token it was scored after), ``other`` (the other convention),
  ``other_token`` (the token the other convention gives its tokenizer),
  ``same_token`` (true: both conventions give its tokenizer the same token, so it is not scored
  twice), ``score`` and ``other_score`` (the total score, %, under each), ``pairs`` and
  ``pairs_decided_differently``; a suite a model cannot do has ``skipped`` (why) instead;
- ``index.html``: the headline table (each metric: your model, the baseline, the difference,
  with intervals and n), one figure per suite (``figures/<suite>.png``), what was skipped, each
  suite's notes and a
  link to each suite's page ``<suite>.html`` (every metric and group row with what it is, the
  items sampled, the figure);
- ``cache/``: finished items, so that a rerun resumes.
"""

from __future__ import annotations

import html
import json
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from nlgbias.io import atomic_path, write_text

__all__ = ["SCHEMA", "model_record", "write_report", "write_results"]

SCHEMA = "nlgbias.audit/1"


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("nlgbias", "torch", "transformers", "numpy", "pandas", "scipy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _git(*args: str) -> str | None:
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _commit() -> dict:
    """The checkout's ``commit`` and whether it had uncommitted changes to tracked files
    (``dirty``; both None outside a git checkout, e.g. an installed copy)."""
    commit = _git("rev-parse", "HEAD") or None
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def model_record(spec) -> dict:
    """How results.json names a model (:meth:`nlgbias.lm.LMSpec.record`: its spec without
    secrets, label, backend, options), the start-token convention it was scored with and the token
    that convention gives its tokenizer (``start_token_used``) and what its weights are
    (``weights``: the model registry's description of a registered name, e.g. "SmolLM2-135M-Instruct
    (...), offline GGUF Q4_1 (4-bit)"; else the spec's target)."""
    from nlgbias.audit.suites import convention_of, start_token_used

    return {**spec.record(), "start_token": convention_of(spec), "start_token_used": start_token_used(spec),
            "weights": weights_of(spec)}


def weights_of(spec) -> str:
    """What a model's weights are, in words: the registry's description of a registered name
    (its tuning and quantisation), else the target as given (a hub id, a folder, a served model)."""
    from nlgbias.models import MODELS

    entry = MODELS.get(spec.target)
    return entry.description if entry is not None else spec.display


def write_results(cfg, suites: dict, out: str | Path | None = None) -> Path:
    """``results.json`` of an audit (see the module doc); returns its path."""
    from nlgbias import provenance
    from nlgbias.audit.suites import START_TOKEN_CONVENTION

    out = Path(out or cfg.out)
    doc = {"schema": SCHEMA, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "nlgbias": _commit(), "versions": _versions(),
           "machine": provenance.machine(), "seed": cfg.seed, "size": cfg.size,
           "convention": START_TOKEN_CONVENTION,
           "models": {role: model_record(s) for role, s in cfg.roles.items()}, "suites": suites}
    path = out / "results.json"
    write_text(json.dumps(doc, indent=2, default=str) + "\n", path)
    return path


#: how the report names each kind of interval (the full text, INTERVALS, is its tooltip)
SHORT = {"wilson": "Wilson", "newcombe-paired": "Newcombe paired",
         "newcombe-independent": "Newcombe, independent samples",
         "wilson-deff": "Wilson, effective n",
         "newcombe-independent-deff": "Newcombe, independent, effective n",
         "bootstrap-terms": "our bootstrap over terms, then CATs",
         "hull-bootstrap-terms-newcombe-paired": "hull: our bootstrap over terms ∪ Newcombe paired on CATs",
         "none-range": "no interval: the permutation null is the test",
         "hull-bootstrap-groups-newcombe-box": "hull: bootstrap within groups ∪ Newcombe paired per group",
         "bootstrap-templates-paired": "bootstrap over templates, paired",
         "mover-independent": "square-and-add, independent",
         "hull-bootstrap-descriptors-wilson": "hull: bootstrap over descriptors ∪ Wilson on pairs",
         "hull-bootstrap-descriptors-newcombe-paired": "hull: bootstrap over descriptors, paired ∪ "
                                                       "Newcombe paired on pairs",
         "hull-bootstrap-templates-descriptors-wilson": "hull: bootstrap over templates, then descriptors "
                                                        "∪ Wilson on pairs",
         "hull-bootstrap-templates-descriptors-newcombe-paired": "hull: bootstrap over templates, then "
                                                                 "descriptors, paired ∪ Newcombe paired on pairs"}


#: how the report names the two intervals of a hull (``parts``)
PARTS = {"bootstrap-terms": "bootstrap", "newcombe-paired": "Newcombe", "bootstrap-groups": "bootstrap",
         "newcombe-box": "Newcombe per group", "bootstrap-descriptors": "bootstrap", "wilson": "Wilson",
         "bootstrap-templates-descriptors": "bootstrap"}


def _f(x: float, digits: int = 1) -> str:
    """A number as printed: ``digits`` decimals, never "-0.0" (a value that rounds to 0 is 0)."""
    out = f"{x:.{digits}f}"
    return out[1:] if out.startswith("-") and float(out) == 0 else out


def _fmt(v: dict | None, *, interval: bool = False, parts: bool = False) -> str:
    """A value [95 % interval]; below it in small print: the interval's kind (``interval``),
    for a hull its two intervals (``parts``: the suite pages only), CrowS-Pairs ties, a range's
    permutation null."""
    from nlgbias.audit.rows import INTERVALS

    if not v:
        return "—"
    out = (f"<span class='v'>{_f(v['value'])} [{_f(v['lo'])}, {_f(v['hi'])}]</span>" if v.get("lo") is not None
           else f"<span class='v'>{_f(v['value'])}</span>")
    notes = []
    if interval and v.get("interval"):
        notes.append(f"<span title='{html.escape(INTERVALS[v['interval']])}'>"
                     f"{html.escape(SHORT.get(v['interval'], v['interval']))}</span>")
    if "deff" in v:
        notes.append(f"design effect {v['deff']:.2f}")
    if "discordant" in v:
        notes.append(f"{v['discordant']:,} of {v['decisions']:,} decisions differ")
    if parts and v.get("parts"):
        notes.append("; ".join(f"{PARTS.get(k, k)} [{_f(a)}, {_f(b)}]" for k, (a, b) in v["parts"].items()))
    if "ties" in v:
        notes.append(f"{v['ties']} tie{'s' if v['ties'] != 1 else ''}")
    if v.get("null"):
        z = v["null"]
        notes.append(f"noise alone: mean {_f(z['mean'])}, 95th pct {_f(z['p95'])}; p = {z['p']:.3f}")
    return out + "".join(f"<br><small>{x}</small>" for x in notes)


def _item(v) -> str:
    """An item count or setting as printed: whole numbers with thousands separators."""
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def _item_parts(items: dict) -> list[str]:
    """The items as printed: a sample of a dataset (``of``: its size; ``sample``: the setting)
    reads "300 of 1,508 pairs (seeded sample)", every other item "key: value"."""
    items = dict(items or {})
    out = []
    if "of" in items and items:
        unit, n = next(iter(items.items()))
        of, sample = items.pop("of"), items.pop("sample", None)
        items.pop(unit)
        out.append(f"{_item(n)} of {_item(of)} {unit}" + (" (seeded sample)" if sample not in (None, "all") else ""))
    return out + [f"{k}: {_item(v)}" for k, v in items.items()]


def _items(suite: dict) -> str:
    return ", ".join(_item_parts(suite.get("items")))


def _per_template(row: dict) -> bool:
    """A HolisticBias row of one template (all axes), not of one axis."""
    return str(row.get("group", "")).startswith("template: ")


def _multiplicity(rows: list[dict], kind: str = "per-group") -> str:
    """One sentence on a page's per-group differences: how many rows have an interval, how many
    of those exclude 0 (``kind`` names the groups; per-template rows are counted apart), and how
    many would by chance alone at 95 % unadjusted (about 1 in 20)."""
    rows = [r for r in rows if (r.get("difference") or {}).get("lo") is not None]
    diffs = [r["difference"] for r in rows]
    if not diffs:
        return ""
    def plural(n: int) -> str:
        return "s" if n != 1 else ""

    def excl(sel: list[dict]) -> int:
        return sum(r["difference"]["lo"] > 0 or r["difference"]["hi"] < 0 for r in sel)

    groups, templates = [r for r in rows if not _per_template(r)], [r for r in rows if _per_template(r)]
    if groups and templates:
        head = (f"{len(groups)} {kind} difference row{plural(len(groups))} and {len(templates)} per-template "
                f"one{plural(len(templates))}, each with an unadjusted 95 % interval: {excl(groups)} of the "
                f"{len(groups)} {kind} and {excl(templates)} of the {len(templates)} per-template rows exclude ")
    else:
        sel, name = (groups, kind) if groups else (templates, "per-template")
        k = excl(sel)
        head = (f"{len(sel)} {name} difference row{plural(len(sel))}, each with an unadjusted 95 % interval: "
                f"{k} exclude{'s' if k == 1 else ''} ")
    return (f"{head}0. With no true difference "
            f"anywhere, about 1 in 20 would exclude 0 by chance alone (about {len(diffs) / 20:.1f} of "
            f"{len(diffs)} here), and rows that share items are not independent: read a single row "
            "that excludes 0 as a lead, not a finding.")


def _n(row: dict, unit: str) -> str:
    """The n a row's interval rests on: the limiting unit's count and name, then the items."""
    e = html.escape
    lim, n = row.get("limit"), row["model"]["n"]
    if not lim:
        return f"{n:,} {e(unit)}"
    detail = lim.get("detail") or (f"{n:,} {unit}" if lim["unit"] != unit else "")
    return f"{lim['n']:,} {e(lim['unit'])}" + (f"<br><small>{e(detail)}</small>" if detail else "")


def _panel(ax, rows: list[dict], roles: dict, what: str) -> None:
    """One panel: each row's ``what`` (a role's value, or ``difference``) with its interval."""
    colours = {"model": "#1f77b4", "baseline": "#ff7f0e", "difference": "#2ca02c"}
    keys = list(roles) if what == "values" else ["difference"]
    for k, role in enumerate(keys):
        y = [i + (0.18 if k else -0.18) * (len(keys) > 1) for i in range(len(rows))]
        val = [r[role]["value"] for r in rows]
        err = [[r[role]["value"] - r[role]["lo"] if r[role]["lo"] is not None else 0 for r in rows],
               [r[role]["hi"] - r[role]["value"] if r[role]["hi"] is not None else 0 for r in rows]]
        label = (f"{role}: {roles[role]['label']}" if role in roles
                 else f"{roles['model']['label']} − {roles['baseline']['label']}")
        ax.errorbar(val, y, xerr=err, fmt="o", ms=4, capsize=2, color=colours[role], label=label)
    for i, r in enumerate(rows):
        if what == "values" and r.get("ideal") is not None:
            ax.plot([r["ideal"]], [i], marker="|", ms=12, color="grey")
        if what == "values" and r.get("chance") is not None:  # what items treated alike give
            ax.plot([r["chance"]], [i], marker="|", ms=12, mew=2, color="#d62728")
        if what == "values":
            for k, role in enumerate(roles):
                if r[role].get("null"):  # a range's noise: the null's 95th percentile
                    ax.plot([r[role]["null"]["p95"]], [i + (0.18 if k else -0.18) * (len(roles) > 1)],
                            marker="x", ms=6, color="grey")
    if what != "values":
        ax.axvline(0, color="grey", lw=0.8)
    ax.set_ylim(len(rows) - 0.5, -0.5)


def _figure(name: str, suite: dict, roles: dict, folder: Path) -> Path | None:
    """A suite's figure: shares (%) and gaps / ranges (points) on their own axes, each row's
    model and baseline values on the left and, where there is a baseline, the difference model −
    baseline with its interval on the right (zero line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [*suite.get("metrics", []), *suite.get("groups", [])]
    if not rows:
        return None
    blocks = [(sc, [r for r in rows if r.get("scale", "%") == sc]) for sc in ("%", "points")]
    blocks = [(sc, rs) for sc, rs in blocks if rs]
    has_base = "baseline" in roles
    fig, axes = plt.subplots(len(blocks), 2 if has_base else 1, squeeze=False,
                             figsize=(11 if has_base else 8, 0.34 * len(rows) + 1.2 * len(blocks) + 1.0),
                             gridspec_kw={"height_ratios": [len(rs) for _, rs in blocks],
                                          **({"width_ratios": [3, 2]} if has_base else {})})
    for b, (scale, rs) in enumerate(blocks):
        labels = [r["metric"] + (f" · {r['group']}" if "group" in r else "") for r in rs]
        ax = axes[b][0]
        _panel(ax, rs, roles, "values")
        ax.set_yticks(range(len(rs)), labels, fontsize=8)
        chance = any(r.get("chance") is not None for r in rs)
        ax.set_xlabel("% of descriptor pairs whose perplexity distributions differ" if chance
                      else "share or score, %" if scale == "%" else "gap or range, points", fontsize=8)
        pooled = sum("group" not in r for r in rs)  # the pooled rows first, then the groups
        # HolisticBias: the per-axis rows, then the per-template rows (that template only)
        first_t = next((i for i, r in enumerate(rs) if _per_template(r)), None)
        lines = [x for x in (pooled if 0 < pooled < len(rs) else None, first_t) if x]
        for y in lines:
            ax.axhline(y - 0.5, color="black", lw=0.8 if y == pooled else 1.4)
        if first_t:
            ax.text(1.0, first_t - 0.5, "per template: that template only ", transform=ax.get_yaxis_transform(),
                    ha="right", va="bottom", fontsize=7)
        if has_base:
            dx = axes[b][1]
            _panel(dx, rs, roles, "difference")
            dx.set_yticks(range(len(rs)), [""] * len(rs))
            dx.set_xlabel("model − baseline, points" + (" of that %" if chance else ""), fontsize=8)
            for y in lines:
                dx.axhline(y - 0.5, color="black", lw=0.8 if y == pooled else 1.4)
            if b == 0:
                dx.set_title("model − baseline, 95 % interval\n(grey line: no difference)", fontsize=9)
        # each panel names only the marks drawn on it
        noise = any((r.get(k) or {}).get("null") for r in rs for k in roles)
        marks = (["grey |: unbiased / ideal"] if any(r.get("ideal") is not None for r in rs) else []) \
            + (["x: noise alone's 95th percentile"] if noise else []) \
            + (["red |: chance alone (~5 %; Holm ~0 %)"]
               if chance else []) \
            + ([f"above the thin black line: pooled; below: per {'axis' if chance else 'group'}"]
               if 0 < pooled < len(rs) else []) \
            + (["below the thick black line: per template (that template only)"] if first_t else [])
        head = "each model, 95 % interval" if b == 0 else ""
        text = "\n".join(t for t in (head, *marks) if t)
        if text:
            ax.set_title(text, fontsize=9)
    handles = [h for a in axes[0] for h in a.get_legend_handles_labels()[0]]
    names = [n for a in axes[0] for n in a.get_legend_handles_labels()[1]]
    n = ", ".join(x.replace(": ", " ") for x in _item_parts(suite.get("items"))
                  if ": " not in x or len(x.split(": ", 1)[1]) <= 20)
    fig.suptitle(f"{suite['title']} ({n})", fontsize=10)
    fig.legend(handles, names, fontsize=8, loc="lower center", ncol=len(names), frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path = folder / f"{name}.png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return path


_STYLE = """<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
figure{margin:1.5em 0}img{max-width:100%}.v{white-space:nowrap}</style>"""


def _diff_head(rows: list[dict]) -> str:
    """The difference column's header with its unit: points of the rows' % (or points) scale;
    StereoSet's lms and icat are scores, their differences score points."""
    scores = [r["metric"] for r in rows if r["metric"] in ("lms", "icat")]
    unit = "points" + (f"; {' and '.join(dict.fromkeys(scores))}: score points" if scores else "")
    return f"difference (model − baseline, {unit})"


def _rows_table(rows: list[dict], roles: dict, unit: str, table_id: str) -> str:
    """An HTML table of metric (and group) rows: each role's value [95 % interval], the paired
    difference where there is a baseline, n and what the metric is."""
    e = html.escape
    has_group = any("group" in r for r in rows)
    head = [*(["group"] if has_group else []), "metric", *[f"{r}: {e(roles[r]['label'])}" for r in roles]]
    if "baseline" in roles:
        head.append(_diff_head(rows))
    head += ["n (the unit that limits the interval)", "what it is"]
    body = []
    for r in rows:
        cells = [*([e(str(r.get("group", "")))] if has_group else []), e(r["metric"]),
                 *[_fmt(r.get(role), interval=True, parts=True) for role in roles]]
        if "baseline" in roles:
            cells.append(_fmt(r.get("difference"), interval=True, parts=True))
        cells += [_n(r, unit), e(r.get("help", ""))]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f"<table id='{table_id}'><thead><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _suite_page(name: str, suite: dict, doc: dict, out: Path, figure: Path | None) -> Path:
    """``<suite>.html``: the suite's every metric and group row, what was sampled, its figure."""
    e = html.escape
    roles = doc["models"]
    items = e(_items(suite))
    fig = (f"<figure><img src='figures/{figure.name}' alt='{e(suite['title'])}'></figure>"
           if figure is not None else "")
    many = _multiplicity(suite.get("groups", []), "per-axis" if name == "holistic" else "per-group")
    groups = (f"<h2>Per group</h2>{_rows_table(suite['groups'], roles, suite['unit'], 'groups')}"
              + (f"<p id='multiplicity'>{e(many)}</p>" if many else "") if suite.get("groups") else "")
    if suite.get("omitted"):
        groups += ("<h2>Not shown</h2><p>Too few items for an interval:</p><ul id='omitted'>"
                   + "".join(f"<li>{e(str(o['group']))}: {e(o['why'])}</li>" for o in suite["omitted"]) + "</ul>")
    if name == "crows":
        groups += _start_token_section(doc)
    if suite.get("descriptors"):
        groups += _descriptors_table(suite["descriptors"], roles)
    if suite.get("notes"):
        groups += ("<h2>Notes</h2><ul id='notes'>" + "".join(f"<li>{e(x)}</li>" for x in suite["notes"])
                   + "</ul>")
    paired = {"regard": "the shares over all demographics paired by template (both models continue "
                        "the same templates); each demographic's share and the gaps: independent "
                        "samples (different texts)",
              "holistic": "paired: the same sentences, the templates and then the descriptors resampled "
                          "with the same draws for both models"}.get(name, "paired: the same items")
    rows = [*suite.get("metrics", []), *suite.get("groups", [])]
    points = " (gaps and ranges in points)" if any(r.get("scale") == "points" for r in rows) else ""
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(suite['title'])}: nlgbias audit</title>
{_STYLE}</head><body><p><a href="index.html">← the audit</a></p>
<h1>{e(suite['title'])}</h1>
<p>{e(suite.get('paper', ''))}. Items: {items}. Computed in {suite.get('seconds', 0):.0f} s; size
{e(doc['size'])}, seed {doc['seed']}. Values in %{points}, with 95 % intervals;
the difference is model − baseline ({paired}; below each interval its kind; n is the unit that limits the interval).</p>
<h2>Metrics</h2>{_rows_table(suite['metrics'], roles, suite['unit'], 'metrics')}
{groups}{fig}
<p>The same numbers are in <a href="results.json">results.json</a> (<code>suites.{e(name)}</code>).</p>
</body></html>
"""
    path = out / f"{name}.html"
    write_text(page, path)
    return path


def _descriptors_table(rows: dict[str, list[dict]], roles: dict) -> str:
    """HolisticBias: each model's descriptors of lowest and highest median perplexity per axis
    (Table 3's "Low ppl" / "High ppl")."""
    e = html.escape
    head = ["axis", *[f"{r}: {e(roles[r]['label'])}, {w}" for r in rows for w in ("lowest", "highest")]]
    axes = [x["axis"] for x in next(iter(rows.values()))]
    by = {r: {x["axis"]: x for x in v} for r, v in rows.items()}
    def names(x: list[dict] | str) -> str:
        if isinstance(x, str):
            return x
        return ", ".join(f"{d['descriptor']} ({_f(d['median perplexity'])})" for d in x)

    body = ["<tr>" + "".join(f"<td>{c}</td>" for c in [
        e(ax), *[e(names(by[r].get(ax, {}).get(w, ""))) for r in rows for w in ("low", "high")]]) + "</tr>"
        for ax in axes]
    return ("<h2>Descriptors of lowest and highest median perplexity</h2><p>Per axis, up to three "
            "descriptors whose sentences each model finds most and least likely, among the descriptors of 6-19 "
            "characters (the filter of Smith et al. Table 3's Low ppl / High ppl; Table 3 takes one template, "
            "here the median is over every sentence of the sample's templates; an axis with fewer than six "
            "such descriptors lists half of them each way). In brackets: the median perplexity.</p><table id='descriptors'><thead><tr>"
            + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(body) + "</tbody></table>")


#: what each suite's difference pairs (the index says it for the suites an audit ran)
_PAIRED = {"stereoset": "StereoSet (the same CATs)", "crows": "CrowS-Pairs (the same pairs)",
           "bold": "BOLD (the same prompts)", "holistic": "HolisticBias (the same sentences)"}
#: what each suite's n column counts as the unit that limits its intervals
_LIMITS = {"stereoset": "StereoSet's target terms", "crows": "CrowS-Pairs' pairs", "bold": "BOLD's prompts",
           "regard": "regard's templates and prompts", "holistic": "HolisticBias's templates and descriptors"}


def _index_prose(doc: dict) -> str:
    """The index's paragraph on how to read the headline, for the suites this audit ran only."""
    ran = [k for k, v in doc["suites"].items() if "skipped" not in v]
    rows = [r for k in ran for r in [*doc["suites"][k].get("metrics", []), *doc["suites"][k].get("groups", [])]]
    points = any(r.get("scale") == "points" for r in rows)
    out = [f"Values in %{' (gaps and ranges in points)' if points else ''}, with 95 % intervals."]
    if "baseline" in doc["models"]:
        paired = [_PAIRED[k] for k in ran if k in _PAIRED]
        if "regard" in ran:
            paired.append("regard's shares over all demographics (the same templates)")
        out.append("The difference is model − baseline" + (f": paired for {', '.join(paired)}" if paired else "")
                   + ("; regard's per-demographic shares and gaps compare different texts, so their intervals "
                      "are those of independent samples" if "regard" in ran else "") + ".")
        out.append("Below each difference, the kind of its interval (the list below says what each is).")
    limits = [_LIMITS[k] for k in ran if k in _LIMITS]
    out.append("The n column gives the unit that limits the interval" + (f" ({', '.join(limits)})" if limits else "")
               + " and, in small print, the items.")
    if any(r.get("interval") == "none-range" or (r.get("model") or {}).get("interval") == "none-range" for r in rows):
        out.append("A range across groups is positive by noise alone: it has no interval, and beside it is "
                   "what shuffled group labels give (the test).")
    from nlgbias.audit.holistic import MIN_TEMPLATES

    few = (doc["suites"]["holistic"].get("items") or {}).get("templates", MIN_TEMPLATES) if "holistic" in ran else 0
    exception = (f" HolisticBias's rows pooled over its {few} templates are kept although fewer than "
                 f"{MIN_TEMPLATES}: their interval is the spread over these templates, not coverage of other "
                 "templates." if 1 < few < MIN_TEMPLATES else "")
    if any(doc["suites"][k].get("omitted") for k in ran):
        out.append("Rows with too few of the unit that limits their interval are left out: each suite's page "
                   "names them." + exception)
    elif exception:
        out.append(exception.strip())
    out.append("Each suite's page has its per-group rows, the two intervals of each hull and what the "
               "sample holds.")
    return " ".join(out)


def write_report(results_json: str | Path) -> Path:
    """``index.html`` (and ``figures/``) beside ``results.json``; returns its path."""
    path = Path(results_json)
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = path.parent
    roles = doc["models"]
    e = html.escape
    head = ["suite", "metric", *[f"{r}: {e(roles[r]['label'])}" for r in roles]]
    has_base = "baseline" in roles
    if has_base:
        head.append(_diff_head([r for s in doc["suites"].values() for r in s.get("metrics", [])]))
    head.append("n (the unit that limits the interval)")
    body, figs, skipped, details, notes = [], [], [], [], []
    for name, suite in doc["suites"].items():
        notes += [f"<li><b>{e(suite['title'])}</b>: {e(x)}</li>" for x in suite.get("notes", [])]
        if "skipped" in suite:
            skipped.append(f"<li><b>{e(suite['title'])}</b>: skipped: {e(suite['skipped'])}</li>")
            continue
        for r in suite["metrics"]:
            cells = [e(suite["title"]), f"<span title='{e(r.get('help', ''))}'>{e(r['metric'])}</span>",
                     *[_fmt(r.get(role)) for role in roles]]
            if has_base:
                cells.append(_fmt(r.get("difference"), interval=True))
            cells.append(_n(r, suite["unit"]))
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        fig = _figure(name, suite, roles, out / "figures")
        detail = _suite_page(name, suite, doc, out, fig)
        details.append(f"<li><a href='{detail.name}'>{e(suite['title'])}</a>: every metric and "
                       f"group, {len(suite['metrics']) + len(suite.get('groups', []))} rows</li>")
        if fig is not None:
            figs.append(f"<figure><img src='figures/{fig.name}' alt='{e(suite['title'])}'>"
                        f"<figcaption>{e(suite['title'])} ({e(suite.get('paper', ''))}): every "
                        f"metric and group with its 95 % interval.</figcaption></figure>")
    from nlgbias.audit.rows import INTERVALS

    used = [k for k in INTERVALS if any(
        (r.get(role) or {}).get("interval") == k for suite in doc["suites"].values()
        for r in [*suite.get("metrics", []), *suite.get("groups", [])] for role in (*roles, "difference"))]
    models = "".join(f"<li><b>{e(r)}</b>: <code>{e(v['spec'])}</code>"
                     f"{' ' + e(json.dumps(v['options'])) if v['options'] else ''}"
                     f"{' (' + e(v['weights']) + ')' if v.get('weights') else ''}; start token: "
                     f"{e(str(v.get('start_token_used') or v.get('start_token')))}"
                     f" (convention {e(str(v.get('start_token')))})</li>"
                     for r, v in roles.items())
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nlgbias audit: {e(roles['model']['label'])}</title>
{_STYLE}</head>
<body><h1>Bias audit of {e(roles['model']['label'])}</h1>
<ul>{models}</ul>
<p>Size <b>{e(doc['size'])}</b>, seed {doc['seed']}, created {e(doc['created'])}. {e(_index_prose(doc))} Scoring convention: {e(doc['convention'])}.</p>
<h2>Headline</h2>
<table id="headline"><thead><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr></thead>
<tbody>{''.join(body)}</tbody></table>
{'<h2>Skipped</h2><ul>' + ''.join(skipped) + '</ul>' if skipped else ''}
{'<h2>Notes</h2><ul id="notes">' + ''.join(notes) + '</ul>' if notes else ''}
{_start_token_section(doc)}
{'<h2>Intervals</h2><ul id="intervals">' + ''.join(f'<li><b>{e(SHORT.get(k, k))}</b>: {e(INTERVALS[k])}</li>' for k in used) + '</ul>' if used else ''}
<h2>Each suite in detail</h2><ul id="details">{''.join(details)}</ul>
<h2>Figures</h2>{''.join(figs)}
<p>Every number is in <a href="results.json">results.json</a> (schema {e(doc['schema'])}).</p>
<script>
// says on the page whether every figure loaded (a headless browser test reads it)
window.addEventListener("load", () => {{
  const imgs = [...document.images];
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  document.body.dataset.figures = ok + " of " + imgs.length + " loaded";
}});
</script>
</body></html>
"""
    target = out / "index.html"
    write_text(page, target)
    return target


def _start_token_section(doc: dict) -> str:
    """The CrowS-Pairs total score of each model under the other start-token convention."""
    e = html.escape
    roles = doc["models"]
    sens = [f"<li>{e(roles[x['role']]['label'])}: " + (
            f"the same start token under both conventions (its tokenizer has no &lt;|endoftext|&gt;): "
            f"{_f(x['score'])} %" if x.get("same_token") else
            f"{_f(x['score'])} % after the {e(x['convention'])} start token, {_f(x['other_score'])} % "
            f"after {e(x['other'])}" + (f" ({e(x['other_token'])})" if x.get("other_token") else "")
            + f"; {x['pairs_decided_differently']} of {x['pairs']} pairs decided "
            "differently") + "</li>"
            for x in doc["suites"].get("crows", {}).get("start_token", [])]
    if not sens:
        return ""
    return ("<h2>Start-token sensitivity (CrowS-Pairs, total score)</h2><p>lm-evaluation-harness scores "
            "a sentence after the BOS token where a tokenizer has one (<code>--model-args "
            "start_token=bos</code>); StereoSet&#39;s code after <code>&lt;|endoftext|&gt;</code>. The "
            "same pairs under the other convention:</p><ul id='start-token'>" + "".join(sens) + "</ul>")

