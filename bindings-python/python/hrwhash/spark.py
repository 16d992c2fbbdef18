"""PySpark: owners and migration plans over DataFrames of keys, computed on the executors.

Both functions run through ``DataFrame.mapInArrow``: each executor gets Arrow record batches and
answers them with hrwhash's Arrow batch path, so key inventories that outgrow one machine are
placed where they live. The placement travels to the executors pickled (a placement pickles to its
node list and seed), and every executor needs hrwhash installed, e.g. ``spark-submit
--py-files`` is not enough for a native wheel: install the wheel in the executors' environment or
ship a packed virtualenv with ``spark.archives``.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterator

from pyspark.sql import DataFrame
from pyspark.sql.types import BinaryType, DataType, StringType, StructField, StructType

from .errors import InvalidArgumentError
from ._hrwhash import Placement

# pyarrow ships no type information; it is used untyped, as mypy would see it anyway.
pa: Any = importlib.import_module("pyarrow")
pc: Any = importlib.import_module("pyarrow.compute")


def _id_type(placement: Placement[Any]) -> "tuple[DataType, Any]":
    # Checked on the driver: on the executors a wrong placement would fail far from the call.
    if not isinstance(placement, Placement):
        raise InvalidArgumentError(f"placement must be a Placement, not {type(placement).__name__}")
    if any(isinstance(n, bytes) for n in placement.nodes):
        return BinaryType(), pa.binary()
    return StringType(), pa.string()


def _ids(placement: Placement[Any], arrow_type: Any) -> Any:
    nodes = [n.encode() if arrow_type == pa.binary() and isinstance(n, str) else n for n in placement.nodes]
    return pa.array(nodes, arrow_type)


def owners(df: DataFrame, key_col: str, placement: Placement[Any], *, output_col: str = "owner") -> DataFrame:
    """``df`` with one more column, ``output_col``: the owner id of each row's key (null for a
    null key). The key column is string or binary; a frame that already has ``output_col`` is an
    InvalidArgumentError (Spark would answer with two columns of that name)."""
    spark_type, arrow_type = _id_type(placement)
    # Spark resolves column names without regard to case unless told otherwise.
    if output_col.lower() in (c.lower() for c in df.columns):
        raise InvalidArgumentError(f"the frame already has a column {output_col!r}: pass another output_col")
    schema = StructType(df.schema.fields + [StructField(output_col, spark_type, True)])

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        ids = _ids(placement, arrow_type)
        for batch in batches:
            codes = pa.array(placement.owner_indices(batch.column(key_col)))
            yield pa.RecordBatch.from_arrays(
                batch.columns + [ids.take(codes)], names=batch.schema.names + [output_col]
            )

    return df.mapInArrow(run, schema)


def moves(
    df: DataFrame,
    key_col: str,
    old: Placement[Any],
    new: Placement[Any],
    *,
    from_col: str = "from",
    to_col: str = "to",
) -> DataFrame:
    """The migration plan from ``old`` to ``new``: one row ``(key, from, to)`` for every key whose
    owner changes, in no particular order. Keys that stay put, and null keys, give no row."""
    old_spark, old_arrow = _id_type(old)
    new_spark, new_arrow = _id_type(new)
    key_field = df.schema[key_col]
    schema = StructType(
        [StructField(key_col, key_field.dataType, False), StructField(from_col, old_spark, False),
         StructField(to_col, new_spark, False)]
    )

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        old_ids, new_ids = _ids(old, old_arrow), _ids(new, new_arrow)
        for batch in batches:
            keys = batch.column(key_col)
            before = old_ids.take(pa.array(old.owner_indices(keys)))
            after = new_ids.take(pa.array(new.owner_indices(keys)))
            # Ids are compared as bytes, so text and binary ids of the same node agree.
            moved = pc.fill_null(
                pc.not_equal(before.cast(pa.binary()), after.cast(pa.binary())), False
            )
            yield pa.RecordBatch.from_arrays(
                [keys.filter(moved), before.filter(moved), after.filter(moved)],
                names=[key_col, from_col, to_col],
            )

    return df.mapInArrow(run, schema)
