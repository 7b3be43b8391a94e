package conformance

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/gour-dev/gour/ur"
)

// The suite's own device code travels in the package, so that the cases
// run from any directory: from another module's tests, or from a test
// binary copied to a machine without the source tree.
//
//go:embed testdata
var testdata embed.FS

// DeviceCode is an adapter's device code for the suite: the programs the
// program, kernel, enqueue and prepared-launch cases build, in a language
// the adapter compiles. Every language defines the same kernels under the
// same names and arguments as the suite's OpenCL C (testdata/opencl/kernels.cl),
// so that one case checks every adapter.
//
// An adapter whose programs are OpenCL C, CUDA C++ or SPIR-V uses the
// suite's own (OpenCLC, CUDACpp, SPIRV); any other gives its own files.
type DeviceCode struct {
	// Files holds the programs, under Dir, each named with Ext: kernels
	// (the kernels the cases launch), invalid (a program that must fail to
	// build), link_main and link_lib (the two halves of the compile + link
	// case).
	Files    fs.FS
	Dir, Ext string
	// IL, where set, is the path in Files of a program in the IL the
	// adapter's devices take (SPIR-V, PTX), defining at least the iota
	// kernel: TestProgramFromIL builds and runs it on devices that report
	// IL versions.
	IL string
	// ILOnly says that the files are IL, created with NewProgramFromIL:
	// the adapter has no source language. On a device with fp64, the
	// program kernels_fp64 then replaces kernels, so that the fp64 kernels
	// exist only where they can be built.
	ILOnly bool
}

// OpenCLC is the suite's device code in OpenCL C (testdata/opencl), with
// the SPIR-V of the same kernels (made by scripts/spirv.sh) as its IL.
func OpenCLC() DeviceCode {
	return DeviceCode{Files: testdata, Dir: "testdata/opencl", Ext: ".cl", IL: "testdata/spirv/kernels.spv"}
}

// CUDACpp is the suite's device code in CUDA C++ (testdata/cuda, built
// with NVRTC: kernels are extern "C", and a local-memory argument is a
// byte offset into the launch's dynamic shared memory), with hand-written
// PTX as its IL.
func CUDACpp() DeviceCode {
	return DeviceCode{Files: testdata, Dir: "testdata/cuda", Ext: ".cu", IL: "testdata/cuda/kernels.ptx"}
}

// SPIRV is the suite's device code as SPIR-V modules (testdata/spirv),
// for adapters without a source language.
func SPIRV() DeviceCode {
	return DeviceCode{Files: testdata, Dir: "testdata/spirv", Ext: ".spv", IL: "testdata/spirv/kernels.spv", ILOnly: true}
}

// builtinDeviceCode is the device code of the adapters of this module, by
// backend name; Options.DeviceCode adds to it or replaces it.
func builtinDeviceCode() map[string]DeviceCode {
	return map[string]DeviceCode{
		"opencl":     OpenCLC(),
		"cuda":       CUDACpp(),
		"level_zero": SPIRV(),
	}
}

// deviceCodeFiles are the programs every DeviceCode has.
var deviceCodeFiles = []string{"kernels", "invalid", "link_main", "link_lib"}

// check reports a DeviceCode that lacks its files, before a case trips
// over it.
func (c DeviceCode) check() error {
	if c.Files == nil {
		return errors.New("DeviceCode.Files is nil")
	}
	for _, name := range deviceCodeFiles {
		if _, err := fs.Stat(c.Files, c.path(name)); err != nil {
			return fmt.Errorf("DeviceCode has no %s program: %w", name, err)
		}
	}
	if c.IL != "" {
		if _, err := fs.Stat(c.Files, c.IL); err != nil {
			return fmt.Errorf("DeviceCode.IL: %w", err)
		}
	}
	return nil
}

func (c DeviceCode) path(name string) string { return path.Join(c.Dir, name+c.Ext) }

// read returns one of the programs, by name without extension.
func (c DeviceCode) read(name string) ([]byte, error) {
	return fs.ReadFile(c.Files, c.path(name))
}

// readIL returns the IL program; ok is false when there is none.
func (c DeviceCode) readIL() (il []byte, ok bool, err error) {
	if c.IL == "" {
		return nil, false, nil
	}
	il, err = fs.ReadFile(c.Files, c.IL)
	return il, true, err
}

// createProgram creates a program of one of the files for dev: from
// source, or from IL for an adapter without a source language.
func (c DeviceCode) createProgram(ctx *ur.Context, dev *ur.Device, name string) (*ur.Program, error) {
	if c.ILOnly && name == "kernels" && dev.Info().FP64 {
		name = "kernels_fp64"
	}
	b, err := c.read(name)
	if err != nil {
		return nil, err
	}
	if c.ILOnly {
		return ctx.NewProgramFromIL(b)
	}
	return ctx.NewProgramFromSource(string(b))
}
