"""A drop-in ``hasher`` for pymemcache's ``HashClient`` that places keys with hrw-v1.

    from pymemcache.client.hash import HashClient
    from hrwhash.pymemcache import Hasher

    client = HashClient(["10.0.0.1:11211", "10.0.0.2:11211"], hasher=Hasher)

``HashClient`` builds the hasher with no arguments, then calls ``add_node("host:port")``,
``remove_node("host:port")`` when a server is marked dead, and ``get_node(key)``. To use a
secret seed or weights, pass ``functools.partial(Hasher, seed=..., weights={...})``.
"""

from __future__ import annotations

from typing import Dict, Iterable, Mapping, Optional, Union

from .errors import UnknownNodeError
from ._hrwhash import Placement, weight_to_fixed

__all__ = ["Hasher"]


class Hasher:
    """Tracks the live servers of a ``HashClient`` as an immutable :class:`hrwhash.Placement`.

    A server whose weight is 0 is drained: it stays a member but owns no key. While no live server
    can own a key (none is live, or every live one is drained), :meth:`get_node` returns None, as
    pymemcache's own hasher does once every server is gone.
    """

    def __init__(
        self,
        nodes: Iterable[str] = (),
        *,
        seed: Optional[bytes] = None,
        weights: Optional[Mapping[str, float]] = None,
    ) -> None:
        self._seed = seed
        self._weights = dict(weights or {})
        for weight in self._weights.values():
            weight_to_fixed(weight)  # a bad weight fails here, not when its server joins
        # The live servers and their weights, in the order they joined.
        self._live: Dict[str, float] = {}
        self._placement: Optional[Placement[str]] = None
        for node in nodes:
            self.add_node(node)

    @property
    def placement(self) -> Optional[Placement[str]]:
        """The current placement, or None while no live server can own a key."""
        return self._placement

    def add_node(self, node: str) -> None:
        """Adds a server; adding one that is already present does nothing."""
        if node not in self._live:
            self._live[node] = self._weights.get(node, 1.0)
            self._rebuild()

    def remove_node(self, node: str) -> None:
        """Removes a server; :class:`~hrwhash.errors.UnknownNodeError` (a ValueError) if absent."""
        if node not in self._live:
            raise UnknownNodeError(f"no live server is {node!r}, so it cannot be removed")
        del self._live[node]
        self._rebuild()

    def _rebuild(self) -> None:
        # A placement needs a selectable node, so with none the hasher holds no placement.
        if any(w > 0 for w in self._live.values()):
            self._placement = Placement(list(self._live), list(self._live.values()), seed=self._seed)
        else:
            self._placement = None

    def get_node(self, key: Union[str, bytes]) -> Optional[str]:
        """The server that owns ``key``, or None when no live server can own it."""
        placement = self._placement
        return None if placement is None else placement.owner(key)
