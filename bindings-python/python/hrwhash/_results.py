"""The result types written in Python: ``NodeChange``, the rows of a ``Diff``, and the answers of
the Arrow batch calls (``owners_arrow``, ``owner_indices``, ``rank_many_arrow``)
in the library the keys came from, so that ``df["idx"] = p.owner_indices(df["key"])`` stores
numbers rather than the repr of a foreign array in every row.

- pandas keys (a Series, Index or pandas array): a pandas Series, on the keys' index when they are
  a Series: ``uint32`` codes (nullable ``UInt32`` when a key is null), a ``category`` of node ids,
  or one NumPy array of node indices per row for ``rank_many_arrow``; converted through pyarrow,
  which a pandas answer needs.
- Polars keys: a Polars Series.
- pyarrow keys, and any other keys when pyarrow is installed: a pyarrow Array.
- otherwise (arro3 keys, or no pyarrow): the arro3 array the native module made; every answer
  has ``__arrow_c_array__``, so any Arrow library reads it without a copy.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any, Optional, Tuple, Union

if TYPE_CHECKING:
    from typing_extensions import disjoint_base
else:
    # The checkers' marker (PEP 800) for a class whose instances have a layout of their own (here
    # a __dict__ beside the tuple); nothing at runtime, so no dependency.
    def disjoint_base(cls: Any) -> Any:
        return cls


@disjoint_base
class NodeChange(Tuple[Any, int, int]):
    """One row of ``Diff.nodes``: the tuple ``(node, before, after)`` (the rows of hrwhash 1.0),
    with every count of the row as attributes.

    ``old_index`` and ``new_index`` are the node's positions in the old and the new membership
    (None where its id is not on that side); ``before`` and ``after`` the keys it owns (holds a
    replica of, for ``diff_top``) before and after; ``added`` and ``dropped`` the moved keys (the
    replicas) it receives and gives up. Equal to any tuple of the same three items.
    """

    node: Union[str, bytes]
    old_index: Optional[int]
    new_index: Optional[int]
    before: int
    after: int
    added: int
    dropped: int

    def __new__(
        cls,
        node: Union[str, bytes],
        before: int,
        after: int,
        old_index: Optional[int],
        new_index: Optional[int],
        added: int,
        dropped: int,
    ) -> "NodeChange":
        row = super().__new__(cls, (node, before, after))
        row.node, row.before, row.after = node, before, after
        row.old_index, row.new_index = old_index, new_index
        row.added, row.dropped = added, dropped
        return row

    def __getnewargs__(self) -> Tuple[Any, ...]:
        return (self.node, self.before, self.after, self.old_index, self.new_index,
                self.added, self.dropped)

    def __repr__(self) -> str:
        return (f"NodeChange(node={self.node!r}, old_index={self.old_index!r}, "
                f"new_index={self.new_index!r}, before={self.before}, after={self.after}, "
                f"added={self.added}, dropped={self.dropped})")


def _library(keys: Any) -> str:
    return type(keys).__module__.partition(".")[0]


def _pyarrow(what: str) -> Any:
    # Imported by name: pyarrow and pandas ship no complete type information, and mypy's
    # per-module settings do not reach every checker of this package (stubtest).
    try:
        pyarrow = import_module("pyarrow")
    except ImportError:
        if what:
            raise ImportError(
                f"hrwhash: a {what} answer is converted through pyarrow, which is not installed: "
                "pip install pyarrow"
            ) from None
        return None
    return pyarrow


def _pandas(keys: Any, answer: Any) -> Any:
    pd = import_module("pandas")

    pa = _pyarrow("pandas")
    array = pa.array(answer)
    if pa.types.is_uint32(array.type) and array.null_count:
        series = array.to_pandas(types_mapper={pa.uint32(): pd.UInt32Dtype()}.get)
    else:
        series = array.to_pandas()
    # No name from the answer: reading its Arrow field needs arro3, which is not a dependency.
    series.name = None
    if isinstance(keys, pd.Series):
        series.index = keys.index
    return series


def follow(keys: Any, answer: Any) -> Any:
    """``answer`` (an arro3 array) in the library of ``keys``."""
    library = _library(keys)
    if library == "pandas":
        return _pandas(keys, answer)
    if library == "polars":
        import polars as pl

        return pl.Series(answer)
    if library == "arro3":
        return answer
    pa = _pyarrow("pyarrow" if library == "pyarrow" else "")
    return answer if pa is None else pa.array(answer)
