package expr

import "fmt"

// Pos is a position in a function's source: a byte offset and the 1-based
// line and column (in bytes) it falls on.
type Pos struct {
	Offset int
	Line   int
	Col    int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Error is every error Parse, Check and Compile return: where in the
// source, the name involved (an identifier or function, "" when none) and
// what is wrong. Match it with errors.As.
type Error struct {
	Pos  Pos
	Name string
	Msg  string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(pos Pos, name, format string, args ...any) *Error {
	return &Error{Pos: pos, Name: name, Msg: fmt.Sprintf(format, args...)}
}
