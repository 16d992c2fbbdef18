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
    InvalidDomainsError as InvalidDomainsError,
    InvalidJsonError as InvalidJsonError,
    InvalidMoveLimitError as InvalidMoveLimitError,
    InvalidReplicaCountError as InvalidReplicaCountError,
    InvalidSeedLengthError as InvalidSeedLengthError,
    InvalidSlotCountError as InvalidSlotCountError,
    InvalidTextError as InvalidTextError,
    InvalidViewError as InvalidViewError,
    InvalidWeightError as InvalidWeightError,
    LengthMismatchError as LengthMismatchError,
    NotOfferedError as NotOfferedError,
    ResultTooLargeError as ResultTooLargeError,
    SeedMismatchError as SeedMismatchError,
    SlotOutOfRangeError as SlotOutOfRangeError,
    UnknownNodeError as UnknownNodeError,
    UnknownProfileError as UnknownProfileError,
)
from ._hrwhash import (
    ALGORITHM as ALGORITHM,
    DEFAULT_SEED as DEFAULT_SEED,
    Placement as Placement,
    Ranking as Ranking,
    __version__ as __version__,
)
from ._hrwhash import (
    SLOT_TABLE_POLICY as SLOT_TABLE_POLICY,
    SlotTable as SlotTable,
    DOMAINS_POLICY as DOMAINS_POLICY,
    Domains as Domains,
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
from ._hrwhash import (
    ProfilePlacement as ProfilePlacement,
    SwitchDiff as SwitchDiff,
    profile_diff as profile_diff,
)

__all__ = [
    "ALGORITHM",
    "DEFAULT_SEED",
    "SLOT_TABLE_POLICY",
    "DOMAINS_POLICY",
    "VIEW_FORMAT",
    "AllWeightsZeroError",
    "Diff",
    "Domains",
    "DuplicateNodeIdError",
    "EmptyMembershipError",
    "EmptyNodeIdError",
    "HrwError",
    "InvalidArgumentError",
    "InvalidCountError",
    "InvalidDomainsError",
    "InvalidJsonError",
    "InvalidMoveLimitError",
    "InvalidReplicaCountError",
    "InvalidSeedLengthError",
    "InvalidSlotCountError",
    "InvalidTextError",
    "InvalidViewError",
    "InvalidWeightError",
    "LengthMismatchError",
    "NotOfferedError",
    "Placement",
    "ProfilePlacement",
    "Plan",
    "RampPlan",
    "RampStep",
    "Ranking",
    "ResultTooLargeError",
    "Route",
    "RouteSet",
    "SeedMismatchError",
    "SwitchDiff",
    "SlotOutOfRangeError",
    "SlotTable",
    "Transition",
    "UnknownNodeError",
    "UnknownProfileError",
    "View",
    "__version__",
    "profile_diff",
    "ramp",
    "v1",
]
