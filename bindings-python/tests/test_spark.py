"""hrwhash.spark on a real local SparkSession (local[2], the machine's Java): owners and the
migration plan of 10^6 keys, computed on the executors, equal the single-process answers."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any, Iterator, List

import pytest

import hrwhash

KEYS = 1_000_000


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    if shutil.which("java") is None:
        message = "a local SparkSession needs Java (java on PATH)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    # The executors' Python workers must be this interpreter (hrwhash and pyarrow live here), and
    # Spark must bind to loopback only.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("hrwhash-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def keys_frame(spark: Any) -> Any:
    return spark.range(KEYS).selectExpr("concat('key-', id) as key")


def test_owners_on_the_executors_equal_the_single_process_answers(spark: Any) -> None:
    import hrwhash.spark as hs

    placement = hrwhash.Placement([f"cache-{i}:11211" for i in range(100)])
    table = hs.owners(keys_frame(spark), "key", placement).toArrow()
    assert table.num_rows == KEYS
    keys: List[str] = table.column("key").to_pylist()
    assert table.column("owner").to_pylist() == placement.owners(keys)


def test_the_migration_plan_names_exactly_the_keys_that_move(spark: Any) -> None:
    import hrwhash.spark as hs

    old = hrwhash.Placement([f"cache-{i}" for i in range(100)])
    new = old.with_node("cache-new").without_node("cache-7")
    plan = hs.moves(keys_frame(spark), "key", old, new).toArrow()
    keys = [f"key-{i}" for i in range(KEYS)]
    want = sorted((k, a, b) for k, a, b in zip(keys, old.owners(keys), new.owners(keys)) if a != b)
    got = sorted(zip(*(plan.column(c).to_pylist() for c in ("key", "from", "to"))))
    assert got == want
    # Only keys of the removed node leave, and only the new node gains keys it did not own.
    assert all(a == "cache-7" or b == "cache-new" for _, a, b in got)


def test_null_keys_get_null_owners_and_no_move(spark: Any) -> None:
    import hrwhash.spark as hs

    placement = hrwhash.Placement(["a", "b"])
    df = spark.createDataFrame([("x",), (None,), ("y",)], "key string")
    rows = hs.owners(df, "key", placement).toArrow().column("owner").to_pylist()
    assert rows == [placement.owner("x"), None, placement.owner("y")]
    assert hs.moves(df, "key", placement, placement.with_node("c")).count() <= 2


def test_a_wrong_placement_or_a_taken_column_is_refused_on_the_driver(spark: Any) -> None:
    import hrwhash.spark as hs

    placement = hrwhash.Placement(["a", "b"])
    df = spark.createDataFrame([("x",)], "key string")
    for bad in (None, "a"):
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="placement must be a Placement"):
            hs.owners(df, "key", bad)  # type: ignore[arg-type]
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="placement must be a Placement"):
            hs.moves(df, "key", placement, bad)  # type: ignore[arg-type]
    placed = hs.owners(df, "key", placement)
    for taken in ("owner", "OWNER", "key"):
        with pytest.raises(hrwhash.errors.InvalidArgumentError, match="already has a column"):
            hs.owners(placed, "key", placement, output_col=taken)
    assert hs.owners(placed, "key", placement, output_col="again").columns == ["key", "owner", "again"]
