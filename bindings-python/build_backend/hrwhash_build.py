"""hrwhash's PEP 517 backend: maturin's, except that a source build on a machine without Rust stops
with one line that says so, instead of maturin silently downloading a Rust toolchain."""

from __future__ import annotations

import functools
import os
import shutil
from typing import Any, Callable

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


def _needs_cargo(hook: Callable[..., str]) -> Callable[..., str]:
    """maturin's `hook`, run once cargo is found."""

    @functools.wraps(hook)
    def run(*args: Any, **kwargs: Any) -> str:
        _require_cargo()
        return hook(*args, **kwargs)

    return run


# The hooks that compile.
build_wheel = _needs_cargo(maturin.build_wheel)
build_editable = _needs_cargo(maturin.build_editable)
prepare_metadata_for_build_wheel = _needs_cargo(maturin.prepare_metadata_for_build_wheel)
prepare_metadata_for_build_editable = _needs_cargo(maturin.prepare_metadata_for_build_editable)
