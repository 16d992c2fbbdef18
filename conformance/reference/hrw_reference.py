#!/usr/bin/env python3
"""Reference implementation of hrw-v1, written from conformance/SPEC.md alone.

It is deliberately plain: Python integers, the standard library, one short function per section
of SPEC.md. Speed matters only enough to check every case of vectors.json in well under a minute.

    python3 conformance/reference/hrw_reference.py conformance/vectors.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import decimal
import functools
import json
import math
import struct
import sys
from fractions import Fraction
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

ALGORITHM = "hrw-v1"
MASK64 = (1 << 64) - 1

# --------------------------------------------------------------------------------------------
# 1. Inputs
# --------------------------------------------------------------------------------------------

DEFAULT_SEED = b"hrwhash-v1-seed."
assert DEFAULT_SEED.hex() == "687277686173682d76312d736565642e"


def u64le(n: int) -> bytes:
    return struct.pack("<Q", n)


# --------------------------------------------------------------------------------------------
# SipHash-c-d (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012)
# --------------------------------------------------------------------------------------------

# "somepseudorandomlygeneratedbytes", read as four big-endian 64-bit words.
SIP_INIT = struct.unpack(">4Q", b"somepseudorandomlygeneratedbytes")
assert SIP_INIT == (0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573)


def siphash(k0: int, k1: int, message: bytes, c_rounds: int, d_rounds: int) -> int:
    """SipHash-c-d with 64-bit output: c SipRounds per message word, d after the last."""
    v0 = k0 ^ SIP_INIT[0]
    v1 = k1 ^ SIP_INIT[1]
    v2 = k0 ^ SIP_INIT[2]
    v3 = k1 ^ SIP_INIT[3]

    def sip_round(v0: int, v1: int, v2: int, v3: int) -> Tuple[int, int, int, int]:
        # rotl(x, r) == ((x << r) | (x >> (64 - r))) & MASK64, written out inline
        v0 = (v0 + v1) & MASK64
        v1 = ((v1 << 13) | (v1 >> 51)) & MASK64
        v1 ^= v0
        v0 = ((v0 << 32) | (v0 >> 32)) & MASK64
        v2 = (v2 + v3) & MASK64
        v3 = ((v3 << 16) | (v3 >> 48)) & MASK64
        v3 ^= v2
        v0 = (v0 + v3) & MASK64
        v3 = ((v3 << 21) | (v3 >> 43)) & MASK64
        v3 ^= v0
        v2 = (v2 + v1) & MASK64
        v1 = ((v1 << 17) | (v1 >> 47)) & MASK64
        v1 ^= v2
        v2 = ((v2 << 32) | (v2 >> 32)) & MASK64
        return v0, v1, v2, v3

    # The message is cut into 8-byte little-endian words; the final word holds the remaining
    # 0..7 bytes and, in its top byte, the message length mod 256.
    full = len(message) // 8
    words = list(struct.unpack_from("<%dQ" % full, message))
    tail = message[8 * full:]
    words.append(int.from_bytes(tail, "little") | ((len(message) & 0xFF) << 56))

    for m in words:
        v3 ^= m
        for _ in range(c_rounds):
            v0, v1, v2, v3 = sip_round(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(d_rounds):
        v0, v1, v2, v3 = sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def siphash13(k0: int, k1: int, message: bytes) -> int:
    return siphash(k0, k1, message, 1, 3)


def siphash24(k0: int, k1: int, message: bytes) -> int:
    return siphash(k0, k1, message, 2, 4)


# --------------------------------------------------------------------------------------------
# 2. Digests
# --------------------------------------------------------------------------------------------

def seed_keys(seed: bytes) -> Tuple[int, int]:
    k0, k1 = struct.unpack("<2Q", seed)
    return k0, k1


def key_digest(seed: bytes, key: bytes) -> int:
    k0, k1 = seed_keys(seed)
    return siphash13(k0, k1, b"hrw-v1:key" + u64le(len(key)) + key)


@functools.lru_cache(maxsize=None)
def node_digest(seed: bytes, node_id: bytes) -> int:
    k0, k1 = seed_keys(seed)
    return siphash13(k0, k1, b"hrw-v1:node" + u64le(len(node_id)) + node_id)


# --------------------------------------------------------------------------------------------
# 3. Score
# --------------------------------------------------------------------------------------------

SCORE_MULTIPLIER = 0xD6E8FEB86659FD93


def score(kd: int, nd: int) -> int:
    x = kd ^ nd
    return ((x ^ (x >> 32)) * SCORE_MULTIPLIER) & MASK64


# --------------------------------------------------------------------------------------------
# 4. Unweighted ranking
# --------------------------------------------------------------------------------------------

def unweighted_order(scores: Sequence[int], ids: Sequence[bytes],
                     candidates: Sequence[int]) -> List[int]:
    """Highest score first; equal scores by bytewise-smaller id (Python compares bytes so)."""
    return sorted(candidates, key=lambda i: (-scores[i], ids[i]))


# --------------------------------------------------------------------------------------------
# 5.1 Fixed-point weight
# --------------------------------------------------------------------------------------------

class HrwError(Exception):
    """A membership that section 7 rejects; `name` is the error's name in SPEC.md."""

    def __init__(self, name: str, detail: str = ""):
        super().__init__(f"{name}: {detail}" if detail else name)
        self.name = name


def fixed_weight(w: float) -> int:
    if math.isnan(w) or math.isinf(w) or w < 0:
        raise HrwError("InvalidWeight", repr(w))
    exact = Fraction(w) * 2**32          # exact: a binary64 is a dyadic rational
    if exact >= 2**64:
        raise HrwError("InvalidWeight", repr(w))
    fixed = round(exact)                 # Fraction.__round__ rounds half to even
    if w > 0 and fixed == 0:
        raise HrwError("InvalidWeight", repr(w))
    return fixed


# --------------------------------------------------------------------------------------------
# 5.2 Draw
# --------------------------------------------------------------------------------------------

TIE_MARGIN = decimal.Decimal("1e-30")


def _round_half_even_checked(x: decimal.Decimal, what: str) -> int:
    """Round to the nearest integer, refusing values whose rounding the precision could flip."""
    floor = x.to_integral_value(rounding=decimal.ROUND_FLOOR)
    if abs((x - floor) - decimal.Decimal("0.5")) < TIE_MARGIN:
        raise ArithmeticError(f"{what} = {x} lies within 1e-30 of a rounding tie")
    return int(x.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def draw_tables() -> Tuple[List[int], List[int]]:
    """T[0..256] and B[0..255] from their formulas, with 80-digit logarithms."""
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        ln2 = decimal.Decimal(2).ln()

        def log2_1p(num: decimal.Decimal) -> decimal.Decimal:   # log2(1 + num/256)
            return (1 + num / 256).ln() / ln2

        scale = decimal.Decimal(2) ** 56
        D = decimal.Decimal
        t = [_round_half_even_checked(log2_1p(D(i)) * scale, f"T[{i}]") for i in range(257)]
        b = [_round_half_even_checked(
                4 * scale * (log2_1p(D(j) + D("0.5")) - (log2_1p(D(j)) + log2_1p(D(j + 1))) / 2),
                f"B[{j}]")
             for j in range(256)]
    if t[0] != 0 or t[256] != 2**56:
        raise ArithmeticError("table end points are not 0 and 2^56")
    if any(t[j + 1] - t[j] <= b[j] for j in range(256)):
        raise ArithmeticError("T[j+1] - T[j] > B[j] does not hold: draw would not be monotonic")
    return t, b


T, B = draw_tables()


def draw(s: int) -> int:
    if s == MASK64:
        return 0
    v = s + 1
    e = v.bit_length() - 1
    m = v << (63 - e)
    j = (m >> 55) & 0xFF
    d = (m >> 23) & 0xFFFFFFFF
    p = T[j] * 2**64 + (T[j + 1] - T[j]) * d * 2**32 + B[j] * d * (2**32 - d)
    f = p >> 64
    return (63 - e) * 2**56 + (2**56 - f)


# --------------------------------------------------------------------------------------------
# 5.3 Weighted ranking
# --------------------------------------------------------------------------------------------

def weighted_order(scores: Sequence[int], ids: Sequence[bytes], weights: Sequence[int],
                   candidates: Sequence[int]) -> List[int]:
    draws = {i: draw(scores[i]) for i in candidates}

    def compare(a: int, b: int) -> int:
        lhs, rhs = draws[a] * weights[b], draws[b] * weights[a]
        if lhs != rhs:
            return -1 if lhs < rhs else 1
        if scores[a] != scores[b]:
            return -1 if scores[a] > scores[b] else 1
        return -1 if ids[a] < ids[b] else 1      # ids are distinct: never equal

    return sorted(candidates, key=functools.cmp_to_key(compare))


# --------------------------------------------------------------------------------------------
# 7. Errors (building a membership)
# --------------------------------------------------------------------------------------------

class Node(NamedTuple):
    id: bytes
    weight: float = 1.0
    domain: Optional[bytes] = None


class Membership(NamedTuple):
    seed: bytes
    ids: List[bytes]
    weights: List[int]
    domains: List[Optional[bytes]]
    digests: List[int]


def build_membership(seed: bytes, nodes: Sequence[Node]) -> Membership:
    if len(seed) != 16:
        raise HrwError("InvalidSeedLength", f"{len(seed)} bytes")
    weights = [fixed_weight(n.weight) for n in nodes]   # raises at the first invalid weight
    if not nodes:
        raise HrwError("EmptyMembership")
    for index, n in enumerate(nodes):
        if not n.id:
            raise HrwError("EmptyNodeId", f"node {index}")
    first_index: Dict[bytes, int] = {}
    for index, n in enumerate(nodes):
        if n.id in first_index:
            raise HrwError("DuplicateNodeId", f"node {index} repeats node {first_index[n.id]}")
        first_index[n.id] = index
    if all(w == 0 for w in weights):
        raise HrwError("AllWeightsZero")
    ids = [n.id for n in nodes]
    return Membership(seed, ids, weights, [n.domain for n in nodes],
                      [node_digest(seed, i) for i in ids])


# --------------------------------------------------------------------------------------------
# Lookups: ranking (4, 5.3) and replicas (6)
# --------------------------------------------------------------------------------------------

def scores_for(ms: Membership, key: bytes) -> List[int]:
    kd = key_digest(ms.seed, key)
    return [score(kd, nd) for nd in ms.digests]


def ranking(ms: Membership, key: bytes) -> List[int]:
    """Indices (build order) of the non-draining nodes, best first."""
    scores = scores_for(ms, key)
    candidates = [i for i, w in enumerate(ms.weights) if w != 0]
    if len({ms.weights[i] for i in candidates}) == 1:
        # 5.3: with all weights equal the weighted order is exactly the unweighted one.
        return unweighted_order(scores, ms.ids, candidates)
    return weighted_order(scores, ms.ids, ms.weights, candidates)


def owner(ms: Membership, key: bytes) -> int:
    return ranking(ms, key)[0]


def rank(ms: Membership, key: bytes, k: int) -> List[int]:
    return ranking(ms, key)[:k]


def replicas_from_ranking(ms: Membership, order: Sequence[int], k: int) -> List[int]:
    return spread(order, k, ms.domains)


def spread(order: Sequence[int], k: int, domains: Sequence[Optional[bytes]]) -> List[int]:
    """The first k of `order` in distinct domains (a node without one is its own domain) while
    there are enough, then the others in order."""
    taken: List[int] = []
    domains_taken = set()
    for i in order:
        if len(taken) == k:
            break
        domain = domains[i]
        if domain is None:
            taken.append(i)
        elif domain not in domains_taken:
            domains_taken.add(domain)
            taken.append(i)
    chosen = set(taken)
    for i in order:
        if len(taken) == k:
            break
        if i not in chosen:
            taken.append(i)
    return taken


def replicas(ms: Membership, key: bytes, k: int) -> List[int]:
    return replicas_from_ranking(ms, ranking(ms, key), k)


def domain_count(ms: Membership) -> int:
    # Failure domains holding a non-draining node; a node without a named domain is its own.
    named = {ms.domains[i] for i in range(len(ms.ids)) if ms.weights[i] > 0 and ms.domains[i] is not None}
    unnamed = sum(1 for i in range(len(ms.ids)) if ms.weights[i] > 0 and ms.domains[i] is None)
    return len(named) + unnamed


def replicas_strict(ms: Membership, key: bytes, k: int) -> List[int]:
    available = domain_count(ms)
    if k > available:
        raise HrwError("InvalidReplicaCount", f"{k} replicas, {available} domains")
    return replicas(ms, key, k)


# --------------------------------------------------------------------------------------------
# 8. Conformance: reading vectors.json and recomputing every case
# --------------------------------------------------------------------------------------------

def parse_weight(value) -> float:
    # Non-finite weights are spelled as strings ("NaN", "Infinity", "-Infinity").
    return float(value)


def parse_nodes(case: dict) -> List[Node]:
    if "nodes" in case:
        return [Node(bytes.fromhex(n["id"]),
                     parse_weight(n.get("weight", 1.0)),
                     bytes.fromhex(n["domain"]) if "domain" in n else None)
                for n in case["nodes"]]
    prefix = bytes.fromhex(case["node_prefix"])
    cycle = [parse_weight(w) for w in case.get("weight_cycle", [1.0])]
    return [Node(prefix + str(i).encode("ascii"), cycle[i % len(cycle)])
            for i in range(case["node_count"])]


def parse_seed(case: dict, default_seed: bytes) -> bytes:
    return bytes.fromhex(case["seed"]) if "seed" in case else default_seed


def check_case(case: dict, default_seed: bytes) -> List[str]:
    """Mismatches of one entry of "cases", as 'field: expected X, got Y' lines."""
    problems = []
    nodes = parse_nodes(case)
    ms = build_membership(parse_seed(case, default_seed), nodes)
    key = bytes.fromhex(case["key"])
    k = case["k"]
    expected = case["expected"]

    for index, n in enumerate(case.get("nodes", [])):
        if "weight_fixed" in n and int(n["weight_fixed"]) != ms.weights[index]:
            problems.append(f"nodes[{index}].weight_fixed: expected {n['weight_fixed']}, "
                            f"got {ms.weights[index]}")

    scores = scores_for(ms, key)
    order = ranking(ms, key)
    got = {
        "key_digest": str(key_digest(ms.seed, key)),
        "node_digests": [str(d) for d in ms.digests],
        "scores": [str(s) for s in scores],
        "owner": order[0],
        "rank": order[:k],
        "replicas": replicas_from_ranking(ms, order, k),
    }
    for field, want in expected.items():
        if field not in got:
            problems.append(f"{field}: unknown expected field, cannot check it")
        elif got[field] != want:
            problems.append(f"{field}: expected {want}, got {got[field]}")
    if any(n.domain is not None for n in nodes) and "replicas" not in expected:
        problems.append("replicas: some node has a domain but no replicas are expected")
    return problems


def check_draw_case(case: dict) -> List[str]:
    got = draw(int(case["score"]))
    return [] if str(got) == case["draw"] else [f"draw: expected {case['draw']}, got {got}"]


def check_weight_case(case: dict) -> List[str]:
    try:
        got = str(fixed_weight(parse_weight(case["weight"])))
    except HrwError as err:
        got = err.name
    want = case["error"] if "error" in case else case["fixed"]
    return [] if got == want else [f"weight {case['weight']!r}: expected {want}, got {got}"]


def check_error_case(case: dict, default_seed: bytes) -> List[str]:
    try:
        build_membership(parse_seed(case, default_seed), parse_nodes(case))
        got = "no error"
    except HrwError as err:
        got = err.name
    return [] if got == case["error"] else [f"error: expected {case['error']}, got {got}"]


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    if vectors.get("algorithm") != ALGORITHM:
        raise SystemExit(f"not an {ALGORITHM} vectors file: algorithm = {vectors.get('algorithm')!r}")
    default_seed = bytes.fromhex(vectors["default_seed"])
    checks = [("default_seed", lambda: [] if default_seed == DEFAULT_SEED else
               [f"default_seed: expected {DEFAULT_SEED.hex()}, got {default_seed.hex()}"])]
    for i, c in enumerate(vectors.get("cases", [])):
        checks.append((c.get("name", f"cases[{i}]"), functools.partial(check_case, c, default_seed)))
    for i, c in enumerate(vectors.get("draw_cases", [])):
        checks.append((c.get("name", f"draw_cases[{i}] score={c.get('score')}"),
                       functools.partial(check_draw_case, c)))
    for i, c in enumerate(vectors.get("weight_cases", [])):
        checks.append((c.get("name", f"weight_cases[{i}] weight={c.get('weight')!r}"),
                       functools.partial(check_weight_case, c)))
    for i, c in enumerate(vectors.get("error_cases", [])):
        checks.append((c.get("name", f"error_cases[{i}]"),
                       functools.partial(check_error_case, c, default_seed)))

    return run_checks(checks)


Failures = List[Tuple[str, List[str]]]


def run_checks(checks: Sequence[Tuple[str, Callable[[], List[str]]]]) -> Tuple[int, Failures]:
    """Runs named checks, each returning its problems; one that raises has failed. Shared by
    every reference in this folder."""
    passed, failures = 0, []
    for name, check in checks:
        try:
            problems = check()
        except Exception as err:          # a malformed or unexpectedly rejected case is a failure
            problems = [f"raised {type(err).__name__}: {err}"]
        if problems:
            failures.append((name, problems))
        else:
            passed += 1
    return passed, failures


def report(argv: Sequence[str], file_name: str, run: Callable[[dict], Tuple[int, Failures]]) -> int:
    """The command line of every reference here: load one vectors file, check it, print each
    failure and the totals. A file with no case at all fails too."""
    if len(argv) != 2:
        print(f"usage: {argv[0]} path/to/{file_name}", file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        vectors = json.load(f)
    passed, failures = run(vectors)
    for name, problems in failures:
        print(f"FAIL {name}")
        for p in problems:
            print(f"    {p}")
    print(f"{passed} passed, {len(failures)} failed")
    return 0 if not failures and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(report(sys.argv, "vectors.json", run))
