"""The ``ct2`` backend of :class:`~nlgbias.lm.LM`: CTranslate2's ``Generator`` in this process,
a fast CPU engine with int8 kernels (``pip install 'nlgbias[bench]'`` or ``pip install
ctranslate2``). A spec ``ct2:<model>`` (``ct2:smollm2-135m``, a hub id or a folder; causal
models only) is converted once with CTranslate2's ``transformers`` converter into the cache
folder (``<cache>/ct2/<model>``) and run with ``compute_type`` (``int8`` default, or
``float32``; this CPU kind has no bf16 path in CTranslate2).

- ``generate_until`` / ``chat``: ``Generator.generate_batch`` on the token ids the ``hf``
  engine encodes (the tokenizer's special tokens, the control code; the chat template for
  ``chat``); stop strings and the
  first-sentence cut as in every backend. CTranslate2 seeds a *batch*, not a row: a sampled
  row's text depends on the rows batched with it (the batches of a generation run are fixed,
  so a rerun writes the same rows). Greedy decoding does not depend on the batch. Use it where
  per-row seeds do not matter; the ``hf`` engine keeps one seed per row.
- ``loglikelihood`` / ``loglikelihood_rolling``: ``Generator.score_batch`` on the same token
  ids as the ``hf`` backend (:func:`nlgbias.likelihood.causal_items`); ``greedy`` is not
  available (CTranslate2 returns no ranks).

In one process with torch, a CTranslate2 generator that has run slows torch's multi-threaded
work. Measured in one case (``benchmarks/probe_ct2_openmp.py``,
``benchmarks/results/engines_smollm2.md``): our engine decoding at 2 threads on a 2-core AMD
EPYC went from 270-352 tokens/s to 173-228 (two probes) once a generator had run, and mostly
recovered when the generator was deleted. CTranslate2's parallel regions run on torch's
libgomp, which torch loads into the global symbol scope (the dynamic linker binds
``libctranslate2``'s ``GOMP_parallel`` there; the probe shows it). Inferred, not read: its thread team then counts
among the threads that libgomp manages, beside torch's own team they exceed the CPUs, and
libgomp has every idle thread spin only briefly before it sleeps. How threads wait does not
change what they compute (tests/test_thread_policy.py).
"""

from __future__ import annotations

from pathlib import Path

from nlgbias import likelihood as L
from nlgbias.engine.decoding import DecodingParams
from nlgbias.lm.interface import (
    LM,
    BackendUnavailableError,
    Generation,
    LoglikelihoodResult,
    RollingResult,
    UnsupportedCapabilityError,
    as_requests,
    chat_requests,
    finish,
)
from nlgbias.lm.spec import LMSpec, decoding_of, parse_model_spec

__all__ = ["COMPUTE_TYPES", "CT2LM", "convert"]

COMPUTE_TYPES = ("int8", "int8_float32", "float32")
INSTALL = "the ct2 backend needs CTranslate2: pip install ctranslate2 (or 'nlgbias[bench]')"


def _ct2():
    try:
        import ctranslate2
    except ImportError as exc:
        raise BackendUnavailableError(f"{INSTALL} ({exc})") from None
    return ctranslate2


def _source_folder(name: str) -> tuple[str, object]:
    """A folder ``transformers`` loads for ``name`` (the float copy of an offline GGUF model,
    made by loading it once with the hf backend) and its registry spec."""
    from nlgbias.models import get_spec, load_model
    from nlgbias.models.registry import cache_dir

    spec = get_spec(name)
    if spec.kind != "causal":
        raise ValueError(f"the ct2 backend runs causal LMs of the registry; {name!r} is "
                         f"{spec.kind!r}")
    if spec.resource:
        folder = cache_dir(spec.name)
        if not (folder / "model.safetensors").is_file():
            load_model(spec.name, dtype=None)  # writes the float copy
        return str(folder), spec
    return spec.hub_id, spec


def convert(name: str, cache: str | Path | None = None) -> Path:
    """The CTranslate2 model of ``name`` (float32 weights; the compute type is chosen at load),
    converted once into ``<cache>/ct2/<model slug>`` (atomically: a folder that exists is
    complete)."""
    from nlgbias.io import atomic_dir
    from nlgbias.models import model_slug
    from nlgbias.paths import cache_root

    ct2 = _ct2()
    source, spec = _source_folder(name)
    out = Path(cache or cache_root()) / "ct2" / model_slug(spec.name)
    if (out / "model.bin").is_file():
        return out
    with atomic_dir(out) as tmp:
        ct2.converters.TransformersConverter(source).convert(str(tmp), force=True)
    return out


class CT2LM(LM):
    """``name``: a registry name, hub id or folder of a causal LM; ``compute_type`` one of
    :data:`COMPUTE_TYPES`; ``threads``: CTranslate2's intra-op threads (default the project's,
    :func:`nlgbias.hardware.default_threads`); ``cache``: where converted models live."""

    backend = "ct2"

    @classmethod
    def from_spec(cls, spec: LMSpec) -> CT2LM:
        lm = cls(spec.target, **spec.opts)
        lm.spec = spec
        return lm

    def __init__(self, name: str, *, compute_type: str = "int8", threads: int | None = None,
                 batch_size: int = 32, cache: str | Path | None = None):
        from transformers import AutoTokenizer

        from nlgbias.hardware import default_threads

        if compute_type not in COMPUTE_TYPES:
            raise ValueError(f"compute_type must be one of {', '.join(COMPUTE_TYPES)}, got {compute_type!r}")
        ct2 = self._ct2 = _ct2()
        source, self.entry = _source_folder(name)
        self.name, self.kind, self.batch_size = name, "causal", batch_size
        self.spec = parse_model_spec(f"ct2:{name}")
        self.compute_type = compute_type
        self.tokenizer = AutoTokenizer.from_pretrained(source)
        self.generator = ct2.Generator(str(convert(name, cache)), device="cpu", compute_type=compute_type,
                                       intra_threads=threads or default_threads())
        self.start = L.start_token_id(self.tokenizer)
        eos = self.tokenizer.eos_token_id
        self.end = [eos] if isinstance(eos, int) else list(eos or [])

    def _tokens(self, ids) -> list[str]:
        return self.tokenizer.convert_ids_to_tokens(list(ids))

    # ------------------------------------------------------------------ likelihoods
    def _score(self, prefixes, conts) -> list[tuple[float, int]]:
        seqs = [self._tokens(list(p) + list(c)) for p, c in zip(prefixes, conts)]
        out = []
        for b in range(0, len(seqs), self.batch_size):
            res = self.generator.score_batch(seqs[b:b + self.batch_size])
            for r, c in zip(res, conts[b:b + self.batch_size]):
                lp = r.log_probs[-len(c):]  # the log-probabilities of tokens 1..N
                out.append((float(sum(lp)), len(c)))
        return out

    def loglikelihood(self, requests, *, greedy: bool = False):
        if greedy:
            raise UnsupportedCapabilityError("ct2 backend: greedy flags (CTranslate2 returns no "
                                             "token ranks); use the hf backend")
        requests = [(str(c), str(x)) for c, x in requests]
        prefixes, conts = L.causal_items(self.tokenizer, [x for _, x in requests],
                                         [c for c, _ in requests], separator="")
        return [LoglikelihoodResult(s, None, n) for s, n in self._score(prefixes, conts)]

    def loglikelihood_rolling(self, texts):
        prefixes, conts = L.causal_items(self.tokenizer, [str(t) for t in texts])
        return [RollingResult(s, n) for s, n in self._score(prefixes, conts)]

    # ------------------------------------------------------------------ generation
    def _generate(self, reqs, params: DecodingParams, ids: list[list[int]]) -> list[Generation]:
        out: list[Generation] = []
        for b in range(0, len(reqs), self.batch_size):
            batch = reqs[b:b + self.batch_size]
            m = max(r.max_new_tokens or params.max_new_tokens for r in batch)
            self._ct2.set_random_seed(int(batch[0].seed) % 2 ** 31)  # one seed per batch
            res = self.generator.generate_batch(
                [self._tokens(x) for x in ids[b:b + self.batch_size]], max_length=m,
                include_prompt_in_result=False, end_token=self.end or None,
                sampling_topk=(params.top_k or 0) if params.do_sample else 1,
                sampling_topp=params.top_p if params.do_sample and params.top_p else 1.0,
                sampling_temperature=params.temperature if params.do_sample else 1.0,
                repetition_penalty=params.repetition_penalty)
            for req, r in zip(batch, res):
                new = r.sequences_ids[0][: req.max_new_tokens or params.max_new_tokens]
                reason = "eos" if len(new) < (req.max_new_tokens or params.max_new_tokens) else "length"
                text = self.tokenizer.decode(new, skip_special_tokens=True)
                out.append(finish(text, len(new), reason, req, params))
        return out

    def generate_until(self, requests, params=None):
        reqs = as_requests(requests)
        params = params if params is not None else decoding_of(self.spec)
        code = self.entry.control_code
        # as the hf engine encodes a prompt: the tokenizer's own special tokens, trailing space
        # dropped, the control code first (CTRL)
        ids = [list(self.tokenizer(f"{code} {p}" if code else p)["input_ids"] if p else [])
               or [self.start] for p in (r.prompt.rstrip() for r in reqs)]
        return self._generate(reqs, params, ids)

    def chat(self, requests, params=None):
        reqs = chat_requests(requests)
        params = params if params is not None else decoding_of(self.spec)
        if not getattr(self.tokenizer, "chat_template", None):
            raise UnsupportedCapabilityError(f"ct2 backend: {self.name!r} has no chat template")
        ids = []
        for r in reqs:
            x = self.tokenizer.apply_chat_template(list(r.prompt), add_generation_prompt=True, tokenize=True)
            ids.append(list(x["input_ids"] if hasattr(x, "keys") else x))
        return self._generate(reqs, params, ids)
