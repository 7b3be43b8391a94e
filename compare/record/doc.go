// Package record is the JSON record of a driver comparison run
// (cmd/urcompare run): the machine, the gour build, the settings, and for
// every adapter × device its conformance results and its metrics, each
// metric with every round's value, their median, minimum and maximum, its
// unit, which way is better, and whether its results were checked right,
// and how many of the rounds each child process measured with each one's
// median (absent from records older than them).
//
// The record carries a schema version (SchemaVersion). Read refuses a
// record of another version, and fields it does not know, rather than
// compare numbers whose meaning may have changed.
package record
