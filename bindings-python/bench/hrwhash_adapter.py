"""hrwhash in the Python slot of the shared peer harness (HRW_PY_ADAPTERS=hrwhash_adapter:ADAPTERS)."""

from __future__ import annotations

from typing import List


class HrwhashAdapter:
    library = "hrwhash"
    key_type: type = str

    def build(self, nodes: List[str]) -> object:
        import hrwhash

        return hrwhash.Placement(nodes)

    def build_weighted(self, nodes: List[str], w: List[float]) -> object:
        import hrwhash

        return hrwhash.Placement(nodes, w)


class HrwhashBytesAdapter(HrwhashAdapter):
    library = "hrwhash-bytes"
    key_type = bytes


ADAPTERS = [HrwhashAdapter(), HrwhashBytesAdapter()]
