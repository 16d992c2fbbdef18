"""Hostile Arrow and NumPy input: every Arrow array that crosses into hrwhash is validated before it
is read, so a malformed one (built from raw buffers, or edited through the C data interface) is an
InvalidArgumentError, never a crash, a panic or owners of unrelated memory; NumPy `str_` arrays are
read in their own byte order."""

from __future__ import annotations

import struct
from typing import Any, Callable, List

import numpy as np
import pyarrow as pa
import pytest

import hrwhash
from cdata import Exported
from hrwhash import Placement

NODES = [f"node-{i}" for i in range(11)]
P: "Placement[str]" = Placement(NODES)

# Every call that reads Arrow keys.
CALLS: List[Callable[[Any], Any]] = [
    P.owners,
    P.owners_arrow,
    P.owner_indices,
    lambda keys: P.rank_many_arrow(keys, 3),
    lambda keys: P.rank_many(keys, 2),
]


def refused(keys: Any, match: str = "not valid") -> None:
    for call in CALLS:
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match=match):
            call(keys)


def offsets(values: List[int], large: bool) -> pa.Buffer:
    return pa.py_buffer(np.array(values, dtype=np.int64 if large else np.int32).tobytes())


BYTE_TYPES = [pa.string(), pa.binary(), pa.large_string(), pa.large_binary()]


@pytest.mark.parametrize("type_", BYTE_TYPES, ids=str)
def test_offsets_past_the_data_buffer(type_: pa.DataType) -> None:
    large = type_ in (pa.large_string(), pa.large_binary())
    ends = np.array([0, 3, 5], dtype=np.int64 if large else np.int32)
    keys = pa.Array.from_buffers(type_, 2, [None, pa.py_buffer(ends), pa.py_buffer(b"abcde")])
    assert P.owners(keys) == P.owners(keys.to_pylist())
    # from_buffers checked the offsets; the buffer it shares is then changed to run past the
    # data, by one byte or a few MB: read as is, the keys would be whatever lies there.
    for last in (6, 5_000_000):
        ends[2] = last
        refused(keys)


@pytest.mark.parametrize("type_", BYTE_TYPES, ids=str)
def test_offsets_out_of_order(type_: pa.DataType) -> None:
    large = type_ in (pa.large_string(), pa.large_binary())
    # First and last offsets inside the data, so only a full validation sees the middle one.
    bad = pa.Array.from_buffers(type_, 2, [None, offsets([0, 4, 2], large), pa.py_buffer(b"abcd")])
    refused(bad)
    negative = pa.Array.from_buffers(type_, 2, [None, offsets([0, -3, 2], large), pa.py_buffer(b"abcd")])
    refused(negative)


def test_string_arrays_hold_utf8() -> None:
    for type_ in (pa.string(), pa.large_string()):
        large = type_ == pa.large_string()
        refused(pa.Array.from_buffers(type_, 1, [None, offsets([0, 2], large), pa.py_buffer(b"\xff\xfe")]))
    # The same bytes as binary are keys like any other.
    ok = pa.Array.from_buffers(pa.binary(), 1, [None, offsets([0, 2], False), pa.py_buffer(b"\xff\xfe")])
    assert P.owners(ok) == P.owners([b"\xff\xfe"])


def test_string_offsets_on_character_boundaries() -> None:
    # "é" is two bytes: an offset between them is refused in text, not in binary; ASCII and
    # whole characters are keys.
    for type_ in (pa.string(), pa.large_string()):
        large = type_ == pa.large_string()
        data = pa.py_buffer("aé".encode())
        refused(pa.Array.from_buffers(type_, 2, [None, offsets([0, 2, 3], large), data]))
        good = pa.Array.from_buffers(type_, 2, [None, offsets([0, 1, 3], large), data])
        assert P.owners(good) == P.owners(["a", "é"])
        ascii = pa.Array.from_buffers(type_, 2, [None, offsets([0, 1, 3], large), pa.py_buffer(b"abc")])
        assert P.owners(ascii) == P.owners(["a", "bc"])


def view(length: int, data: bytes, buffer_index: int = 0, offset: int = 0) -> bytes:
    """One 16-byte view: inline when 12 bytes or fewer, else a prefix and a place in a buffer."""
    if length <= 12:
        return struct.pack("<i12s", length, data)
    return struct.pack("<i4sii", length, data[:4], buffer_index, offset)


@pytest.mark.parametrize("type_", [pa.binary_view(), pa.string_view()], ids=str)
def test_views_that_point_outside_their_buffers(type_: pa.DataType) -> None:
    data = pa.py_buffer(b"0123456789abcdefghij")
    good = pa.Array.from_buffers(type_, 2, [None, pa.py_buffer(view(3, b"abc") + view(20, b"0123", 0, 0)), data])
    assert P.owners(good) == P.owners([b"abc", b"0123456789abcdefghij"] if type_ == pa.binary_view() else ["abc", "0123456789abcdefghij"])
    for bad_view in (view(20, b"0123", 5, 0), view(20, b"0123", 0, 10), view(20, b"0123", -1, 0), view(20, b"0123", 0, -4)):
        bad = pa.Array.from_buffers(type_, 1, [None, pa.py_buffer(bad_view), data])
        refused(bad)
    # A view into a buffer that is not there at all.
    refused(pa.Array.from_buffers(type_, 1, [None, pa.py_buffer(view(20, b"0123", 0, 0))]))


@pytest.mark.parametrize("index", [100, 2, -1, 2**31 - 1, -(2**31)])
def test_dictionary_indices_out_of_range(index: int) -> None:
    values = pa.array(["a", "b"])
    bad = pa.DictionaryArray.from_arrays(pa.array([0, index, 1], pa.int32()), values, safe=False)
    refused(bad)
    # The same index under a null is never read.
    masked = pa.DictionaryArray.from_arrays(pa.array([0, index, 1], pa.int32(), mask=np.array([False, True, False])), values, safe=False)
    assert pa.array(P.owners_arrow(masked)).dictionary_decode().to_pylist() == [P.owner("a"), None, P.owner("b")]


def test_an_empty_dictionary_holds_only_nulls() -> None:
    empty = pa.DictionaryArray.from_arrays(pa.array([None, None], pa.int32()), pa.array([], pa.string()))
    assert pa.array(P.owners_arrow(empty)).to_pylist() == [None, None]
    assert pa.array(P.rank_many_arrow(empty, 2)).to_pylist() == [None, None]
    with pytest.raises(hrwhash.errors.InvalidArgumentError, match="index 0 is null"):
        P.owners(empty)
    refused(pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), pa.array([], pa.string()), safe=False))


def test_dictionary_of_malformed_values() -> None:
    values = pa.Array.from_buffers(pa.string(), 2, [None, offsets([0, 4, 2], False), pa.py_buffer(b"abcd")])
    refused(pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), values, safe=False))


def test_chunked_and_streamed_arrays_are_validated_chunk_by_chunk() -> None:
    good = pa.array(["a", "b"])
    bad = pa.Array.from_buffers(pa.string(), 2, [None, offsets([0, 4, 2], False), pa.py_buffer(b"abcd")])
    refused(pa.chunked_array([good, bad]))

    class StreamOnly:
        """Arrow data offered as a stream only (as Polars and DuckDB do)."""

        def __init__(self, chunks: pa.ChunkedArray) -> None:
            self.chunks = chunks

        def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
            return self.chunks.__arrow_c_stream__(requested_schema)

    refused(StreamOnly(pa.chunked_array([good, bad])))
    stream: Any = StreamOnly(pa.chunked_array([good, good]))
    assert P.owners(stream) == P.owners(["a", "b", "a", "b"])


def test_c_data_interface_fields_that_lie() -> None:
    keys = pa.array(["a", None, "c"])
    assert P.owners_arrow(Exported(keys)) is not None  # untouched, it is read
    for fields in (
        {"length": -1},
        {"offset": -1},
        {"length": -(2**63)},
        {"length": 2**62},
        {"offset": 2**62},
        {"null_count": -2},
        {"null_count": 4},
        {"n_buffers": 1},
        {"n_buffers": -1},
        {"n_buffers": 3, "buffers": None},
    ):
        for call in CALLS:
            with pytest.raises(hrwhash.errors.InvalidArgumentError, match="not valid"):
                call(Exported(keys, **fields))
    views = pa.array([b"0123456789abcdefghij"], pa.binary_view())
    for call in CALLS:
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="not valid"):
            call(Exported(views, n_buffers=2))
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="no dictionary"):
            call(Exported(keys.dictionary_encode(), dictionary=None))


def test_a_released_array_is_not_read() -> None:
    keys = pa.array(["a", "b"])
    capsules = keys.__arrow_c_array__()

    class Once:
        def __arrow_c_array__(self, requested_schema: Any = None) -> Any:
            return capsules

    once: Any = Once()
    assert P.owners(once) == P.owners(["a", "b"])
    # The first call moved the array out of its capsule, which now holds a released one.
    refused(Once(), match="already released")
    refused(Exported(keys, release=None), match="already released")


@pytest.mark.parametrize("order", ["<", ">", "="])
def test_numpy_str_arrays_in_either_byte_order(order: str) -> None:
    keys = ["\u0100", "abc", "ключ", "🔑", "", "a\x00b"]
    array = np.array(keys, dtype=f"{order}U4")
    assert array.dtype.byteorder in ("<", ">", "=") and array.tolist() == keys
    assert P.owners(array) == P.owners(keys)
    assert pa.array(P.owner_indices(array)).to_pylist() == [NODES.index(o) for o in P.owners(keys)]
    assert P.rank_many(array, 3) == P.rank_many(keys, 3)
    rows = pa.array(P.rank_many_arrow(array, 3)).to_pylist()
    assert [[NODES[i] for i in row] for row in rows] == P.rank_many(keys, 3)


def test_numpy_str_code_points_beyond_unicode_are_invalid_text() -> None:
    # 0x00110000 in the array's own byte order: no code point, whichever way it is read.
    for order, raw in (("<", b"\x00\x00\x11\x00"), (">", b"\x00\x11\x00\x00")):
        array = np.frombuffer(b"a\x00\x00\x00" if order == "<" else b"\x00\x00\x00a", dtype=f"{order}U1")
        assert P.owners(array) == P.owners(["a"])
        bad = np.frombuffer(b"".join([b"a\x00\x00\x00" if order == "<" else b"\x00\x00\x00a", raw]), dtype=f"{order}U1")
        with pytest.raises(hrwhash.errors.InvalidTextError) as e:
            P.owners(bad)
        assert e.value.index == 1


def test_none_among_object_keys_is_a_null_in_the_arrow_answers() -> None:
    for keys in (np.array(["a", None, b"c"], dtype=object), ["a", None, b"c"], iter(["a", None, b"c"])):
        out = pa.array(P.owners_arrow(keys)).dictionary_decode().to_pylist()
        assert out == [P.owner("a"), None, P.owner(b"c")]
    indices = pa.array(P.owner_indices(np.array([None, "a", None], dtype=object)))
    assert indices.to_pylist() == [None, NODES.index(P.owner("a")), None]
    rows = pa.array(P.rank_many_arrow(np.array([None, "a"], dtype=object), 2)).to_pylist()
    assert rows == [None, [NODES.index(n) for n in P.rank("a", 2)]]
    # A list answer has no place for a null; a key of another type is still refused.
    with pytest.raises(hrwhash.errors.InvalidArgumentError, match="index 1"):
        P.owners(np.array(["a", None], dtype=object))
    with pytest.raises(hrwhash.errors.InvalidArgumentError, match="index 2"):
        P.owners_arrow(["a", None, 3])
