package hrwhash

/*
#include <hrwhash.h>
*/
import "C"

import "fmt"

// Code is a status of the C ABI (hrw_status); the numbers are fixed.
type Code uint32

// The codes; compare with errors.Is(err, hrwhash.ErrDuplicateNodeID) and friends.
const (
	CodeNullParameter     Code = C.HRW_STATUS_NULL_PARAMETER
	CodeEmptyMembership   Code = C.HRW_STATUS_EMPTY_MEMBERSHIP
	CodeEmptyNodeID       Code = C.HRW_STATUS_EMPTY_NODE_ID
	CodeDuplicateNodeID   Code = C.HRW_STATUS_DUPLICATE_NODE_ID
	CodeInvalidWeight     Code = C.HRW_STATUS_INVALID_WEIGHT
	CodeAllWeightsZero    Code = C.HRW_STATUS_ALL_WEIGHTS_ZERO
	CodeInvalidSeedLength Code = C.HRW_STATUS_INVALID_SEED_LENGTH
	CodeLengthMismatch    Code = C.HRW_STATUS_LENGTH_MISMATCH
	CodeUnknownNode       Code = C.HRW_STATUS_UNKNOWN_NODE
	CodeBufferTooSmall    Code = C.HRW_STATUS_BUFFER_TOO_SMALL
	CodeIndexOutOfRange   Code = C.HRW_STATUS_INDEX_OUT_OF_RANGE
	CodePanic             Code = C.HRW_STATUS_PANIC
	CodeUnknown           Code = C.HRW_STATUS_UNKNOWN
)

// Sentinels for errors.Is; the *Error returned by calls carries the details.
var (
	ErrNullParameter     = &Error{Code: CodeNullParameter}
	ErrEmptyMembership   = &Error{Code: CodeEmptyMembership}
	ErrEmptyNodeID       = &Error{Code: CodeEmptyNodeID}
	ErrDuplicateNodeID   = &Error{Code: CodeDuplicateNodeID}
	ErrInvalidWeight     = &Error{Code: CodeInvalidWeight}
	ErrAllWeightsZero    = &Error{Code: CodeAllWeightsZero}
	ErrInvalidSeedLength = &Error{Code: CodeInvalidSeedLength}
	ErrLengthMismatch    = &Error{Code: CodeLengthMismatch}
	ErrUnknownNode       = &Error{Code: CodeUnknownNode}
	ErrBufferTooSmall    = &Error{Code: CodeBufferTooSmall}
	ErrIndexOutOfRange   = &Error{Code: CodeIndexOutOfRange}
	ErrPanic             = &Error{Code: CodePanic}
	ErrUnknown           = &Error{Code: CodeUnknown}
)

// Error is every error of this package.
type Error struct {
	Code Code
	// Index is the node position for CodeEmptyNodeID, CodeDuplicateNodeID, CodeInvalidWeight.
	Index int
	// FirstIndex is the first node with the same id, for CodeDuplicateNodeID.
	FirstIndex int
	// Weight is the rejected weight, for CodeInvalidWeight.
	Weight float64
	// Expected and Actual are the lengths of CodeLengthMismatch and CodeInvalidSeedLength.
	Expected, Actual int
}

func (e *Error) Error() string {
	msg := "hrwhash: " + C.GoString(C.hrw_status_message(C.uint32_t(e.Code)))
	switch e.Code {
	case CodeEmptyNodeID:
		return fmt.Sprintf("%s (node %d)", msg, e.Index)
	case CodeDuplicateNodeID:
		return fmt.Sprintf("%s (node %d repeats node %d)", msg, e.Index, e.FirstIndex)
	case CodeInvalidWeight:
		return fmt.Sprintf("%s (node %d: %v)", msg, e.Index, e.Weight)
	case CodeLengthMismatch, CodeInvalidSeedLength:
		return fmt.Sprintf("%s (expected %d, got %d)", msg, e.Expected, e.Actual)
	}
	return msg
}

// Is matches errors of the same code, so errors.Is(err, ErrInvalidWeight) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func errorFromStatus(st C.hrw_status) error {
	return &Error{Code: Code(st)}
}

func errorFromDetail(st C.hrw_status, d *C.hrw_error) error {
	return &Error{
		Code:       Code(st),
		Index:      int(d.index),
		FirstIndex: int(d.first_index),
		Weight:     float64(d.value),
		Expected:   int(d.expected),
		Actual:     int(d.actual),
	}
}
