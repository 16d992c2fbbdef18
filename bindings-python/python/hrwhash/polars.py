"""Polars expressions: ``pl.col("key").hrw.owner(placement)``.

Importing this module registers the ``hrw`` namespace on Polars expressions and series. The keys go
to the Arrow batch path, a chunk at a time, so it runs in lazy and streaming queries with no Python
object per key. A null key gives a null owner.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from .errors import InvalidArgumentError
from ._hrwhash import Placement


def _checked(placement: Any) -> Placement[Any]:
    # Checked when the expression is built, not when Polars first runs it.
    if not isinstance(placement, Placement):
        raise InvalidArgumentError(f"placement must be a Placement, not {type(placement).__name__}")
    return placement


def _binary_ids(placement: Placement[Any]) -> bool:
    return any(isinstance(node, bytes) for node in placement.nodes)


def _owner_dtype(placement: Placement[Any]) -> Any:
    return pl.Binary if _binary_ids(placement) else pl.String


@pl.api.register_expr_namespace("hrw")
class HrwExpr:
    """hrwhash lookups on an expression of keys (string or binary)."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def owner(self, placement: Placement[Any]) -> pl.Expr:
        """The owner of each key, as its node id."""
        placement = _checked(placement)
        return self._expr.map_batches(
            lambda s: _owners(placement, s), return_dtype=_owner_dtype(placement), is_elementwise=True
        )

    def owner_index(self, placement: Placement[Any]) -> pl.Expr:
        """The build-order index of the owner of each key (``UInt32``)."""
        placement = _checked(placement)
        return self._expr.map_batches(
            lambda s: pl.Series(s.name, placement.owner_indices(s)), return_dtype=pl.UInt32, is_elementwise=True
        )


@pl.api.register_series_namespace("hrw")
class HrwSeries:
    """hrwhash lookups on a series of keys (string or binary)."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def owner(self, placement: Placement[Any]) -> pl.Series:
        """The owner of each key, as its node id."""
        return _owners(_checked(placement), self._series)

    def owner_index(self, placement: Placement[Any]) -> pl.Series:
        """The build-order index of the owner of each key (``UInt32``)."""
        return pl.Series(self._series.name, _checked(placement).owner_indices(self._series))


def _owners(placement: Placement[Any], keys: pl.Series) -> pl.Series:
    codes = pl.Series(keys.name, placement.owner_indices(keys))
    binary = _binary_ids(placement)
    nodes = [n.encode() if binary and isinstance(n, str) else n for n in placement.nodes]
    ids = pl.Series("ids", nodes, dtype=pl.Binary if binary else pl.String)
    # Gathering the ids by index makes the text column in one native step.
    return ids.gather(codes).alias(keys.name)
