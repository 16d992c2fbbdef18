from os import PathLike
from typing import Any, Callable, ClassVar, Generic, Iterable, Iterator, List, Literal, Optional, SupportsFloat, SupportsIndex, Tuple, TypeVar, Union, final, overload

import polars

from ._results import NodeChange

_Id = TypeVar("_Id", bound=Union[str, bytes])

_Key = Union[str, bytes, bytearray, memoryview]
"""What a key may be: text (hashed as UTF-8) or bytes."""

_Weight = SupportsFloat
"""What a weight may be: a real number (never a bool, None or text)."""

_Count = SupportsIndex
"""What a count ``k`` may be: an int >= 0 (an integral float is accepted too; a bool is not)."""

ALGORITHM: str
"""The algorithm every answer follows: ``"hrw-v1"``."""

DEFAULT_SEED: bytes
"""The public default seed (16 bytes)."""

__version__: str

__all__ = [
    "ALGORITHM",
    "BOUNDED_LOAD_POLICY",
    "BoundedLoad",
    "DEFAULT_SEED",
    "DOMAINS_POLICY",
    "Domains",
    "REPLICA_BALANCE_POLICY",
    "ReplicaBalance",
    "Placement",
    "Ranking",
    "VIEW_FORMAT",
    "RAMP_GRID",
    "Diff",
    "Plan",
    "PlanTop",
    "RampPlan",
    "RampStep",
    "Route",
    "RouteSet",
    "Transition",
    "View",
    "LiveRoute",
    "LiveView",
    "SLOT_TABLE_POLICY",
    "RANKED_SLOT_TABLE_POLICY",
    "SLOT_HISTORY_FORMAT",
    "SlotTable",
    "ramp",
    "ProfilePlacement",
    "draw",
    "key_digest",
    "node_digest",
    "score",
    "weight_to_fixed",
    "__version__",
]

@final
class Placement(Generic[_Id]):
    """An immutable set of nodes that answers "which node owns this key?" with hrw-v1.

    Node ids are str or bytes and come back as given. ``weights`` are numbers >= 0 (0 keeps a node
    in the membership but never selects it); ``seed`` is 16 bytes; ``domains`` names a failure
    domain (str, bytes or None) per node for :meth:`replicas`. Bad arguments raise the errors of
    conformance/API.md (:mod:`hrwhash.errors`): :class:`~hrwhash.errors.InvalidArgumentError` (a
    TypeError) for a wrong type or an unknown keyword, the ValueError subclasses of
    :class:`hrwhash.HrwError` for bad values. ``weights`` and ``domains`` are read no further than
    one item past the nodes: a longer iterable, endless or ``range(10**10)``, is a
    :class:`~hrwhash.errors.LengthMismatchError` at once.
    """

    def __new__(
        cls,
        nodes: Iterable[_Id],
        weights: Optional[Iterable[_Weight]] = None,
        *,
        seed: Optional[Union[bytes, bytearray, memoryview]] = None,
        domains: Optional[Iterable[Union[str, bytes, None]]] = None,
    ) -> "Placement[_Id]": ...
    def owner(self, key: _Key) -> _Id:
        """The node that owns ``key``: the first of its ranking."""
    def rank(self, key: _Key, k: _Count) -> List[_Id]:
        """The first ``k`` nodes of the ranking of ``key`` (fewer if fewer can be selected)."""
    def ranking(self, key: _Key) -> "Ranking[_Id]":
        """Every selectable node, in ranking order for ``key``."""
    def replicas(self, key: _Key, k: _Count) -> List[_Id]:
        """Up to ``k`` nodes for replicas of ``key``, in distinct failure domains first; when
        fewer than ``k`` domains hold a node of weight above zero, some domain holds two."""
    def replicas_strict(self, key: _Key, k: _Count) -> List[_Id]:
        """``replicas(key, k)`` in ``k`` distinct failure domains, or InvalidReplicaCountError
        (``available``: the number of domains) when fewer than ``k`` domains hold a node of weight
        above zero."""
    def score(self, key: _Key, node: Union[str, bytes]) -> int:
        """The 64-bit hrw-v1 score of ``key`` for ``node``."""
    def owners(self, keys: Iterable[_Key]) -> List[_Id]:
        """The owner of each key; the lookups run without holding the GIL."""
    def rank_many(self, keys: Iterable[_Key], k: _Count) -> List[List[_Id]]:
        """``rank(key, k)`` for each key; the lookups run without holding the GIL.

        Raises :class:`~hrwhash.errors.ResultTooLargeError` before any lookup when the answer
        would hold more than 2**32 - 1 ids."""
    # The Arrow answers come back in the library of the keys (hrwhash/_results.py): a pandas
    # Series on the keys' index for pandas keys, a Polars Series for Polars keys, a pyarrow Array
    # for pyarrow keys and for any other keys when pyarrow is installed, else an arro3 array.
    # pandas and pyarrow ship no complete type information, so only Polars is typed here.
    @overload
    def owners_arrow(self, keys: polars.Series) -> polars.Series: ...
    @overload
    def owners_arrow(self, keys: Any) -> Any:
        """The owner of each key as an Arrow ``dictionary<uint32, string|binary>`` array, in the
        library of the keys: a pandas ``category`` Series on the keys' index for pandas keys
        (converted through pyarrow), a Polars ``Categorical`` Series for Polars keys, a pyarrow
        ``DictionaryArray`` for pyarrow keys and for any other keys when pyarrow is installed,
        else an arro3 array (every answer has ``__arrow_c_array__``). ``keys`` is
        any Arrow array, chunked array or stream of string/binary (or a dictionary of them), a
        NumPy array of ``bytes_``/``str_``/objects (either byte order), a pandas Series, or an
        iterable of keys; null keys (an Arrow null, or ``None`` among objects) give null.

        Every Arrow array is validated in full before it is read: a malformed one (offsets past
        its data or out of order, views outside their buffers, invalid UTF-8 in a string array,
        dictionary indices outside the dictionary, a released or negative-length C array) raises
        :class:`~hrwhash.errors.InvalidArgumentError`. The same holds for ``owners``,
        ``rank_many``, ``owner_indices`` and ``rank_many_arrow``."""
    @overload
    def owner_indices(self, keys: polars.Series) -> polars.Series: ...
    @overload
    def owner_indices(self, keys: Any) -> Any:
        """The build-order index of the owner of each key, as a ``uint32`` array in the library of
        the keys, as for ``owners_arrow`` (a pandas Series of ``uint32``, or of the nullable
        ``UInt32`` when a key is null; keys as for ``owners_arrow``, validated the same way)."""
    @overload
    def rank_many_arrow(self, keys: polars.Series, k: _Count) -> polars.Series: ...
    @overload
    def rank_many_arrow(self, keys: Any, k: _Count) -> Any:
        """``rank(key, k)`` of each key as an Arrow ``fixed_size_list<uint32>`` of node indices, in
        the library of the keys as for ``owners_arrow`` (a pandas Series holds one NumPy array of
        indices per row; keys as for ``owners_arrow``, validated the same way)."""
    def with_node(
        self, node: _Id, weight: Optional[_Weight] = None, *, domain: Union[str, bytes, None] = None
    ) -> "Placement[_Id]":
        """A placement with one more node, of weight 1 unless ``weight`` is given."""
    def without_node(self, node: Union[str, bytes]) -> "Placement[_Id]":
        """A placement without ``node``; the others keep their order."""
    def with_weight(self, node: Union[str, bytes], weight: _Weight) -> "Placement[_Id]":
        """A placement where ``node`` has another weight (0 drains it)."""
    @property
    def nodes(self) -> Tuple[_Id, ...]:
        """The node ids in build order."""
    @property
    def weights(self) -> Tuple[float, ...]:
        """The weights in node order."""
    @property
    def domains(self) -> Optional[Tuple[Union[str, bytes, None], ...]]:
        """The failure domains in node order, or None if none were named."""
    @property
    def seed(self) -> bytes:
        """The 16-byte seed."""
    @property
    def is_weighted(self) -> bool:
        """Whether any two selectable nodes have different weights."""
    def __len__(self) -> int: ...
    def __contains__(self, node: object, /) -> bool: ...
    def __iter__(self) -> Iterator[_Id]: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...
    def __copy__(self) -> "Placement[_Id]": ...
    def __deepcopy__(self, memo: Any, /) -> "Placement[_Id]": ...
    def __class_getitem__(cls, item: Any) -> Any: ...

@final
class Ranking(Generic[_Id]):
    """The full ranking of one key, as an iterator of node ids."""

    def __iter__(self) -> "Ranking[_Id]": ...
    def __next__(self) -> _Id: ...
    def __length_hint__(self) -> int: ...

def key_digest(key: _Key, seed: Optional[Union[bytes, bytearray, memoryview]] = None) -> int:
    """The hrw-v1 digest of a key (SPEC.md)."""
def node_digest(node: Union[str, bytes], seed: Optional[Union[bytes, bytearray, memoryview]] = None) -> int:
    """The hrw-v1 digest of a node id."""
def score(key_digest: int, node_digest: int) -> int:
    """The hrw-v1 score of a key digest for a node digest."""
def draw(score: int) -> int:
    """The hrw-v1 draw of a score."""
def weight_to_fixed(weight: _Weight) -> int:
    """The fixed-point form of a weight, ``round_half_even(weight * 2**32)``."""

# Views, transitions and ramps (conformance/VIEW.md). Ids read from a view document are str when
# they are valid UTF-8 and bytes otherwise.

_Seed = Union[bytes, bytearray, memoryview]

VIEW_FORMAT: str
"""The view format tag: ``"hrwhash-view-v1"``."""

RAMP_GRID: int
"""Positions of a ramp's line from the old weights (0) to the new ones (65536)."""

@final
class View:
    """A membership view: a placement with an epoch and the identity of its seed, written and read
    as the JSON document of conformance/VIEW.md."""

    def __new__(cls, placement: Placement[Any], epoch: int) -> "View": ...
    @staticmethod
    def from_json(document: Union[str, bytes, bytearray, memoryview], *, seed: Optional[_Seed] = None) -> "View":
        """Loads a view document; ``seed`` is the secret seed it was written for."""
    @staticmethod
    def from_file(path: Union[str, bytes, "PathLike[str]", "PathLike[bytes]"], *, seed: Optional[_Seed] = None) -> "View":
        """Loads the view document in the file at ``path``."""
    def to_json(self) -> str:
        """The canonical JSON form, ending in a newline."""
    def with_epoch(self, epoch: int) -> "View":
        """The same membership at another epoch."""
    @property
    def placement(self) -> Placement[Any]:
        """The membership, ready for lookups."""
    @property
    def epoch(self) -> int: ...
    @property
    def fingerprint(self) -> str:
        """The view fingerprint: 32 hex digits."""
    @property
    def seed_fingerprint(self) -> str:
        """The seed fingerprint: 16 hex digits."""
    @property
    def has_default_seed(self) -> bool:
        """Whether the view uses the public default seed."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Route:
    """Where one key is during a migration."""

    @property
    def new(self) -> Any:
        """The owner after the change: write here, read here first."""
    @property
    def old(self) -> Any:
        """The owner before the change: read here on a miss."""
    @property
    def moved(self) -> bool:
        """Whether the two owners have different ids."""
    @property
    def old_index(self) -> int:
        """Position of ``old`` in the old membership's node list."""
    @property
    def new_index(self) -> int:
        """Position of ``new`` in the new membership's node list."""

@final
class RouteSet:
    """The top-k replica sets of one key before and after a change."""

    @property
    def before(self) -> List[Any]: ...
    @property
    def after(self) -> List[Any]: ...
    @property
    def add(self) -> List[Any]:
        """Nodes of ``after`` not in ``before``: the replicas to fill."""
    @property
    def drop(self) -> List[Any]:
        """Nodes of ``before`` not in ``after``: the replicas to drop."""

@final
class Diff:
    """The counts of a diff over a stream of keys."""

    @property
    def keys(self) -> int: ...
    @property
    def moved(self) -> int:
        """Keys whose owner changed (with ``k`` above 1: whose replica set changed)."""
    @property
    def k(self) -> int:
        """The replicas compared per key: 1 for ``diff``, ``k`` for ``diff_top``."""
    @property
    def copies_added(self) -> int:
        """``moved`` for ``k = 1``; the replicas to add over every key otherwise."""
    @property
    def copies_dropped(self) -> int:
        """``moved`` for ``k = 1``; the replicas to drop over every key otherwise."""
    @property
    def flows(self) -> List[Tuple[Any, Any, int]]:
        """``(from, to, count)`` per pair of old and new owner; empty for ``diff_top``."""
    @property
    def nodes(self) -> List[NodeChange]:
        """``(node, before, after)`` rows (:class:`NodeChange`, with ``old_index``, ``new_index``,
        ``added`` and ``dropped``): every old node, then every new-only node."""
    @property
    def expected_moved(self) -> Optional[float]:
        """None unless both sides are hrw-v1."""
    @property
    def optimum(self) -> Optional[float]:
        """None unless both sides are hrw-v1."""

_Membership = Union[View, Placement[Any], "ProfilePlacement[Any]"]

@final
class Transition:
    """The change from one membership (a Placement, View or ProfilePlacement) to another."""

    def __new__(cls, old: _Membership, new: _Membership) -> "Transition": ...
    @property
    def old_placement(self) -> Union[Placement[Any], "ProfilePlacement[Any]"]:
        """The membership before: a Placement (a view's placement) or a ProfilePlacement."""
    @property
    def new_placement(self) -> Union[Placement[Any], "ProfilePlacement[Any]"]:
        """The membership after: a Placement (a view's placement) or a ProfilePlacement."""
    def route(self, key: _Key) -> Route:
        """The owners of ``key`` after and before, and whether it moved."""
    def route_top(self, key: _Key, k: _Count) -> RouteSet:
        """The replicas of ``key`` before and after (``replicas(key, k)`` of each side, spread over
        failure domains when a placement names them); a profile on either side raises
        :class:`~hrwhash.errors.NotOfferedError`."""
    def diff(self, keys: Iterable[_Key]) -> Diff:
        """Counts the owner changes of every key of ``keys``."""
    def plan(self, keys: Iterable[_Key]) -> "Plan":
        """The moved keys as ``(key, from, to)``, streamed in input order."""
    def diff_top(self, keys: Iterable[_Key], k: _Count) -> Diff:
        """Counts the changes of the replica sets (``replicas(key, k)`` of each side) of every key
        of ``keys``; a profile on either side raises :class:`~hrwhash.errors.NotOfferedError`."""
    def plan_top(self, keys: Iterable[_Key], k: _Count) -> "PlanTop":
        """The keys whose set of ``k`` replicas changes, as ``(key, RouteSet)`` in input order."""
    @property
    def expected_moved(self) -> Optional[float]:
        """None unless both sides are hrw-v1."""
    @property
    def optimum(self) -> Optional[float]:
        """None unless both sides are hrw-v1."""

@final
class Plan:
    """The moved keys of a key stream, as ``(key, from, to)``."""

    def __iter__(self) -> "Plan": ...
    def __next__(self) -> Tuple[Any, Any, Any]: ...

@final
class PlanTop:
    """The keys of a key stream whose replica set changes, as ``(key, RouteSet)``."""

    def __iter__(self) -> "PlanTop": ...
    def __next__(self) -> Tuple[Any, RouteSet]: ...

@final
class RampStep:
    """One step of a ramp."""

    @property
    def epoch(self) -> int: ...
    @property
    def position(self) -> int: ...
    @property
    def moved(self) -> float: ...
    @property
    def removes_drained(self) -> bool: ...

@final
class RampPlan:
    """A gradual change from one view to another in steps that each move at most ``max_move``."""

    def __new__(cls, old: View, new: View, max_move: float) -> "RampPlan": ...
    @property
    def steps(self) -> Tuple[RampStep, ...]: ...
    def view(self, step: _Count) -> View:
        """The view of step ``step`` (0-based)."""
    def views(self) -> List[View]:
        """Every step's view, in order."""
    @property
    def max_move(self) -> float: ...
    @property
    def total_moved(self) -> float: ...
    @property
    def direct_moved(self) -> float: ...
    @property
    def optimum(self) -> float: ...
    def __len__(self) -> int: ...

def ramp(old: View, new: View, max_move: float) -> RampPlan:
    """The ramp from ``old`` to ``new`` moving at most ``max_move`` of the keys per step."""

# Live views (conformance/LIVE-VIEW.md). Ids come back as the views given to the live view name
# them (a view loaded from a document: str when valid UTF-8, else bytes).

@final
class LiveRoute:
    """Where one key is, as a live view routes it: read from ``read``, write to ``write``."""

    @property
    def read(self) -> Any:
        """The owner in the previous view while a move is in progress (else the current owner):
        where the key's data still is."""
    @property
    def write(self) -> Any:
        """The owner in the current view: where to write."""
    @property
    def moved(self) -> bool:
        """Whether the two owners differ."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class LiveView:
    """The view a client follows: the current view, replaced by newer ones, with the previous one
    kept while keys move. Lookups never wait for an update and never see half of one."""

    def __new__(cls, view: View, *, move_deadline: Optional[float] = None) -> "LiveView": ...
    def update(self, view: View) -> Literal["applied", "unchanged"]:
        """``"applied"`` (a higher epoch: a move begins, the change callbacks ran) or
        ``"unchanged"`` (the same epoch and fingerprint: a confirmation). Refusals, which change
        nothing but ``last_error()``: another seed (SeedMismatchError), a lower epoch
        (StaleViewError), the same epoch with another fingerprint (ViewConflictError)."""
    def finish_move(self) -> bool:
        """Ends the move in progress; returns whether one was."""
    def owner(self, key: _Key) -> Any:
        """The owner of ``key`` in the current view: where to write."""
    def owners(self, keys: Iterable[_Key]) -> List[Any]:
        """The owner of each key, all in one current view."""
    def route(self, key: _Key) -> LiveRoute:
        """Where ``key`` is read and written."""
    def snapshot(self) -> Tuple[View, Optional[View], bool]:
        """``(current, previous, moving)`` of one state; previous is None unless moving."""
    def current(self) -> View:
        """The current view."""
    @property
    def epoch(self) -> int:
        """The current view's epoch, read afresh at each access."""
    @property
    def fingerprint(self) -> str:
        """The current view's fingerprint: 32 hex digits, read afresh at each access."""
    @property
    def moving(self) -> bool:
        """Whether a move is in progress, read afresh at each access."""
    @property
    def move_deadline(self) -> Optional[float]:
        """Seconds after which a move ends by itself, or None."""
    def since_update(self) -> float:
        """Seconds since the last update that was applied or unchanged (or since construction)."""
    def last_error(self) -> Optional[BaseException]:
        """The last refusal, source error or callback exception, until the next applied or
        unchanged update."""
    def report_error(self, error: BaseException) -> None:
        """Records a source's error without changing the view."""
    def on_change(self, callback: Callable[[Transition], object]) -> None:
        """Calls ``callback(transition)`` (previous -> current) after every applied update, on the
        updating thread, after the swap. An exception it raises is recorded in ``last_error()``."""

# Compatibility profiles (conformance/PROFILES.md).

@final
class ProfilePlacement(Generic[_Id]):
    """A membership placed the way an incumbent library places it: ``"go-redis-ring-v9"``,
    ``"pymemcache-rendezvous"``, ``"ketama-libmemcached"`` or ``"hashring-node-3"``.

    For ``pymemcache-rendezvous`` a ``bytes`` key (or id) is hashed as pymemcache hashes it, as
    its ``repr()``; decode it first to look up the ``str`` it encodes."""

    def __new__(
        cls, profile: str, nodes: Iterable[_Id], weights: Optional[Iterable[_Weight]] = None
    ) -> "ProfilePlacement[_Id]": ...
    @property
    def profile(self) -> str:
        """The profile's name."""
    @property
    def nodes(self) -> List[_Id]:
        """The node ids, in the order given."""
    def owner(self, key: _Key) -> _Id:
        """The node the incumbent gives ``key`` to."""
    def owners(self, keys: Iterable[_Key]) -> List[_Id]:
        """The owner of every key, in order."""
    def replicas(self, key: _Key, k: _Count) -> List[_Id]:
        """The first ``k`` distinct nodes of the incumbent's top-k lookup (NotOfferedError where
        it has none)."""
    def __len__(self) -> int: ...

SLOT_TABLE_POLICY: str
"""The policy tag of a levelled slot table, the default mode: ``"slot-table-v2"``."""

RANKED_SLOT_TABLE_POLICY: str
"""The policy tag of a ranked slot table: ``"slot-table-v1"``."""

SLOT_HISTORY_FORMAT: str
"""The format tag of a slot table's document: ``"hrwhash-slot-history-v1"``."""

@final
class SlotTable(Generic[_Id]):
    """Keys hash to ``slots`` slots and a table maps each slot to a node: an owner lookup is one
    key digest and one table read, whatever the number of nodes. The table's state is its history
    (conformance/SLOT-HISTORY.md): the first membership, the ordered changes and an epoch, which
    ``to_json`` writes and ``from_json`` replays, so every client that loads it holds the same
    table; ``fingerprint`` compares tables cheaply.

    ``mode="levelled"`` (POLICIES.md, "slot-table (v2)"): the first table gives every node its
    share; an added node takes its share from the most loaded nodes and a removed node's slots go
    to the least loaded, so a change moves only the changed node's slots, and the table depends on
    the order of changes. ``mode="ranked"`` (POLICIES.md, "slot-table (v1)"): each slot goes to
    the first node of its hrw-v1 ranking with room; with ``overload_ppm`` no node holds more than
    about ``(1 + overload_ppm / 10**6)`` times its share. A ranked table depends only on the
    current membership.

    ``add_node``, ``remove_node`` and ``set_weight`` change the table in place (on error it is
    unchanged); ``with_node``, ``without_node``, ``with_weight`` and ``with_epoch`` return a copy.
    A table may be read and changed from several threads at once."""

    def __new__(
        cls,
        placement: Union[Placement[_Id], View],
        slots: _Count,
        *,
        mode: Literal["levelled", "ranked"] = "levelled",
        overload_ppm: Optional[_Count] = None,
        epoch: int = 0,
    ) -> "SlotTable[_Id]": ...
    @staticmethod
    def from_json(document: Union[str, bytes, bytearray, memoryview], seed: Optional[_Seed] = None) -> "SlotTable[Any]":
        """Loads and replays a document; ``seed`` is the secret seed it was written for."""
    def to_json(self) -> str:
        """The canonical JSON form of the history, ending in a newline."""
    @property
    def slots(self) -> int: ...
    @property
    def mode(self) -> Literal["levelled", "ranked"]: ...
    @property
    def overload_ppm(self) -> Optional[int]:
        """The overload bound of a ranked table; None for a levelled or an unbounded table."""
    @property
    def placement(self) -> Placement[_Id]:
        """The current membership."""
    @property
    def initial(self) -> Placement[_Id]:
        """The first membership, before any change."""
    @property
    def epoch(self) -> int: ...
    @property
    def change_count(self) -> int: ...
    @property
    def fingerprint(self) -> str:
        """The table fingerprint: 32 hex digits."""
    def view(self) -> View:
        """The current membership as a view at the table's epoch."""
    def slot(self, key: _Key) -> int:
        """The slot of ``key``: ``floor(key_digest * slots / 2**64)``."""
    def owner_of_slot(self, slot: _Count) -> _Id:
        """The node that owns ``slot``; :class:`hrwhash.errors.SlotOutOfRangeError` when ``slot >= slots``."""
    def owner(self, key: _Key) -> _Id:
        """The owner of ``key``: the owner of its slot."""
    def assignments(self) -> List[int]:
        """The owner of every slot as an index into the current placement's nodes, slot 0 first."""
    def slot_counts(self) -> List[int]:
        """How many slots each node holds, in node order."""
    def capacities(self) -> Optional[List[int]]:
        """The most slots each node may hold, in node order; None but for a ranked table with an
        overload bound."""
    def add_node(
        self, node: _Id, weight: Optional[_Weight] = None, *, domain: Optional[Union[str, bytes]] = None
    ) -> None:
        """Appends ``node`` to this table."""
    def remove_node(self, node: _Id) -> None:
        """Removes ``node`` from this table."""
    def set_weight(self, node: _Id, weight: _Weight) -> None:
        """Gives ``node`` another weight in this table (0 drains it)."""
    def with_node(
        self, node: _Id, weight: Optional[_Weight] = None, *, domain: Optional[Union[str, bytes]] = None
    ) -> "SlotTable[_Id]":
        """A copy of this table with ``node`` appended."""
    def without_node(self, node: _Id) -> "SlotTable[_Id]":
        """A copy of this table without ``node``."""
    def with_weight(self, node: _Id, weight: _Weight) -> "SlotTable[_Id]":
        """A copy of this table where ``node`` has another weight."""
    def with_epoch(self, epoch: int) -> "SlotTable[_Id]":
        """A copy of this table at another epoch."""

# The domains-v1 policy (conformance/POLICIES.md, "domains (v1)").

DOMAINS_POLICY: str
"""The policy tag: ``"domains-v1"``."""

@final
class Domains(Generic[_Id]):
    """A placement read through the domains-v1 policy at spread level ``level`` (0-based): each
    node's domain is a path of levels separated by ``/`` (``"zone-a/rack-3/host-7"``), replicas go
    to distinct domains of that level, each domain chosen by weighted hrw-v1 over the domains."""

    def __new__(cls, placement: Placement[_Id], level: _Count) -> "Domains[_Id]": ...
    @property
    def placement(self) -> Placement[_Id]: ...
    @property
    def level(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def domain_count(self) -> int: ...
    def owner(self, key: _Key) -> _Id:
        """The owner of ``key``: the first of its replicas."""
    def replicas(self, key: _Key, k: _Count) -> List[_Id]:
        """The first ``k`` replicas of ``key`` (``k`` from 1 to the nodes of weight above zero)."""
    def domain_of(self, node: Union[str, bytes]) -> Union[str, bytes]:
        """The domain of the spread level ``node`` is in: its path up to that level."""

BOUNDED_LOAD_POLICY: str
REPLICA_BALANCE_POLICY: str

@final
class BoundedLoad(Generic[_Id]):
    """bounded-load-v1 (conformance/POLICIES.md): a key goes to the first node of its ranking whose
    load is below ``ceil((total + 1) * c) * share``. ``c`` is a number >= 1 (rounded to millionths)
    or an exact ``(num, den)`` tuple."""

    def __new__(cls, placement: Placement[_Id], c: Union[float, Tuple[int, int]]) -> BoundedLoad[_Id]: ...
    @property
    def factor(self) -> Tuple[int, int]: ...
    @property
    def placement(self) -> Placement[_Id]: ...
    def owner(self, key: _Key, loads: Iterable[int]) -> _Id:
        """The node for ``key`` given the load of every node (build order; a placement loaded from a
        view document has its nodes in id order, VIEW.md section 2, so match loads to
        ``placement.nodes`` by id after a load). ``loads`` is read no further than one item past
        the nodes: a longer iterable is a
        :class:`~hrwhash.errors.LengthMismatchError` at once."""
    def owner_index(self, key: _Key, loads: Iterable[int]) -> int:
        """The build-order index of :meth:`owner`."""
    def assign(self, keys: Iterable[_Key]) -> List[_Id]: ...
    def assign_indices(self, keys: Iterable[_Key]) -> List[int]: ...

@final
class ReplicaBalance(Generic[_Id]):
    """replica-balance (conformance/POLICIES.md, tag ``replica-balance-v2``): replica sets of ``k``
    nodes whose share of replicas follows the weights, from an exact solver; the primary is the
    hrw-v1 owner."""

    def __new__(cls, placement: Placement[_Id], k: int) -> ReplicaBalance[_Id]: ...
    @property
    def k(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def residual(self) -> float: ...
    @property
    def adjusted_weights(self) -> List[float]: ...
    @property
    def adjusted_fixed(self) -> List[int]: ...
    def replicas(self, key: _Key) -> List[_Id]: ...
    def replica_indices(self, key: _Key) -> List[int]: ...
