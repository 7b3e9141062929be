"""Shared fixtures and the two test tiers. Tests run offline against the resources resolved by
nlgbias.resources.

Tiers: every test is in the **unit** tier unless it executes notebooks or kills worker processes
or loads a real offline model, which puts it in the **notebook** tier (marker ``notebook``, set
here from the file, the fixtures a test uses and its own ``slow`` / ``notebooks`` marks, so test
files need no edits). ``./run_tests.sh`` runs both; ``./run_tests.sh --fast`` (``make
test-fast``) the unit tier only (``-m "not notebook"``).

One cache folder for the whole session: ``$NLGBIAS_CACHE`` (default the project's
``data/cache``), so de-quantised models, joined GGUF files and 04's word2vec / lexicon builds
are made once and reused by every temporary project root.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NLGBIAS_CACHE", str(Path(__file__).resolve().parents[1] / "data" / "cache"))

#: files whose every test is in the notebook tier (notebook runs, SIGKILL and determinism runs)
NOTEBOOK_TIER_FILES = {"test_notebooks.py", "test_interrupt.py", "test_determinism.py"}
#: fixtures that execute notebooks: a test using one is in the notebook tier
NOTEBOOK_TIER_FIXTURES = {"smoke_root", "folder_root"}
#: marks that put a test in the notebook tier (a real model or a notebook run)
NOTEBOOK_TIER_MARKS = {"slow", "notebooks"}
#: slow tests elsewhere (a local Ray cluster starts)
NOTEBOOK_TIER_TESTS = {"test_ray_backend_matches_local"}
#: the unit tests of those files (no notebook, no subprocess, no real model)
UNIT_TESTS = {"test_every_notebook_declares_its_outputs", "test_figure1_runs_cached_equal_uncached",
              "test_stereoset_scorer_twice_gives_identical_json"}


def in_notebook_tier(item: pytest.Item) -> bool:
    name = getattr(item, "originalname", item.name)
    if Path(str(item.fspath)).name in NOTEBOOK_TIER_FILES and name not in UNIT_TESTS:
        return True
    if name in NOTEBOOK_TIER_TESTS or NOTEBOOK_TIER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    return any(item.get_closest_marker(m) is not None for m in NOTEBOOK_TIER_MARKS)


def pytest_configure(config):
    config.addinivalue_line("markers", "notebook: the notebook tier (notebook runs, SIGKILL and "
                            "determinism runs, real models); `-m 'not notebook'` is the unit tier")


#: the files whose tests share the smoke chain's root (the session fixtures ``smoke_root`` and
#: ``folder_root``): when the suite runs in several processes (``./run_tests.sh``: pytest-xdist,
#: ``--dist loadfile``) they run in one, so the chain runs once
CHAIN_FILES = ("test_notebooks.py", "test_determinism.py")
CHAIN_GROUP = "smoke-chain"
#: the longest groups (minutes each), started first when the suite runs in several processes:
#: the group that starts last decides when the run ends
LONGEST_FIRST = (CHAIN_GROUP, "test_dry_run.py", "test_audit.py", "test_interrupt.py")


def group_of(nodeid: str) -> str:
    """The group a test runs in when the suite runs in several processes: the smoke chain's files
    together, every other file on its own (its module fixtures are built once)."""
    name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    return CHAIN_GROUP if name in CHAIN_FILES else name


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, with the smoke chain's files as one file (:func:`group_of`)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByGroup(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return ByGroup(config, log)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if in_notebook_tier(item):
            item.add_marker(pytest.mark.notebook)
        if NOTEBOOK_TIER_FIXTURES & set(getattr(item, "fixturenames", ())) and \
                group_of(item.nodeid) != CHAIN_GROUP:
            raise pytest.UsageError(f"{item.nodeid} uses the smoke chain's root: add its file to "
                                    "CHAIN_FILES in tests/conftest.py")
    if os.environ.get("PYTEST_XDIST_WORKER"):  # in one process the order stays the files' order
        rank = {g: i for i, g in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda it: rank.get(group_of(it.nodeid), len(rank)))


@pytest.fixture(scope="session")
def smoke_root(folder_root):
    """The fresh project root of the smoke runs, and a runner that executes a notebook once in it
    (after the notebooks it needs): ``(root, run)`` (see ``folder_root``)."""
    root, run, _ = folder_root
    return root, run


@pytest.fixture(scope="session")
def folder_root(tmp_path_factory):
    """One fresh root where every notebook runs once in the smoke profile; every notebook that
    takes models runs with the profile's models and a tiny local checkpoint folder whose path has
    a space and several levels (a user's own model beside the profile's, one run of each notebook
    instead of two chains): ``(root, run, folder)``."""
    from notebook_chain import chain, save_folder_model

    folder = save_folder_model(tmp_path_factory.mktemp("user") / "checkpoints" / "my model")
    root = tmp_path_factory.mktemp("smoke_root")
    return root, chain(root, extra_models=[str(folder)]), folder
