"""Every case of conformance/api-cases.json (the bad-input contract of conformance/API.md) that Python
can pose: the error class and its details, or what the answer must satisfy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple, Type

import pytest

import hrwhash
from hrwhash import Placement, v1

CASES_FILE = Path(__file__).resolve().parents[2] / "conformance" / "api-cases.json"
DATA: Dict[str, Any] = json.loads(CASES_FILE.read_text())
LANGUAGE = "python"

VARIANTS: Dict[str, Type[hrwhash.HrwError]] = {
    "EmptyMembership": hrwhash.errors.EmptyMembershipError,
    "EmptyNodeId": hrwhash.errors.EmptyNodeIdError,
    "DuplicateNodeId": hrwhash.errors.DuplicateNodeIdError,
    "InvalidWeight": hrwhash.errors.InvalidWeightError,
    "AllWeightsZero": hrwhash.errors.AllWeightsZeroError,
    "InvalidSeedLength": hrwhash.errors.InvalidSeedLengthError,
    "LengthMismatch": hrwhash.errors.LengthMismatchError,
    "UnknownNode": hrwhash.errors.UnknownNodeError,
    "InvalidText": hrwhash.errors.InvalidTextError,
    "InvalidCount": hrwhash.errors.InvalidCountError,
    "ResultTooLarge": hrwhash.errors.ResultTooLargeError,
    "InvalidReplicaCount": hrwhash.errors.InvalidReplicaCountError,
    "InvalidArgument": hrwhash.errors.InvalidArgumentError,
    "TooManyNodes": hrwhash.errors.TooManyNodesError,
    "InvalidBalanceFactor": hrwhash.errors.InvalidBalanceFactorError,
}

# The Python attribute that holds each detail a case may give. InvalidSeedLengthError has called the
# given length `length` since its first release; the cases call it `actual`.
DETAILS: Dict[str, Callable[[str], str]] = {
    "index": lambda variant: "index",
    "first_index": lambda variant: "first_index",
    "expected": lambda variant: "expected",
    "actual": lambda variant: "length" if variant == "InvalidSeedLength" else "actual",
}
CASE_KEYS = {"name", "op", "args", "placement", "error", "result", "not_expressible"}
# The ops called on a membership (its methods, and the types built over one); every other op is a
# free function or a constructor.
METHODS = {
    "owner",
    "rank",
    "replicas",
    "replicas_strict",
    "score",
    "owners",
    "rank_many",
    "with_node",
    "without_node",
    "with_weight",
    "set_weight",
    "view",
    "with_epoch",
    "bounded_load",
    "slot_table",
    "bounded_load_owner",
}


def value(v: Any) -> Any:
    """The Python value of one value form of the file's `values` table."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [value(x) for x in v]
    if isinstance(v, dict):
        keys = set(v)
        if keys == {"bytes"}:
            return bytes.fromhex(v["bytes"])
        if keys == {"utf16"}:
            # surrogatepass joins valid pairs and keeps lone surrogates as they are.
            return bytes.fromhex(v["utf16"]).decode("utf-16-be", "surrogatepass")
        if keys == {"float"} and v["float"] in ("nan", "inf", "-inf"):
            return float(v["float"])
        if keys == {"int"}:
            return int(v["int"])
        if keys == {"released"}:
            view = memoryview(bytes.fromhex(v["released"]))
            view.release()
            return view
        if keys == {"range"} and set(v["range"]) == {"prefix", "count"}:
            prefix, count = v["range"]["prefix"], v["range"]["count"]
            return [f"{prefix}{i}" for i in range(count)]
        if "id" in keys:
            # Python has no node objects: a node is its id, so this is a dict where an id belongs.
            return {name: value(x) for name, x in v.items()}
    raise AssertionError(f"unknown value form {v!r}")


def build(args: Dict[str, Any]) -> Placement[Any]:
    unknown = set(args) - {"nodes", "weights", "domains", "seed", "options"}
    assert not unknown, f"unknown arguments of new: {unknown}"
    positional: List[Any] = [value(args["nodes"])]
    if "weights" in args:
        positional.append(value(args["weights"]))
    named = {name: value(args[name]) for name in ("seed", "domains") if name in args}
    for name, v in args.get("options", {}).items():
        named[name] = value(v)
    return Placement(*positional, **named)


def call(op: str, placement: Any, args: Dict[str, Any]) -> Any:
    """Runs one op; each takes exactly the arguments the file's `ops` table gives it."""

    def take(*required: str, optional: Tuple[str, ...] = ()) -> List[Any]:
        unknown = set(a) - set(required) - set(optional)
        assert not unknown, f"unknown arguments of {op}: {unknown}"
        return [a[name] for name in required]

    if op == "new":
        return build(args)
    assert (placement is not None) == (op in METHODS), op
    a = {name: value(v) for name, v in args.items()}
    if op == "owner":
        (key,) = take("key")
        return placement.owner(key)
    if op in ("rank", "replicas", "replicas_strict"):
        key, k = take("key", "k")
        return getattr(placement, op)(key, k)
    if op == "score":
        key, node = take("key", "node")
        return placement.score(key, node)
    if op == "owners":
        (keys,) = take("keys")
        return placement.owners(keys)
    if op == "rank_many":
        keys, k = take("keys", "k")
        return placement.rank_many(keys, k)
    if op == "with_node":
        (node,) = take("node", optional=("weight", "domain"))
        named = {name: a[name] for name in ("domain",) if name in a}
        if "weight" in a:
            return placement.with_node(node, a["weight"], **named)
        return placement.with_node(node, **named)
    if op == "without_node":
        (node,) = take("node")
        return placement.without_node(node)
    if op == "with_weight":
        node, weight = take("node", "weight")
        return placement.with_weight(node, weight)
    if op == "set_weight":
        node, weight = take("node", "weight")
        table = hrwhash.SlotTable(placement, 64)
        table.set_weight(node, weight)
        return table
    if op == "weight_fixed":
        (weight,) = take("weight")
        return v1.weight_to_fixed(weight)
    if op in ("view", "with_epoch"):
        (epoch,) = take("epoch")
        if op == "view":
            return hrwhash.View(placement, epoch)
        return hrwhash.View(placement, 0).with_epoch(epoch)
    if op == "bounded_load":
        (c,) = take("c")
        # The file's [num, den] pair is a tuple in Python; a list is not a factor.
        return hrwhash.BoundedLoad(placement, tuple(c) if isinstance(c, list) else c)
    if op == "slot_table":
        slots, ppm = take("slots", "overload_ppm")
        return hrwhash.SlotTable(placement, slots, mode="ranked", overload_ppm=ppm)
    if op == "bounded_load_owner":
        key, loads = take("key", "loads")
        return hrwhash.BoundedLoad(placement, 1.25).owner(key, loads)
    if op == "profile_placement":
        profile, nodes = take("profile", "nodes")
        return hrwhash.ProfilePlacement(profile, nodes)
    if op in ("key_digest", "node_digest"):
        (subject,) = take("key" if op == "key_digest" else "node", optional=("seed",))
        fn = v1.key_digest if op == "key_digest" else v1.node_digest
        return fn(subject, a["seed"]) if "seed" in a else fn(subject)
    raise AssertionError(f"unknown op {op!r}")


def check_result(answer: Any, result: Dict[str, Any]) -> None:
    for name, want in result.items():
        if name == "ok":
            assert want is True
        elif name == "len":
            assert len(answer) == want
        elif name == "row_len":
            assert all(len(row) == want for row in answer)
        elif name == "selectable":
            assert sum(1 for w in answer.weights if w > 0) == want
        elif name == "weights":
            assert list(answer.weights) == [float(w) for w in want]
        elif name == "owner_of_every_key":
            assert [answer.owner(str(i)) for i in range(64)] == [want] * 64
        elif name == "default_seed":
            assert (answer.seed == hrwhash.DEFAULT_SEED) is want
        elif name == "fixed":
            assert str(answer) == want
        elif name == "score":
            assert isinstance(answer, int) and str(answer) == want
        else:
            raise AssertionError(f"unknown result key {name!r}")


def partition() -> Tuple[List[Dict[str, Any]], List[str], List[str]]:
    run: List[Dict[str, Any]] = []
    not_expressible: List[str] = []
    not_offered: List[str] = []
    offered_not = set(DATA["not_offered"][LANGUAGE])
    for case in DATA["cases"]:
        if LANGUAGE in case.get("not_expressible", {}):
            not_expressible.append(case["name"])
        elif case["op"] in offered_not:
            not_offered.append(case["name"])
        else:
            run.append(case)
    return run, not_expressible, not_offered


RUN, NOT_EXPRESSIBLE, NOT_OFFERED = partition()
SUMMARY = (
    f"{CASES_FILE.name}: {len(RUN)} cases run, {len(NOT_EXPRESSIBLE)} not expressible in "
    f"{LANGUAGE}, {len(NOT_OFFERED)} not offered ({', '.join(NOT_OFFERED) or 'none'})"
)


def test_the_file_is_one_this_runner_knows() -> None:
    assert DATA["version"] == "hrwhash-api-v1"
    languages = set(DATA["languages"])
    assert LANGUAGE in languages
    assert set(DATA["not_offered"]) - {"_comment"} <= languages
    assert all(op in DATA["ops"] for ops in DATA["not_offered"].values() if isinstance(ops, list) for op in ops)
    names = [c["name"] for c in DATA["cases"]]
    assert len(names) == len(set(names)), "case names are unique"
    for case in DATA["cases"]:
        assert case["op"] in DATA["ops"], case["name"]
        assert set(case.get("not_expressible", {})) <= languages, case["name"]
        assert ("error" in case) != ("result" in case), case["name"]
        assert ("placement" in case) == (case["op"] in METHODS), case["name"]
        extra = set(case) - CASE_KEYS - set(DETAILS)
        assert not extra, f"{case['name']}: unknown keys {extra}"
        if "error" in case:
            assert case["error"] in VARIANTS, case["name"]
    assert len(RUN) + len(NOT_EXPRESSIBLE) + len(NOT_OFFERED) == len(DATA["cases"])
    assert RUN


@pytest.mark.parametrize("case", RUN, ids=[c["name"] for c in RUN])
def test_case(case: Dict[str, Any]) -> None:
    placement = build(case["placement"]) if "placement" in case else None
    if "result" in case:
        check_result(call(case["op"], placement, case["args"]), case["result"])
        return
    variant = case["error"]
    with pytest.raises(hrwhash.HrwError) as info:
        call(case["op"], placement, case["args"])
    error = info.value
    assert type(error) is VARIANTS[variant], f"{type(error).__name__}: {error}"
    for detail, attribute in DETAILS.items():
        if detail in case:
            assert getattr(error, attribute(variant)) == case[detail], (detail, str(error))
