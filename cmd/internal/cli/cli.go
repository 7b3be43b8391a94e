package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit statuses, the same in every command.
const (
	ExitOK      = 0 // done, or the usage was asked for
	ExitFailure = 1 // the command could not do its job: no device, a failed run
	ExitUsage   = 2 // misuse: a bad flag or argument, a malformed setting
)

// ErrHelp is what Command.Parse returns once it has printed the usage that
// -h or --help asked for: the command stops and exits 0.
var ErrHelp = flag.ErrHelp

// UsageError is misuse of a command; Exit gives it status 2.
type UsageError struct {
	Err error
	// Help is the command whose -h shows the right use ("urbench launch"),
	// or "" when the problem is a setting rather than the command line.
	Help string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError about command's command line.
func Usagef(command, format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...), Help: command}
}

// Exit reports err on stderr as "command: err", with a pointer to -h for
// misuse of the command line, and returns the exit status: ExitOK for nil
// and ErrHelp, ExitUsage for a *UsageError, ExitFailure otherwise.
func Exit(stderr io.Writer, command string, err error) int {
	if err == nil || errors.Is(err, ErrHelp) {
		return ExitOK
	}
	fmt.Fprintf(stderr, "%s: %v\n", command, err)
	var u *UsageError
	if errors.As(err, &u) {
		if u.Help != "" {
			fmt.Fprintf(stderr, "run '%s -h' for usage\n", u.Help)
		}
		return ExitUsage
	}
	return ExitFailure
}

// Command is one command or subcommand: its flags and its usage text.
type Command struct {
	Name  string // as typed, "urinfo" or "urbench launch"; it prefixes messages
	Args  string // the synopsis after Name, "[-verbose | -json]"
	Doc   string // what the command does, a few lines
	Flags *flag.FlagSet

	device *string // the -device flag, when DeviceFlag added it
}

// New returns a command with no flags yet; add them to its Flags.
func New(name, args, doc string) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Parse reports errors and prints the usage itself, to the right stream.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &Command{Name: name, Args: args, Doc: doc, Flags: fs}
}

// Usage writes the usage line, the description and the flags to w.
func (c *Command) Usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s %s\n", c.Name, c.Args)
	if doc := strings.TrimSpace(c.Doc); doc != "" {
		fmt.Fprintf(w, "\n%s\n", doc)
	}
	hasFlags := false
	c.Flags.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
		c.Flags.SetOutput(w)
		c.Flags.PrintDefaults()
		c.Flags.SetOutput(io.Discard)
	}
}

// Parse parses args, which must all be flags. For -h or --help it prints
// the usage to stdout and returns ErrHelp; for a bad flag or a stray
// argument it returns a *UsageError.
func (c *Command) Parse(args []string, stdout io.Writer) error {
	err := c.Flags.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		c.Usage(stdout)
		return ErrHelp
	}
	if err != nil {
		return &UsageError{Err: err, Help: c.Name}
	}
	if c.Flags.NArg() > 0 {
		return Usagef(c.Name, "unexpected argument %q", c.Flags.Arg(0))
	}
	return nil
}

// ParseInterleaved parses args whose flags may come before, between or
// after the positional arguments, and returns the positional ones; those
// after a "--" are positional whatever they look like. For -h or --help
// it prints the usage to stdout and returns ErrHelp; for a bad flag it
// returns a *UsageError.
func (c *Command) ParseInterleaved(args []string, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		err := c.Flags.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.Usage(stdout)
			return nil, ErrHelp
		}
		if err != nil {
			return nil, &UsageError{Err: err, Help: c.Name}
		}
		args = c.Flags.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
