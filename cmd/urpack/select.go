package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/cmd/internal/cli"
)

// choiceJSON is one kernel's choice on one device, as select --json
// prints it.
type choiceJSON struct {
	Kernels  []string `json:"kernels"`
	Image    int      `json:"image"` // -1 when none fits
	Rank     string   `json:"rank,omitempty"`
	Error    string   `json:"error,omitempty"`
	Rejected []string `json:"rejected,omitempty"`
}

type deviceJSON struct {
	Device      string       `json:"device"`
	Description string       `json:"description"`
	Choices     []choiceJSON `json:"choices"`
}

func selectCmd(args []string, stdout, stderr io.Writer) error {
	c := cli.New("urpack select", "[--json] [--verbose] [--kernel NAME]... [--device SELECTOR] BUNDLE", `
Say which image of the bundle each present device would run, for each
kernel, and why: an exact native match, a compatible binary, IL the device
compiles, or source. --verbose adds why every other image was passed over.`)
	asJSON := c.Flags.Bool("json", false, "print the choices as JSON")
	verbose := c.Flags.Bool("verbose", false, "say why each other image was passed over")
	var kernels listFlag
	c.Flags.Var(&kernels, "kernel", "only this kernel (repeatable); default every kernel of the bundle")
	c.DeviceFlag()
	pos, err := c.ParseInterleaved(args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef(c.Name, "want one bundle, got %d arguments", len(pos))
	}
	sys, sel, err := c.Discover()
	if err != nil {
		return err
	}
	b, _, err := readBundle(pos[0])
	if err != nil {
		return err
	}
	if len(kernels) == 0 {
		kernels = b.Kernels()
	}
	if len(sys.Devices) == 0 {
		cli.WriteAdapterFailures(stderr, sys)
		return cli.NoDevice(sys, sel, "")
	}
	var out []deviceJSON
	for _, d := range sys.Devices {
		desc := bundle.DescribeDevice(d)
		dj := deviceJSON{Device: d.String(), Description: describe(desc)}
		// Kernels that get the same image are listed together.
		byImage := map[int]int{}
		for _, k := range kernels {
			s, err := b.Select(desc, bundle.Request{Kernels: []string{k}})
			if err != nil {
				dj.Choices = append(dj.Choices, choiceJSON{Kernels: []string{k}, Image: -1, Error: err.Error()})
				continue
			}
			if i, ok := byImage[s.Index]; ok {
				dj.Choices[i].Kernels = append(dj.Choices[i].Kernels, k)
				continue
			}
			ch := choiceJSON{Kernels: []string{k}, Image: s.Index, Rank: s.Rank.String()}
			for _, r := range s.Rejected {
				if r.Reason != bundle.ReasonKernel {
					ch.Rejected = append(ch.Rejected, r.String())
				}
			}
			byImage[s.Index] = len(dj.Choices)
			dj.Choices = append(dj.Choices, ch)
		}
		out = append(out, dj)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, dj := range out {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s\n  seen as %s\n", dj.Device, dj.Description)
		for _, ch := range dj.Choices {
			if ch.Image < 0 {
				fmt.Fprintf(stdout, "  %s: none: %s\n", ch.Kernels[0], ch.Error)
				continue
			}
			im := &b.Images[ch.Image]
			fmt.Fprintf(stdout, "  %s: image %d (%s %s), %s\n", strings.Join(ch.Kernels, " "), ch.Image, im.Format, im.Target, ch.Rank)
			if *verbose {
				for _, r := range ch.Rejected {
					fmt.Fprintf(stdout, "      not %s\n", r)
				}
			}
		}
	}
	return nil
}

// describe is a device description in one line: "opencl:<name>, IL none,
// aspects fp64+int64_atomics".
func describe(d bundle.Device) string {
	il := "none"
	if len(d.IL) > 0 {
		il = strings.Join(d.IL, " ")
	}
	return fmt.Sprintf("%s, IL %s, aspects %s", d, il, d.Aspects)
}
