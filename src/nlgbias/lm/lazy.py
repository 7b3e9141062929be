"""An :class:`~nlgbias.lm.LM` built from its spec on first use (:class:`LazyLM`): a caller that
may find every item cached (a warm rerun) loads no weights, and one such LM can be handed to
several suites so that the model is loaded once."""

from __future__ import annotations

from nlgbias.lm.interface import LM
from nlgbias.lm.spec import LMSpec, kind_of


class LazyLM(LM):
    """The :class:`LM` of ``spec`` (:func:`nlgbias.lm.get_lm`), built on the first call that
    needs the model and then kept; ``name``, ``kind`` and ``backend`` come from the spec without
    building it. Every interface method and attribute (``model``, ``tokenizer``, ...) is the
    built LM's.

    >>> from nlgbias.lm import parse_model_spec
    >>> lm = LazyLM(parse_model_spec("smollm2-135m"))
    >>> lm.name, lm.backend, lm.built
    ('smollm2-135m', 'hf', False)
    """

    def __init__(self, spec: LMSpec):
        self.spec, self.name, self.backend = spec, spec.text, spec.backend
        self.kind = kind_of(spec)
        self._lm = None

    @property
    def built(self) -> bool:
        return self._lm is not None

    @property
    def lm(self) -> LM:
        if self._lm is None:
            from nlgbias.lm import get_lm

            self._lm = get_lm(self.spec)
        return self._lm

    def loglikelihood(self, requests, **kw):
        return self.lm.loglikelihood(requests, **kw)

    def loglikelihood_rolling(self, texts):
        return self.lm.loglikelihood_rolling(texts)

    def token_logprobs(self, texts):
        return self.lm.token_logprobs(texts)

    def generate_until(self, requests, *args, **kw):
        return self.lm.generate_until(requests, *args, **kw)

    def chat(self, requests, *args, **kw):
        return self.lm.chat(requests, *args, **kw)

    def perplexity(self, texts):
        return self.lm.perplexity(texts)

    def sentence_logprobs(self, *args, **kw):
        return self.lm.sentence_logprobs(*args, **kw)

    def __getattr__(self, name: str):  # model, tokenizer, device, ...: the built LM's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.lm, name)


__all__ = ["LazyLM"]
