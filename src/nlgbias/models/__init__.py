"""Models: one registry (names, kinds, file names; :mod:`~nlgbias.models.registry`) and one
loader (:mod:`~nlgbias.models.loading`). The language-model interface over them, with its
``hf``, ``openai`` and ``vllm`` backends, is :mod:`nlgbias.lm` (one layer up)."""

from nlgbias.models.loading import LoadedModel, load_model
from nlgbias.models.registry import (
    GPT2_DECODING,
    KIND_PREFIXES,
    KINDS,
    MODELS,
    Kind,
    KindUnknownOfflineError,
    ModelKindError,
    ModelSpec,
    UnknownModelError,
    cache_dir,
    check_available,
    display_name,
    get_spec,
    infer_kind,
    kind_of_config,
    model_slug,
    offline_models,
)

__all__ = ["GPT2_DECODING", "KINDS", "KIND_PREFIXES", "MODELS", "Kind", "KindUnknownOfflineError",
           "LoadedModel", "ModelKindError", "ModelSpec", "UnknownModelError", "cache_dir",
           "check_available", "display_name", "get_spec", "infer_kind", "kind_of_config",
           "load_model", "model_slug", "offline_models"]
