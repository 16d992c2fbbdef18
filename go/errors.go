package hrwhash

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Code is the number of an error; it equals the C ABI's status (hrw_status) of the same name,
// in both builds, and never changes.
type Code uint32

// ViewFault says what is wrong with the member of a view document that an ErrInvalidView
// names; the values are the names conformance/views.json uses.
type ViewFault string

// The faults of conformance/VIEW.md section 5.
const (
	FaultMissing          ViewFault = "missing"
	FaultWrongType        ViewFault = "wrong_type"
	FaultUnknown          ViewFault = "unknown"
	FaultDuplicate        ViewFault = "duplicate"
	FaultConflict         ViewFault = "conflict"
	FaultUnsupported      ViewFault = "unsupported"
	FaultInvalid          ViewFault = "invalid"
	FaultOutOfRange       ViewFault = "out_of_range"
	FaultNotRepresentable ViewFault = "not_representable"
)

// String is the variant name of conformance/API.md ("InvalidWeight", "EmptyNodeId", ...).
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return "Code(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// Error is every error of this package. Only the fields that its Code names are meaningful.
type Error struct {
	Code Code
	// Index is the position of the node (0-based, in the caller's list) for CodeEmptyNodeID,
	// CodeDuplicateNodeID and CodeInvalidWeight, -1 for an InvalidWeight that belongs to no node
	// (WeightToFixed); the rejected index (of a node, of a ramp step) for CodeIndexOutOfRange.
	Index int
	// FirstIndex is the first node with the same id, for CodeDuplicateNodeID.
	FirstIndex int
	// Weight is the rejected weight, for CodeInvalidWeight.
	Weight float64
	// ID is the node id of CodeDuplicateNodeID and CodeUnknownNode.
	ID string
	// Expected and Actual are the lengths of CodeLengthMismatch, CodeInvalidSeedLength and
	// CodeBufferTooSmall (Expected: what was needed), and for CodeIndexOutOfRange Expected is
	// the number of items (nodes, ramp steps).
	Expected, Actual int
	// Count is the number of nodes of CodeTooManyNodes; the rejected k of CodeInvalidCount and CodeResultTooLarge (for NewReplicaBalance
	// What names it "k"); for
	// CodeResultTooLarge, Actual is the number of keys; the rejected k of
	// CodeInvalidReplicaCount (whose Expected, from ReplicasStrict, is the number of failure
	// domains); the k of CodeInfeasibleReplicaWeights (whose Index is the node).
	Count int
	// Factor is the rejected num/den of CodeInvalidBalanceFactor (NaN or +Inf when den is 0).
	Factor float64
	// Line and Column are where parsing stopped, for CodeInvalidJSON (1-based; Column counts
	// bytes, and is just past the last byte when the text ended too early).
	Line, Column int
	// Field is the member of the view document at fault for CodeInvalidView ("format",
	// "weight", an unknown member's own name, "" for the document itself); Index is then the
	// node's position in "nodes", or -1 when the fault is not inside a node; Reason says what
	// is wrong.
	Field  string
	Reason ViewFault
	// MaxMove is the rejected limit of CodeInvalidMoveLimit.
	MaxMove float64
	// Profile is the profile name of CodeUnknownProfile and CodeNotOffered.
	Profile string
	// What is what the profile does not offer, for CodeNotOffered; for a CodeInvalidCount of
	// NewReplicaBalance, the count at fault ("k").
	What string
	// Slots is the rejected number of slots of CodeInvalidSlotCount, and the table's number of
	// slots for CodeSlotOutOfRange, whose Slot is the slot asked for.
	Slots, Slot uint64
	// DomainReason is what is wrong for CodeInvalidDomains: "missing", "empty_level",
	// "depth_mismatch", "level_out_of_range" or "weight_overflow" (conformance/POLICIES.md).
	DomainReason string
	// Epoch is the offered view's epoch of CodeStaleView and CodeViewConflict; Current is the
	// live view's epoch of CodeStaleView.
	Epoch, Current uint64
	// Err is the operating system's error (an *fs.PathError) for CodeIO, the status the C ABI
	// and the other languages give a file that cannot be read; Unwrap returns it.
	Err error
}

// countRange says which counts a policy takes, for an ErrInvalidCount whose What names the count.
var countRange = map[string]string{
	"k": "the number of replicas is at least 1",
}

// quoted shows an id as Go source text, shortened: an id may be megabytes long.
func quoted(id string) string {
	const limit = 64
	if len(id) > limit {
		return strconv.Quote(id[:limit]) + "..."
	}
	return strconv.Quote(id)
}

func weightText(w float64) string { return strconv.FormatFloat(w, 'g', -1, 64) }

// weightProblem says what is wrong with w itself.
func weightProblem(w float64) string {
	switch {
	case math.IsNaN(w):
		return "not a number"
	case math.IsInf(w, 0):
		return "infinite"
	case w < 0:
		return "negative"
	case w >= 1<<32:
		return "2^32 or more"
	default:
		return "positive but rounds to 0 at 32 fractional bits (0 is the weight that drains a node)"
	}
}

func (e *Error) Error() string {
	switch e.Code {
	case CodeNullParameter:
		return "hrwhash: the Placement, View, Transition, Diff or RampPlan is nil or was not built by a constructor of this package"
	case CodeEmptyMembership:
		return "hrwhash: empty membership: no nodes"
	case CodeEmptyNodeID:
		return fmt.Sprintf("hrwhash: empty node id at index %d", e.Index)
	case CodeDuplicateNodeID:
		if e.ID == "" {
			// A view document's duplicate: libhrwhash names the positions, not the id (an empty
			// id is never a duplicate, it is ErrEmptyNodeID first).
			return fmt.Sprintf("hrwhash: duplicate node id at index %d (first at index %d)", e.Index, e.FirstIndex)
		}
		return fmt.Sprintf("hrwhash: duplicate node id %s at index %d (first at index %d)", quoted(e.ID), e.Index, e.FirstIndex)
	case CodeInvalidWeight:
		if e.Index < 0 {
			return fmt.Sprintf("hrwhash: invalid weight %s: %s", weightText(e.Weight), weightProblem(e.Weight))
		}
		return fmt.Sprintf("hrwhash: invalid weight %s of node %d: %s", weightText(e.Weight), e.Index, weightProblem(e.Weight))
	case CodeAllWeightsZero:
		return "hrwhash: every node has weight 0, so no node can be selected"
	case CodeInvalidSeedLength:
		return fmt.Sprintf("hrwhash: seed of %d bytes; a seed has %d", e.Actual, e.Expected)
	case CodeLengthMismatch:
		return fmt.Sprintf("hrwhash: length mismatch: %d given for %d", e.Actual, e.Expected)
	case CodeUnknownNode:
		return fmt.Sprintf("hrwhash: unknown node id %s", quoted(e.ID))
	case CodeBufferTooSmall:
		return fmt.Sprintf("hrwhash: output of length %d for %d results", e.Actual, e.Expected)
	case CodeIndexOutOfRange:
		return fmt.Sprintf("hrwhash: index %d is out of range: there are %d items", e.Index, e.Expected)
	case CodeInvalidCount:
		if e.What != "" {
			return fmt.Sprintf("hrwhash: invalid count %s = %d: %s", e.What, e.Count, countRange[e.What])
		}
		return fmt.Sprintf("hrwhash: invalid count k = %d: negative", e.Count)
	case CodeInvalidSlotCount:
		return fmt.Sprintf("hrwhash: invalid slot count %d: a slot table has between 1 and 2^24 slots", e.Slots)
	case CodeSlotOutOfRange:
		return fmt.Sprintf("hrwhash: slot %d is out of range: the table has %d slots", e.Slot, e.Slots)
	case CodeResultTooLarge:
		return fmt.Sprintf("hrwhash: result too large: %d keys with k = %d", e.Actual, e.Count)
	case CodeInvalidDomains:
		if e.Index < 0 {
			return fmt.Sprintf("hrwhash: domains: %s", e.DomainReason)
		}
		return fmt.Sprintf("hrwhash: domains: node %d: %s", e.Index, e.DomainReason)
	case CodeInvalidReplicaCount:
		return fmt.Sprintf("hrwhash: %d replicas asked for: a count from 1 to the nodes of weight above zero (for ReplicasStrict, to the failure domains holding one) is needed", e.Count)
	case CodeInvalidText:
		return "hrwhash: a string has no UTF-8 form"
	case CodeUnknownProfile:
		return fmt.Sprintf("hrwhash: unknown profile %s (conformance/PROFILES.md lists the profiles)", quoted(e.Profile))
	case CodeNotOffered:
		return fmt.Sprintf("hrwhash: profile %s does not offer %s", e.Profile, e.What)
	case CodeInvalidBalanceFactor:
		return fmt.Sprintf("hrwhash: invalid balance factor %s: it must be num/den with den >= 1 and num >= den", weightText(e.Factor))
	case CodeLoadOverflow:
		return "hrwhash: the loads add up to more than 2^64 - 1"
	case CodeInfeasibleReplicaWeights:
		return fmt.Sprintf("hrwhash: node %d has more than 1/%d of the total weight, so it cannot hold its share of %d replicas", e.Index, e.Count, e.Count)
	case CodePanic:
		return "hrwhash: libhrwhash panicked; the call had no effect"
	case CodeInvalidJSON:
		return fmt.Sprintf("hrwhash: view: not well-formed JSON at line %d, column %d", e.Line, e.Column)
	case CodeInvalidView:
		switch {
		case e.Index >= 0 && (e.Field == "initial" || e.Field == "changes"):
			// A slot history's lists (conformance/SLOT-HISTORY.md), named with their members.
			return fmt.Sprintf("hrwhash: %s[%d]: %s", e.Field, e.Index, e.Reason)
		case e.Index >= 0 && strings.Contains(e.Field, "."):
			list, _, _ := strings.Cut(e.Field, ".")
			return fmt.Sprintf("hrwhash: %s[%d] member %s: %s", list, e.Index, quoted(e.Field), e.Reason)
		case e.Index >= 0:
			return fmt.Sprintf("hrwhash: view: nodes[%d] member %s: %s", e.Index, quoted(e.Field), e.Reason)
		case e.Field == "":
			return fmt.Sprintf("hrwhash: view: the document: %s", e.Reason)
		}
		return fmt.Sprintf("hrwhash: view: member %s: %s", quoted(e.Field), e.Reason)
	case CodeSeedMismatch:
		return "hrwhash: the seed does not match the view's seed fingerprint: keys would be placed on other nodes"
	case CodeTooManyNodes:
		return fmt.Sprintf("hrwhash: %d nodes are more than a placement can hold", e.Count)
	case CodeIO:
		return fmt.Sprintf("hrwhash: the file could not be read: %v", e.Err)
	case CodeStaleView:
		return fmt.Sprintf("hrwhash: stale view: epoch %d is below the live view's epoch %d", e.Epoch, e.Current)
	case CodeViewConflict:
		return fmt.Sprintf("hrwhash: view conflict: epoch %d is already live with another fingerprint: two publishers disagree", e.Epoch)
	case CodeInvalidMoveLimit:
		return fmt.Sprintf("hrwhash: invalid per-step move limit %s: a fraction in (0, 1] large enough to advance the ramp", weightText(e.MaxMove))
	}
	return fmt.Sprintf("hrwhash: error %s", e.Code)
}

// Unwrap gives the operating system's error of a CodeIO, so errors.Is(err, fs.ErrNotExist) works.
func (e *Error) Unwrap() error { return e.Err }

// Is matches errors of the same code, so errors.Is(err, ErrInvalidWeight) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}
