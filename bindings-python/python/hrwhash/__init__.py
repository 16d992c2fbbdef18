"""Rendezvous (highest-random-weight) hashing with hrw-v1, the algorithm every hrwhash binding shares.

>>> from hrwhash import Placement
>>> placement = Placement(["cache-a:11211", "cache-b:11211", "cache-c:11211"])
>>> placement.owner("user:42") in placement
True
"""

from . import v1 as v1
from ._errors import (
    AllWeightsZeroError as AllWeightsZeroError,
    DuplicateNodeIdError as DuplicateNodeIdError,
    EmptyMembershipError as EmptyMembershipError,
    EmptyNodeIdError as EmptyNodeIdError,
    HrwError as HrwError,
    InvalidArgumentError as InvalidArgumentError,
    InvalidCountError as InvalidCountError,
    InvalidSeedLengthError as InvalidSeedLengthError,
    InvalidTextError as InvalidTextError,
    InvalidWeightError as InvalidWeightError,
    LengthMismatchError as LengthMismatchError,
    ResultTooLargeError as ResultTooLargeError,
    UnknownNodeError as UnknownNodeError,
)
from ._hrwhash import (
    ALGORITHM as ALGORITHM,
    DEFAULT_SEED as DEFAULT_SEED,
    Placement as Placement,
    Ranking as Ranking,
    __version__ as __version__,
)

__all__ = [
    "ALGORITHM",
    "DEFAULT_SEED",
    "AllWeightsZeroError",
    "DuplicateNodeIdError",
    "EmptyMembershipError",
    "EmptyNodeIdError",
    "HrwError",
    "InvalidArgumentError",
    "InvalidCountError",
    "InvalidSeedLengthError",
    "InvalidTextError",
    "InvalidWeightError",
    "LengthMismatchError",
    "Placement",
    "Ranking",
    "ResultTooLargeError",
    "UnknownNodeError",
    "__version__",
    "v1",
]
