"""The notebook chain the notebook tier runs: each notebook once per project root, after the
notebooks whose files it reads (``nlgbias.outputs``' ``needs``). conftest's ``smoke_root`` and
``folder_root`` fixtures hold the one root of the whole session: each notebook runs once, those
that take models with the smoke profile's models and a local checkpoint folder."""

from __future__ import annotations

from pathlib import Path

from nlgbias import outputs, profiles, runner

NOTEBOOKS = runner.notebooks()
BY_NAME = {p.stem: p for p in NOTEBOOKS}


def takes_models(nb: Path) -> bool:
    """Whether a notebook's parameters cell has a ``models`` parameter."""
    import nbformat

    cells = nbformat.read(nb, as_version=4).cells
    params = next((c for c in cells if "parameters" in c.metadata.get("tags", [])), None)
    return params is not None and any(line.startswith("models =") for line in params.source.splitlines())


MODEL_NOTEBOOKS = [p for p in NOTEBOOKS if takes_models(p)]


def chain(root: Path, models: list[str] | None = None, extra_models: list[str] | None = None):
    """A function running notebook ``name`` (smoke profile) once in ``root``, after the notebooks
    it needs; with ``models``, every notebook that takes models gets them; with
    ``extra_models``, it gets the smoke profile's models and these. Returns the executed copy;
    ``run.params(name)`` gives the parameters a notebook ran with."""
    done: dict[str, Path] = {}
    given: dict[str, dict] = {}

    def params(name: str) -> dict:
        nb = BY_NAME[name]
        out = {"root": str(root)}
        if nb in MODEL_NOTEBOOKS and models is not None:
            out["models"] = list(models)
        elif nb in MODEL_NOTEBOOKS and extra_models:
            default = profiles.study(name)["models"].default_for("smoke")
            if default is not None:  # None: every model whose files are there, the extra ones too
                out["models"] = default + list(extra_models)
        return out

    def run(name: str) -> Path:
        if name not in done:
            for dep in outputs.get(name).needs:
                run(dep)
            given[name] = params(name)
            done[name] = runner.execute(BY_NAME[name], "smoke", root / "executed", given[name])
        return done[name]

    run.params = params
    return run


def save_folder_model(folder: Path) -> Path:
    """A tiny random causal LM saved as a local checkpoint folder with a chat template (as a
    user's fine-tuned checkpoint would have)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = ("<eos> the a an man woman he she they is was are worked as known for . , ! ? "
             "I you love hate person people good bad XYZ").split()
    vocab = {w: i for i, w in enumerate(words)}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<eos>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<eos>")
    tok.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=256, n_embd=16, n_layer=1,
                               n_head=2)).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
