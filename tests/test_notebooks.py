"""Execute every notebook in the `smoke` profile with papermill, each on its own.

Every notebook runs in a fresh project root (a temporary folder) so no stale output can pass
for a new one. What a notebook reads from earlier notebooks (``nlgbias.outputs``' ``needs``)
is provided by a session fixture that runs those notebooks first, once, in the same root.
After a run, every output the notebook declares in :mod:`nlgbias.outputs` must exist, be
non-empty and have its declared columns.
"""

from __future__ import annotations

import pytest

from nlgbias import outputs, runner
from nlgbias.paths import paths_for

NOTEBOOKS = runner.notebooks()
BY_NAME = {p.stem: p for p in NOTEBOOKS}


@pytest.fixture(scope="session")
def smoke_root(tmp_path_factory):
    """A fresh project root for the smoke runs, and a runner that executes a notebook once
    (after the notebooks it needs)."""
    root = tmp_path_factory.mktemp("smoke_root")
    done: dict[str, object] = {}

    def run(name: str):
        if name not in done:
            for dep in outputs.get(name).needs:
                run(dep)
            done[name] = runner.execute(BY_NAME[name], "smoke", root / "executed",
                                        {"root": str(root)})
        return done[name]

    return root, run


@pytest.mark.notebooks
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_smoke_and_writes_its_declared_outputs(nb, smoke_root):
    root, run = smoke_root
    executed = run(nb.stem)
    assert executed.exists()
    problems = outputs.check(outputs.get(nb.stem), paths_for("smoke", root))
    assert not problems, "\n".join(problems)


def test_every_notebook_declares_its_outputs():
    for nb in NOTEBOOKS:
        out = outputs.get(nb.stem)
        assert out.tables or out.figures or out.data, nb.stem
        assert all(d in BY_NAME for d in out.needs), (nb.stem, out.needs)


def _takes_models(nb) -> bool:
    import nbformat

    cells = nbformat.read(nb, as_version=4).cells
    params = next((c for c in cells if "parameters" in c.metadata.get("tags", [])), None)
    return params is not None and any(line.startswith("models =") for line in params.source.splitlines())


MODEL_NOTEBOOKS = [p for p in NOTEBOOKS if _takes_models(p)]


@pytest.fixture(scope="session")
def folder_model(tmp_path_factory):
    """A tiny random causal LM saved as a local checkpoint folder whose path has a space and
    several levels, with a chat template (as a user's fine-tuned checkpoint would have)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("user") / "checkpoints" / "my model"
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


@pytest.mark.notebooks
@pytest.mark.parametrize("nb", MODEL_NOTEBOOKS, ids=[p.stem for p in MODEL_NOTEBOOKS])
def test_notebook_runs_with_a_local_folder_model(nb, folder_model, tmp_path):
    """Adapting a notebook to one's own checkpoint: ``-p models '["/path/to/folder"]'`` runs,
    and no output file name or table label carries the folder's path."""
    params = {"root": str(tmp_path), "models": [str(folder_model)]}
    for dep in outputs.get(nb.stem).needs:
        dep_nb = BY_NAME[dep]
        runner.execute(dep_nb, "smoke", tmp_path / "executed",
                       params if dep_nb in MODEL_NOTEBOOKS else {"root": str(tmp_path)})
    runner.execute(nb, "smoke", tmp_path / "executed", params)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not [p for p in written if "my model" in p.name or "checkpoints" in str(p.relative_to(tmp_path))]
    for table in (tmp_path / "results" / "smoke").glob("*.csv"):
        assert str(folder_model) not in table.read_text(encoding="utf-8"), table.name
