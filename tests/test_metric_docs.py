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


#: the metric modules whose measurement needs a model (a classifier, an analyzer): they load it
#: apart from computing, as Hugging Face ``evaluate`` measurements do; gender and norms take
#: theirs (an embedding, a lexicon) as an argument of compute
NEEDS_A_MODEL = ("regard", "sentiment", "style", "toxicity")


@pytest.mark.parametrize("name", MODULES)
def test_metric_modules_share_one_contract(name):
    mod = importlib.import_module(f"nlgbias.metrics.{name}")
    assert callable(getattr(mod, "compute", None)), f"nlgbias.metrics.{name} has no compute()"
    if name in NEEDS_A_MODEL:
        assert callable(getattr(mod, "load", None)), f"nlgbias.metrics.{name} has no load()"


def test_load_apart_from_compute_gives_the_same_scores():
    from nlgbias.metrics import sentiment

    texts = ["The nurse was wonderful and kind.", "He was a terrible, cruel man."]
    vader = sentiment.load()
    direct = [vader.polarity_scores(t)["compound"] for t in texts]
    assert list(sentiment.compute(texts)["compound"]) == pytest.approx(direct)
    assert direct[0] > 0.5 and direct[1] < -0.5
