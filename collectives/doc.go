// Package collectives runs collective communication — all-reduce,
// broadcast, reduce, all-gather, reduce-scatter, send and receive — among
// ranks that are devices of gour queues: several devices of one process,
// or one device in each of several processes on one machine or many. It
// is a layer above package ur and reaches drivers only through ur's
// public API and native handles.
//
// # Communicators
//
// A Communicator is one rank: one device, one *ur.Queue. NewGroup makes
// the ranks of one process (NCCL's ncclCommInitAll):
//
//	comms, err := collectives.NewGroup([]*ur.Queue{q0, q1})
//	err = collectives.Group(func() error { // one goroutine drives both ranks
//		for r, c := range comms {
//			if err := c.AllReduce(send[r].Ptr(), recv[r].Ptr(), n, dtype.Float32, collectives.Sum); err != nil {
//				return err
//			}
//		}
//		return nil
//	})
//
// Processes make one rank each from a UniqueID that rank 0 makes and hands
// round: Connect does it through a Rendezvous (a Redis server with
// package collectives/redisrendezvous, or the caller's own store), Join
// takes the id from the caller. Both wait for every rank until their
// context ends, then abort what they set up and return an error carrying
// ErrTimeout: a rank that never comes costs a deadline, not a hang.
//
// Operations take USM pointers (ur.Ptr) of the communicator's queue's
// context, a count of elements, a dtype.Type and, for reductions, an Op;
// they are ordered on the queue after its earlier work. Pointers are
// checked before anything runs: nil, freed, past the end or of another
// context give ErrInvalidPointer carrying ur's code.
//
// # Backends
//
// Two backends carry the operations; Communicator.Backend says which:
//
//   - "nccl": NVIDIA's NCCL (libnccl.so.2, loaded at run time without cgo)
//     on CUDA queues. Operations are enqueued on the queue's CUDA stream,
//     with the queue's context current, and return at once: NCCL's own
//     speed, nothing added. Communicators of several processes are
//     non-blocking during their setup, so that Join's deadline can abort
//     them; they need NCCL 2.23 (ncclCommInitRankScalable). A missing NCCL
//     is a *LibraryError (ErrLibraryUnavailable) naming the library and
//     why, when NCCL is asked for; otherwise the ring runs.
//   - "ring": gour's own ring for every other device (OpenCL, Level
//     Zero, CUDA without NCCL): ring all-reduce as reduce-scatter then
//     all-gather, each operation copying through the host, reducing there
//     and copying back before it returns. Ranks of one process exchange
//     through memory; ranks of several processes over TCP, their addresses
//     exchanged through the rendezvous. It is correct rather than fast: it
//     exists so that every path runs everywhere (PoCL in CI). Every message
//     describes its operation, so ranks that call different collectives,
//     counts, types or roots get ErrMismatch at once; a peer that does not
//     come within WithTimeout gives ErrTimeout; a rank that fails aborts
//     its peers' waits (ErrAborted).
//
// WithBackend (or GOUR_COLLECTIVES_BACKEND=ring) forces a backend.
//
// # Groups
//
// Group(fn) issues the operations of fn as one: NCCL's
// ncclGroupStart/ncclGroupEnd, and for the ring one goroutine per
// communicator when fn returns. As with NCCL, ranks of one process that
// one goroutine drives must be called in a Group, and so must a Send and
// a Recv in both directions between two ranks; ranks driven by a
// goroutine each need no group.
package collectives
