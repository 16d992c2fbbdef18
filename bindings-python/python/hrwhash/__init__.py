"""Rendezvous (highest-random-weight) hashing with hrw-v1, the algorithm every hrwhash binding shares.

>>> from hrwhash import Placement
>>> placement = Placement(["cache-a:11211", "cache-b:11211", "cache-c:11211"])
>>> placement.owner("user:42") in placement
True
"""

from . import errors as errors
from . import v1 as v1

# One class per kind of error would crowd the package root: the classes live in hrwhash.errors,
# and the root keeps their base class, which is all that `except` needs to catch every one.
from .errors import HrwError as HrwError
from ._hrwhash import (
    BOUNDED_LOAD_POLICY as BOUNDED_LOAD_POLICY,
    REPLICA_BALANCE_POLICY as REPLICA_BALANCE_POLICY,
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
    SLOT_TABLE_POLICY as SLOT_TABLE_POLICY,
    RANKED_SLOT_TABLE_POLICY as RANKED_SLOT_TABLE_POLICY,
    SLOT_HISTORY_FORMAT as SLOT_HISTORY_FORMAT,
    SlotTable as SlotTable,
    DOMAINS_POLICY as DOMAINS_POLICY,
    Domains as Domains,
)
from ._hrwhash import (
    VIEW_FORMAT as VIEW_FORMAT,
    RAMP_GRID as RAMP_GRID,
    Diff as Diff,
    Plan as Plan,
    PlanTop as PlanTop,
    RampPlan as RampPlan,
    RampStep as RampStep,
    Route as Route,
    RouteSet as RouteSet,
    Transition as Transition,
    View as View,
    ramp as ramp,
)
from ._results import NodeChange as NodeChange
from ._hrwhash import (
    LiveRoute as LiveRoute,
    LiveView as LiveView,
)
from ._hrwhash import (
    ProfilePlacement as ProfilePlacement,
)

__all__ = [
    "ALGORITHM",
    "BOUNDED_LOAD_POLICY",
    "DEFAULT_SEED",
    "SLOT_TABLE_POLICY",
    "RANKED_SLOT_TABLE_POLICY",
    "SLOT_HISTORY_FORMAT",
    "DOMAINS_POLICY",
    "REPLICA_BALANCE_POLICY",
    "VIEW_FORMAT",
    "RAMP_GRID",
    "BoundedLoad",
    "Diff",
    "Domains",
    "HrwError",
    "LiveRoute",
    "LiveView",
    "Placement",
    "ProfilePlacement",
    "NodeChange",
    "Plan",
    "PlanTop",
    "RampPlan",
    "RampStep",
    "ReplicaBalance",
    "Ranking",
    "Route",
    "RouteSet",
    "SlotTable",
    "Transition",
    "View",
    "__version__",
    "errors",
    "ramp",
    "v1",
]
