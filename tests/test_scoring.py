"""The shared cached scoring loop (nlgbias.scoring): resume, dedup, order, errors."""

import doctest

import pandas as pd
import pytest

from nlgbias import scoring
from nlgbias.scoring import row_keys, score_texts


def _frame():
    return pd.DataFrame({"group": ["a", "b", "a", "c", "b"],
                         "text": ["one", "three", "one", "four", "sixsix"]},
                        index=[10, 11, 12, 13, 14])


def _count(calls):
    def fn(chunk):
        calls.append(list(chunk["text"]))
        return pd.DataFrame({"n_chars": chunk["text"].str.len().to_numpy(),
                             "upper": chunk["text"].str.upper().to_numpy()}, index=chunk.index[::-1])
    return fn


def test_scores_in_input_order_and_keeps_index(tmp_path):
    calls = []
    out = score_texts(_frame(), ["group", "text"], _count(calls), tmp_path, chunk_size=2,
                      progress=False)
    assert out.index.tolist() == [10, 11, 12, 13, 14]
    assert out["n_chars"].tolist() == [3, 5, 3, 4, 6]
    assert out["upper"].tolist() == ["ONE", "THREE", "ONE", "FOUR", "SIXSIX"]
    # the duplicate row (a, one) is scored once; 4 distinct keys in chunks of 2
    assert calls == [["one", "three"], ["four", "sixsix"]]
    assert out.attrs["scoring"] == {"rows": 5, "distinct": 4, "cached": 0, "scored now": 4,
                                    "seconds": out.attrs["scoring"]["seconds"]}
    assert len(list(tmp_path.glob("shard-*.parquet"))) == 2


def test_resume_scores_only_new_rows(tmp_path):
    calls = []
    score_texts(_frame().iloc[:2], ["group", "text"], _count(calls), tmp_path, progress=False)
    calls.clear()
    out = score_texts(_frame(), ["group", "text"], _count(calls), tmp_path, progress=False)
    assert calls == [["four", "sixsix"]]
    assert out.attrs["scoring"]["cached"] == 2 and out.attrs["scoring"]["scored now"] == 2
    assert out["n_chars"].tolist() == [3, 5, 3, 4, 6]


def test_interrupted_run_keeps_finished_chunks(tmp_path):
    def boom_on_second(chunk, seen=[]):  # noqa: B006 - counts calls across the run
        seen.append(1)
        if len(seen) == 2:
            raise RuntimeError("killed")
        return pd.DataFrame({"n_chars": chunk["text"].str.len().to_numpy()})

    with pytest.raises(RuntimeError):
        score_texts(_frame(), "text", boom_on_second, tmp_path, chunk_size=1, progress=False)
    calls = []
    out = score_texts(_frame(), "text", _count(calls), tmp_path, chunk_size=10, progress=False)
    assert calls == [["three", "four", "sixsix"]]  # "one" survived the crash
    assert out["n_chars"].tolist() == [3, 5, 3, 4, 6]


def test_key_column_given_by_name(tmp_path):
    frame = _frame().assign(id=["k1", "k2", "k1", "k3", "k4"])
    out = score_texts(frame, "id", lambda c: pd.DataFrame({"x": range(len(c))}), tmp_path,
                      progress=False)
    assert out["x"].tolist() == [0, 1, 0, 2, 3]
    assert "key" not in out.columns


def test_row_keys_stable_and_distinct():
    f = _frame()
    k = row_keys(f, ["group", "text"])
    assert k[10] == k[12] and k.nunique() == 4
    assert k[10] == row_keys(f.iloc[[0]], ["group", "text"])[10]  # independent of the rest
    assert len(k[10]) == 20


def test_bad_inputs_name_the_problem(tmp_path):
    with pytest.raises(KeyError, match="nope"):
        score_texts(_frame(), "nope", _count([]), tmp_path)
    with pytest.raises(ValueError, match="2 rows"):
        score_texts(_frame().iloc[:3], "text", lambda c: pd.DataFrame({"x": [1]}), tmp_path,
                    progress=False)
    with pytest.raises(ValueError, match="chunk_size"):
        score_texts(_frame(), "text", _count([]), tmp_path, chunk_size=0)


def _mates(calls):
    """A score that depends on the chunk it is scored in (like a language model's padded bf16
    batch): the text's length plus 100 x the longest text of its chunk."""
    def fn(chunk):
        calls.append(list(chunk["text"]))
        n = chunk["text"].str.len()
        return pd.DataFrame({"score": (n + 100 * n.max()).to_numpy()})
    return fn


def test_batch_dependent_scores_never_mix_chunks_of_other_frames(tmp_path):
    a = pd.DataFrame({"text": ["aa", "bbbbbb", "c", "dddd"]})
    b = pd.DataFrame({"text": ["c", "dddd", "ee"]})  # overlaps a, chunked differently
    warm, cold = tmp_path / "warm", tmp_path / "cold"
    score_texts(a, "text", _mates([]), warm, chunk_size=2, progress=False, batch_dependent=True)
    calls = []
    got = score_texts(b, "text", _mates(calls), warm, chunk_size=2, progress=False, batch_dependent=True)
    want = score_texts(b, "text", _mates([]), cold, chunk_size=2, progress=False, batch_dependent=True)
    # b's chunks are [c, dddd] (a's second chunk: reused) and [ee] (scored)
    assert calls == [["ee"]]
    assert got["score"].tolist() == want["score"].tolist() == [401, 404, 202]
    # by key (the default) b's "ee" alone is scored, and "c" keeps a's chunk-mates' number
    byrow = score_texts(pd.DataFrame({"text": ["c", "ee"]}), "text", _mates([]), warm,
                        chunk_size=2, progress=False)
    assert byrow["score"].tolist() == [401, 202]
    fresh = score_texts(pd.DataFrame({"text": ["c", "ee"]}), "text", _mates([]), tmp_path / "f",
                        chunk_size=2, progress=False, batch_dependent=True)
    assert fresh["score"].tolist() == [201, 202]


def test_batch_dependent_resume_equals_uninterrupted(tmp_path):
    frame = pd.DataFrame({"text": ["a", "bbb", "cc", "dddd", "e"]})
    once = score_texts(frame, "text", _mates([]), tmp_path / "once", chunk_size=2, progress=False,
                       batch_dependent=True)
    calls = []

    def dies(chunk):
        if calls:
            raise KeyboardInterrupt
        return _mates(calls)(chunk)
    with pytest.raises(KeyboardInterrupt):
        score_texts(frame, "text", dies, tmp_path / "r", chunk_size=2, progress=False, batch_dependent=True)
    calls2 = []
    again = score_texts(frame, "text", _mates(calls2), tmp_path / "r", chunk_size=2, progress=False,
                        batch_dependent=True)
    assert calls2 == [["cc", "dddd"], ["e"]]
    assert again["score"].tolist() == once["score"].tolist() == [301, 303, 402, 404, 101]
    assert again.attrs["scoring"]["cached"] == 2
    warm = score_texts(frame, "text", _mates([]), tmp_path / "r", chunk_size=2, progress=False,
                       batch_dependent=True)
    assert warm.attrs["scoring"]["scored now"] == 0
    assert warm["score"].tolist() == once["score"].tolist()


def test_doctests():
    assert doctest.testmod(scoring).failed == 0
