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
           "LMSpec", "LoglikelihoodResult", "ModelSpecError", "Option", "RollingResult",
           "TokenLogprobs", "check_spec", "parse_models", "UnsupportedCapabilityError", "apply_until", "as_requests",
           "decoding_of", "get_lm", "kind_of", "model_source", "parse_model_args", "parse_model_spec", "register_backend"]


def get_lm(spec: "str | LMSpec", **options) -> LM:
    """The :class:`LM` of ``spec`` (a spec string is parsed here, once; an :class:`LMSpec` is
    used as given), built by the backend the registry names (:data:`BACKENDS`) from the spec
    with ``options`` added (validated against the backend's declared options; see
    ``python -m nlgbias.lm --options``)."""
    parsed = parse_model_spec(spec, **options)
    return parsed.info.load().from_spec(parsed)
