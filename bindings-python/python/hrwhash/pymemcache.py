"""A drop-in ``hasher`` for pymemcache's ``HashClient`` that places keys with hrw-v1.

    from pymemcache.client.hash import HashClient
    from hrwhash.pymemcache import Hasher

    client = HashClient(["10.0.0.1:11211", "10.0.0.2:11211"], hasher=Hasher)

``HashClient`` builds the hasher with no arguments, then calls ``add_node("host:port")``,
``remove_node("host:port")`` when a server is marked dead, and ``get_node(key)``. To use a
secret seed or weights, pass ``functools.partial(Hasher, seed=..., weights={...})``.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Union

from ._errors import UnknownNodeError
from ._hrwhash import Placement

__all__ = ["Hasher"]


class Hasher:
    """Tracks the live servers of a ``HashClient`` as an immutable :class:`hrwhash.Placement`."""

    def __init__(
        self,
        nodes: Iterable[str] = (),
        *,
        seed: Optional[bytes] = None,
        weights: Optional[Mapping[str, float]] = None,
    ) -> None:
        self._seed = seed
        self._weights = dict(weights or {})
        self._placement: Optional[Placement[str]] = None
        for node in nodes:
            self.add_node(node)

    @property
    def placement(self) -> Optional[Placement[str]]:
        """The current placement, or None while no server is live."""
        return self._placement

    def add_node(self, node: str) -> None:
        """Adds a server; adding one that is already present does nothing."""
        weight = self._weights.get(node, 1.0)
        if self._placement is None:
            self._placement = Placement([node], [weight], seed=self._seed)
        elif node not in self._placement:
            self._placement = self._placement.with_node(node, weight)

    def remove_node(self, node: str) -> None:
        """Removes a server; raises :class:`hrwhash.UnknownNodeError` (a ValueError) if absent."""
        if self._placement is not None and len(self._placement) == 1 and node in self._placement:
            # A placement is never empty, so the last server leaves by dropping the placement.
            self._placement = None
        elif self._placement is None:
            raise UnknownNodeError(f"no server is live, so none can be removed (node {node!r})")
        else:
            self._placement = self._placement.without_node(node)

    def get_node(self, key: Union[str, bytes]) -> Optional[str]:
        """The server that owns ``key``, or None when no server is left."""
        placement = self._placement
        return None if placement is None else placement.owner(key)
