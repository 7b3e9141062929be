"""Correct llama-cpp-python's prompt log-probabilities (``echo`` + ``logprobs``) for models whose
prompt has no BOS token (``tokenizer.ggml.add_bos_token`` false, e.g. SmolLM2): 0.3.36 pairs
prompt token i with the distribution AFTER it (row i of the logits) instead of the one before it
(row i - 1), so every value is off by one token. With a BOS token first the rows line up (the BOS
is dropped from the tokens). This inserts one row in front when no BOS was dropped, so token i
gets row i - 1 (the first token's value is None either way). Idempotent; run by
scripts/build_wheels.sh on the installed package: ``python scripts/patch_llama_cpp.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

OLD = "            all_logprobs = Llama.logits_to_logprobs(self._scores)[token_offset:]\n"
NEW = OLD + (
    "            if echo and not (prompt_tokens and prompt_tokens[0] == self.token_bos()):\n"
    "                # nlgbias: token i's value comes from the row before it (no BOS dropped)\n"
    "                all_logprobs = np.concatenate([all_logprobs[:1] * 0.0, all_logprobs])\n")


def main() -> int:
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        print("llama_cpp is not installed", file=sys.stderr)
        return 1
    path = Path(spec.submodule_search_locations[0]) / "llama.py"
    text = path.read_text()
    if NEW in text:
        print(f"{path}: already corrected")
        return 0
    if text.count(OLD) != 1:
        print(f"{path}: the line to correct is not there (another llama-cpp-python version?)",
              file=sys.stderr)
        return 1
    path.write_text(text.replace(OLD, NEW))
    print(f"{path}: echo log-probabilities corrected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
