// Package driver defines the interfaces a gour adapter implements, the
// result codes every adapter reports, and the registry adapters join in
// their init functions.
//
// It plays the role database/sql/driver plays for database/sql: users never
// program against it. The front end in package ur validates parameters,
// owns handle lifetimes and shapes errors, so an adapter only translates
// calls into its vendor's API. An adapter may therefore assume that every
// handle it receives is one of its own, not nil and not released.
package driver
