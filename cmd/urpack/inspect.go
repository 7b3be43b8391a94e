package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/cmd/internal/cli"
)

// readBundle reads and parses the bundle at path.
func readBundle(path string) (*bundle.Bundle, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	b, err := bundle.Parse(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return b, len(data), nil
}

// imageJSON is an image as inspect --json prints it.
type imageJSON struct {
	Index          int        `json:"index"`
	Format         string     `json:"format"`
	Backend        string     `json:"backend"`
	Arch           string     `json:"arch"`
	Size           int        `json:"size"`
	SHA256         string     `json:"sha256"`
	Kernels        []string   `json:"kernels"`
	Aspects        []string   `json:"aspects"`
	SubGroupSizes  []uint32   `json:"sub_group_sizes"`
	SpecConstants  []specJSON `json:"spec_constants"`
	CompileOptions string     `json:"compile_options"`
	LinkOptions    string     `json:"link_options"`
}

type specJSON struct {
	ID      uint32 `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Size    int    `json:"size"`
	Default string `json:"default"`
}

func newImageJSON(i int, im *bundle.Image) imageJSON {
	p := &im.Properties
	j := imageJSON{
		Index: i, Format: im.Format.String(), Backend: im.Target.Backend, Arch: im.Target.Arch,
		Size: len(im.Code), SHA256: hex.EncodeToString(im.Checksum[:]), Kernels: im.Kernels,
		Aspects: p.Aspects.Names(), SubGroupSizes: p.SubGroupSizes, SpecConstants: []specJSON{},
		CompileOptions: p.CompileOptions, LinkOptions: p.LinkOptions,
	}
	if j.Aspects == nil {
		j.Aspects = []string{}
	}
	if j.SubGroupSizes == nil {
		j.SubGroupSizes = []uint32{}
	}
	for _, sc := range p.SpecConstants {
		j.SpecConstants = append(j.SpecConstants, specJSON{sc.ID, sc.Name, sc.Kind.String(), len(sc.Default), sc.Kind.Format(sc.Default)})
	}
	return j
}

func inspect(args []string, stdout io.Writer) error {
	c := cli.New("urpack inspect", "[--json] BUNDLE", `
List the images of a bundle: format, target, size and checksum, kernels,
and property set (aspects, sub-group sizes, specialization constants,
build options).`)
	asJSON := c.Flags.Bool("json", false, "print the bundle as JSON")
	pos, err := c.ParseInterleaved(args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef(c.Name, "want one bundle, got %d arguments", len(pos))
	}
	b, size, err := readBundle(pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			File    string      `json:"file"`
			Size    int         `json:"size"`
			Kernels []string    `json:"kernels"`
			Images  []imageJSON `json:"images"`
		}{pos[0], size, b.Kernels(), nil}
		for i := range b.Images {
			out.Images = append(out.Images, newImageJSON(i, &b.Images[i]))
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %d bytes, %d images, %d kernels\n", pos[0], size, len(b.Images), len(b.Kernels()))
	for i := range b.Images {
		j := newImageJSON(i, &b.Images[i])
		fmt.Fprintf(stdout, "\nimage %d: %s %s, %d bytes, sha256 %s\n", i, j.Format, b.Images[i].Target, j.Size, j.SHA256[:16])
		fmt.Fprintf(stdout, "  kernels:  %s\n", strings.Join(j.Kernels, " "))
		fmt.Fprintf(stdout, "  aspects:  %s\n", b.Images[i].Properties.Aspects)
		if len(j.SubGroupSizes) > 0 {
			fmt.Fprintf(stdout, "  sub-group sizes: %v\n", j.SubGroupSizes)
		}
		for _, sc := range b.Images[i].Properties.SpecConstants {
			fmt.Fprintf(stdout, "  spec constant: %s\n", sc)
		}
		if j.CompileOptions != "" {
			fmt.Fprintf(stdout, "  compile options: %s\n", j.CompileOptions)
		}
		if j.LinkOptions != "" {
			fmt.Fprintf(stdout, "  link options: %s\n", j.LinkOptions)
		}
	}
	return nil
}
