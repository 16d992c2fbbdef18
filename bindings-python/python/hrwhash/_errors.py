"""The exceptions hrwhash raises: one base class, one subclass per core error variant, and
InvalidArgumentError for misuse that only Python's dynamic types allow (conformance/API.md)."""

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
    """A weight is NaN, infinite, negative, at least 2**32, or positive but at most 2**-33."""

    def __init__(
        self, message: str, *, value: Optional[float] = None, index: Optional[int] = None
    ) -> None:
        super().__init__(message)
        self.value = value
        """The rejected weight."""
        self.index = index
        """Position of the node the weight belongs to, or None for a weight of no node."""


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


class InvalidTextError(HrwError, ValueError):
    """A str has no UTF-8 form (it holds a lone surrogate), so it is no key, node id or domain."""

    def __init__(self, message: str, *, index: Optional[int] = None) -> None:
        super().__init__(message)
        self.index = index
        """Position of the str in its list, or None for a single argument."""


class InvalidCountError(HrwError, ValueError):
    """A count such as ``k`` is negative, fractional, NaN, infinite or beyond the platform's size."""

    def __init__(self, message: str, *, value: object = None) -> None:
        super().__init__(message)
        self.value = value
        """The rejected count."""


class ResultTooLargeError(HrwError, ValueError):
    """The answer asked for has more than 2**32 - 1 ids, so it is refused before any is made."""


class InvalidJsonError(HrwError, ValueError):
    """A view document is not well-formed JSON (conformance/VIEW.md section 5, check 1)."""

    def __init__(self, message: str, *, line: Optional[int] = None, column: Optional[int] = None) -> None:
        super().__init__(message)
        self.line = line
        """1-based line where parsing stopped."""
        self.column = column
        """1-based column where parsing stopped."""


class InvalidViewError(HrwError, ValueError):
    """A view document is JSON but not a valid view, or a placement cannot be written as one."""

    def __init__(
        self,
        message: str,
        *,
        field: Optional[str] = None,
        index: Optional[int] = None,
        reason: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.field = field
        """The member at fault (``""`` for the document itself)."""
        self.index = index
        """0-based position of the node in ``nodes``, or None outside nodes."""
        self.reason = reason
        """One of ``missing``, ``wrong_type``, ``unknown``, ``duplicate``, ``conflict``,
        ``unsupported``, ``invalid``, ``out_of_range``, ``not_representable``."""


class SeedMismatchError(HrwError, ValueError):
    """A view was written for another seed than the one given (or two views of a ramp differ in
    seed): placing keys with it would put them on other nodes."""


class InvalidMoveLimitError(HrwError, ValueError):
    """A ramp's per-step limit is outside (0, 1] or NaN, or too small to advance one step."""

    def __init__(self, message: str, *, value: Optional[float] = None) -> None:
        super().__init__(message)
        self.value = value
        """The rejected limit."""


class UnknownProfileError(HrwError, ValueError):
    """No compatibility profile has this name (conformance/PROFILES.md)."""

    def __init__(self, message: str, *, name: Optional[str] = None) -> None:
        super().__init__(message)
        self.name = name
        """The name that was given."""


class NotOfferedError(HrwError, ValueError):
    """A compatibility profile does not offer what was asked: weights on an unweighted incumbent,
    a weight the incumbent cannot take, top-k where it has none, failure domains."""

    def __init__(
        self, message: str, *, profile: Optional[str] = None, what: Optional[str] = None
    ) -> None:
        super().__init__(message)
        self.profile = profile
        """The profile's name."""
        self.what = what
        """What it does not offer."""


class InvalidSlotCountError(HrwError, ValueError):
    """A slot table's number of slots is not between 1 and 2**24."""

    def __init__(self, message: str, *, value: Optional[int] = None) -> None:
        super().__init__(message)
        self.value = value
        """The rejected number of slots."""


class SlotOutOfRangeError(HrwError, IndexError):
    """A slot number is not below the table's number of slots."""

    def __init__(
        self, message: str, *, slot: Optional[int] = None, slots: Optional[int] = None
    ) -> None:
        super().__init__(message)
        self.slot = slot
        """The slot asked for."""
        self.slots = slots
        """The table's number of slots."""


class InvalidDomainsError(HrwError, ValueError):
    """The domain paths or the spread level given to :class:`hrwhash.Domains` are not usable
    (conformance/POLICIES.md, "domains (v1)")."""

    def __init__(
        self, message: str, *, index: Optional[int] = None, reason: Optional[str] = None
    ) -> None:
        super().__init__(message)
        self.index = index
        """0-based position of the node at fault, or None when the spread level is."""
        self.reason = reason
        """One of ``missing``, ``empty_level``, ``depth_mismatch``, ``level_out_of_range``,
        ``weight_overflow``."""


class InvalidReplicaCountError(HrwError, ValueError):
    """A policy was asked for 0 replicas, or more than its nodes of weight above zero."""

    def __init__(
        self, message: str, *, requested: Optional[int] = None, available: Optional[int] = None
    ) -> None:
        super().__init__(message)
        self.requested = requested
        """The number asked for."""
        self.available = available
        """The number of nodes of weight above zero."""


class InvalidBalanceFactorError(HrwError, ValueError):
    """A bounded-load balance factor is below 1, NaN, infinite, or too large (POLICIES.md)."""

    def __init__(self, message: str, *, value: Optional[float] = None) -> None:
        super().__init__(message)
        self.value = value
        """The rejected factor."""


class LoadOverflowError(HrwError, ValueError):
    """The loads given to a bounded-load lookup add up to more than 2**64 - 1."""


class InfeasibleReplicaWeightsError(HrwError, ValueError):
    """A node has more than 1/k of the total weight, so no replica set can give it its share."""

    def __init__(self, message: str, *, index: Optional[int] = None, k: Optional[int] = None) -> None:
        super().__init__(message)
        self.index = index
        """Build-order position of the first such node."""
        self.k = k
        """The number of replicas asked for."""


class InvalidArgumentError(HrwError, TypeError):
    """An argument has the wrong type (a bool for a number, a str for a list, None for an id), is a
    released buffer, or is an unknown keyword."""

    def __init__(self, message: str, *, index: Optional[int] = None) -> None:
        super().__init__(message)
        self.index = index
        """Position of the value in its list, or None for a single argument."""


# Shown and pickled under the public package name, where users import them from.
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, HrwError):
        _cls.__module__ = "hrwhash"
del _cls
