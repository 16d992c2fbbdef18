"""The answers of the Arrow batch calls (``owners_arrow``, ``owner_indices``, ``rank_many_arrow``)
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
from typing import Any


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
