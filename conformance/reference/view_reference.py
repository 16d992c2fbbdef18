#!/usr/bin/env python3
"""Reference implementation of hrwhash-view-v1, written from conformance/VIEW.md alone.

Placements come from hrw_reference (SPEC.md); everything about views (loading, the canonical form,
fingerprints, expected movement, ramps) is here, with the standard library only.

    python3 conformance/reference/view_reference.py conformance/views.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from typing import List, NamedTuple, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402

FORMAT = "hrwhash-view-v1"
ALGORITHM = "hrw-v1"
MAX_DEPTH = 127          # arrays and objects nested deeper than this are InvalidJson (VIEW.md 5.1)
GRID = 65536


class ViewError(Exception):
    """A rejection of VIEW.md 5 (or 7); `name` is the error's name."""

    def __init__(self, name: str, field: Optional[str] = None, index: Optional[int] = None,
                 reason: Optional[str] = None, first_index: Optional[int] = None):
        super().__init__(f"{name} {field!r} {index} {reason}")
        self.name, self.field, self.index, self.reason = name, field, index, reason
        self.first_index = first_index


def invalid(field: str, index: Optional[int], reason: str) -> ViewError:
    return ViewError("InvalidView", field, index, reason)


# --------------------------------------------------------------------------------------------
# 5.1 JSON
# --------------------------------------------------------------------------------------------

class Number(float):
    """A JSON number as its nearest binary64 (so it is never confused with true/false)."""


def _number_from_text(text: str) -> Number:
    try:
        value = float(int(text)) if text.lstrip("-").isdigit() else float(text)
    except (OverflowError, ValueError):
        raise ViewError("InvalidJson")
    if value in (float("inf"), float("-inf")):
        raise ViewError("InvalidJson")
    return Number(value)


def _reject_constant(name: str):
    raise ViewError("InvalidJson")       # NaN, Infinity, -Infinity are not JSON


def _check_tree(value, depth: int) -> None:
    """Depth limit and strings with a UTF-8 form (no lone surrogates)."""
    if isinstance(value, list):
        if depth + 1 > MAX_DEPTH:
            raise ViewError("InvalidJson")
        for v in value:
            _check_tree(v, depth + 1)
    elif isinstance(value, Object):
        if depth + 1 > MAX_DEPTH:
            raise ViewError("InvalidJson")
        for name, v in value.pairs:
            _check_text(name)
            _check_tree(v, depth + 1)
    elif isinstance(value, str):
        _check_text(value)


def _check_text(s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise ViewError("InvalidJson")


class Object:
    """A JSON object with every member in document order, repeats included."""

    def __init__(self, pairs):
        self.pairs = list(pairs)


def parse_json(data: bytes):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ViewError("InvalidJson")
    try:
        value = json.loads(text, object_pairs_hook=Object, parse_float=_number_from_text,
                           parse_int=_number_from_text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, RecursionError):
        raise ViewError("InvalidJson")
    _check_tree(value, 0)
    return value


# --------------------------------------------------------------------------------------------
# 5.2 - 5.11 The document
# --------------------------------------------------------------------------------------------

TOP = ["format", "algorithm", "epoch", "seed", "seed_fingerprint", "nodes"]
NODE = ["id", "id_hex", "weight", "domain", "domain_hex"]


# `prefix` names the member's place in a larger document, and `invalid` makes the error of the
# document being read (slot_history_reference reads its members with these).

def members(obj: Object, known: Sequence[str], index: Optional[int], prefix: str = "",
            invalid=invalid) -> dict:
    found = {}
    for name, value in obj.pairs:
        if name not in known:
            raise invalid(prefix + name, index, "unknown")
        if name in found:
            raise invalid(prefix + name, index, "duplicate")
        found[name] = value
    return found


def string(value, field: str, index: Optional[int], invalid=invalid) -> str:
    if not isinstance(value, str):
        raise invalid(field, index, "wrong_type")
    return value


def unhex(text: str) -> Optional[bytes]:
    if len(text) % 2 or any(c not in "0123456789abcdefABCDEF" for c in text):
        return None
    return bytes.fromhex(text)


def text_or_hex(m: dict, name: str, index: int, prefix: str = "",
                invalid=invalid) -> Optional[bytes]:
    hex_name = name + "_hex"
    if name in m and hex_name in m:
        raise invalid(prefix + hex_name, index, "conflict")
    if name in m:
        return string(m[name], prefix + name, index, invalid).encode("utf-8")
    if hex_name in m:
        raw = unhex(string(m[hex_name], prefix + hex_name, index, invalid))
        if raw is None:
            raise invalid(prefix + hex_name, index, "invalid")
        return raw
    return None


def epoch_and_seed(m: dict, invalid=invalid) -> Tuple[int, Optional[bytes]]:
    """The members epoch, seed and seed_fingerprint of a document: the epoch, and the seed
    fingerprint it names (None for the default seed). `invalid` makes the document's error."""
    if "epoch" not in m:
        raise invalid("epoch", None, "missing")
    e = string(m["epoch"], "epoch", None, invalid)
    if not (1 <= len(e) <= 20 and all(c in "0123456789" for c in e)) or (e[0] == "0" and len(e) > 1):
        raise invalid("epoch", None, "invalid")
    epoch = int(e)
    if epoch >= 2**64:
        raise invalid("epoch", None, "out_of_range")
    if "seed" not in m:
        raise invalid("seed", None, "missing")
    kind = string(m["seed"], "seed", None, invalid)
    if kind == "default":
        if "seed_fingerprint" in m:
            raise invalid("seed_fingerprint", None, "conflict")
        return epoch, None
    if kind == "secret":
        if "seed_fingerprint" not in m:
            raise invalid("seed_fingerprint", None, "missing")
        fingerprint = unhex(string(m["seed_fingerprint"], "seed_fingerprint", None, invalid))
        if fingerprint is None or len(fingerprint) != 8:
            raise invalid("seed_fingerprint", None, "invalid")
        return epoch, fingerprint
    raise invalid("seed", None, "invalid")


class View(NamedTuple):
    epoch: int
    seed: bytes
    ids: List[bytes]
    weights: List[int]                       # fixed point
    domains: List[Optional[bytes]]


def load(data: bytes, seed: bytes = hrw.DEFAULT_SEED) -> View:
    doc = parse_json(data)
    if not isinstance(doc, Object):
        raise invalid("", None, "wrong_type")
    m = members(doc, TOP, None)
    for name, want in (("format", FORMAT), ("algorithm", ALGORITHM)):
        if name not in m:
            raise invalid(name, None, "missing")
        if string(m[name], name, None) != want:
            raise invalid(name, None, "unsupported")
    epoch, wanted_fp = epoch_and_seed(m)
    if "nodes" not in m:
        raise invalid("nodes", None, "missing")
    if not isinstance(m["nodes"], list):
        raise invalid("nodes", None, "wrong_type")
    ids, weights, domains = [], [], []
    for i, node in enumerate(m["nodes"]):
        if not isinstance(node, Object):
            raise invalid("nodes", i, "wrong_type")
        nm = members(node, NODE, i)
        node_id = text_or_hex(nm, "id", i)
        if node_id is None:
            raise invalid("id", i, "missing")
        w = 2**32
        if "weight" in nm:
            if not isinstance(nm["weight"], Number):
                raise invalid("weight", i, "wrong_type")
            try:
                w = hrw.fixed_weight(float(nm["weight"]))
            except hrw.HrwError:
                raise invalid("weight", i, "out_of_range")
        ids.append(node_id)
        weights.append(w)
        domains.append(text_or_hex(nm, "domain", i))
    # 5.10: SPEC.md 7 after its weight check.
    if not ids:
        raise ViewError("EmptyMembership")
    for i, node_id in enumerate(ids):
        if not node_id:
            raise ViewError("EmptyNodeId", index=i)
    first = {}
    for i, node_id in enumerate(ids):
        if node_id in first:
            raise ViewError("DuplicateNodeId", index=i, first_index=first[node_id])
        first[node_id] = i
    if all(w == 0 for w in weights):
        raise ViewError("AllWeightsZero")
    # 5.11
    ok = seed == hrw.DEFAULT_SEED if wanted_fp is None else seed_fingerprint(seed) == wanted_fp
    if not ok:
        raise ViewError("SeedMismatch")
    return View(epoch, seed, ids, weights, domains)


# --------------------------------------------------------------------------------------------
# 3. Canonical form, 4. Fingerprints
# --------------------------------------------------------------------------------------------

def weight_text(w: int) -> str:
    whole, frac = w >> 32, w & 0xFFFFFFFF
    if frac == 0:
        return str(whole)
    return f"{whole}." + f"{frac * 5**32:032d}".rstrip("0")


def json_string(s: str) -> str:
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
             "\r": "\\r"}
    out = []
    for c in s:
        if c in short:
            out.append(short[c])
        elif ord(c) < 0x20:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def text_member(name: str, raw: bytes) -> str:
    try:
        return f'"{name}": ' + json_string(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return f'"{name}_hex": "{raw.hex()}"'


def canonical(v: View) -> str:
    lines = ["{", f'  "format": "{FORMAT}",', f'  "algorithm": "{ALGORITHM}",',
             f'  "epoch": "{v.epoch}",']
    if v.seed == hrw.DEFAULT_SEED:
        lines.append('  "seed": "default",')
    else:
        lines.append('  "seed": "secret",')
        lines.append(f'  "seed_fingerprint": "{seed_fingerprint(v.seed).hex()}",')
    lines.append('  "nodes": [')
    order = sorted(range(len(v.ids)), key=lambda i: v.ids[i])
    for n, i in enumerate(order):
        parts = [text_member("id", v.ids[i])]
        if v.weights[i] != 2**32:
            parts.append(f'"weight": {weight_text(v.weights[i])}')
        if v.domains[i] is not None:
            parts.append(text_member("domain", v.domains[i]))
        lines.append("    {" + ", ".join(parts) + "}" + ("," if n + 1 < len(order) else ""))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def seed_fingerprint(seed: bytes) -> bytes:
    return hashlib.sha256(b"hrwhash-view-v1:seed" + seed).digest()[:8]


def view_fingerprint(v: View) -> bytes:
    def framed(b: bytes) -> bytes:
        return hrw.u64le(len(b)) + b

    m = framed(FORMAT.encode()) + framed(ALGORITHM.encode()) + seed_fingerprint(v.seed)
    m += hrw.u64le(len(v.ids))
    for i in sorted(range(len(v.ids)), key=lambda i: v.ids[i]):
        m += framed(v.ids[i]) + hrw.u64le(v.weights[i])
        m += b"\x00" if v.domains[i] is None else b"\x01" + framed(v.domains[i])
    return hashlib.sha256(m).digest()[:16]


def owner(v: View, key: bytes) -> int:
    nodes = [hrw.Node(i, w / 2**32, d) for i, w, d in zip(v.ids, v.weights, v.domains)]
    return hrw.owner(hrw.build_membership(v.seed, nodes), key)


# --------------------------------------------------------------------------------------------
# 6.1 Expected movement, 6.2 Optimum
# --------------------------------------------------------------------------------------------

def expected_moved(pairs: Sequence[Tuple[bytes, int, int]]) -> float:
    """`pairs`: (id, W before, V after) for every id of either side."""
    live = [p for p in pairs if p[1] or p[2]]

    def ratio(a, b) -> int:
        lhs, rhs = a[1] * b[2], b[1] * a[2]
        return (lhs > rhs) - (lhs < rhs)

    live.sort(key=functools.cmp_to_key(lambda a, b: ratio(a, b) or ((a[0] > b[0]) - (a[0] < b[0]))))
    total_old = sum(p[1] for p in live)
    old_before = new_before = 0
    stay = 0.0
    start = 0
    while start < len(live):
        end = start + 1
        while end < len(live) and ratio(live[start], live[end]) == 0:
            end += 1
        a, b = float(total_old - old_before), float(new_before)
        for _, w, v in live[start:end]:
            if w and v:
                stay += 1.0 / (a / float(w) + b / float(v))
        for _, w, v in live[start:end]:
            old_before += w
            new_before += v
        start = end
    return max(0.0, 1.0 - stay)


def optimum(pairs: Sequence[Tuple[bytes, int, int]]) -> float:
    sw, sv = float(sum(p[1] for p in pairs)), float(sum(p[2] for p in pairs))
    total = 0.0
    for _, w, v in sorted(pairs, key=lambda p: p[0]):
        d = float(w) / sw - float(v) / sv
        if d > 0:
            total += d
    return total


# --------------------------------------------------------------------------------------------
# 7. Ramps
# --------------------------------------------------------------------------------------------

class Track(NamedTuple):
    id: bytes
    old: int
    new: int
    leaving: bool


def weight_at(t: Track, s: int) -> int:
    if s == 0:
        return t.old
    if s == GRID:
        return t.new
    x = (t.old * (GRID - s) + t.new * s) // GRID
    return int(float(x))             # nearest integer of at most 53 significant bits, ties to even


def step_epoch(old: View, steps: list) -> None:
    """The next step's epoch, old epoch + its 1-based number, must be a 64-bit epoch (section 7)."""
    if old.epoch + len(steps) + 1 > 2**64 - 1:
        raise ViewError("InvalidView")


def ramp(old: View, new: View, limit: float) -> dict:
    if not (limit > 0.0 and limit <= 1.0):
        raise ViewError("InvalidMoveLimit")
    if old.seed != new.seed:
        raise ViewError("SeedMismatch")
    old_weight = dict(zip(old.ids, old.weights))
    tracks = [Track(i, old_weight.get(i, 0), w, False) for i, w in zip(new.ids, new.weights)]
    new_ids = set(new.ids)
    tracks += [Track(i, w, 0, True) for i, w in zip(old.ids, old.weights) if i not in new_ids]

    def pairs(s: int, t: int):
        return sorted(((tr.id, weight_at(tr, s), weight_at(tr, t)) for tr in tracks),
                      key=lambda p: p[0])

    def m(s: int, t: int) -> float:
        return expected_moved(pairs(s, t))

    plan = {"direct_moved": m(0, GRID), "optimum": optimum(pairs(0, GRID)), "steps": []}
    if view_fingerprint(old) == view_fingerprint(new):
        plan["total_moved"] = 0.0
        return plan
    steps = plan["steps"]
    s = 0
    while s < GRID:
        if m(s, GRID) <= limit:
            t = GRID
        else:
            lo, hi = s, GRID
            while hi - lo > 1:
                mid = lo + (hi - lo) // 2
                if m(s, mid) <= limit:
                    lo = mid
                else:
                    hi = mid
            t = lo
        if t == s:
            raise ViewError("InvalidMoveLimit")
        if all(weight_at(tr, t) == 0 for tr in tracks):
            raise ViewError("AllWeightsZero")
        step_epoch(old, steps)
        steps.append({"position": t, "moved": m(s, t), "removes_drained": False,
                      "weights": [(tr.id, weight_at(tr, t)) for tr in tracks]})
        s = t
    if any(tr.leaving for tr in tracks):
        step_epoch(old, steps)
        steps.append({"position": GRID, "moved": 0.0, "removes_drained": True,
                      "weights": [(tr.id, tr.new) for tr in tracks if not tr.leaving]})
    total = 0.0
    for i, step in enumerate(steps):
        step["epoch"] = old.epoch + i + 1
        total += step["moved"]
    plan["total_moved"] = total
    return plan


# --------------------------------------------------------------------------------------------
# 8. Conformance: views.json
# --------------------------------------------------------------------------------------------

def document(case: dict, name: str = "document") -> bytes:
    if name in case:
        return case[name].encode("utf-8")
    return bytes.fromhex(case[name + "_hex"])


def case_seed(case: dict) -> bytes:
    return bytes.fromhex(case["seed"]) if "seed" in case else hrw.DEFAULT_SEED


def check_valid(case: dict) -> List[str]:
    v = load(document(case), case_seed(case))
    problems = []
    if canonical(v) != case["canonical"]:
        problems.append("canonical form")
    if view_fingerprint(v).hex() != case["fingerprint"]:
        problems.append("fingerprint")
    if seed_fingerprint(v.seed).hex() != case["seed_fingerprint"]:
        problems.append("seed fingerprint")
    if str(v.epoch) != case["epoch"]:
        problems.append("epoch")
    again = load(canonical(v).encode("utf-8"), v.seed)
    if canonical(again) != canonical(v):
        problems.append("canonical form does not load back to itself")
    for o in case["owners"]:
        if owner(v, o["key"].encode("utf-8")) != o["owner"]:
            problems.append(f"owner of {o['key']!r}")
    return problems


def check_equivalent(case: dict) -> List[str]:
    a, b = load(case["a"].encode("utf-8")), load(case["b"].encode("utf-8"))
    problems = []
    for v in (a, b):
        if view_fingerprint(v).hex() != case["fingerprint"]:
            problems.append("fingerprint")
    if canonical(a._replace(epoch=0)) != canonical(b._replace(epoch=0)):
        problems.append("canonical forms differ")
    return problems


def error_members(e: ViewError) -> dict:
    """The members of an invalid case that describe the error `e`."""
    got = {"error": e.name}
    if e.name == "InvalidView":
        got.update(field=e.field, index=e.index, reason=e.reason)
    if e.name in ("EmptyNodeId", "DuplicateNodeId"):
        got["index"] = e.index
    if e.name == "DuplicateNodeId":
        got["first_index"] = e.first_index
    return got


def check_invalid(case: dict) -> List[str]:
    try:
        load(document(case), case_seed(case))
    except ViewError as e:
        got = error_members(e)
        want = {k: case[k] for k in got if k in case}
        want["error"] = case["error"]
        return [] if got == want and set(got) >= set(case) - {"name", "document", "document_hex", "seed"} \
            else [f"got {got}, expected {want}"]
    return ["accepted"]


def check_movement(case: dict) -> List[str]:
    pairs = [(n["id"].encode("utf-8"), int(n["old"]), int(n["new"])) for n in case["nodes"]]
    problems = []
    if expected_moved(pairs) != case["expected_moved"]:
        problems.append(f"expected_moved {expected_moved(pairs)!r}")
    if optimum(pairs) != case["optimum"]:
        problems.append(f"optimum {optimum(pairs)!r}")
    return problems


def check_ramp(case: dict) -> List[str]:
    old, new = load(case["from"].encode("utf-8")), load(case["to"].encode("utf-8"))
    try:
        plan = ramp(old, new, case["max_move"])
    except ViewError as e:
        return [] if case.get("error") == e.name else [f"raised {e.name}"]
    if "error" in case:
        return ["no error"]
    problems = []
    if len(plan["steps"]) != len(case["steps"]):
        return [f"{len(plan['steps'])} steps, expected {len(case['steps'])}"]
    for i, (got, want) in enumerate(zip(plan["steps"], case["steps"])):
        weights = [{"id": id_.decode("utf-8"), "weight": str(w)} for id_, w in got["weights"]]
        if (str(got["epoch"]), got["position"], got["moved"], got["removes_drained"], weights) != \
                (want["epoch"], want["position"], want["moved"], want["removes_drained"],
                 want["weights"]):
            problems.append(f"step {i}")
    for k in ("total_moved", "direct_moved", "optimum"):
        if plan[k] != case[k]:
            problems.append(f"{k} {plan[k]!r}")
    return problems


def run(views: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    passed, failed = 0, []
    if seed_fingerprint(hrw.DEFAULT_SEED).hex() != views["default_seed_fingerprint"]:
        failed.append(("default_seed_fingerprint", ["differs"]))
    sections = [("valid", check_valid), ("equivalent", check_equivalent),
                ("invalid", check_invalid), ("movement", check_movement), ("ramps", check_ramp)]
    for section, check in sections:
        for case in views[section]:
            try:
                problems = check(case)
            except ViewError as e:
                problems = [f"unexpected {e}"]
            if problems:
                failed.append((f"{section}/{case['name']}", problems))
            else:
                passed += 1
    return passed, failed


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "views.json", run))
