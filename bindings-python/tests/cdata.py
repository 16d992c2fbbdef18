"""The C data interface's structures (arrow/c/abi.h), to hand hrwhash Arrow arrays whose fields lie,
for the tests and the fuzz target."""

from __future__ import annotations

import ctypes
from typing import Any, Tuple

import pyarrow as pa


class ArrowSchema(ctypes.Structure):
    _fields_ = [
        ("format", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("metadata", ctypes.c_char_p),
        ("flags", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


class ArrowArray(ctypes.Structure):
    _fields_ = [
        ("length", ctypes.c_int64),
        ("null_count", ctypes.c_int64),
        ("offset", ctypes.c_int64),
        ("n_buffers", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("buffers", ctypes.c_void_p),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class Exported:
    """An array exported through the C data interface, its ArrowArray fields then overwritten. The
    capsules have no destructor: what the reader does not take leaks, which a test can afford."""

    def __init__(self, array: pa.Array, **fields: Any) -> None:
        self.schema = ArrowSchema()
        self.array = ArrowArray()
        array._export_to_c(ctypes.addressof(self.array), ctypes.addressof(self.schema))
        for name, value in fields.items():
            setattr(self.array, name, value)
        self.capsules = (
            _capsule_new(ctypes.addressof(self.schema), b"arrow_schema", None),
            _capsule_new(ctypes.addressof(self.array), b"arrow_array", None),
        )

    def __arrow_c_array__(self, requested_schema: Any = None) -> Tuple[Any, Any]:
        return self.capsules
