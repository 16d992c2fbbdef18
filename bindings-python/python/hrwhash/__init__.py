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
    InvalidSeedLengthError as InvalidSeedLengthError,
    InvalidWeightError as InvalidWeightError,
    LengthMismatchError as LengthMismatchError,
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
    "InvalidSeedLengthError",
    "InvalidWeightError",
    "LengthMismatchError",
    "Placement",
    "Ranking",
    "UnknownNodeError",
    "__version__",
    "v1",
]
