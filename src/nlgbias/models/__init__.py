"""One model registry: offline GGUF models, Hugging Face hub ids, local checkpoint folders and
the WIKI baseline (see :mod:`nlgbias.models.registry`)."""

from nlgbias.models.registry import (
    GPT2_DECODING,
    MODELS,
    LoadedModel,
    ModelSpec,
    UnknownModelError,
    check_available,
    get_spec,
    load_model,
)

__all__ = ["GPT2_DECODING", "MODELS", "LoadedModel", "ModelSpec", "UnknownModelError", "check_available",
           "get_spec", "load_model"]
