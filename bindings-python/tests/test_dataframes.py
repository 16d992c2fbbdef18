"""Batches at DataFrame scale: Arrow, NumPy, pandas and Polars inputs give the answers of the list
API, with no Python object per key, and Arrow answers keep nulls."""

from __future__ import annotations

from typing import Any, List

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import hrwhash
import hrwhash.polars  # noqa: F401  (registers the hrw namespace)
from hrwhash import Placement

NODES = [f"node-{i}" for i in range(37)]
KEYS: List[str] = [f"key-{i}" for i in range(5000)] + ["", "ключ", "🔑", "a\x00b"]


@pytest.fixture(scope="module")
def placement() -> "Placement[str]":
    return Placement(NODES, weights=[1 + (i % 4) for i in range(len(NODES))])


def arrow_inputs() -> List[Any]:
    raw = [k.encode() for k in KEYS]
    return [
        pa.array(KEYS),
        pa.array(KEYS, pa.large_string()),
        pa.array(KEYS, pa.string_view()),
        pa.array(raw, pa.binary()),
        pa.array(raw, pa.large_binary()),
        pa.array(raw, pa.binary_view()),
        pa.chunked_array([KEYS[:7], KEYS[7:2000], [], KEYS[2000:]]),
        pa.array(KEYS).dictionary_encode(),
        pa.RecordBatchReader.from_batches(
            pa.schema([("k", pa.string())]),
            [pa.record_batch([pa.array(KEYS[:100])], names=["k"])],
        ),
    ]


@pytest.mark.parametrize("index", range(9))
def test_every_arrow_layout_gives_the_list_answers(placement: "Placement[str]", index: int) -> None:
    keys = arrow_inputs()[index]
    want = placement.owners(KEYS)
    if isinstance(keys, pa.RecordBatchReader):
        # A stream of record batches is read through its one column.
        keys = pa.chunked_array(keys.read_all().column(0))
        want = want[:100]
    assert placement.owners(keys) == want
    assert pa.array(placement.owners_arrow(keys)).dictionary_decode().to_pylist() == want
    got = pa.array(placement.owner_indices(keys)).to_pylist()
    assert [placement.nodes[i] for i in got] == want


def test_owners_arrow_is_a_dictionary_of_the_node_ids(placement: "Placement[str]") -> None:
    out = pa.array(placement.owners_arrow(pa.array(KEYS)))
    assert out.type == pa.dictionary(pa.uint32(), pa.string())
    assert out.dictionary.to_pylist() == NODES
    mixed: "Placement[Any]" = Placement(["a", b"b\xff"])
    out = pa.array(mixed.owners_arrow(pa.array(["x", "y"])))
    assert out.type.value_type == pa.binary()


def test_arrow_answers_keep_nulls_and_lists_refuse_them(placement: "Placement[str]") -> None:
    keys = pa.array(["a", None, "c", None])
    out = pa.array(placement.owners_arrow(keys)).dictionary_decode().to_pylist()
    assert out == [placement.owner("a"), None, placement.owner("c"), None]
    assert pa.array(placement.owner_indices(keys)).null_count == 2
    ranked = pa.array(placement.rank_many_arrow(keys, 3)).to_pylist()
    assert ranked[1] is None and ranked[0] == [NODES.index(n) for n in placement.rank("a", 3)]
    with pytest.raises(TypeError, match="index 1 is null"):
        placement.owners(keys)
    with pytest.raises(TypeError, match="index 1 is null"):
        placement.rank_many(keys, 2)


def test_rank_many_from_arrow_equals_the_list_answer(placement: "Placement[str]") -> None:
    for k in (0, 1, 3, 100):
        assert placement.rank_many(pa.array(KEYS), k) == placement.rank_many(KEYS, k)
        rows = pa.array(placement.rank_many_arrow(pa.array(KEYS), k)).to_pylist()
        assert [[NODES[i] for i in row] for row in rows] == placement.rank_many(KEYS, k)


def test_non_key_arrow_types_are_type_errors(placement: "Placement[str]") -> None:
    with pytest.raises(TypeError, match="not Int64"):
        placement.owners(pa.array([1, 2], pa.int64()))
    with pytest.raises(TypeError):
        placement.owners_arrow(pa.array([1.5]))


def test_numpy_arrays(placement: "Placement[str]") -> None:
    want = placement.owners(KEYS)
    assert placement.owners(np.array(KEYS)) == want  # str_ (UCS-4)
    assert placement.owners(np.array(KEYS, dtype=object)) == want
    # bytes_ drops trailing NULs, as NumPy itself does when it reads an item.
    raw = [k.encode() for k in KEYS if not k.endswith("\x00")]
    assert placement.owners(np.array(raw)) == placement.owners(raw)
    with pytest.raises(TypeError, match="dtype"):
        placement.owners(np.arange(3))


def test_numpy_str_with_a_lone_surrogate_is_invalid_text(placement: "Placement[str]") -> None:
    keys = np.array(["ok", "x\ud800"])
    with pytest.raises(hrwhash.HrwError, match="index 1"):
        placement.owners(keys)


def test_pandas_columns(placement: "Placement[str]") -> None:
    want = placement.owners(KEYS)
    for series in (pd.Series(KEYS), pd.Series(KEYS, dtype="string[pyarrow]"), pd.Series(KEYS, dtype=pd.ArrowDtype(pa.string()))):
        # The Series itself (Arrow-backed ones hand over their Arrow data), its array, and pyarrow's copy.
        assert placement.owners(series) == want
        assert placement.owners(series.array) == want
        assert placement.owners(pa.array(series)) == want
        assert pa.array(placement.owners_arrow(series)).dictionary_decode().to_pylist() == want


def test_polars_expression_in_a_lazy_streaming_query(placement: "Placement[str]") -> None:
    df = pl.DataFrame({"key": KEYS + [None]})
    out = (
        df.lazy()
        .with_columns(
            owner=pl.col("key").hrw.owner(placement),  # type: ignore[attr-defined]
            index=pl.col("key").hrw.owner_index(placement),  # type: ignore[attr-defined]
        )
        .collect(engine="streaming")
    )
    assert out["owner"].dtype == pl.String and out["index"].dtype == pl.UInt32
    assert out["owner"].to_list() == placement.owners(KEYS) + [None]
    assert out["index"].to_list()[:-1] == [NODES.index(o) for o in placement.owners(KEYS)]
    series = df["key"].drop_nulls()
    assert series.hrw.owner(placement).to_list() == placement.owners(KEYS)  # type: ignore[attr-defined]


def test_polars_namespace_refuses_what_is_not_a_placement() -> None:
    series = pl.Series("key", ["a"])
    for bad in (None, "a", NODES):
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="placement must be a Placement"):
            series.hrw.owner(bad)  # type: ignore[attr-defined]
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="placement must be a Placement"):
            pl.col("key").hrw.owner_index(bad)  # type: ignore[attr-defined]


# Issue 21: a pandas column assigned from a batch answer held the repr of an arro3 array in every
# row. Each answer now comes back in the library of its keys.
def test_pandas_keys_give_pandas_answers_on_their_index(placement: "Placement[str]") -> None:
    frame = pd.DataFrame({"key": KEYS[:50]}, index=range(100, 150))
    frame["idx"] = placement.owner_indices(frame["key"])
    frame["owner"] = placement.owners_arrow(frame["key"])
    want = placement.owners(KEYS[:50])
    assert frame["idx"].dtype == np.uint32
    assert [NODES[i] for i in frame["idx"]] == want
    assert isinstance(frame["owner"].dtype, pd.CategoricalDtype)
    assert frame["owner"].astype(str).tolist() == want
    # On the keys' index, so a filtered frame lines up row by row.
    part = frame.iloc[::7]
    got = placement.owner_indices(part["key"])
    assert isinstance(got, pd.Series) and list(got.index) == list(part.index)
    assert [NODES[i] for i in got] == want[::7]
    ranked = placement.rank_many_arrow(part["key"], 2)
    assert isinstance(ranked, pd.Series) and list(ranked.index) == list(part.index)
    assert [[NODES[i] for i in row] for row in ranked] == placement.rank_many(KEYS[:50][::7], 2)


def test_pandas_null_keys_give_missing_values(placement: "Placement[str]") -> None:
    keys = pd.Series(["a", None, "b"], dtype="string[pyarrow]")
    idx = placement.owner_indices(keys)
    assert isinstance(idx, pd.Series) and str(idx.dtype) == "UInt32"
    assert idx.isna().tolist() == [False, True, False]
    assert int(idx[0]) == NODES.index(placement.owner("a"))
    owners = placement.owners_arrow(keys)
    assert owners.isna().tolist() == [False, True, False]


def test_each_library_gets_its_own_arrays(placement: "Placement[str]") -> None:
    want = [NODES.index(o) for o in placement.owners(KEYS[:20])]
    from_arrow = placement.owner_indices(pa.array(KEYS[:20]))
    assert isinstance(from_arrow, pa.Array) and from_arrow.to_pylist() == want
    assert isinstance(placement.owners_arrow(pa.chunked_array([KEYS[:20]])), pa.Array)
    from_polars = placement.owner_indices(pl.Series("k", KEYS[:20]))
    assert isinstance(from_polars, pl.Series) and from_polars.to_list() == want
    # Lists and NumPy arrays belong to no Arrow library: pyarrow's arrays, since it is installed.
    assert isinstance(placement.owner_indices(KEYS[:20]), pa.Array)
    assert isinstance(placement.rank_many_arrow(np.array(KEYS[:20]), 2), pa.Array)


def test_dictionary_rows_get_the_answers_of_their_values(placement: "Placement[str]") -> None:
    # Each distinct value is hashed once when there are fewer values than rows; a slice of a
    # dictionary keeps all its values, so there are more values than rows and each row is hashed.
    values = pa.array(["x", None, "ключ", ""] + KEYS[:50])
    codes = pa.array([i % 54 for i in range(3000)], pa.int16()).to_pylist()
    codes[7] = None
    dictionary = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int16()), values)
    for keys in (dictionary, dictionary.slice(5, 20), dictionary.slice(2990)):
        texts = keys.dictionary_decode().to_pylist()
        want = [None if t is None else placement.owner(t) for t in texts]
        got = pa.array(placement.owner_indices(keys)).to_pylist()
        assert [None if i is None else placement.nodes[i] for i in got] == want
        ranks = pa.array(placement.rank_many_arrow(keys, 3)).to_pylist()
        want_ranks = [None if t is None else placement.rank(t, 3) for t in texts]
        assert [None if r is None else [placement.nodes[i] for i in r] for r in ranks] == want_ranks


@pytest.mark.parametrize("k", [0, 1, 2, 37, 40])
def test_rank_many_arrow_rows_are_the_rankings(placement: "Placement[str]", k: int) -> None:
    keys = pa.array(KEYS[:3000] + [None] + KEYS[3000:])
    texts = keys.to_pylist()
    ranks = pa.array(placement.rank_many_arrow(keys, k)).to_pylist()
    want = [None if t is None else placement.rank(t, k) for t in texts]
    assert [None if r is None else [placement.nodes[i] for i in r] for r in ranks] == want
    numpy_keys = np.array(KEYS)
    assert placement.rank_many(numpy_keys, k) == [placement.rank(t, k) for t in KEYS]
    assert placement.owners(numpy_keys) == placement.owners(KEYS)
    raw = [t.encode() for t in KEYS]
    assert placement.owners(np.array(raw)) == placement.owners(raw)
