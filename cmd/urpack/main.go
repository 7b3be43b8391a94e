package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cmd/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: urpack COMMAND [flags] ARGS

Package device code into offload bundles, and look inside them.

commands:
  build -o OUT [flags] INPUT...   build the targets asked for and write a bundle
  inspect [--json] BUNDLE         list the images: targets, kernels, properties, sizes
  select [--json] [--kernel K] [--device SELECTOR] BUNDLE
                                  which image each present device would get, and why
  help                            print this help

"urpack COMMAND -h" prints the flags of a command.
Exit status: 0 done (and -h), 1 failure, 2 misuse.
`

// run is urpack without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return cli.ExitUsage
	}
	name, rest := args[0], args[1:]
	var err error
	switch name {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return cli.ExitOK
	case "build":
		err = build(rest, stdout, stderr)
	case "inspect":
		err = inspect(rest, stdout)
	case "select":
		err = selectCmd(rest, stdout, stderr)
	default:
		err = cli.Usagef("urpack", "unknown command %q", name)
	}
	command := "urpack"
	if u := (*cli.UsageError)(nil); !errors.As(err, &u) || u.Help != "urpack" {
		command = "urpack " + name
	}
	return cli.Exit(stderr, command, err)
}

// listFlag is a flag that may be repeated; each use adds a value.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
