"""One language-model interface (:class:`LM`) for every metric, its backends in a registry
(:data:`BACKENDS`, :func:`register_backend`: ``hf`` in this process, ``openai`` for any
OpenAI-compatible server, ``vllm``, ``ct2``) and one typed model spec (:class:`LMSpec`,
parsed once by :func:`parse_model_spec`). See :mod:`~nlgbias.lm.interface` and
:mod:`~nlgbias.lm.spec`."""

from nlgbias.lm.interface import (
    LM,
    BackendUnavailableError,
    Generation,
    GenerationRequest,
    LoglikelihoodResult,
    RollingResult,
    TokenLogprobs,
    UnsupportedCapabilityError,
    apply_until,
    as_requests,
)
from nlgbias.lm.spec import (
    BACKENDS,
    Backend,
    LMSpec,
    ModelSpecError,
    Option,
    check_spec,
    decoding_of,
    kind_of,
    model_source,
    parse_model_args,
    parse_model_spec,
    parse_models,
    register_backend,
)

__all__ = ["BACKENDS", "LM", "Backend", "BackendUnavailableError", "Generation", "GenerationRequest",
           "LMSpec", "LazyLM", "LoglikelihoodResult", "ModelSpecError", "Option", "RollingResult",
           "TokenLogprobs", "check_spec", "parse_models", "UnsupportedCapabilityError", "apply_until", "as_requests",
           "decoding_of", "get_lm", "kind_of", "missing_capability", "model_source", "parse_model_args", "parse_model_spec", "register_backend"]


def get_lm(spec: "str | LMSpec", **options) -> LM:
    """The :class:`LM` of ``spec`` (a spec string is parsed here, once; an :class:`LMSpec` is
    used as given), built by the backend the registry names (:data:`BACKENDS`) from the spec
    with ``options`` added (validated against the backend's declared options; see
    ``python -m nlgbias.lm --options``)."""
    parsed = parse_model_spec(spec, **options)
    return parsed.info.load().from_spec(parsed)


#: a tiny request per capability a notebook may need (what :func:`missing_capability` tries)
_PROBES = {
    "loglikelihood": lambda lm: lm.loglikelihood([("The man", " was a nurse.")]),
    "token_logprobs": lambda lm: lm.token_logprobs(["The man was a nurse."]),
    "generate_until": lambda lm: lm.generate_until(["The man was"]),
}


def missing_capability(spec: "str | LMSpec", capability: str) -> str | None:
    """None when the model of ``spec`` can do ``capability`` (a key of ``_PROBES``), else the
    backend's own message saying what it lacks. A model in this process is asked nothing (its
    kind decides); a model behind another backend answers one tiny request."""
    if capability not in _PROBES:
        raise ValueError(f"unknown capability {capability!r}; known: {', '.join(_PROBES)}")
    spec = parse_model_spec(spec)
    if spec.local_weights:
        kind = kind_of(spec)
        ok = kind in ("causal", "masked") or capability == "generate_until"
        return None if ok else f"a {kind} model has no {capability}"
    lm = get_lm(spec)
    try:
        _PROBES[capability](lm)
    except UnsupportedCapabilityError as exc:
        return str(exc)
    finally:
        lm.close()
    return None


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

