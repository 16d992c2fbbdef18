#!/usr/bin/env python3
"""atheris target for the hrwhash Python package: placements built from fuzzed nodes, weights,
seeds and domains, then lookups, batches and membership changes with fuzzed keys and counts; and
batches of Arrow arrays built from fuzzed raw buffers (pyarrow `from_buffers`, edited C data
interface structures) and NumPy arrays of fuzzed bytes in every byte order and dtype.

Every call either answers, and the answer is checked against the placement, or raises an
hrwhash.HrwError subclass. Anything else (another exception, a crash, a hang) is a finding.

    python fuzz/fuzz_placement.py -max_total_time=60 fuzz/corpus
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import Any, Callable, List, Optional

import atheris
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from cdata import Exported  # noqa: E402

with atheris.instrument_imports(include=["hrwhash"]):
    import hrwhash
    from hrwhash import Placement, v1
    from hrwhash.pymemcache import Hasher

MAX_NODES = 12
MAX_KEYS = 40
HUGE = [2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63, 2**64 - 1, 2**64, 2**100]


def lone_surrogate(s: str) -> bool:
    # A str with a surrogate code point has no UTF-8 form (valid pairs are joined by Python).
    return any(0xD800 <= ord(c) <= 0xDFFF for c in s)


class Gen:
    """Values drawn from the fuzzer's bytes: mostly valid, sometimes any Python object."""

    def __init__(self, data: bytes) -> None:
        self.fdp = atheris.FuzzedDataProvider(data)

    def pick(self, n: int) -> int:
        return self.fdp.ConsumeIntInRange(0, n - 1)

    def text(self) -> str:
        return str(self.fdp.ConsumeUnicode(self.pick(6)))

    def junk(self) -> Any:
        choices: List[Callable[[], Any]] = [
            lambda: None,
            lambda: self.fdp.ConsumeBool(),
            lambda: self.fdp.ConsumeInt(4),
            lambda: self.fdp.ConsumeFloat(),
            lambda: [self.text()],
            lambda: {"id": self.text()},
            lambda: object(),
            lambda: 1j,
        ]
        return choices[self.pick(len(choices))]()

    def released(self) -> memoryview:
        view = memoryview(self.fdp.ConsumeBytes(self.pick(4)))
        view.release()
        return view

    def key(self) -> Any:
        c = self.pick(16)
        if c < 6:
            return self.text()
        if c < 11:
            return self.fdp.ConsumeBytes(self.pick(8))
        if c == 11:
            return bytearray(self.fdp.ConsumeBytes(self.pick(8)))
        if c == 12:
            raw = self.fdp.ConsumeBytes(self.pick(8) + 2)
            return memoryview(raw)[1:]
        if c == 13:
            return self.released()
        return self.junk()

    def node_id(self) -> Any:
        c = self.pick(12)
        if c < 6:
            return "n" + self.text() if self.fdp.ConsumeBool() else self.text()
        if c < 10:
            return self.fdp.ConsumeBytes(self.pick(4))
        return self.junk()

    def weight(self) -> Any:
        c = self.pick(12)
        if c < 3:
            return float(self.pick(5))
        if c < 6:
            return self.fdp.ConsumeRegularFloat()
        if c < 8:
            return self.fdp.ConsumeFloat()
        if c == 8:
            return self.fdp.ConsumeIntInRange(-2, 2**33)
        if c == 9:
            return 2.0 ** -self.pick(40)
        return self.junk()

    def count(self) -> Any:
        c = self.pick(10)
        if c < 5:
            return self.pick(MAX_NODES + 2)
        if c == 5:
            return HUGE[self.pick(len(HUGE))] * (-1 if self.fdp.ConsumeBool() else 1)
        if c == 6:
            return self.fdp.ConsumeFloat()
        if c == 7:
            return float(self.pick(6))
        return self.junk()

    def seed(self) -> Any:
        c = self.pick(8)
        if c < 3:
            return None
        if c < 5:
            return bytes(self.fdp.ConsumeBytes(16)).ljust(16, b"\0")
        if c == 5:
            return self.fdp.ConsumeBytes(self.pick(20))
        if c == 6:
            return self.released()
        return self.junk()

    def some(self, item: Callable[[], Any], limit: int) -> Any:
        items = [item() for _ in range(self.pick(limit + 1))]
        c = self.pick(10)
        if c < 7:
            return items
        if c == 7:
            return tuple(items)
        if c == 8:
            return iter(items)
        return self.junk() if self.fdp.ConsumeBool() else self.text()


def build(g: Gen) -> Optional[Placement[Any]]:
    nodes = g.some(g.node_id, MAX_NODES)
    named: dict[str, Any] = {}
    if g.fdp.ConsumeBool():
        named["seed"] = g.seed()
    if g.fdp.ConsumeBool():
        named["domains"] = g.some(lambda: None if g.fdp.ConsumeBool() else g.node_id(), MAX_NODES)
    if g.pick(16) == 0:
        named["domainz"] = []
    try:
        if g.fdp.ConsumeBool():
            return Placement(nodes, g.some(g.weight, MAX_NODES), **named)
        return Placement(nodes, **named)
    except hrwhash.HrwError:
        return None


def check_key_answer(key: Any, answer: Any) -> None:
    # A call that answered for a key must have had a key it could hash.
    assert not (isinstance(key, str) and lone_surrogate(key)), (key, answer)


def lookups(g: Gen, p: Placement[Any]) -> None:
    selectable = sum(1 for w in p.weights if w > 0)
    for _ in range(g.pick(6) + 1):
        op = g.pick(11)
        key = g.key()
        if op == 0:
            owner = p.owner(key)
            check_key_answer(key, owner)
            assert owner in p and p.rank(key, 1) == [owner]
        elif op in (1, 2):
            k = g.count()
            got = p.rank(key, k) if op == 1 else p.replicas(key, k)
            check_key_answer(key, got)
            assert isinstance(k, (int, float)) and not isinstance(k, bool) and k >= 0
            assert len(got) == min(int(k), selectable) and len(set(got)) == len(got)
            if op == 1:
                assert got == list(p.ranking(key))[: len(got)]
        elif op == 3:
            node = g.node_id() if g.fdp.ConsumeBool() else p.nodes[g.pick(len(p))]
            score = p.score(key, node)
            assert 0 <= score < 2**64 and node in p
        elif op == 4:
            keys = [g.key() for _ in range(g.pick(MAX_KEYS))]
            owners = p.owners(keys)
            assert owners == [p.owner(k) for k in keys]
        elif op == 5:
            keys = [g.key() for _ in range(g.pick(MAX_KEYS))]
            k = g.count()
            rows = p.rank_many(keys, k)
            assert rows == [p.rank(key, k) for key in keys]
        elif op == 6:
            grown = p.with_node(g.node_id(), g.weight() if g.fdp.ConsumeBool() else None, domain=g.node_id() if g.fdp.ConsumeBool() else None)
            assert len(grown) == len(p) + 1 and grown.nodes[:-1] == p.nodes
        elif op == 7:
            node = g.node_id() if g.fdp.ConsumeBool() else p.nodes[g.pick(len(p))]
            shrunk = p.without_node(node)
            assert len(shrunk) == len(p) - 1 and node not in shrunk
        elif op == 8:
            node = g.node_id() if g.fdp.ConsumeBool() else p.nodes[g.pick(len(p))]
            changed = p.with_weight(node, g.weight())
            assert changed.nodes == p.nodes
        elif op == 9:
            digest = v1.key_digest(key, g.seed()) if g.fdp.ConsumeBool() else v1.key_digest(key)
            check_key_answer(key, digest)
            assert 0 <= digest < 2**64
        else:
            fixed = v1.weight_to_fixed(g.weight())
            assert 0 <= fixed < 2**64


def hasher(g: Gen) -> None:
    # HashClient's calls: servers join and leave, drained or not; get_node never raises.
    names = [f"s{i}" for i in range(4)]
    h = Hasher(weights={n: float(g.pick(2)) for n in names})
    live: List[str] = []
    for _ in range(g.pick(10)):
        name = names[g.pick(len(names))]
        if g.fdp.ConsumeBool():
            h.add_node(name)
            live += [] if name in live else [name]
        elif name in live:
            h.remove_node(name)
            live.remove(name)
        owner = h.get_node(g.key() if g.pick(4) else "k")
        assert owner is None or owner in live


ARROW_TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.string_view(), pa.binary_view()]


def raw_arrow(g: Gen) -> pa.Array:
    """An Arrow array of keys built from fuzzed buffers: offsets, views, data and validity as the
    fuzzer writes them, with a fuzzed length and offset, or dictionary-encoded with fuzzed
    indices."""
    type_ = ARROW_TYPES[g.pick(len(ARROW_TYPES))]
    length, offset = g.pick(6), g.pick(3)
    validity = pa.py_buffer(g.fdp.ConsumeBytes(1)) if g.fdp.ConsumeBool() else None
    if type_ in (pa.string_view(), pa.binary_view()):
        views = []
        for _ in range(length + offset):
            size = g.fdp.ConsumeIntInRange(-2, 24)
            if size <= 12 and g.fdp.ConsumeBool():
                views.append(struct.pack("<i12s", size, g.fdp.ConsumeBytes(12)))
            else:
                views.append(struct.pack("<i4sii", size, g.fdp.ConsumeBytes(4), g.fdp.ConsumeIntInRange(-1, 2), g.fdp.ConsumeIntInRange(-1, 30)))
        data = [pa.py_buffer(g.fdp.ConsumeBytes(g.pick(32))) for _ in range(g.pick(3))]
        buffers = [validity, pa.py_buffer(b"".join(views)), *data]
    else:
        width = "q" if type_ in (pa.large_string(), pa.large_binary()) else "i"
        ends = [g.fdp.ConsumeIntInRange(-2, 40) for _ in range(length + offset + 1)]
        buffers = [validity, pa.py_buffer(struct.pack(f"<{len(ends)}{width}", *ends)), pa.py_buffer(g.fdp.ConsumeBytes(g.pick(40)))]
    values = pa.Array.from_buffers(type_, length, buffers, offset=offset)
    if g.pick(4) == 0:
        indices = pa.array([g.fdp.ConsumeIntInRange(-2, 8) for _ in range(g.pick(6))], pa.int32())
        return pa.DictionaryArray.from_arrays(indices, values, safe=False)
    return values


def lying_c_array(g: Gen, array: pa.Array) -> Any:
    """`array` through the C data interface with one ArrowArray field overwritten, among the lies
    a consumer can see (a shorter length or a longer offset within the real rows, any negative or
    huge size, a wrong buffer count, a released array, a missing dictionary); a length beyond the
    buffers is undetectable without their sizes, which the interface does not carry."""
    n = len(array)
    choices: List[Callable[[], dict[str, Any]]] = [
        lambda: {},
        lambda: {"length": g.pick(n + 1)},
        lambda: (lambda off: {"offset": array.offset + off, "length": n - off})(g.pick(n + 1)),
        lambda: {g.pick(2) and "length" or "offset": g.fdp.ConsumeIntInRange(-(2**63), -1)},
        lambda: {"length": 2**62 + g.pick(4)},
        lambda: {"null_count": g.fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)},
        lambda: {"n_buffers": g.fdp.ConsumeIntInRange(-1, 2)},
        lambda: {"release": None},
        lambda: {"dictionary": None},
    ]
    return Exported(array, **choices[g.pick(len(choices))]())


def numpy_keys(g: Gen) -> Any:
    """A NumPy array of fuzzed bytes in any byte order and dtype, keys or not."""
    dtypes = ["S", "<U", ">U", "=U", "|S", "O", "<i4", ">i8", "f8", "?", "V", "M8[s]", "T"]
    name = dtypes[g.pick(len(dtypes))]
    if name == "O":
        return np.array([g.key() for _ in range(g.pick(6))] + [None], dtype=object)[: g.pick(7)]
    if name == "T":
        return np.array([g.text() for _ in range(g.pick(6))], dtype=np.dtypes.StringDType())
    width = g.pick(4) + 1 if name in ("S", "<U", ">U", "=U", "|S", "V") else 0
    dtype = np.dtype(f"{name}{width or ''}")
    raw = g.fdp.ConsumeBytes(dtype.itemsize * g.pick(6))
    return np.frombuffer(raw[: len(raw) - len(raw) % dtype.itemsize], dtype=dtype)


def answer(f: Callable[[], Any]) -> Any:
    """What a call answers, or the hrwhash error class it raises."""
    try:
        return f()
    except hrwhash.HrwError as e:
        return type(e)


def arrow_batches(g: Gen, p: Placement[Any]) -> None:
    """Arrow and NumPy keys from raw buffers: each call answers as the list API does for the same
    keys, or raises an hrwhash error; a malformed Arrow array always raises."""
    c = g.pick(3)
    try:
        keys: Any = numpy_keys(g) if c == 0 else raw_arrow(g)
    except (pa.ArrowException, ValueError, TypeError, UnicodeError):
        return  # NumPy or pyarrow refused to build it
    as_list: Optional[List[Any]] = None
    valid = True
    if c == 0:
        # NumPy turns a str_ item that is no code point into a broken str, or fails.
        units = np.dtype("u4").newbyteorder(keys.dtype.byteorder)
        if keys.dtype.kind != "U" or not (np.frombuffer(keys.tobytes(), dtype=units) > 0x10FFFF).any():
            as_list = list(keys.tolist())
    else:
        try:
            keys.validate(full=True)
            as_list = keys.to_pylist()
        except pa.ArrowException:
            valid = False
        if c == 2 and valid:
            keys, as_list = lying_c_array(g, keys), None  # the lie decides what is read
    op = g.pick(4)
    calls: List[Callable[[Any], Any]] = [
        p.owners,
        lambda ks: pa.array(p.owners_arrow(ks)).dictionary_decode().to_pylist(),
        lambda ks: [None if i is None else p.nodes[i] for i in pa.array(p.owner_indices(ks)).to_pylist()],
        lambda ks: [None if r is None else [p.nodes[i] for i in r] for r in pa.array(p.rank_many_arrow(ks, 2)).to_pylist()],
    ]
    got = answer(lambda: calls[op](keys))
    assert valid or isinstance(got, type), "a malformed Arrow array was read"
    if c == 0 and keys.dtype.kind not in "SUOT":
        # Not an array of keys, even when empty.
        assert isinstance(got, type), (keys.dtype, got)
        return
    if as_list is None:
        return
    keys_list = as_list
    if op == 0:
        want = answer(lambda: p.owners(keys_list))
    else:
        want = answer(lambda: [None if k is None else (p.rank(k, 2) if op == 3 else p.owner(k)) for k in keys_list])
    # An answer is the list API's answer for the same keys. An error may come where pyarrow sees
    # a valid array: arrow-rs is stricter in corners no producer writes (the views under null
    # slots, the offsets of an empty array), and refusing is safe where reading is not.
    assert isinstance(got, type) or got == want, (got, want)
    # NumPy arrays have no such corners: the same keys give the same answer, or both an error.
    assert c != 0 or got == want or isinstance(want, type), (got, want)


def test_one_input(data: bytes) -> None:
    g = Gen(data)
    try:
        if g.pick(8) == 0:
            hasher(g)
            return
        if g.pick(4) == 0:
            arrow_batches(g, Placement(["a", "b", "c"]))
            return
        p = build(g)
        if p is not None:
            lookups(g, p)
    except hrwhash.HrwError:
        pass


# Coverage of the target's own branches steers the fuzzer towards every kind of value and call.
for _name, _fn in list(vars(Gen).items()):
    if callable(_fn):
        setattr(Gen, _name, atheris.instrument_func(_fn))
build = atheris.instrument_func(build)
lookups = atheris.instrument_func(lookups)
hasher = atheris.instrument_func(hasher)
raw_arrow = atheris.instrument_func(raw_arrow)
lying_c_array = atheris.instrument_func(lying_c_array)
numpy_keys = atheris.instrument_func(numpy_keys)
arrow_batches = atheris.instrument_func(arrow_batches)
test_one_input = atheris.instrument_func(test_one_input)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
