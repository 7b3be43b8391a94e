// Package trace records what a gour program does as a timeline: Chrome's
// trace event format (JSON), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open.
//
// Package ur writes every call into the active recorder when its tracing
// layer is on (UR_ENABLE_LAYERS=UR_LAYER_TRACING, or GOUR_TRACE=path; see
// ur.StartTrace); programmgr and cache add their spans (lookups, builds,
// disk and remote hits) through Begin, and so may a program. This package
// imports nothing else of gour, so that any layer can use it.
//
// With no recorder active, Begin is one atomic load and allocates
// nothing.
//
// # The file
//
// The file is a JSON array of events written as they happen, each on a
// line. Events are buffered and written every FlushInterval and whenever
// 256 KiB are pending; each write ends with the closing bracket, which
// the next write overwrites, so the file is a complete trace after every
// write: a program that exits without Close (Go has no atexit) leaves a
// complete file and loses at most the events of the last interval. A
// file cut inside a write (a crash, a full disk) ends with a whole event
// or inside one; Read reads what it holds, and `urtrace repair` cuts it
// after its last whole event and closes it.
//
// Host events are on process 1, on tracks named "host N" that each hold
// events nesting or following one another (a goroutine's calls and the
// span around them share one while no other goroutine's cut across
// them). Device events are on process 2, one track per queue.
// Times are microseconds since the trace started (the ts field, with
// nanosecond decimals).
package trace
