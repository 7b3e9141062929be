"""Models: one registry (names, kinds, file names; :mod:`~nlgbias.models.registry`) and one
loader (:mod:`~nlgbias.models.loading`)."""

from nlgbias.models.loading import LoadedModel, load_model
from nlgbias.models.registry import (
    GPT2_DECODING,
    KINDS,
    MODELS,
    Kind,
    ModelSpec,
    UnknownModelError,
    cache_dir,
    check_available,
    display_name,
    get_spec,
    infer_kind,
    model_slug,
    offline_models,
)

__all__ = ["GPT2_DECODING", "KINDS", "MODELS", "Kind", "LoadedModel", "ModelSpec",
           "UnknownModelError", "cache_dir", "check_available", "display_name", "get_spec",
           "infer_kind", "load_model", "model_slug", "offline_models"]
