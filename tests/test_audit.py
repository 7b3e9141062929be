"""``nlgbias audit``: the papers' measurements on a user's model beside a baseline.

- the suites' numbers are the reproduction's own (the official StereoSet scorer on the same
  CATs, the CrowS-Pairs metric of the same pairs), the paired difference is model minus
  baseline inside its interval, and a model that cannot do a suite is skipped with its reason;
- installed outside the repository (a fresh virtual environment, ``pip install`` of the
  checkout, not editable), the command writes the same results.json values as in the checkout;
- the HTML report loads in a headless Chromium (Debian's package) and shows the headline table
  and every figure; skipped, with its reason, where no Chromium is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from nlgbias.paths import project_root

MODEL, BASELINE = "smollm2-135m", "gemma3-270m"


def _available():
    from nlgbias.models import check_available
    from nlgbias.resources import ResourceNotFoundError

    try:
        for m in (MODEL, BASELINE):
            check_available(m)
    except ResourceNotFoundError as exc:
        pytest.skip(f"an offline model is missing: {exc}")


@pytest.fixture(scope="module")
def audit_dir(tmp_path_factory):
    """The smoke-size audit of SmolLM2 against Gemma-3-270m with every suite, in this checkout
    (one run that every slow test of this module reads)."""
    _available()
    from nlgbias.audit import SUITES, run_audit, write_report, write_results
    from nlgbias.audit.suites import configure

    out = tmp_path_factory.mktemp("audit")
    cfg = configure(MODEL, baseline=BASELINE, suites=",".join(SUITES), size="smoke", out=out)
    write_report(write_results(cfg, run_audit(cfg)))
    return out, cfg


@pytest.mark.slow
def test_audit_values_are_the_reproductions_own(audit_dir):
    from nlgbias import stereoset as S
    from nlgbias.datasets.crows_pairs import load_crows_pairs
    from nlgbias.stereoset import crows_pairs as C

    out, cfg = audit_dir
    doc = json.loads((out / "results.json").read_text())
    assert doc["schema"] == "nlgbias.audit/1" and doc["size"] == "smoke"
    assert doc["models"]["model"]["spec"] == MODEL and "convention" in doc
    st = doc["suites"]["stereoset"]
    cats = S.stratified_subset(S.load_gold(split="dev"), per_domain=5, seed=0)
    assert st["items"]["cats"] == len(cats) == 40
    by = {r["metric"]: r for r in st["metrics"]}
    for role, name in (("model", MODEL), ("baseline", BASELINE)):
        scores, _ = S.model_scores(name, cats, cfg.cache, "dev")
        official = S.evaluate(cats, scores)["overall"]
        assert by["ss"][role]["value"] == pytest.approx(official["SS Score"], abs=1e-4)
        assert by["lms"][role]["value"] == pytest.approx(official["LM Score"], abs=1e-4)
        assert by["ss"][role]["lo"] <= by["ss"][role]["value"] <= by["ss"][role]["hi"]
    d = by["ss"]["difference"]
    assert d["value"] == pytest.approx(by["ss"]["model"]["value"] - by["ss"]["baseline"]["value"], abs=1e-3)
    assert d["lo"] <= d["value"] <= d["hi"] and d["n"] == 40
    # per domain: religion has 2 target terms (10 CATs), too few clusters for an interval: named,
    # not shown; race's 3 differing CATs all go one way (the bootstrap alone gave [10.0, 60.0],
    # excluding 0): the hull with Newcombe's paired interval on the CATs ([-5.3, 56.7])
    assert {g["group"] for g in st["groups"]} == {"gender", "profession", "race"}
    assert [o["group"] for o in st["omitted"]] == ["religion"] and "2 target term" in st["omitted"][0]["why"]
    race = next(g for g in st["groups"] if g["group"] == "race")["difference"]
    assert race["interval"] == "hull-bootstrap-terms-newcombe-paired" and race["discordant"] == 3
    assert race["parts"]["bootstrap-terms"] == pytest.approx([10.0, 60.0], abs=0.05)
    assert race["parts"]["newcombe-paired"] == pytest.approx([-5.3, 56.7], abs=0.05)
    assert (race["value"], race["lo"], race["hi"]) == pytest.approx((30.0, -5.3, 60.0), abs=0.05)
    assert all(g["help"] for g in st["groups"])
    # the models record the start token they were scored after (Gemma has no <|endoftext|>)
    assert doc["models"]["model"]["start_token_used"] == "<|endoftext|> (id 0)"
    assert doc["models"]["baseline"]["start_token_used"].startswith("<bos> (id 2: no <|endoftext|>")
    # what the weights are: the registry's words (instruction-tuned, quantised), on the page too
    assert doc["models"]["model"]["weights"].startswith("SmolLM2-135M-Instruct")
    assert "Q4_1" in doc["models"]["model"]["weights"]
    assert "Gemma-3-270m base" in doc["models"]["baseline"]["weights"]
    assert "SmolLM2-135M-Instruct" in (out / "index.html").read_text(encoding="utf-8")
    assert doc["nlgbias"]["dirty"] in (True, False) and doc["nlgbias"]["commit"]
    cr = doc["suites"]["crows"]
    pairs = load_crows_pairs().sample(n=40, random_state=0).sort_index()
    for row in cr["metrics"]:
        variant = "shared" if "shared" in row["metric"] else "score"
        for role, name in (("model", MODEL), ("baseline", BASELINE)):
            scored = C.pair_scores(name, pairs, cfg.cache)
            ref = C.crows_metric(scored, more=f"sent_more_{variant}", less=f"sent_less_{variant}")
            overall = ref[ref["bias_type"] == "overall"].iloc[0]
            assert row[role]["value"] == pytest.approx(overall["metric"], abs=1e-4)
            assert row[role]["n"] == 40
    assert {r["metric"] for r in cr["metrics"]} == {"crows (total)", "crows (shared tokens)"}
    # 14 of the 40 pairs are in bias types with fewer than 5: named, with their counts
    assert {o["group"]: o["why"].split()[0] for o in cr["omitted"]} == {
        "age": "4", "physical-appearance": "1", "religion": "2", "sexual-orientation": "3", "socioeconomic": "4"}
    crows_page = (out / "crows.html").read_text()
    assert "Start-token sensitivity" in crows_page and "physical-appearance: 1 pair(s)" in crows_page
    # the start-token sensitivity: lm-evaluation-harness's BOS convention on the same pairs
    from nlgbias.lm import parse_model_spec

    sens = {x["role"]: x for x in cr["start_token"]}
    bos = C.pair_scores(parse_model_spec(MODEL).with_options(start_token="bos"), pairs, cfg.cache)
    ref = C.crows_metric(bos, more="sent_more_score", less="sent_less_score")
    assert sens["model"]["other"] == "bos" and sens["model"]["pairs"] == 40
    assert sens["model"]["other_score"] == pytest.approx(ref[ref["bias_type"] == "overall"].iloc[0]["metric"], abs=1e-4)
    assert sens["baseline"]["same_token"] and not sens["model"]["same_token"]  # Gemma has no <|endoftext|>: BOS either way
    assert sens["baseline"]["pairs_decided_differently"] == 0
    # Gemma's token is read from its tokenizer, so its pairs are not scored a second time
    assert not (Path(cfg.cache) / "crows_pairs" / f"{BASELINE}-start-bos-tokens").exists()
    assert (Path(cfg.cache) / "crows_pairs" / f"{MODEL}-start-bos-tokens").is_dir()
    assert "Start-token sensitivity" in (out / "index.html").read_text()


@pytest.mark.slow
def test_the_bold_suite_shares_are_vaders_and_tox_blocks_on_each_models_texts(audit_dir, tmp_path):
    """The BOLD suite at the smoke size (one prompt per group, 43): each model continues the same
    prompts; its negative / positive shares are VADER's labels (±0.5) of the anonymised texts,
    recomputed here from the generation files; the difference is paired on the prompts."""
    from nlgbias.bold import texts as BT
    from nlgbias.bold.sources import bold_prompts
    from nlgbias.metrics import sentiment

    out, cfg = audit_dir
    res = json.loads((out / "results.json").read_text())["suites"]["bold"]
    assert res["items"]["prompts"] == 43 and res["items"]["groups"] == 43
    by = {r["metric"]: r for r in res["metrics"]}
    assert set(by) == {"negative %", "positive %", "toxic %"}  # no range rows at one prompt per group
    assert not res["groups"] and len(res["omitted"]) == 5 + 6  # ...named: 5 ranges, 2 gender + 4 race groups
    assert "race: Hispanic and Latino Americans" in {o["group"] for o in res["omitted"]}
    ids = set(bold_prompts(1, 0)["prompt_id"])
    flags = {}
    for role, spec in cfg.roles.items():
        (path,) = (out / "cache" / "bold" / "generations").glob(f"bold__{spec.slug}.parquet")
        src = BT.prepare_sources({spec.display: BT.model_texts(path, spec.display)}, tmp_path / "ref")
        df = src[spec.display]
        assert set(df["prompt_id"]) == ids
        lab = sentiment.label(sentiment.compute(df["text"].tolist())["compound"].to_numpy())
        flags[role] = dict(zip(df["prompt_id"], lab))
        for what in ("negative", "positive"):
            assert by[f"{what} %"][role]["value"] == pytest.approx(100 * (lab == what).mean(), abs=1e-3)
            assert by[f"{what} %"][role]["n"] == 43
    d = np.mean([(flags["model"][i] == "negative") - (flags["baseline"][i] == "negative") for i in ids])
    diff = by["negative %"]["difference"]
    assert diff["value"] == pytest.approx(100 * d, abs=1e-3) and diff["lo"] <= diff["value"] <= diff["hi"]


@pytest.mark.slow
def test_the_regard_suite_labels_are_the_classifiers_vote_on_each_models_masked_samples(audit_dir):
    """The regard suite at the smoke size (one sample per prompt, 60): the classifier it trains is
    the reproduction's (five seeds' vote, its test accuracy in the items); each share is the
    vote's labels of the masked samples, recomputed here from the generation files and the saved
    classifier; a pair's gap is the difference of the two demographics' negative shares."""
    from nlgbias.audit.suites import REGARD_PAIRS
    from nlgbias.datasets.regard import mask_demographic
    from nlgbias.io import read_table
    from nlgbias.metrics import regard as R

    out, cfg = audit_dir
    res = json.loads((out / "results.json").read_text())["suites"]["regard"]
    folder = out / "cache" / "regard"
    clf = R.load(folder / "classifier")
    assert clf.card["seeds"] == [0, 1, 2, 3, 4] and "test accuracy" in res["items"]["classifier"]
    by = {r["metric"]: r for r in res["metrics"]}
    # the shares over all demographics: a template's six prompts are alike; paired by template
    neg = by["negative regard %"]
    assert neg["limit"]["unit"] == "templates" and neg["limit"]["n"] == 10
    assert neg["difference"]["interval"] == "bootstrap-templates-paired" and neg["model"]["deff"] >= 1
    samples = {}
    for role, spec in cfg.roles.items():
        (path,) = (folder / "generations").glob(f"regard__{spec.slug}.parquet")
        g = read_table(path)
        samples[role] = g, [mask_demographic(t, d) for t, d in zip(g["text"], g["demographic"], strict=True)]
    # the encoder keeps each text's features (the same bytes whatever its batch-mates): one pass
    clf.encoder.embed([t for _, masked in samples.values() for t in masked])
    for role, (g, masked) in samples.items():
        assert len(g) == 60 and res["items"]["samples"] == 60
        lab = clf.predict_proba(masked)["label"].to_numpy()
        assert by["negative regard %"][role]["value"] == pytest.approx(100 * (lab == "negative").mean(), abs=1e-3)
        for a, b in REGARD_PAIRS:
            neg = {d: (lab[(g["demographic"] == d).to_numpy()] == "negative").mean() for d in (a, b)}
            row = next(r for r in res["metrics"] if "gap" in r["metric"] and a.split()[1] in r["metric"])
            assert row[role]["value"] == pytest.approx(100 * (neg[a] - neg[b]), abs=1e-3)
            assert row[role]["lo"] <= row[role]["value"] <= row[role]["hi"]


def test_a_suite_a_model_cannot_do_is_skipped_with_the_backends_reason(monkeypatch, tmp_path):
    from nlgbias import audit
    from nlgbias.audit import suites as A
    from nlgbias.lm import parse_model_spec

    asked = []

    def lacking(spec, cap):  # a server that generates but returns no prompt logprobs
        asked.append(cap)
        return ("the server does not return echo logprobs" if spec.backend == "openai"
                and cap in ("token_logprobs", "loglikelihood") else None)

    monkeypatch.setattr(A, "missing_capability", lacking)
    cfg = A.AuditConfig(parse_model_spec("openai:http://127.0.0.1:9/v1#m"), None, ("crows", "holistic"),
                        out=tmp_path)
    res = audit.run_audit(cfg, say=lambda s: None)
    assert asked == ["token_logprobs", "loglikelihood"]  # the HolisticBias perplexities: log-likelihoods
    for name in ("crows", "holistic"):
        assert res[name]["skipped"].endswith("the server does not return echo logprobs")
    page = audit.write_report(audit.write_results(cfg, res)).read_text()
    assert "skipped: model (openai:m): the server does not return echo logprobs" in page
    assert "<b>HolisticBias likelihood bias</b>: skipped" in page
    with pytest.raises(ValueError, match="unknown suite"):
        A.AuditConfig(cfg.model, None, ("bold-x",))


def test_the_command_stops_before_any_work_on_a_bad_spec(tmp_path, capsys):
    from nlgbias.cli import main

    assert main(["audit", "--model", "vllm:", "--out", str(tmp_path)]) == 2
    assert "names the backend 'vllm' but no model" in capsys.readouterr().err
    assert main(["audit", "--model", "smollm2-135m", "--model-args", "nope=1",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no option 'nope'" in err and "Error:" not in err  # the message, not the class
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_installed_outside_the_checkout_the_command_writes_the_same_results(audit_dir, tmp_path):
    """A fresh virtual environment outside the repository: ``pip install <checkout>`` (a wheel
    built from it, not editable; the dependencies are this environment's, reached by a path
    file, so that the test needs no download), then ``nlgbias audit`` run from another folder.
    The installed copy loads and scores the audited model itself (StereoSet, CrowS-Pairs under
    both start tokens); the baseline's scores it reads from the checkout's run (its cache copied
    into the new audit's folder, as a rerun resumes), so that they are not computed twice; the
    shared cache of de-quantised models is the session's ($NLGBIAS_CACHE)."""
    out, cfg = audit_dir
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    site = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    checkout = tmp_path / "checkout"  # a copy: building writes build/ beside the sources
    shutil.copytree(project_root() / "src", checkout / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(project_root() / name, checkout / name)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
           str(checkout)]  # the build backend (setuptools, wheel) from the index
    done = subprocess.run(pip, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NLGBIAS_ROOT", "PYTHONPATH")}
    env.update(NLGBIAS_SHARED=str(project_root().parent / "shared"),
               NLGBIAS_CACHE=os.environ["NLGBIAS_CACHE"], HF_HUB_OFFLINE="1")
    base = cfg.baseline.slug  # the baseline's scores as the checkout's audit cached them
    for part in (f"stereoset/dev/{base}", f"crows_pairs/{base}-tokens"):
        shutil.copytree(out / "cache" / part, work / "report" / "cache" / part)
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import nlgbias; print(nlgbias.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert str(venv) in where.stdout, where.stdout + where.stderr  # the installed copy
    cmd = [str(venv / "bin" / "nlgbias"), "audit", "--model", MODEL, "--baseline", BASELINE,
           "--suites", "stereoset,crows", "--size", "smoke", "--out", str(work / "report")]
    done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    got = json.loads((work / "report" / "results.json").read_text())
    ref = json.loads((out / "results.json").read_text())
    for suite in ("stereoset", "crows"):
        for a, b in zip(got["suites"][suite]["metrics"], ref["suites"][suite]["metrics"]):
            for role in ("model", "baseline", "difference"):
                np.testing.assert_allclose([a[role][k] for k in ("value", "lo", "hi", "n")],
                                           [b[role][k] for k in ("value", "lo", "hi", "n")], atol=1e-4)
    assert (work / "report" / "index.html").is_file()
    # the model's scores are the installed copy's own: each computed there, equal to the checkout's
    for part in (f"stereoset/dev/{cfg.model.slug}", f"crows_pairs/{cfg.model.slug}-tokens",
                 f"crows_pairs/{cfg.model.slug}-start-bos-tokens"):
        assert list((work / "report" / "cache" / part).glob("*.parquet")), part


def _chromium() -> str | None:
    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)


@pytest.mark.slow
def test_the_report_loads_in_a_headless_browser_with_its_table_and_figures(audit_dir):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium here: apt-get install chromium (Debian) to run the browser test")
    out, _ = audit_dir
    page = out / "index.html"
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    dom = done.stdout
    doc = json.loads((out / "results.json").read_text())
    n_rows = sum(len(s["metrics"]) for s in doc["suites"].values())
    assert 'id="headline"' in dom and dom.count("<tr>") >= 1 + n_rows, dom[:2000]
    n_fig = len(list((out / "figures").glob("*.png")))
    assert n_fig == 5 and f'data-figures="{n_fig} of {n_fig} loaded"' in dom, dom[-1500:]
    for label in ("ss", "lms", "icat", "crows (total)", "crows (shared tokens)", "negative %",
                  "negative regard %", "differing pairs %", "differing pairs % (Holm)"):
        assert f">{label}</span>" in dom, label
    assert "HolisticBias likelihood bias</b>: Generation bias" in dom  # what the suite leaves out
    # each suite's page, linked from the index, holds every metric and group row and its figure
    for name, suite in doc["suites"].items():
        assert f"href=\"{name}.html\"" in dom or f"href='{name}.html'" in dom, name
        done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                               "--virtual-time-budget=10000", "--dump-dom", (out / f"{name}.html").as_uri()],
                              capture_output=True, text=True, timeout=120)
        heads = 1 + bool(suite["groups"])  # the metrics' table, the groups' where there are groups
        extra = 1 + len(next(iter(suite["descriptors"].values()))) if "descriptors" in suite else 0
        assert done.stdout.count("<tr>") == heads + len(suite["metrics"]) + len(suite["groups"]) + extra, name
        assert f'src="figures/{name}.png"' in done.stdout, name
    page = (out / "holistic.html").read_text(encoding="utf-8")
    assert "id='descriptors'" in page and "id='notes'" in page and "Table 3" in page
    headline = dom[dom.index('id="headline"'):dom.index("</table>", dom.index('id="headline"'))]
    assert "Newcombe [" not in headline and "bootstrap [" not in headline  # a hull's parts: suite pages only
    assert "Newcombe [" in page and "in points" not in page  # no gaps or ranges in this suite
    for name in doc["suites"]:
        assert ">-0.0" not in (out / f"{name}.html").read_text(encoding="utf-8") and ">-0.0" not in dom
    # per-axis and per-template differences counted apart
    groups = doc["suites"]["holistic"]["groups"]
    per_t = [g["difference"] for g in groups if g["group"].startswith("template: ")]
    per_a = [g["difference"] for g in groups if not g["group"].startswith("template: ")]
    ka, kt = (sum(d["lo"] > 0 or d["hi"] < 0 for d in x) for x in (per_a, per_t))
    assert (len(per_a), len(per_t)) == (26, 4)
    assert (f"26 per-axis difference rows and 4 per-template ones, each with an unadjusted 95 % interval: "
            f"{ka} of the 26 per-axis and {kt} of the 4 per-template rows exclude 0") in page
    assert "about 1 in 20" in page and "about 1.5 of 30" in page and doc["versions"]["scipy"]
    # fewer than 5 templates: the rule of too few limiting units names its exception
    assert "pooled over its 2 templates are kept although fewer than 5" in (out / "index.html").read_text()
    # the difference column's unit; StereoSet's lms and icat are scores
    assert "difference (model − baseline, points)</th>" in page
    assert "difference (model − baseline, points; lms and icat: score points)</th>" in (
        out / "stereoset.html").read_text(encoding="utf-8")
    assert "up to three descriptors" in page
    # CrowS-Pairs: the sample as one phrase, the rows' help by variant, the other start token named
    crows = (out / "crows.html").read_text(encoding="utf-8")
    assert "Items: 40 of 1,508 pairs (seeded sample)." in crows and "of: 1,508" not in crows
    helps = {(g["metric"], g["group"]): g["help"] for g in doc["suites"]["crows"]["groups"]}
    assert all(h.endswith("by shared tokens") == ("shared" in m) for (m, _), h in helps.items())
    assert all(h.endswith("by total log-probability") == ("total" in m) for (m, _), h in helps.items())
    sens = {x["role"]: x for x in doc["suites"]["crows"]["start_token"]}
    assert sens["model"]["other_token"] == "<|im_start|> (id 1)"
    assert "after bos (&lt;|im_start|&gt; (id 1))" in crows
    # every hull part and interval kind is documented
    from nlgbias.audit.rows import INTERVALS

    for suite in doc["suites"].values():
        for r in [*suite.get("metrics", []), *suite.get("groups", [])]:
            for role in ("model", "baseline", "difference"):
                v = r.get(role) or {}
                assert all(k in INTERVALS for k in v.get("parts", {}) if k.startswith(("bootstrap-t", "bootstrap-d"))), v


def test_a_paired_share_difference_without_a_disagreeing_item_has_newcombes_interval():
    """Model and baseline decide all 40 items alike (28 yes): the paired bootstrap would give
    [0, 0]; the row gives Newcombe's method 10 for (28, 0, 0, 12) instead, and names it. With
    different samples the difference is Newcombe's hybrid score (statsmodels' 'newcomb')."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    from nlgbias.audit.suites import _limit, _share_row
    from nlgbias.stats import paired_diff_proportions_interval

    f = np.array([1.0] * 28 + [0.0] * 12)
    row = _share_row({"model": f, "baseline": f.copy()}, "paired", _limit(40, "pairs"), metric="m")
    lo, hi = paired_diff_proportions_interval(28, 0, 0, 12)
    d = row["difference"]
    assert d["interval"] == "newcombe-paired" and d["value"] == 0.0
    assert (d["lo"], d["hi"]) == (round(100 * lo, 4), round(100 * hi, 4))
    assert d["lo"] < -5 and d["hi"] > 5  # not a point
    assert row["model"]["interval"] == "wilson" and row["limit"] == {"n": 40, "unit": "pairs"}
    g = np.array([1.0] * 20 + [0.0] * 30)
    row = _share_row({"model": f, "baseline": g}, "independent", _limit(40, "prompts"), metric="m")
    ref = confint_proportions_2indep(28, 40, 20, 50, method="newcomb", compare="diff")
    assert row["difference"]["interval"] == "newcombe-independent"
    assert (row["difference"]["lo"], row["difference"]["hi"]) == pytest.approx(
        tuple(100 * x for x in ref), abs=1e-3)
    with pytest.raises(ValueError, match="must align"):
        _share_row({"model": f, "baseline": g}, "paired", _limit(40, "pairs"))


def test_the_range_null_is_the_exact_permutation_distribution():
    """Flags 1, 1, 0, 0 in two groups of two: of the 6 ways to split them, 2 put both 1s in one
    group (range 100 points), 4 split them (range 0): the null's mean is 33.3, its 95th
    percentile 100, and an observed range of 100 has p = 1/3 (hand-computed)."""
    from nlgbias.audit.suites import range_null

    r = range_null(np.array([1.0, 1, 0, 0]), np.array(list("aabb")), 100.0,
                   np.random.default_rng(0), n_perm=20000)
    assert r["mean"] == pytest.approx(100 / 3, abs=1.0) and r["p95"] == 100.0
    assert r["p"] == pytest.approx(1 / 3, abs=0.01) and r["permutations"] == 20000
    # unequal groups keep their sizes: 3 and 1, one 1 among four: range 100 when the 1 is alone
    # (1 of 4 placements) else 33.3
    r = range_null(np.array([1.0, 0, 0, 0]), np.array(list("aaab")), 0.0, np.random.default_rng(1),
                   n_perm=20000)
    assert r["mean"] == pytest.approx(0.25 * 100 + 0.75 * 100 / 3, abs=1.0) and r["p"] == 1.0


def test_a_stereoset_difference_is_the_hull_of_the_bootstrap_and_newcombe():
    """The baseline scores every sentence as the model does: the two-stage bootstrap's
    difference is a point for lms, ss and icat, so the hull is Newcombe's paired interval on the
    CATs' decisions (ss), on their two decisions each (lms), and for icat its bounds over both.
    With the baseline's scores shuffled, CATs differ: the hull covers both intervals, each kept
    in ``parts``."""
    from nlgbias import stereoset as S
    from nlgbias.audit.suites import _cat_decisions, _stereoset_differences
    from nlgbias.stats import paired_diff_proportions_interval
    from nlgbias.stereoset.evaluation import bootstrap_distribution

    cats = S.stratified_subset(S.load_gold(split="dev"), per_domain=5, seed=0)
    ids = [i for c in ("stereotype_id", "anti_stereotype_id", "unrelated_id") for i in cats[c]]
    rng = np.random.default_rng(0)
    sc = dict(zip(ids, rng.normal(size=len(ids)), strict=True))
    scores = {"model": sc, "baseline": dict(sc)}
    overall = {r: S.evaluate(cats, s)["overall"] for r, s in scores.items()}
    dists = {r: bootstrap_distribution(cats, s, n_boot=300, seed=0) for r, s in scores.items()}
    dec = {r: _cat_decisions(cats, s) for r, s in scores.items()}
    d = _stereoset_differences(overall, dists, dec, len(cats))
    pro = int(dec["model"][0].sum())
    lo, hi = paired_diff_proportions_interval(pro, 0, 0, len(cats) - pro)
    assert d["ss"]["interval"] == "hull-bootstrap-terms-newcombe-paired" and d["ss"]["discordant"] == 0
    assert d["ss"]["parts"]["bootstrap-terms"] == [0.0, 0.0]
    assert (d["ss"]["lo"], d["ss"]["hi"]) == pytest.approx((100 * lo, 100 * hi), abs=1e-3)
    rel = int(dec["model"][1].sum())
    lo, hi = paired_diff_proportions_interval(rel, 0, 0, 2 * len(cats) - rel)
    assert (d["lms"]["lo"], d["lms"]["hi"]) == pytest.approx((100 * lo, 100 * hi), abs=1e-3)
    assert d["icat"]["lo"] < 0 < d["icat"]["hi"] and d["icat"]["value"] == 0.0
    # the baseline's scores shuffled: CATs differ, the hull covers the bootstrap and Newcombe
    other = dict(zip(ids, rng.normal(size=len(ids)), strict=True))
    overall["baseline"] = S.evaluate(cats, other)["overall"]
    dists["baseline"] = bootstrap_distribution(cats, other, n_boot=300, seed=0)
    dec["baseline"] = _cat_decisions(cats, other)
    d = _stereoset_differences(overall, dists, dec, len(cats))
    for v in d.values():
        (bl, bh), (nl, nh) = v["parts"]["bootstrap-terms"], v["parts"]["newcombe-paired"]
        assert (v["lo"], v["hi"]) == pytest.approx((min(bl, nl), max(bh, nh)), abs=1e-3)
    assert d["ss"]["discordant"] == int((dec["model"][0] != dec["baseline"][0]).sum()) > 0


def test_the_command_help_is_plain_text_and_names_every_size(capsys):
    from nlgbias.cli import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "``" not in out and ":func:" not in out and "nlgbias audit --model SPEC" in out
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    out = capsys.readouterr().out
    assert all(f"{size}:" in out or f"{size} (default)" in out for size in ("smoke", "quick", "full"))


def test_a_range_has_no_interval_and_its_difference_covers_each_groups_interval():
    """Two groups of 10 prompts, one negative text in the first, the same for both models: each
    range is 10 points with no interval (a bootstrap of a max − min is biased upward) and the
    permutation null beside it (one negative text among 20: the range is 10 points under every
    split, p = 1); the bootstrap's difference is [0, 0], so the hull is the range's bounds with
    each group's share inside its Newcombe paired interval (hand computed from the two groups'
    intervals). The limiting unit is the prompts, resampled within each group."""
    from nlgbias.audit.suites import _paired_share_diff, _range_row

    f = np.zeros(20)
    f[0] = 1.0
    groups = np.array(["a"] * 10 + ["b"] * 10)
    row = _range_row({"model": f, "baseline": f.copy()}, groups, np.random.default_rng(0), metric="r")
    assert row["model"]["value"] == 10.0 and (row["model"]["lo"], row["model"]["hi"]) == (None, None)
    assert row["model"]["interval"] == "none-range"
    assert row["limit"] == {"n": 20, "unit": "prompts",
                            "detail": "2 groups, 10 prompts each, resampled within each group"}
    assert row["model"]["null"] == {"mean": 10.0, "p95": 10.0, "p": 1.0, "permutations": 2000}
    d = row["difference"]
    assert d["interval"] == "hull-bootstrap-groups-newcombe-box" and d["value"] == 0.0
    assert d["parts"]["bootstrap-groups"] == [0.0, 0.0]
    (la, ha), (lb, hb) = _paired_share_diff(f[:10], f[:10]), _paired_share_diff(f[10:], f[10:])
    a_lo, a_hi, b_lo, b_hi = max(10 + la, 0), 10 + ha, max(lb, 0), hb  # group shares 10 and 0
    assert d["hi"] == pytest.approx(max(a_hi, b_hi) - min(a_lo, b_lo) - 10, abs=1e-3)
    assert d["lo"] == pytest.approx(max(0, max(a_lo, b_lo) - min(a_hi, b_hi)) - 10, abs=1e-3)
    assert d["lo"] < 0 < d["hi"]
    from nlgbias.audit.report import _fmt

    assert _fmt(row["model"]).startswith("<span class='v'>10.0</span>")  # no interval shown


def test_shares_pooled_over_demographics_resample_templates_paired_across_models():
    """Three templates with 2 samples each per model; the paired template bootstrap equals a
    loop over the same draws (each draw: the drawn templates' pooled share, model minus
    baseline); identical flags give [0, 0]."""
    from nlgbias.audit.suites import _pct, template_paired_interval

    t = np.array(["a", "a", "b", "b", "c", "c"])
    m, b = np.array([1.0, 1, 0, 1, 0, 0]), np.array([0.0, 1, 0, 0, 0, 0])
    got = template_paired_interval({"model": m, "baseline": b}, {"model": t, "baseline": t},
                                   np.random.default_rng(3), n_boot=500)
    draw = np.random.default_rng(3).integers(0, 3, size=(500, 3))
    names = np.array(["a", "b", "c"])
    ref = [100 * (np.mean([x for k in d for x in m[t == names[k]]])
                  - np.mean([x for k in d for x in b[t == names[k]]])) for d in draw]
    assert got == pytest.approx(_pct(np.array(ref)), abs=1e-9)
    assert template_paired_interval({"model": m, "baseline": m}, {"model": t, "baseline": t},
                                    np.random.default_rng(0)) == (0.0, 0.0)


def test_results_say_whether_the_checkout_had_uncommitted_changes(monkeypatch):
    from nlgbias.audit import report

    answers = {("rev-parse", "HEAD"): "abc", ("status", "--porcelain", "--untracked-files=no"): " M x.py"}
    monkeypatch.setattr(report, "_git", lambda *a: answers[a])
    assert report._commit() == {"commit": "abc", "dirty": True}
    answers[("status", "--porcelain", "--untracked-files=no")] = ""
    assert report._commit() == {"commit": "abc", "dirty": False}
    monkeypatch.setattr(report, "_git", lambda *a: None)  # not a checkout (an installed copy)
    assert report._commit() == {"commit": None, "dirty": None}


def test_a_regard_gap_difference_is_square_and_add_of_the_two_gaps_intervals():
    """No sample of either demographic labelled negative, for either model (10 templates, one
    sample each): each gap is 0 with Newcombe's interval for 0/10 − 0/10 (±27.75 points, the
    Wilson upper limit of 0 of 10), and the difference of the gaps is 0 ± hypot(27.75, 27.75)
    = ±39.25 points, not the [0, 0] a bootstrap of the samples would give."""
    import pandas as pd

    from nlgbias.audit.suites import _gap_row

    df = pd.DataFrame({"demographic": ["The woman"] * 10 + ["The man"] * 10,
                       "template": [f"t{i}" for i in range(10)] * 2, "regard": ["neutral"] * 20})
    df["prompt_id"] = df["template"] + df["demographic"]  # one sample per prompt: no design effect
    row = _gap_row({"model": df, "baseline": df.copy()}, "The woman", "The man", metric="gap")
    assert row["model"]["interval"] == "newcombe-independent-deff"
    assert (row["model"]["lo"], row["model"]["hi"]) == pytest.approx((-27.7533, 27.7533), abs=1e-3)
    d = row["difference"]
    assert d["interval"] == "mover-independent" and d["value"] == 0.0
    assert (d["lo"], d["hi"]) == pytest.approx((-39.2489, 39.2489), abs=1e-3)
    assert row["limit"] == {"n": 10, "unit": "templates", "detail": "each continued for both demographics"}


def test_samples_of_one_prompt_count_by_the_design_effect():
    """Four prompts of five samples, shares 1, 1, 0, 0: the prompts' variance of the share is
    var([1, 1, 0, 0]) / 4 = 1/12 against the binomial 0.25 / 20, a design effect of 6.67, so
    the Wilson interval is that of 1.5 of 3 (hand-computed); one sample per prompt, or no
    clusters, keeps the plain Wilson interval; the difference of two such shares is Newcombe's
    hybrid interval of the effective counts."""
    from nlgbias.audit.suites import _limit, _share_row, effective_count
    from nlgbias.stats import wilson_interval

    f = np.array([1.0] * 10 + [0.0] * 10)
    prompts = np.repeat(["p0", "p1", "p2", "p3"], 5)
    k, n, deff = effective_count(f, prompts)
    assert (k, n, deff) == pytest.approx((1.5, 3.0, 20 / 3), abs=1e-4)
    assert effective_count(f, np.arange(20)) == (10.0, 20.0, 1.0) == effective_count(f)
    # alike prompts (every prompt's share the overall one): no smaller n than the samples
    assert effective_count(np.tile([1.0, 0.0], 10), np.repeat(np.arange(4), 5))[2] == 1.0
    row = _share_row({"model": f, "baseline": f.copy()}, "independent", _limit(4, "prompts"),
                     clusters={"model": prompts, "baseline": prompts}, metric="m")
    lo, hi = wilson_interval(1.5, 3.0)
    assert row["model"]["interval"] == "wilson-deff" and row["model"]["deff"] == pytest.approx(6.6667)
    assert (row["model"]["lo"], row["model"]["hi"]) == pytest.approx((100 * lo, 100 * hi), abs=1e-3)
    d = row["difference"]
    half = 100 * np.hypot(0.5 - lo, hi - 0.5)
    assert d["interval"] == "newcombe-independent-deff" and (d["lo"], d["hi"]) == pytest.approx((-half, half), abs=1e-3)


def _tiny_perplexities() -> tuple:
    """One axis, five descriptors a-e, two templates, five sentences each. Template t1: a-d have
    the perplexities 1-5, e 10-14 (every e sentence above every other: exact two-sided
    Mann-Whitney p = 2 / C(10, 5) = 0.0079 for e against each of a-d; 1.0 among a-d, tied);
    template t2: all five 1-5. The baseline: all five 1-5 in both templates."""
    import pandas as pd

    rows = []
    for role in ("model", "baseline"):
        for t in ("t1", "t2"):
            for d in "abcde":
                high = role == "model" and t == "t1" and d == "e"
                rows += [{"role": role, "axis": "x", "template": t, "descriptor": d,
                          "perplexity": float(v + (9 if high else 0))} for v in range(1, 6)]
    df = pd.DataFrame(rows)
    return df[df["role"] == "model"], df[df["role"] == "baseline"]


def test_a_holistic_share_and_its_paired_difference_by_hand():
    """The model: 4 of the 20 descriptor pairs (10 per template) differ uncorrected (e against
    a-d in t1), 20 %; none after Holm (10 x 0.0079 = 0.079); the baseline: none. The baseline's
    0 % is not a point: the hull of the bootstrap ([0, 0]) and Wilson's 0 of 20 (upper 16.1 %).
    The difference (20 points) is the hull of the paired two-stage bootstrap, recomputed here by
    a loop over the same draws (the two templates drawn with replacement, then the descriptors,
    the pairs among the drawn ones counted in each drawn template), and Newcombe's paired
    interval on the 20 pairs' decisions (0 both, 4 model only, 0 baseline only, 16 neither:
    [-0.05, 41.6] points). Template t1 alone: 4 of 10 pairs, 40 %, its bootstrap over the
    descriptors only; t2 alone: 0 %."""
    from nlgbias.audit.holistic import axis_rows, pair_decisions
    from nlgbias.audit.suites import _pct

    model, base = _tiny_perplexities()
    dec = {"model": pair_decisions(model), "baseline": pair_decisions(base)}
    row = axis_rows(dec, ["x"], np.random.default_rng(7), "raw", n_boot=400, metric="m")
    assert row["model"]["value"] == 20.0 and row["baseline"]["value"] == 0.0 and row["model"]["n"] == 20
    assert row["limit"] == {"n": 2, "unit": "templates",
                            "detail": "5 descriptors, 20 descriptor pairs over 2 templates, resampled"}
    b = row["baseline"]
    assert b["parts"]["bootstrap-templates-descriptors"] == [0.0, 0.0]
    assert (b["lo"], b["hi"]) == pytest.approx((0.0, 16.1125), abs=1e-3)
    d = row["difference"]
    assert d["value"] == 20.0 and (d["discordant"], d["decisions"]) == (4, 20)
    assert d["parts"]["newcombe-paired"] == pytest.approx([-0.0509, 41.6017], abs=1e-3)
    # the same draws, pair by pair: e differs from a-d in t1 only (the baseline: nothing)
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 5, size=(400, 5))
    tdx = rng.integers(0, 2, size=(400, 2))
    ref_m, ref_d = [], []
    for draw, tdraw in zip(idx, tdx):
        pairs = [(p, q) for p in range(5) for q in range(p + 1, 5) if draw[p] != draw[q]]
        sig = sum(4 in (draw[p], draw[q]) for p, q in pairs)  # descriptor e is index 4
        w1 = int((tdraw == 0).sum())  # how often t1 is drawn of the 2 templates
        share = 100 * w1 * sig / (2 * len(pairs)) if pairs else np.nan
        ref_m.append(share)
        ref_d.append(share - (0.0 if pairs else np.nan))
    assert 0 in tdx.sum(axis=1) and 2 in tdx.sum(axis=1)  # some draws hold t1 twice, some t2 twice
    parts = row["model"]["parts"]["bootstrap-templates-descriptors"]
    assert parts == pytest.approx(_pct(np.array(ref_m)), abs=1e-3) and parts[0] == 0.0
    boot = _pct(np.array(ref_d))
    assert d["parts"]["bootstrap-templates-descriptors"] == pytest.approx(boot, abs=1e-3)
    assert (d["lo"], d["hi"]) == pytest.approx((min(boot[0], -0.0509), max(boot[1], 41.6017)), abs=1e-3)
    assert d["interval"] == "hull-bootstrap-templates-descriptors-newcombe-paired"
    holm = axis_rows(dec, ["x"], np.random.default_rng(7), "corrected", n_boot=400, metric="m")
    assert holm["model"]["value"] == 0.0 and holm["difference"]["discordant"] == 0
    assert holm["difference"]["lo"] < 0 < holm["difference"]["hi"]  # never a point
    # one template: conditional on it, the descriptors resampled only
    t1 = axis_rows(dec, ["x"], np.random.default_rng(7), "raw", n_boot=400, template="t1", metric="m")
    t2 = axis_rows(dec, ["x"], np.random.default_rng(7), "raw", n_boot=400, template="t2", metric="m")
    assert (t1["model"]["value"], t1["model"]["n"], t2["model"]["value"]) == (40.0, 10, 0.0)
    assert t1["limit"] == {"n": 5, "unit": "descriptors", "detail": "10 descriptor pairs over template 't1' only"}
    ref1 = []
    for draw in np.random.default_rng(7).integers(0, 5, size=(400, 5)):
        pairs = [(p, q) for p in range(5) for q in range(p + 1, 5) if draw[p] != draw[q]]
        ref1.append(100 * sum(4 in (draw[p], draw[q]) for p, q in pairs) / len(pairs) if pairs else np.nan)
    assert t1["model"]["parts"]["bootstrap-descriptors"] == pytest.approx(_pct(np.array(ref1)), abs=1e-3)
    assert (t1["difference"]["discordant"], t1["difference"]["decisions"]) == (4, 10)
    assert t1["difference"]["interval"] == "hull-bootstrap-descriptors-newcombe-paired"


@pytest.mark.slow
def test_the_holistic_shares_are_likelihood_bias_on_the_same_perplexities(audit_dir):
    """The HolisticBias suite at the smoke size: 13 axes x 5 descriptors x 2 templates (Table 3's
    and one drawn) x 5 nouns = 650 sentences, each model's perplexities read back from the
    audit's cache; each axis's share of differing descriptor pairs (uncorrected and after Holm)
    is what :func:`nlgbias.holistic.likelihood_bias.pair_significance` gives on each template's
    sentences, pooled over the templates by their pairs; the metrics pool every axis. The
    difference is model − baseline on the same pairs."""
    import pandas as pd

    from nlgbias.audit.holistic import VERSION, holistic_sample
    from nlgbias.holistic import likelihood_bias as L
    from nlgbias.holistic import paper
    from nlgbias.holistic.responses import score_perplexity

    out, cfg = audit_dir
    res = json.loads((out / "results.json").read_text())["suites"]["holistic"]
    sample = holistic_sample(2, 5, 5, 0)
    assert len(sample) == res["items"]["sentences"] == 650 and res["items"]["descriptors"] == 65
    assert paper.TABLE3_TEMPLATE in set(sample["template"]) and sample["template"].nunique() == 2
    assert not res["omitted"] and len(res["groups"]) == 2 * 13 + 2 * 2  # per axis, then per template
    assert any("Generation bias" in x and "not part of this suite" in x for x in res["notes"])
    perplexity = {}
    for role, spec in cfg.roles.items():
        ppl = score_perplexity(sample, spec, out / "cache" / "holistic", version=VERSION, batch_size=32,
                               dtype=None)
        assert ppl["perplexity"].notna().all() and len(ppl) == 650
        perplexity[role] = ppl
        sig = pd.concat([L.pair_significance(ppl[ppl["template"] == t], alpha=0.05, correction="holm")
                         for t in sorted(ppl["template"].unique())])
        for col, metric in (("sig_share", "differing pairs %"), ("sig_share_corrected", "differing pairs % (Holm)")):
            k = sig[col] * sig["n_pairs"]
            per_axis = k.groupby(sig["axis"]).sum() / sig["n_pairs"].groupby(sig["axis"]).sum()
            for ax, share in per_axis.items():
                row = next(g for g in res["groups"] if g["group"] == ax.replace("_", " ") and g["metric"] == metric)
                assert row[role]["value"] == pytest.approx(100 * share, abs=1e-3), (role, ax, metric)
                assert row[role]["n"] == 20 and row["limit"]["n"] == 2  # 10 pairs in each template
                assert row["limit"]["unit"] == "templates" and "5 descriptors" in row["limit"]["detail"]
            for t in sorted(ppl["template"].unique()):  # each template alone
                one = L.pair_significance(ppl[ppl["template"] == t], alpha=0.05, correction="holm")
                row = next(g for g in res["groups"] if g["group"] == f"template: {t}" and g["metric"] == metric)
                assert row[role]["value"] == pytest.approx(100 * (one[col] * one["n_pairs"]).sum()
                                                           / one["n_pairs"].sum(), abs=1e-3), (role, t)
                assert row[role]["n"] == 130 and row["limit"]["unit"] == "descriptors"
            top = next(r for r in res["metrics"] if r["metric"] == metric)
            assert top[role]["value"] == pytest.approx(100 * k.sum() / sig["n_pairs"].sum(), abs=1e-3)
            assert top[role]["n"] == 260 and top[role]["lo"] <= top[role]["value"] <= top[role]["hi"]
    for top in res["metrics"]:
        d = top["difference"]
        assert d["value"] == pytest.approx(top["model"]["value"] - top["baseline"]["value"], abs=1e-3)
        assert d["lo"] <= d["value"] <= d["hi"] and d["decisions"] == 260 and d["lo"] < d["hi"]
    # the lists: descriptors of 6-19 characters only (Table 3's filter), none in both lists
    # each a list of {descriptor, median perplexity}, lowest first / highest first
    kept = L.length_filter(perplexity["model"])
    for x in res["descriptors"]["model"]:
        low, high = ([d["descriptor"] for d in x[w]] for w in ("low", "high"))
        sub = kept[kept["axis"] == x["axis"].replace(" ", "_")]
        k = min(3, sub["descriptor"].nunique() // 2)
        ref = L.extreme_descriptors(sub, k).iloc[0]
        assert (", ".join(low), ", ".join(high)) == (ref.low_ppl, ref.high_ppl) and not set(low) & set(high)
        assert all(6 <= len(w) <= 19 for w in low + high) and 1 <= len(low) <= 3, x
        med = sub.groupby("descriptor")["perplexity"].median()
        for d in x["low"] + x["high"]:
            assert d["median perplexity"] == pytest.approx(med[d["descriptor"]], abs=1e-3)
    notes = " ".join(res["notes"])
    med = kept.assign(lp=np.log(kept["perplexity"])).groupby("descriptor")["lp"].median()
    rho = med.corr(pd.Series(med.index.str.len(), index=med.index), method="spearman")
    assert f"median log perplexity with its length is model {rho:+.2f}".replace("-", "−") in notes
    assert "control axis" in notes and f"'{paper.TABLE3_TEMPLATE}'" in notes and "5 nouns" in notes
    # the draw, counted from v1.0: of the descriptors drawable at 5 nouns x 2 templates
    assert "body type 5 of 149 drawable (150 in v1.0)" in notes and "nonce 5 of 8," in notes
    assert "characteristics 5 of 88 drawable (101 in v1.0)" in notes
    # 2 templates, fewer than 5: the pooled rows are kept, their interval the templates' spread
    assert "3 distinct bootstrap draws of 2" in notes and "other templates like these" not in notes
    for r in [*res["metrics"], *res["groups"]]:
        assert "template(s)" not in r["help"], r["help"]
        if r.get("group", "").startswith("template: "):
            t = r["group"][len("template: "):]
            assert f"here this one template ('{t}') and every drawn descriptor" in r["help"] or "Holm" in r["metric"]
        else:
            assert "the spread over these 2, not coverage of other templates" in r["help"]
            assert "here 2 templates and every drawn descriptor" in r["help"] or "Holm" in r["metric"]


def test_holistic_pair_tests_equal_likelihood_bias_at_every_sample_size():
    """Two axes, three templates, descriptors with 5, 9 or 12 sentences (perplexities rounded,
    so with ties): pairs of two samples over 8 go through one vectorised Mann-Whitney call (the
    full size), the others one call each; the p-values equal one scipy call per pair, and the
    pooled shares (uncorrected and Holm) what likelihood_bias.pair_significance gives on each
    template's sentences, pooled by pairs."""
    from itertools import combinations

    import pandas as pd
    from scipy.stats import mannwhitneyu

    from nlgbias.audit.holistic import axis_rows, pair_decisions
    from nlgbias.holistic import likelihood_bias as L

    rng = np.random.default_rng(1)
    rows = [{"axis": ax, "template": t, "descriptor": f"{ax}{d}", "perplexity": float(np.round(v))}
            for ax in ("p", "q") for t in ("t1", "t2", "t3") for d in range(9)
            for v in rng.lognormal(3 + 0.15 * d, 0.5, (5, 9, 12)[d % 3])]
    frame = pd.DataFrame(rows)
    groups = {d: g["perplexity"].to_numpy() for d, g in frame[frame["template"] == "t1"].groupby("descriptor")}
    pairs = list(combinations(sorted(groups), 2))
    ref = [mannwhitneyu(groups[a], groups[b], alternative="two-sided").pvalue for a, b in pairs]
    assert L.pair_pvalues(groups, pairs) == pytest.approx(ref, abs=1e-12)
    dec = {"model": pair_decisions(frame)}
    sig = pd.concat([L.pair_significance(frame[frame["template"] == t], alpha=0.05, correction="holm")
                     for t in ("t1", "t2", "t3")])
    for col, which in (("sig_share", "raw"), ("sig_share_corrected", "corrected")):
        k = float((sig[col] * sig["n_pairs"]).sum())
        row = axis_rows(dec, ["p", "q"], np.random.default_rng(0), which, n_boot=50, metric="m")
        assert row["model"]["value"] == pytest.approx(100 * k / sig["n_pairs"].sum(), abs=1e-3)
        assert row["model"]["n"] == 2 * 3 * 36 and 0 < k < 216
