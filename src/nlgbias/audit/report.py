"""What an audit writes under its ``--out`` folder:

- ``results.json`` (schema :data:`SCHEMA`): ``schema``, ``created`` (UTC), ``nlgbias`` (version
  and git commit where known), ``versions`` (python, torch, transformers, numpy, pandas),
  ``machine``, ``seed``, ``size``, ``convention`` (how sentences are scored),
  ``models`` (``model`` and ``baseline``: ``spec``, ``label``, ``backend``, ``options``; never a
  key: keys are read from the environment only, and a URL's user and password are dropped) and
  ``suites``: per suite ``title``, ``paper``, ``unit``, ``items`` (what was sampled), ``seconds``
  and ``metrics`` / ``groups``, each a list of rows ``{"metric", ["group"], "model": {"value",
  "lo", "hi", "n"}, "baseline": {...}, "difference": {...}}`` (95 % intervals; the difference
  is model minus baseline, paired); a suite a model cannot do has ``skipped`` (why) instead;
- ``index.html``: the headline table (each metric: your model, the baseline, the difference,
  with intervals and n), one figure per suite (``figures/<suite>.png``), what was skipped and a
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
    for pkg in ("nlgbias", "torch", "transformers", "numpy", "pandas"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def model_record(spec) -> dict:
    """How results.json names a model (:meth:`nlgbias.lm.LMSpec.record`: its spec without
    secrets, label, backend, options) and the start-token convention it was scored with."""
    from nlgbias.audit.suites import convention_of

    return {**spec.record(), "start_token": convention_of(spec)}


def write_results(cfg, suites: dict, out: str | Path | None = None) -> Path:
    """``results.json`` of an audit (see the module doc); returns its path."""
    from nlgbias import provenance
    from nlgbias.audit.suites import START_TOKEN_CONVENTION

    out = Path(out or cfg.out)
    doc = {"schema": SCHEMA, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "nlgbias": {"commit": _commit()}, "versions": _versions(),
           "machine": provenance.machine(), "seed": cfg.seed, "size": cfg.size,
           "convention": START_TOKEN_CONVENTION,
           "models": {role: model_record(s) for role, s in cfg.roles.items()}, "suites": suites}
    path = out / "results.json"
    write_text(json.dumps(doc, indent=2, default=str) + "\n", path)
    return path


def _fmt(v: dict | None) -> str:
    if not v:
        return "—"
    return f"{v['value']:.1f} [{v['lo']:.1f}, {v['hi']:.1f}]"


def _figure(name: str, suite: dict, roles: dict, folder: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [*suite.get("metrics", []), *suite.get("groups", [])]
    if not rows:
        return None
    labels = [r["metric"] + (f" · {r['group']}" if "group" in r else "") for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.4))
    colours = {"model": "#1f77b4", "baseline": "#ff7f0e"}
    for k, role in enumerate(roles):
        y = [i + (0.18 if k else -0.18) * (len(roles) > 1) for i in range(len(rows))]
        val = [r[role]["value"] for r in rows]
        err = [[r[role]["value"] - r[role]["lo"] for r in rows],
               [r[role]["hi"] - r[role]["value"] for r in rows]]
        ax.errorbar(val, y, xerr=err, fmt="o", ms=4, capsize=2, color=colours[role],
                    label=f"{role}: {roles[role]['label']}")
    for i, r in enumerate(rows):
        if r.get("ideal") is not None:
            ax.plot([r["ideal"]], [i], marker="|", ms=12, color="grey")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("% (95 % interval; grey tick: unbiased / ideal value)")
    n = ", ".join(f"{k} {v}" for k, v in (suite.get("items") or {}).items() if len(str(v)) <= 20)
    ax.set_title(f"{suite['title']} ({n})", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    path = folder / f"{name}.png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return path


_STYLE = """<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
figure{margin:1.5em 0}img{max-width:100%}</style>"""


def _rows_table(rows: list[dict], roles: dict, unit: str, table_id: str) -> str:
    """An HTML table of metric (and group) rows: each role's value [95 % interval], the paired
    difference where there is a baseline, n and what the metric is."""
    e = html.escape
    has_group = any("group" in r for r in rows)
    head = [*(["group"] if has_group else []), "metric", *[f"{r}: {e(roles[r]['label'])}" for r in roles]]
    if "baseline" in roles:
        head.append("difference (model − baseline)")
    head += ["n", "what it is"]
    body = []
    for r in rows:
        cells = [*([e(str(r.get("group", "")))] if has_group else []), e(r["metric"]),
                 *[_fmt(r.get(role)) for role in roles]]
        if "baseline" in roles:
            cells.append(_fmt(r.get("difference")))
        cells += [f"{r['model']['n']:,} {e(unit)}", e(r.get("help", ""))]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f"<table id='{table_id}'><thead><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _suite_page(name: str, suite: dict, doc: dict, out: Path, figure: Path | None) -> Path:
    """``<suite>.html``: the suite's every metric and group row, what was sampled, its figure."""
    e = html.escape
    roles = doc["models"]
    items = ", ".join(f"{e(str(k))}: {e(str(v))}" for k, v in (suite.get("items") or {}).items())
    fig = (f"<figure><img src='figures/{figure.name}' alt='{e(suite['title'])}'></figure>"
           if figure is not None else "")
    groups = (f"<h2>Per group</h2>{_rows_table(suite['groups'], roles, suite['unit'], 'groups')}"
              if suite.get("groups") else "")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(suite['title'])}: nlgbias audit</title>
{_STYLE}</head><body><p><a href="index.html">← the audit</a></p>
<h1>{e(suite['title'])}</h1>
<p>{e(suite.get('paper', ''))}. Items: {items}. Computed in {suite.get('seconds', 0):.0f} s; size
{e(doc['size'])}, seed {doc['seed']}. Values in % (gaps and ranges in points), with 95 % intervals;
the difference is model − baseline ({'independent samples' if name == 'regard' else 'paired: the same items and resamples'}).</p>
<h2>Metrics</h2>{_rows_table(suite['metrics'], roles, suite['unit'], 'metrics')}
{groups}{fig}
<p>The same numbers are in <a href="results.json">results.json</a> (<code>suites.{e(name)}</code>).</p>
</body></html>
"""
    path = out / f"{name}.html"
    write_text(page, path)
    return path


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
        head.append("difference (model − baseline)")
    head.append("n")
    body, figs, skipped, details = [], [], [], []
    for name, suite in doc["suites"].items():
        if "skipped" in suite:
            skipped.append(f"<li><b>{e(suite['title'])}</b>: skipped: {e(suite['skipped'])}</li>")
            continue
        for r in suite["metrics"]:
            cells = [e(suite["title"]), f"<span title='{e(r.get('help', ''))}'>{e(r['metric'])}</span>",
                     *[_fmt(r.get(role)) for role in roles]]
            if has_base:
                cells.append(_fmt(r.get("difference")))
            cells.append(f"{r['model']['n']:,} {e(suite['unit'])}")
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        fig = _figure(name, suite, roles, out / "figures")
        detail = _suite_page(name, suite, doc, out, fig)
        details.append(f"<li><a href='{detail.name}'>{e(suite['title'])}</a>: every metric and "
                       f"group, {len(suite['metrics']) + len(suite.get('groups', []))} rows</li>")
        if fig is not None:
            figs.append(f"<figure><img src='figures/{fig.name}' alt='{e(suite['title'])}'>"
                        f"<figcaption>{e(suite['title'])} ({e(suite.get('paper', ''))}): every "
                        f"metric and group with its 95 % interval.</figcaption></figure>")
    sens = [f"<li>{e(roles[x['role']]['label'])}: " + (
            f"the same start token under both conventions (its tokenizer has no &lt;|endoftext|&gt;): "
            f"{x['score']:.1f} %" if x.get("same_token") else
            f"{x['score']:.1f} % after the {e(x['convention'])} start token, {x['other_score']:.1f} % "
            f"after {e(x['other'])}; {x['pairs_decided_differently']} of {x['pairs']} pairs decided "
            "differently") + "</li>"
            for x in doc["suites"].get("crows", {}).get("start_token", [])]
    models = "".join(f"<li><b>{e(r)}</b>: <code>{e(v['spec'])}</code>"
                     f"{' ' + e(json.dumps(v['options'])) if v['options'] else ''}; start token: "
                     f"{e(str(v.get('start_token')))}</li>"
                     for r, v in roles.items())
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nlgbias audit: {e(roles['model']['label'])}</title>
{_STYLE}</head>
<body><h1>Bias audit of {e(roles['model']['label'])}</h1>
<ul>{models}</ul>
<p>Size <b>{e(doc['size'])}</b>, seed {doc['seed']}, created {e(doc['created'])}. Values in % (gaps
and ranges in points), with 95 % intervals. The difference is model − baseline: paired (the same
items and bootstrap resamples) for StereoSet, CrowS-Pairs and BOLD; for regard the two models'
samples are different texts, so its intervals are those of independent samples. An interval
shown as [x, x] means no item differs between the models in its resamples. Groups with fewer
than 5 items get no row. Scoring convention: {e(doc['convention'])}.</p>
<h2>Headline</h2>
<table id="headline"><thead><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr></thead>
<tbody>{''.join(body)}</tbody></table>
{'<h2>Skipped</h2><ul>' + ''.join(skipped) + '</ul>' if skipped else ''}
{'<h2>Start-token sensitivity (CrowS-Pairs, total score)</h2><p>lm-evaluation-harness scores a sentence after the BOS token where a tokenizer has one (<code>--model-args start_token=bos</code>); StereoSet&#39;s code after <code>&lt;|endoftext|&gt;</code>. The same pairs under the other convention:</p><ul id="start-token">' + ''.join(sens) + '</ul>' if sens else ''}
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
