"""hrwhash's PEP 517 backend: maturin's, except that a source build on a machine without Rust stops
with one line that says so, instead of maturin silently downloading a Rust toolchain."""

from __future__ import annotations

import os
import shutil
from typing import Any, Mapping, Optional

# The hooks that need no compiler are maturin's own.
from maturin import (  # noqa: F401
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)
import maturin

# maturin reads this to decide whether to fetch Rust; it must be set before any hook runs.
os.environ.setdefault("MATURIN_NO_INSTALL_RUST", "1")

MISSING_CARGO = (
    "hrwhash: no prebuilt wheel matches this platform, and building one from source needs Rust's "
    "cargo on PATH (install it from https://rustup.rs, or set CARGO)"
)


def _require_cargo() -> None:
    if not shutil.which(os.environ.get("CARGO", "cargo")):
        raise SystemExit(MISSING_CARGO)


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    _require_cargo()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    _require_cargo()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    _require_cargo()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    _require_cargo()
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)
