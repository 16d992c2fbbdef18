#!/usr/bin/env python3
"""Reference implementation of live views and of the EndpointSlice conversion, written from
conformance/LIVE-VIEW.md alone (views themselves come from view_reference, VIEW.md).

    python3 conformance/reference/live_view_reference.py conformance/live-view.json
    python3 conformance/reference/live_view_reference.py conformance/endpointslices.json

recomputes every case of the file (which one it is, its "version" says) and prints
`N passed, M failed` on its last line (exit status 0 only when nothing failed).
"""

from __future__ import annotations

import json
import os
import sys
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402
import view_reference as vr  # noqa: E402


# --------------------------------------------------------------------------------------------
# Sections 2, 3 and 5: the holder
# --------------------------------------------------------------------------------------------

class Refused(Exception):
    """An update refused by section 2; `details` are the error's details."""

    def __init__(self, name: str, **details: int):
        super().__init__(name)
        self.name, self.details = name, details


class LiveView:
    def __init__(self, initial: vr.View):
        self.current = initial
        self.previous: Optional[vr.View] = None
        self.last_error: Optional[str] = None

    def update(self, view: vr.View) -> str:
        c = self.current
        try:
            if vr.seed_fingerprint(view.seed) != vr.seed_fingerprint(c.seed):
                raise Refused("SeedMismatch")
            if view.epoch < c.epoch:
                raise Refused("StaleView", epoch=view.epoch, current=c.epoch)
            same = vr.view_fingerprint(view) == vr.view_fingerprint(c)
            if view.epoch == c.epoch and not same:
                raise Refused("ViewConflict", epoch=view.epoch)
        except Refused as e:
            self.last_error = e.name
            raise
        self.last_error = None
        if view.epoch == c.epoch:
            return "unchanged"
        self.previous, self.current = c, view
        return "applied"

    def finish_move(self) -> bool:
        was = self.previous is not None
        self.previous = None
        return was

    def moving(self) -> bool:
        return self.previous is not None

    def route(self, key: bytes) -> Tuple[bytes, bytes, bool]:
        write = self.current.ids[vr.owner(self.current, key)]
        if self.previous is None:
            return write, write, False
        read = self.previous.ids[vr.owner(self.previous, key)]
        return read, write, read != write


def check_live_case(case: dict, keys: List[str]) -> List[str]:
    problems: List[str] = []
    seed = bytes.fromhex(case["seed"]) if "seed" in case else hrw.DEFAULT_SEED
    live = LiveView(vr.load(case["initial"].encode(), seed))
    for n, step in enumerate(case["steps"]):
        if "update" in step:
            step_seed = bytes.fromhex(step["seed"]) if "seed" in step else seed
            try:
                view = vr.load(step["update"].encode(), step_seed)
            except vr.ViewError as e:
                live.last_error = e.name      # a source records what it could not load
                got: object = {"error": e.name}
            else:
                try:
                    got = live.update(view)
                except Refused as e:
                    got = {"error": e.name, **{k: str(v) for k, v in e.details.items()}}
            if got != step["expect"]:
                problems.append(f"step {n}: {got!r}, expected {step['expect']!r}")
        elif "finish_move" in step:
            if live.finish_move() != step["returns"]:
                problems.append(f"step {n}: finish_move returns {not step['returns']}")
        elif "report_error" in step:
            live.last_error = step["report_error"]
        else:
            problems.append(f"step {n}: unknown step")
            continue
        want = step["state"]
        state = {
            "epoch": str(live.current.epoch),
            "fingerprint": vr.view_fingerprint(live.current).hex(),
            "moving": live.moving(),
            "last_error": live.last_error,
            "routes": [list(live.route(k.encode())) for k in keys],
        }
        want = dict(want, routes=[[r.encode(), w.encode(), m] for r, w, m in want["routes"]])
        for name in state:
            if state[name] != want[name]:
                problems.append(f"step {n}: {name} differs")
    return problems


# --------------------------------------------------------------------------------------------
# Section 8: EndpointSlices
# --------------------------------------------------------------------------------------------

class Shape(Exception):
    """Section 8.7: JSON of another shape than an EndpointSlice list (InvalidView)."""


def member(obj: dict, name: str, kind: type):
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Shape(name)
    return value


def array_of(value: Optional[list], kind: type, name: str) -> list:
    for item in value or []:
        if not isinstance(item, kind):
            raise Shape(name)
    return value or []


READY, DRAINING = 2, 1


def endpoint_slices_view(text: bytes, service: str, port_name: Optional[str], weight: float,
                         epoch: int) -> vr.View:
    try:
        doc = json.loads(text)
    except ValueError:
        raise vr.ViewError("InvalidJson")
    if isinstance(doc, dict):
        doc = doc.get("items")
    if not isinstance(doc, list) or not all(isinstance(s, dict) for s in doc):
        raise vr.ViewError("InvalidView")
    try:
        nodes = convert(doc, service, port_name)
    except Shape:
        raise vr.ViewError("InvalidView")
    if not nodes:
        raise vr.ViewError("EmptyMembership")
    ready_weight = hrw.fixed_weight(weight)
    ids = sorted(nodes)
    weights = [ready_weight if nodes[i][0] == READY else 0 for i in ids]
    if all(w == 0 for w in weights):
        raise vr.ViewError("AllWeightsZero")
    return vr.View(epoch, hrw.DEFAULT_SEED, ids, weights, [nodes[i][1] for i in ids])


def convert(slices: list, service: str, port_name: Optional[str]) -> dict:
    nodes: dict = {}                    # id -> (state, zone), first of the best state
    for s in slices:
        labels = member(member(s, "metadata", dict) or {}, "labels", dict) or {}
        if member(labels, "kubernetes.io/service-name", str) != service:
            continue
        port = None
        if port_name is not None:
            for p in array_of(member(s, "ports", list), dict, "ports"):
                if (member(p, "name", str) or "") == port_name and member(p, "port", int) is not None:
                    port = member(p, "port", int)
                    if not 0 <= port <= 65535:
                        raise Shape("port")
                    break
            if port is None:
                continue
        v6 = member(s, "addressType", str) == "IPv6"
        for e in array_of(member(s, "endpoints", list), dict, "endpoints"):
            addresses = array_of(member(e, "addresses", list), str, "addresses")
            conditions = member(e, "conditions", dict) or {}
            ready = member(conditions, "ready", bool)
            serving = member(conditions, "serving", bool)
            terminating = member(conditions, "terminating", bool)
            zone = member(e, "zone", str)
            if not addresses:
                continue
            if ready is None or ready:
                state = READY
            elif serving is True and terminating is True:
                state = DRAINING
            else:
                continue
            node_id = addresses[0]
            if port is not None:
                node_id = f"[{node_id}]:{port}" if v6 else f"{node_id}:{port}"
            key = node_id.encode()
            if key not in nodes or nodes[key][0] < state:
                nodes[key] = (state, None if zone is None else zone.encode())
    return nodes


def check_slices_case(case: dict) -> List[str]:
    text = (case["input_text"] if "input_text" in case else json.dumps(case["input"])).encode()
    try:
        view = endpoint_slices_view(text, case["service"], case.get("port_name"),
                                    case.get("weight", 1), int(case["epoch"]))
    except vr.ViewError as e:
        return [] if case.get("error") == e.name else [f"error {e.name}"]
    if "error" in case:
        return [f"no error, expected {case['error']}"]
    got = vr.canonical(view)
    return [] if got == case["expected"] else [f"view differs:\n{got}"]


# --------------------------------------------------------------------------------------------

def run(doc: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    passed, failed = 0, []
    version = doc.get("version")
    for case in doc["cases"]:
        if version == "hrwhash-live-view-v1":
            problems = check_live_case(case, doc["keys"])
        elif version == "hrwhash-endpointslices-v1":
            problems = check_slices_case(case)
        else:
            return 0, [("version", [f"unknown version {version!r}"])]
        if problems:
            failed.append((case["name"], problems))
        else:
            passed += 1
    return passed, failed


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "live-view.json", run))
