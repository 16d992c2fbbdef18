"""hrwhash in the Python slot of the shared peer harness (HRW_PY_ADAPTERS=hrwhash_adapter:ADAPTERS)."""

from __future__ import annotations

from typing import List, Sequence, Union


class HrwhashAdapter:
    library = "hrwhash"
    key_type: type = str

    def build(self, nodes: Sequence[Union[str, bytes]]) -> object:
        import hrwhash

        return hrwhash.Placement(nodes)

    def build_weighted(self, nodes: Sequence[Union[str, bytes]], w: List[float]) -> object:
        import hrwhash

        return hrwhash.Placement(nodes, w)


class HrwhashBytesAdapter(HrwhashAdapter):
    """Bytes keys and bytes node ids (the same bytes as the str ids), answering bytes."""

    library = "hrwhash-bytes"
    key_type = bytes

    def build(self, nodes: Sequence[Union[str, bytes]]) -> object:
        return super().build([n.encode() if isinstance(n, str) else n for n in nodes])

    def build_weighted(self, nodes: Sequence[Union[str, bytes]], w: List[float]) -> object:
        return super().build_weighted([n.encode() if isinstance(n, str) else n for n in nodes], w)


ADAPTERS = [HrwhashAdapter(), HrwhashBytesAdapter()]
