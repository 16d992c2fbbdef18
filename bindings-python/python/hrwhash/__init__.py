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
    InfeasibleReplicaWeightsError as InfeasibleReplicaWeightsError,
    InvalidArgumentError as InvalidArgumentError,
    InvalidBalanceFactorError as InvalidBalanceFactorError,
    InvalidCountError as InvalidCountError,
    InvalidJsonError as InvalidJsonError,
    InvalidMoveLimitError as InvalidMoveLimitError,
    InvalidSeedLengthError as InvalidSeedLengthError,
    InvalidTextError as InvalidTextError,
    InvalidViewError as InvalidViewError,
    InvalidWeightError as InvalidWeightError,
    LengthMismatchError as LengthMismatchError,
    LoadOverflowError as LoadOverflowError,
    ResultTooLargeError as ResultTooLargeError,
    SeedMismatchError as SeedMismatchError,
    UnknownNodeError as UnknownNodeError,
)
from ._hrwhash import (
    BOUNDED_LOAD as BOUNDED_LOAD,
    REPLICA_BALANCE as REPLICA_BALANCE,
    BoundedLoad as BoundedLoad,
    ReplicaBalance as ReplicaBalance,
)
from ._hrwhash import (
    ALGORITHM as ALGORITHM,
    DEFAULT_SEED as DEFAULT_SEED,
    Placement as Placement,
    Ranking as Ranking,
    __version__ as __version__,
)
from ._hrwhash import (
    VIEW_FORMAT as VIEW_FORMAT,
    Diff as Diff,
    Plan as Plan,
    RampPlan as RampPlan,
    RampStep as RampStep,
    Route as Route,
    RouteSet as RouteSet,
    Transition as Transition,
    View as View,
    ramp as ramp,
)

__all__ = [
    "ALGORITHM",
    "BOUNDED_LOAD",
    "DEFAULT_SEED",
    "REPLICA_BALANCE",
    "VIEW_FORMAT",
    "AllWeightsZeroError",
    "BoundedLoad",
    "Diff",
    "DuplicateNodeIdError",
    "EmptyMembershipError",
    "EmptyNodeIdError",
    "HrwError",
    "InfeasibleReplicaWeightsError",
    "InvalidArgumentError",
    "InvalidBalanceFactorError",
    "InvalidCountError",
    "InvalidJsonError",
    "InvalidMoveLimitError",
    "InvalidSeedLengthError",
    "InvalidTextError",
    "InvalidViewError",
    "InvalidWeightError",
    "LengthMismatchError",
    "LoadOverflowError",
    "Placement",
    "Plan",
    "RampPlan",
    "RampStep",
    "ReplicaBalance",
    "Ranking",
    "ResultTooLargeError",
    "Route",
    "RouteSet",
    "SeedMismatchError",
    "Transition",
    "UnknownNodeError",
    "View",
    "__version__",
    "ramp",
    "v1",
]
