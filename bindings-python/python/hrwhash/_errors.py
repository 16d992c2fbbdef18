"""The exceptions hrwhash raises: one base class and one subclass per core error variant."""

from __future__ import annotations

from typing import Optional


class HrwError(Exception):
    """Base class of every hrwhash error."""


class EmptyMembershipError(HrwError, ValueError):
    """A placement needs at least one node."""


class EmptyNodeIdError(HrwError, ValueError):
    """A node id is empty."""

    def __init__(self, message: str, *, index: Optional[int] = None) -> None:
        super().__init__(message)
        self.index = index
        """Position of the empty id in the node list."""


class DuplicateNodeIdError(HrwError, ValueError):
    """Two nodes share an id."""

    def __init__(
        self, message: str, *, index: Optional[int] = None, first_index: Optional[int] = None
    ) -> None:
        super().__init__(message)
        self.index = index
        """Position of the second occurrence."""
        self.first_index = first_index
        """Position of the first occurrence."""


class InvalidWeightError(HrwError, ValueError):
    """A weight is NaN, infinite, negative, at least 2**32, or positive but below 2**-33."""

    def __init__(self, message: str, *, value: Optional[float] = None) -> None:
        super().__init__(message)
        self.value = value
        """The rejected weight."""


class AllWeightsZeroError(HrwError, ValueError):
    """Every node has weight 0, so no node could ever be selected."""


class InvalidSeedLengthError(HrwError, ValueError):
    """A seed is not exactly 16 bytes long."""

    def __init__(self, message: str, *, length: Optional[int] = None) -> None:
        super().__init__(message)
        self.length = length
        """Length of the rejected seed."""


class LengthMismatchError(HrwError, ValueError):
    """Two sequences that must be equally long are not (weights or domains vs nodes)."""

    def __init__(
        self, message: str, *, expected: Optional[int] = None, actual: Optional[int] = None
    ) -> None:
        super().__init__(message)
        self.expected = expected
        """Length required."""
        self.actual = actual
        """Length given."""


class UnknownNodeError(HrwError, ValueError):
    """No node with the given id is in the placement."""


# Shown and pickled under the public package name, where users import them from.
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, HrwError):
        _cls.__module__ = "hrwhash"
del _cls
