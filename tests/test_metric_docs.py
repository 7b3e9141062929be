"""Every metric module reads like a Hugging Face ``evaluate`` measurement card: its docstring
cites the paper, says what the score means, documents Args/Returns and has Examples that run
(doctest, the same as ``pytest --doctest-modules src/nlgbias/metrics``)."""

import doctest
import importlib
import pkgutil

import pytest

import nlgbias.metrics

MODULES = sorted(m.name for m in pkgutil.iter_modules(nlgbias.metrics.__path__))
#: the BOLD metrics; other metric modules are held to the doctest run only
CARDS = ("gender", "norms", "sentiment", "toxicity")


@pytest.mark.parametrize("name", MODULES)
def test_metric_doctests_pass(name):
    mod = importlib.import_module(f"nlgbias.metrics.{name}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} doctest(s) failed"


@pytest.mark.parametrize("name", CARDS)
def test_metric_card_sections(name):
    mod = importlib.import_module(f"nlgbias.metrics.{name}")
    doc = mod.__doc__ or ""
    for section in ("Citation", "What the score means", "Args", "Returns", "Examples"):
        assert section in doc, f"nlgbias.metrics.{name}: docstring lacks {section!r}"
    assert doctest.testmod(mod).attempted >= 2, f"{name}: no runnable Examples"
    assert callable(getattr(mod, "compute", None)), name
