package collectives

import (
	"errors"
	"fmt"
)

// Sentinels: errors.Is(err, ErrTimeout) holds for every error of that
// kind, whatever its details.
var (
	// ErrLibraryUnavailable: a library the backend needs (libnccl.so.2,
	// libcuda.so.1) is missing or too old; the error is a *LibraryError
	// naming it and saying why.
	ErrLibraryUnavailable = errors.New("library unavailable")
	// ErrTimeout: a bounded wait ended first: a rank that never joined
	// (Join, Connect), a peer that never sent (the ring's Options
	// timeout), a rendezvous key never published.
	ErrTimeout = errors.New("timed out")
	// ErrMismatch: the ranks called different collectives, or one with
	// different counts, types, reductions or roots. The ring detects it
	// on its first message; NCCL does not (it hangs or corrupts, as in C).
	ErrMismatch = errors.New("ranks disagree")
	// ErrAborted: the communicator was aborted or closed, by this rank
	// (Abort, Close, an earlier failure) or a peer (closed, crashed).
	ErrAborted = errors.New("communicator aborted")
	// ErrInvalidArgument: a bad count, data type, reduction, rank, root,
	// option or queue.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrInvalidPointer: a nil Ptr, one whose allocation was freed, one
	// of another context than the communicator's queue (of another
	// adapter), or a range past the allocation's end. The ur error is
	// wrapped: errors.Is(err, ur.ErrInvalidContext) tells a pointer of
	// another context.
	ErrInvalidPointer = errors.New("invalid pointer")
	// ErrUnsupported: the backend cannot do what was asked (NCCL on a
	// queue that is not CUDA's).
	ErrUnsupported = errors.New("unsupported")
	// ErrRendezvous: the rendezvous failed (a key published twice with
	// different values: a job name reused while its keys live; the
	// store unreachable).
	ErrRendezvous = errors.New("rendezvous failed")
	// ErrBackend: the backend's library failed (an NCCL error); Native
	// and NativeName carry its code.
	ErrBackend = errors.New("backend error")
)

// Error is the error of a collective operation or a communicator's
// setup.
type Error struct {
	Op      string // "AllReduce", "Join", ...
	Rank    int    // the rank that failed; -1 where none applies
	Backend string // "nccl" or "ring"; "" before one was chosen
	// Kind is one of the package's sentinels (errors.Is matches it).
	Kind error
	// Native and NativeName are the library's code (ncclResult_t) where
	// it gave one.
	Native     int
	NativeName string
	Message    string
	Err        error // the cause, if any
}

func (e *Error) Error() string {
	s := "collectives: " + e.Op
	if e.Rank >= 0 {
		s += fmt.Sprintf(" (rank %d", e.Rank)
		if e.Backend != "" {
			s += ", " + e.Backend
		}
		s += ")"
	} else if e.Backend != "" {
		s += " (" + e.Backend + ")"
	}
	if e.Kind != nil {
		s += ": " + e.Kind.Error()
	}
	if e.NativeName != "" {
		s += ": " + e.NativeName
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is the error's Kind.
func (e *Error) Is(target error) bool { return target != nil && target == e.Kind }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func newError(op string, rank int, backend string, kind error, format string, args ...any) *Error {
	return &Error{Op: op, Rank: rank, Backend: backend, Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// LibraryError says that a library could not be used: which one, and why
// (the loader's reasons for each name tried, a missing entry point, a
// version too old). errors.Is(err, ErrLibraryUnavailable) holds.
type LibraryError struct {
	Library string // "libnccl.so.2"
	Reason  string
	Err     error // the loader's error, if any
}

func (e *LibraryError) Error() string {
	s := "collectives: " + e.Library + " is not available: " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is matches ErrLibraryUnavailable.
func (e *LibraryError) Is(target error) bool { return target == ErrLibraryUnavailable }

// Unwrap returns the loader's error.
func (e *LibraryError) Unwrap() error { return e.Err }
