"""The openai backend against real servers started here on 127.0.0.1 (and stopped here):

- ``transformers serve`` on SmolLM2 (needs the ``serve`` extra: fastapi, uvicorn, openai):
  greedy completions and chat through the server equal the hf backend's (both float32: the
  tolerance is zero, every text identical), and loglikelihood names the capability the server
  lacks (``echo`` + ``logprobs``);
- llama.cpp's server (``llama-cpp-python[server]``, the ``llamacpp`` extra, compiled once per
  machine by ``scripts/build_wheels.sh``) on the project's own SmolLM2 GGUF: log-likelihoods
  through ``echo`` + ``logprobs``, greedy completions and chat agree with the hf backend on the
  same weights within :data:`LL_TOL` (llama.cpp quantises the activations to 8 bits against the
  Q4_1 weights; hf runs them dequantised in float32); skipped, naming the build, where the
  wheel is not installed;
- stdlib HTTP servers: one echoes the request's Authorization header back in its errors (an API
  key set in the environment never appears in an error, a repr or a log line), one refuses the
  request fields outside OpenAI's schema.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from nlgbias.generation import DecodingParams
from nlgbias.lm import GenerationRequest, UnsupportedCapabilityError, get_lm
from nlgbias.lm.openai_backend import OpenAILM, ServerError

KEY = "sk-nlgbias-test-0123456789abcdef"
PROMPTS = ["The woman worked as", "The man was known for", "My neighbour is a nurse and",
           "People who live in the city are"]
TURNS = ["I am a grandmother.", "What do you think of nurses?"]
GREEDY = DecodingParams(max_new_tokens=12, do_sample=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- keys never leak
class _EchoAuth(BaseHTTPRequestHandler):
    """Answers every request with an error whose body holds the request's headers."""

    seen: list[str] = []

    def _reply(self):
        self.seen.append(self.headers.get("Authorization", ""))
        code = 500 if self.path.endswith("/completions") else 401
        body = json.dumps({"error": f"bad request, headers were: {dict(self.headers)}"}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _reply

    def log_message(self, *args):  # quiet
        pass


def test_api_key_from_the_environment_never_appears_in_errors_reprs_or_logs(monkeypatch, caplog):
    monkeypatch.setenv("NLGBIAS_OPENAI_API_KEY", KEY)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoAuth)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    texts = []
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        caplog.set_level(logging.DEBUG)
        lm = get_lm(f"openai:{base}#m", retries=1, timeout=5)
        texts += [repr(lm), str(lm.__dict__)]
        for call in (lambda: lm.generate_until(["hi"], GREEDY), lambda: lm.chat([[{"role": "user", "content": "hi"}]]),
                     lambda: lm.loglikelihood([("a", " b")]), lambda: OpenAILM(base, timeout=5, retries=0)):
            with pytest.raises((ServerError, UnsupportedCapabilityError, ValueError)) as exc:
                call()
            texts += [str(exc.value), repr(exc.value), str(exc.value.__cause__), str(exc.value.__context__)]
        closed = OpenAILM(f"http://127.0.0.1:{_free_port()}/v1", "m", timeout=2, retries=1)
        with pytest.raises(ServerError, match="after 2 attempts") as exc:
            closed.generate_until(["hi"], GREEDY)
        texts += [str(exc.value), repr(closed)]
    finally:
        server.shutdown()
        server.server_close()
    assert _EchoAuth.seen and all(h == f"Bearer {KEY}" for h in _EchoAuth.seen)  # the key was sent
    assert "***" in " ".join(texts)  # the server's echo of it was redacted
    for t in texts + [r.getMessage() for r in caplog.records]:
        assert KEY not in t
    assert "NLGBIAS_OPENAI_API_KEY" in repr(lm)  # where the key comes from, not the key


def test_echo_logprobs_are_read_by_text_offset(monkeypatch):
    """The answer format of a server with prompt log-probabilities (OpenAI's legacy
    completions, as llama.cpp's server and vLLM give it): the continuation's tokens are those
    at or after the context's last character; the prompt's first token has none."""
    answer = {"choices": [{"text": "The nurse was kind.!", "finish_reason": "length", "logprobs": {
        "tokens": ["The", " nurse", " was", " kind", ".", "!"],
        "token_logprobs": [None, -5.0, -1.0, -2.0, -0.5, -3.0],
        "top_logprobs": [None, {" nurse": -5.0}, {" was": -1.0}, {" good": -1.5}, {".": -0.5}, {"!": -3.0}],
        "text_offset": [0, 3, 9, 13, 18, 19]}}]}
    lm = OpenAILM.__new__(OpenAILM)
    lm.base_url, lm.model, lm.start_text, lm.concurrency = "http://x/v1", "m", None, 1
    monkeypatch.setattr(lm, "_request", lambda *a, **k: answer, raising=False)
    r, = lm.loglikelihood([("The nurse", " was kind.")], greedy=True)
    assert (r.logprob, r.n_tokens, r.is_greedy) == (-3.5, 3, False)  # " kind" is not the argmax
    roll, = lm.loglikelihood_rolling(["The nurse was kind."])
    assert (roll.logprob, roll.n_tokens) == (-8.5, 4)
    lm.concurrency = 3  # requests in flight at once: answers in input order
    assert lm._map(lambda x: (time.sleep(0.01 * (5 - x)), x)[1], list(range(5))) == list(range(5))


def test_a_start_token_rendered_as_no_text_and_a_shifted_server_are_recognised(monkeypatch):
    """llama.cpp's server renders a special start token as no text (its offsets then leave it
    out), and llama-cpp-python 0.3.36 gives each prompt token the value of the next one when the
    prompt has no BOS: then the generated token has no entry, and loglikelihood refuses."""
    good = {"choices": [{"text": "<|endoftext|>The nurse was!", "logprobs": {
        "tokens": ["", "The", " nurse", " was", "!"], "token_logprobs": [None, -4.0, -5.0, -1.0, -2.0],
        "top_logprobs": [None, {"The": -4.0}, {" nurse": -5.0}, {" was": -1.0}, {"!": -2.0}],
        "text_offset": [0, 0, 3, 9, 13]}}]}
    lm = OpenAILM.__new__(OpenAILM)
    lm.base_url, lm.model, lm.start_text, lm.concurrency = "http://x/v1", "m", "<|endoftext|>", 1
    monkeypatch.setattr(lm, "_request", lambda *a, **k: good, raising=False)
    r, = lm.loglikelihood([("The nurse", " was")])
    assert (r.logprob, r.n_tokens) == (-1.0, 1)
    roll, = lm.loglikelihood_rolling(["The nurse was"])
    assert (roll.logprob, roll.n_tokens) == (-10.0, 3)
    shifted = {"choices": [{"text": "<|endoftext|>The nurse was!", "logprobs": {
        "tokens": ["", "The", " nurse", " was"], "token_logprobs": [None, -4.0, -5.0, -1.0],
        "top_logprobs": [None, {"The": -4.0}, {" nurse": -5.0}, {" was": -1.0}],
        "text_offset": [0, 0, 3, 9]}}]}
    monkeypatch.setattr(lm, "_request", lambda *a, **k: shifted, raising=False)
    with pytest.raises(UnsupportedCapabilityError, match="shifted by one token"):
        lm.loglikelihood([("The nurse", " was")])


class _StrictSchema(BaseHTTPRequestHandler):
    """A server with OpenAI's schema only: it rejects the fields vLLM and llama.cpp add."""

    bodies: list[dict] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.bodies.append(body)
        extra = [k for k in ("top_k", "min_p", "repetition_penalty", "repeat_penalty") if k in body]
        if extra:
            code, answer = 400, {"error": f"Unrecognized request arguments supplied: {', '.join(extra)}"}
        else:
            code, answer = 200, {"choices": [{"text": " a nurse. She", "finish_reason": "length"}],
                                 "usage": {"completion_tokens": 4}}
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_fields_outside_openais_schema_are_sent_and_dropped_once_where_refused_while_off():
    """Servers fill a missing field with their own default (llama.cpp: top-k 40, min-p 0.05,
    repetition penalty 1.1), so the backend sends every field; a server that refuses one that
    is off loses it for good, one that refuses one that is on is an error naming it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StrictSchema)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        lm = OpenAILM(f"http://127.0.0.1:{server.server_address[1]}/v1", "m", timeout=5, retries=0)
        first = DecodingParams(max_new_tokens=4, do_sample=False, first_sentence=True)
        assert [g.text for g in lm.generate_until(["The woman worked as"] * 2, first)] == ["a nurse."] * 2
        sent = _StrictSchema.bodies
        assert len(sent) == 3  # refused once, then two requests without the extensions
        assert {"min_p", "repeat_penalty", "repetition_penalty"} <= set(sent[0])
        assert not {"min_p", "repeat_penalty", "top_k"} & (set(sent[1]) | set(sent[2]))
        assert sent[1]["temperature"] == 0.0
        sampled = DecodingParams(max_new_tokens=4, do_sample=True, top_k=40, top_p=0.9)
        with pytest.raises(UnsupportedCapabilityError, match="rejects top_k"):
            lm.generate_until(["The woman worked as"], sampled)
        no_top_k = DecodingParams(max_new_tokens=4, do_sample=True, top_k=0, top_p=0.9)
        assert lm.generate_until(["x"], no_top_k)[0].text == "a nurse. She"
        assert _StrictSchema.bodies[-1]["top_p"] == 0.9 and "top_k" not in _StrictSchema.bodies[-1]
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- transformers serve
def _wait(url: str, proc, log: Path, limit: float = 60.0):
    t0 = time.time()
    while time.time() - t0 < limit:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode}):\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return time.time() - t0
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"the server did not answer {url} within {limit:.0f} s:\n{log.read_text()[-2000:]}")


#: the server exits when the test process is gone (even killed), never left running
_ORPHAN_GUARD = f"""import os, threading, time
_parent = {os.getpid()}
def _watch():
    while os.getppid() == _parent:
        time.sleep(1)
    os._exit(0)
threading.Thread(target=_watch, daemon=True).start()"""


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


@pytest.fixture(scope="module")
def smollm2_hf():
    from nlgbias.models import check_available
    from nlgbias.resources import ResourceNotFoundError

    try:
        check_available("smollm2-135m")
    except ResourceNotFoundError as exc:
        pytest.skip(f"SmolLM2 is not available offline: {exc}")
    return get_lm("hf:smollm2-135m", dtype="float32")  # writes the float copy the server loads


@pytest.fixture(scope="module")
def transformers_server(smollm2_hf, tmp_path_factory):
    from transformers.utils.import_utils import is_serve_available

    if not is_serve_available():
        pytest.skip("transformers serve needs fastapi, uvicorn, pydantic and openai: "
                    "pip install -e '.[serve]'")
    from nlgbias.models import cache_dir

    yield from serve_folder(str(cache_dir("smollm2-135m")), tmp_path_factory.mktemp("serve"))


def serve_folder(folder: str, logs: Path):
    """``transformers serve`` on a checkpoint ``folder`` at 127.0.0.1 (float32, CPU): yields its
    ``openai:`` spec; the server is stopped after (and exits with this process)."""
    port = _free_port()
    log = logs / "server.log"
    argv = ["transformers", "serve", folder, "--host", "127.0.0.1", "--port", str(port),
            "--device", "cpu", "--dtype", "float32", "--log-level", "warning"]
    code = (f"{_ORPHAN_GUARD}\nimport sys\nfrom transformers.cli.transformers import main\n"
            f"sys.argv = {argv!r}\nmain()")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=fh, stderr=subprocess.STDOUT, env=env)
    try:
        _wait(f"http://127.0.0.1:{port}/health", proc, log)
        yield f"openai:http://127.0.0.1:{port}/v1#{folder}"
    finally:
        _stop(proc)


@pytest.mark.slow
def test_transformers_serve_agrees_with_hf_and_names_what_it_lacks(transformers_server, smollm2_hf):
    t0 = time.time()
    served = get_lm(transformers_server, timeout=60, retries=1, concurrency=1)
    hf = smollm2_hf
    # greedy completions: the same text (both float32); a stop string and the first-sentence cut
    reqs = [GenerationRequest(p, seed=i) for i, p in enumerate(PROMPTS)]
    s_gen, h_gen = served.generate_until(reqs, GREEDY), hf.generate_until(reqs, GREEDY)
    assert [g.text for g in s_gen] == [g.text for g in h_gen]
    assert all(len(g.text.split()) >= 3 for g in s_gen)
    assert [g.n_new_tokens for g in s_gen] == [g.n_new_tokens for g in h_gen]
    first = DecodingParams(max_new_tokens=16, do_sample=False, first_sentence=True)
    stop = [GenerationRequest(PROMPTS[0], until=(",",))]
    assert served.generate_until(stop, first)[0].text == hf.generate_until(stop, first)[0].text
    # chat: the server applies the same chat template as the engine's chat format
    convs = [[{"role": "user", "content": t}] for t in TURNS]
    s_chat, h_chat = served.chat(convs, GREEDY), hf.chat(convs, GREEDY)
    assert [g.text for g in s_chat] == [g.text for g in h_chat]
    assert all(g.text and g.n_new_tokens == 12 for g in s_chat)
    # log-likelihoods: transformers serve ignores echo/logprobs -> one clear error
    with pytest.raises(UnsupportedCapabilityError, match=r"echo.*logprobs"):
        served.loglikelihood([("The woman", " worked as a nurse.")])
    with pytest.raises(UnsupportedCapabilityError, match=r"echo.*logprobs"):
        served.loglikelihood_rolling(["The woman worked as a nurse."])
    print(f"9 requests to transformers serve and the same work in-process: {time.time() - t0:.1f} s")


@pytest.mark.slow
def test_the_command_line_check_of_a_served_model(transformers_server, capsys):
    from nlgbias.lm.__main__ import main

    assert main([transformers_server, "--max-new-tokens", "4"]) == 1  # 4 requests
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("generate_until") and "unsupported" not in out[0]
    assert out[1].startswith("chat") and "unsupported" not in out[1]
    assert all("unsupported: openai backend" in line and "echo" in line for line in out[2:4])


# ---------------------------------------------------------------- llama.cpp's server
#: llama.cpp multiplies the Q4_1 weights with activations quantised to 8 bits (Q8_1) and keeps
#: its KV cache in float16; the hf backend runs the same Q4_1 weights dequantised to float32.
#: Measured on SmolLM2 here: mean per-token log-probabilities of a continuation differ by at most
#: 0.064 nats (0.02-0.06 over 6 texts); LL_TOL leaves twice that. Greedy decoding follows the same
#: path until a near-tie: 2 of 4 completions and 1 of 2 chat replies were identical, the others
#: parted after 2-5 words ("a nurse, but..." / "a nurse in a hospital...").
LL_TOL = 0.15
# two greedy paths over the same weights may part only where the two next tokens are this close
# in the in-process model's log-probabilities (measured with llama.cpp's AVX2 kernels on the
# SmolLM2 GGUF: three of six texts part, at gaps of 0.014-0.052 nats)
NEAR_TIE = LL_TOL


def _parting_gap(lm, head: str, a: str, b: str) -> float | None:
    """Where the texts ``head + a`` and ``head + b`` first differ by token, the in-process model's
    log-probability of ``b``'s token there minus that of ``a``'s, as greedy decoding computes them
    (the head's tokens as they are, no start token before them); None when one text's tokens are
    a prefix of the other's."""
    import torch

    tok, model = lm.lm.tokenizer, lm.lm.model
    ta, tb = (tok(head + t, add_special_tokens=False)["input_ids"] for t in (a, b))
    k = next((i for i, (x, y) in enumerate(zip(ta, tb)) if x != y), None)
    if k is None:
        return None
    with torch.inference_mode():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ta[:k]])).logits[0, -1].float(), -1)
    return float(logp[tb[k]] - logp[ta[k]])


LL_PAIRS = [("The woman worked as", " a nurse."), ("The man was known for", " his films."),
            ("My neighbour is a nurse and", " she is very kind."),
            ("People who live in the city are", " always in a hurry.")]
ROLLING = ["The woman worked as a nurse.", "I am a grandmother and I love to knit."]


def _llama_missing() -> str | None:
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return ("llama-cpp-python is not installed: it compiles from its sdist (~20 min on 2 cores); "
                "scripts/build_wheels.sh builds it once per machine into ~/.cache/nlgbias-wheels "
                "and installs it with the server extra")
    if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("sse_starlette") is None:
        return "llama.cpp's server needs its extra: pip install 'nlgbias[llamacpp]'"
    return None


@pytest.fixture(scope="module")
def llama_server(smollm2_hf, tmp_path_factory):
    missing = _llama_missing()
    if missing:
        pytest.skip(missing)
    from nlgbias.hardware import default_threads
    from nlgbias.models import get_spec
    from nlgbias.resources import resolve

    spec = get_spec("smollm2-135m")
    gguf = Path(resolve(spec.resource)) / spec.gguf_file
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    threads = str(default_threads())
    argv = ["llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port),
            "--n_ctx", "1024", "--logits_all", "true", "--model_alias", "smollm2", "--seed", "0",
            "--n_threads", threads, "--n_threads_batch", threads]
    code = (f"{_ORPHAN_GUARD}\nimport runpy, sys\nsys.argv = {argv!r}\n"
            "runpy.run_module('llama_cpp.server', run_name='__main__')")
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=fh, stderr=subprocess.STDOUT)
    try:
        _wait(f"http://127.0.0.1:{port}/v1/models", proc, log)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        _stop(proc)


@pytest.mark.slow
def test_llama_cpp_server_agrees_with_hf_on_the_gguf(llama_server, smollm2_hf):
    """Log-likelihoods (echo + logprobs), greedy completions and chat through llama.cpp's server
    against the hf backend on the same GGUF weights, within :data:`LL_TOL`."""
    t0 = time.time()
    served = get_lm(f"openai:{llama_server}", timeout=60, retries=1, start_text="<|endoftext|>")
    assert served.model == "smollm2"  # the only model the server lists
    hf = smollm2_hf
    # log p(continuation | context): the same tokens, each within LL_TOL nats on average
    got, ref = served.loglikelihood(LL_PAIRS, greedy=True), hf.loglikelihood(LL_PAIRS, greedy=True)
    for g, r in zip(got, ref):
        assert g.n_tokens == r.n_tokens
        assert abs(g.logprob - r.logprob) / r.n_tokens < LL_TOL, (g, r)
        assert g.is_greedy == r.is_greedy
    # rolling: with the hf backend's start token first, every token is scored by both
    got_r, ref_r = served.loglikelihood_rolling(ROLLING), hf.loglikelihood_rolling(ROLLING)
    for g, r in zip(got_r, ref_r):
        assert g.n_tokens == r.n_tokens
        assert abs(g.logprob - r.logprob) / r.n_tokens < LL_TOL, (g, r)
    # greedy completions and chat replies: half of them the same text, and where the two part,
    # they part at a near-tie: hf's own log-probabilities of the two next tokens are within
    # NEAR_TIE nats (two computations of the same weights choose differently only there); all
    # 12 tokens
    reqs = [GenerationRequest(p, seed=i) for i, p in enumerate(PROMPTS)]
    convs = [[{"role": "user", "content": t}] for t in TURNS]
    template = hf.lm.tokenizer.apply_chat_template
    # a completion's text is given without its leading space
    heads = [*(p + " " for p in PROMPTS),
             *(template(c, tokenize=False, add_generation_prompt=True) for c in convs)]
    outs = [*zip(served.generate_until(reqs, GREEDY), hf.generate_until(reqs, GREEDY)),
            *zip(served.chat(convs, GREEDY), hf.chat(convs, GREEDY))]
    for part in (outs[:len(PROMPTS)], outs[len(PROMPTS):]):
        assert 2 * sum(a.text == b.text for a, b in part) >= len(part), part
    assert all(a.n_new_tokens == b.n_new_tokens == GREEDY.max_new_tokens for a, b in outs)
    for head, (a, b) in zip(heads, outs):
        if a.text != b.text:
            gap = _parting_gap(hf, head, a.text, b.text)
            assert gap is None or gap < NEAR_TIE, (head, a.text, b.text, gap)
    print(f"llama.cpp server vs hf on the SmolLM2 GGUF: {time.time() - t0:.1f} s")


@pytest.mark.slow
def test_llama_cpp_server_scores_crows_pairs_stereoset_and_perplexity_as_hf_does(
        llama_server, smollm2_hf, tmp_path):
    """Every likelihood metric through llama.cpp's server (per-token log-probabilities from
    ``echo`` + ``logprobs``, the hf backend's start token sent first) against the hf backend on
    the same GGUF weights: CrowS-Pairs' total and shared-tokens scores, StereoSet's CAT scores and
    HolisticBias perplexities score the SAME tokens, each within :data:`LL_TOL` nats per token."""
    import numpy as np
    import pandas as pd

    from nlgbias.datasets.crows_pairs import load_crows_pairs
    from nlgbias.holistic.responses import score_perplexity
    from nlgbias.lm import parse_model_spec
    from nlgbias.stereoset import crows_pairs as C
    from nlgbias.stereoset.lm import CATScorer

    spec = parse_model_spec(f"openai:{llama_server}",
                            model_args="timeout=60,retries=1,start_text=<|endoftext|>")
    served, hf = get_lm(spec), smollm2_hf
    pairs = load_crows_pairs().sample(n=30, random_state=0)
    texts = [t for p in pairs[["sent_more", "sent_less"]].itertuples(index=False) for t in p]
    # the same tokens: as many per text, and the shared positions alike
    tl_s, tl_h = served.token_logprobs(texts), hf.token_logprobs(texts)
    assert [len(t.logprobs) for t in tl_s] == [len(t.logprobs) for t in tl_h]
    for k in range(0, len(texts), 2):
        assert C.shared_positions(tl_s[k].tokens, tl_s[k + 1].tokens) == \
            C.shared_positions(tl_h[k].tokens, tl_h[k + 1].tokens), texts[k:k + 2]
    s = C.pair_scores(served, pairs, tmp_path / "served")
    h = C.pair_scores(hf, pairs, tmp_path / "hf")
    n_tok = np.array([len(t.logprobs) for t in tl_h]).reshape(-1, 2)
    for col, n in (("sent_more_score", n_tok[:, 0]), ("sent_less_score", n_tok[:, 1])):
        per_token = np.abs(s[col].to_numpy() - h[col].to_numpy()) / n
        assert per_token.max() < LL_TOL, (col, per_token.max())
    agree = {v: float(np.mean((s[f"sent_more_{v}"] > s[f"sent_less_{v}"]) ==
                              (h[f"sent_more_{v}"] > h[f"sent_less_{v}"]))) for v in ("score", "shared")}
    # measured here on 30 pairs: the total score decides 29 of 30 pairs alike, the shared-tokens
    # score all 30; the largest per-token difference 0.068 nats
    assert min(agree.values()) >= 0.9, agree
    assert s["scoring_shared"].iloc[0] == h["scoring_shared"].iloc[0] != ""
    # StereoSet: intrasentence (whole sentences) and intersentence (after a context)
    sents = pd.DataFrame({"id": list("abcd"), "cat_id": ["x", "x", "y", "y"],
                          "task": ["intrasentence"] * 2 + ["intersentence"] * 2,
                          "context": ["The nurse is BLANK.", "The nurse is BLANK.",
                                      "He is a nurse.", "He is a nurse."],
                          "sentence": ["The nurse is caring.", "The nurse is rude.",
                                       "He is very caring.", "He likes football."]})
    cs, ch = CATScorer(served).score(sents), CATScorer(hf).score(sents)
    assert list(cs["n_tokens"]) == list(ch["n_tokens"])
    assert np.abs(cs["mean_logprob"] - ch["mean_logprob"]).max() < LL_TOL
    # perplexity (HolisticBias): log-perplexity within LL_TOL
    ppl = pd.DataFrame({"text": ROLLING + ["I'm a deaf grandmother.", "I have a friend who is blind."]})
    ps = score_perplexity(ppl, spec, tmp_path / "p1", lm=served, progress=False)
    ph = score_perplexity(ppl, "smollm2-135m", tmp_path / "p2", lm=hf, progress=False)
    assert list(ps["n_tokens"]) == list(ph["n_tokens"])
    assert np.abs(np.log(ps["perplexity"]) - np.log(ph["perplexity"])).max() < LL_TOL
    print(f"llama.cpp server vs hf, CrowS-Pairs ({len(pairs)} pairs): decisions agree on "
          f"{agree}; largest per-token difference "
          f"{max(np.abs(s[c] - h[c]).div(n_tok[:, i]).max() for i, c in enumerate(['sent_more_score', 'sent_less_score'])):.3f} nats")


@pytest.mark.slow
def test_an_audit_of_a_served_model_does_what_the_server_can_and_says_what_it_skipped(
        llama_server, transformers_server, tmp_path):
    """``nlgbias audit`` on a model behind a server: llama.cpp's (prompt log-probabilities)
    runs CrowS-Pairs with both scores; transformers serve (none) skips it, saying why."""
    import json

    from nlgbias.cli import main

    out = tmp_path / "llama"
    assert main(["audit", "--model", f"openai:{llama_server}#smollm2", "--model-args",
                 "start_text=<|endoftext|>,timeout=60", "--suites", "crows", "--size", "smoke",
                 "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    rows = {r["metric"]: r for r in doc["suites"]["crows"]["metrics"]}
    assert set(rows) == {"crows (total)", "crows (shared tokens)"} and rows["crows (total)"]["model"]["n"] == 40
    assert doc["models"]["model"]["start_token"] == "served: start_text '<|endoftext|>'"
    assert "127.0.0.1" in doc["models"]["model"]["spec"] and doc["models"]["model"]["backend"] == "openai"
    out = tmp_path / "serve"
    assert main(["audit", "--model", transformers_server, "--suites", "stereoset,crows",
                 "--size", "smoke", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    for suite in ("stereoset", "crows"):
        assert "echo" in doc["suites"][suite]["skipped"], doc["suites"][suite]
    assert "skipped" in (out / "index.html").read_text()


def test_a_server_that_is_gone_is_not_read_as_lacking_a_capability():
    """A refused connection is no answer: asking for prompt log-probabilities raises the
    connection's ServerError (the audit stops and says so), never the 'server refused'
    UnsupportedCapabilityError a suite would be skipped on."""
    lm = get_lm("openai:http://127.0.0.1:9/v1#m", retries=0, timeout=2)
    with pytest.raises(ServerError) as exc:
        lm._echo("The man worked as")
    assert not exc.value.answered and "failed" in str(exc.value)
