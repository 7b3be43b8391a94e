package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/signing"
)

const keyUsage = `usage: urcache key new [--name NAME] FILE
       urcache key show FILE

new   makes a key pair for the remote tier's signed entries: the private
      key in FILE (mode 0600), the public key in FILE.pub; it prints the
      public key. NAME labels the key (default: the host name and today's
      date). A machine that stores to the remote tier signs with it:
        ` + cache.EnvSigningKey + `=FILE
      every machine that reads lists the public key (or the .pub file):
        ` + cache.EnvTrustedKeys + `=NAME:BASE64,/path/to/other.pub
show  prints the public key of a private or public key file.
`

// runKey runs `urcache key ...`.
func runKey(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, keyUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("urcache key "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	name := fs.String("name", "", "the key's name")
	switch args[0] {
	case "new", "show":
	case "help", "-h", "--help":
		fmt.Fprint(stdout, keyUsage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "urcache key: unknown command %q\n", args[0])
		fmt.Fprint(stderr, keyUsage)
		return exitUsage
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, keyUsage)
			return exitOK
		}
		fmt.Fprint(stderr, keyUsage)
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "urcache key %s: want one FILE\n", args[0])
		return exitUsage
	}
	file := fs.Arg(0)
	if args[0] == "show" {
		return showKey(file, stdout, stderr)
	}
	if *name == "" {
		host, _ := os.Hostname()
		host, _, _ = strings.Cut(host, ".")
		*name = strings.Trim(host+"-"+time.Now().Format("20060102"), "-")
	}
	k, err := signing.Generate(*name)
	if err != nil {
		fmt.Fprintln(stderr, "urcache key new:", err)
		return exitUsage
	}
	if err := signing.WriteKeyPair(file, k); err != nil {
		fmt.Fprintln(stderr, "urcache key new:", err)
		return exitError
	}
	fmt.Fprintln(stdout, k.Public())
	fmt.Fprintf(stderr, "urcache key new: private key in %s, public key in %s.pub\n", file, file)
	return exitOK
}

// showKey prints the public key of a private key file, else of a public
// key file.
func showKey(file string, stdout, stderr io.Writer) int {
	priv, err := signing.ReadPrivateKey(file)
	if err == nil {
		fmt.Fprintln(stdout, priv.Public())
		return exitOK
	}
	pubs, perr := signing.ReadPublicKeys(file)
	if perr != nil {
		fmt.Fprintf(stderr, "urcache key show: %v (as a private key: %v)\n", perr, err)
		return exitError
	}
	for _, k := range pubs {
		fmt.Fprintln(stdout, k)
	}
	return exitOK
}
