"""One language-model interface (:class:`LM`) for every metric, and its backends: ``hf`` (the
project's own engine, :mod:`~nlgbias.lm.hf_backend`), ``openai`` (any OpenAI-compatible
server, :mod:`~nlgbias.lm.openai_backend`) and ``vllm`` (:mod:`~nlgbias.lm.vllm_backend`),
chosen by one model-spec string (:func:`parse_model_spec`, :func:`get_lm`). See
:mod:`~nlgbias.lm.interface`."""

from nlgbias.lm.interface import (
    BACKENDS,
    LM,
    BackendUnavailableError,
    Generation,
    GenerationRequest,
    LoglikelihoodResult,
    ModelSpecError,
    ModelSpecString,
    RollingResult,
    UnsupportedCapabilityError,
    apply_until,
    as_requests,
    parse_model_spec,
)

__all__ = ["BACKENDS", "LM", "BackendUnavailableError", "Generation", "GenerationRequest",
           "LoglikelihoodResult", "ModelSpecError", "ModelSpecString", "RollingResult",
           "UnsupportedCapabilityError", "apply_until", "as_requests", "get_lm", "parse_model_spec"]


def get_lm(spec: str, **options) -> LM:
    """The :class:`LM` a spec string names (:func:`parse_model_spec`). ``options`` go to the
    backend: ``hf`` (:class:`~nlgbias.lm.hf_backend.HFLM`: ``device``, ``dtype``,
    ``batch_size``, ``loaded``), ``openai`` (:class:`~nlgbias.lm.openai_backend.OpenAILM`:
    ``timeout``, ``retries``, ``start_text``), ``vllm``
    (:class:`~nlgbias.lm.vllm_backend.VLLMLM`: engine arguments), ``ct2``
    (:class:`~nlgbias.lm.ct2_backend.CT2LM`: ``compute_type``, ``threads``, ``batch_size``)."""
    parsed = parse_model_spec(spec)
    if parsed.backend == "hf":
        from nlgbias.lm.hf_backend import HFLM

        return HFLM(parsed.target, **options)
    if parsed.backend == "openai":
        from nlgbias.lm.openai_backend import OpenAILM

        return OpenAILM(parsed.target, parsed.model, **options)
    if parsed.backend == "ct2":
        from nlgbias.lm.ct2_backend import CT2LM

        return CT2LM(parsed.target, **options)
    from nlgbias.lm.vllm_backend import VLLMLM

    return VLLMLM(parsed.target, **options)
