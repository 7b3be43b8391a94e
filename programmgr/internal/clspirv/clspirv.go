package clspirv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/ur"
)

// Environment variables naming the tools.
const (
	// EnvClang names the OpenCL C compiler: a command on PATH or a path.
	EnvClang = "GOUR_CLANG"
	// EnvLLVMSPIRV names the LLVM/SPIR-V translator, likewise.
	EnvLLVMSPIRV = "GOUR_LLVM_SPIRV"
)

// The names tried, in order, when the variables are unset.
var (
	DefaultClang     = []string{"clang-15", "clang"}
	DefaultLLVMSPIRV = []string{"llvm-spirv-15", "llvm-spirv"}
)

// DefaultTimeout bounds one compilation (both tools) when
// Toolchain.Timeout is 0.
const DefaultTimeout = 2 * time.Minute

// maxLog bounds the tool output kept in a CompileError.
const maxLog = 64 << 10

// Install says how to get the tools.
const Install = "Debian/Ubuntu: apt-get install clang-15 llvm-spirv-15"

// MissingToolError says that a tool is not installed (or not where its
// variable says). It wraps ur.ErrUnsupportedFeature.
type MissingToolError struct {
	Tool  string   // "clang" or "llvm-spirv"
	Env   string   // the variable naming it
	Tried []string // the names or paths looked up
	Err   error    // the last lookup's error
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("compiling OpenCL C to SPIR-V needs %s, which is not installed: tried %s (%s names another; %s)",
		e.Tool, strings.Join(e.Tried, ", "), e.Env, Install)
}

// Unwrap gives ur.ErrUnsupportedFeature and the lookup's error.
func (e *MissingToolError) Unwrap() []error { return []error{ur.ErrUnsupportedFeature, e.Err} }

// ToolError is a tool that was found but does not run: its --version
// failed. It wraps ur.ErrUnsupportedFeature and the cause (a context's
// error when the tool ran past its time).
type ToolError struct {
	Tool string // the tool's path
	Out  string // the first line of its output
	Err  error
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("compiling OpenCL C to SPIR-V needs %s, which does not run (%s --version: %v: %s)",
		filepath.Base(e.Tool), e.Tool, e.Err, e.Out)
}

// Unwrap gives ur.ErrUnsupportedFeature and the cause.
func (e *ToolError) Unwrap() []error { return []error{ur.ErrUnsupportedFeature, e.Err} }

// CompileError is a tool that failed: its command line and output. It
// wraps ur.ErrProgramBuildFailure.
type CompileError struct {
	Tool string   // the tool's path
	Args []string // its arguments, the temporary files by base name
	Log  string   // its stderr and stdout, at most 64 KiB
	Err  error    // how it ended (*exec.ExitError)
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("%s failed (%v): %s", filepath.Base(e.Tool), e.Err, firstLine(e.Log))
}

// Unwrap gives ur.ErrProgramBuildFailure and the process's error.
func (e *CompileError) Unwrap() []error { return []error{ur.ErrProgramBuildFailure, e.Err} }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	if s == "" {
		return "no output"
	}
	return s
}

// Toolchain is a clang and a translator found on this machine.
type Toolchain struct {
	Clang     string // clang's path
	LLVMSPIRV string // the translator's path
	// Version is both tools' --version output and the SHA-256 of each
	// executable: the same toolchain gives the same SPIR-V for the same
	// input, so it belongs in cache keys.
	Version string
	// Timeout bounds one Compile; 0 is DefaultTimeout.
	Timeout time.Duration
}

// Find looks both tools up as the environment, read through getenv
// (os.Getenv when nil), says. A tool not found is a *MissingToolError; a
// tool that is found but fails --version is a *ToolError.
func Find(getenv func(string) string) (*Toolchain, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	clang, err := lookup("clang", EnvClang, DefaultClang, getenv)
	if err != nil {
		return nil, err
	}
	spirv, err := lookup("llvm-spirv", EnvLLVMSPIRV, DefaultLLVMSPIRV, getenv)
	if err != nil {
		return nil, err
	}
	cv, err := version(clang)
	if err != nil {
		return nil, err
	}
	sv, err := version(spirv)
	if err != nil {
		return nil, err
	}
	return &Toolchain{Clang: clang, LLVMSPIRV: spirv, Version: cv + "\n" + sv}, nil
}

// lookup finds a tool: the variable's value when set, else the defaults
// in order.
func lookup(tool, env string, defaults []string, getenv func(string) string) (string, error) {
	names := defaults
	if v := strings.TrimSpace(getenv(env)); v != "" {
		names = []string{v}
	}
	var last error
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return p, nil
		}
		last = err
	}
	return "", &MissingToolError{Tool: tool, Env: env, Tried: names, Err: last}
}

// versions caches each tool's identity by path, size and modification
// time: one run per process and tool.
var versions sync.Map // versionKey → string

type versionKey struct {
	path  string
	size  int64
	mtime time.Time
}

// version identifies a tool: the lines of its --version output that name
// versions, and the SHA-256 of its executable (symbolic links followed).
// The version lines alone miss a distribution's rebuilds (Debian's clang
// prints "15.0.6" whatever its package revision); the hash catches those
// of the executable, not of the shared libraries it loads.
func version(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", &ToolError{Tool: path, Out: "no output", Err: err}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", &ToolError{Tool: path, Out: "no output", Err: err}
	}
	key := versionKey{real, fi.Size(), fi.ModTime()}
	if v, ok := versions.Load(key); ok {
		return v.(string), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("ran past 30s: %w", ctx.Err())
		}
		return "", &ToolError{Tool: path, Out: firstLine(string(out)), Err: err}
	}
	sum, err := fileSHA256(real)
	if err != nil {
		return "", &ToolError{Tool: path, Out: firstLine(string(out)), Err: err}
	}
	// Keep the lines that name versions: the rest (the host CPU, the
	// install directory) differs between machines of one toolchain.
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(strings.ToLower(l), "version") {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	// The executable's own name: "clang" and "clang-15" are one tool.
	v := filepath.Base(real) + ": " + strings.Join(keep, "; ") + "; sha256 " + sum
	versions.Store(key, v)
	return v, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Input is one compilation.
type Input struct {
	Source []byte   // OpenCL C
	Args   []string // clang options (ClangArgs of SplitOptions)
	FP64   bool     // enable cl_khr_fp64 (else disabled: no Float64 capability)
	FP16   bool     // enable cl_khr_fp16
}

// ClangArgs are the arguments clang gets before in's own options and the
// file names.
func ClangArgs(in Input) []string {
	ext := func(on bool, name string) string {
		if on {
			return "-cl-ext=+" + name
		}
		return "-cl-ext=-" + name
	}
	return []string{"-x", "cl", "-c", "-target", "spir64", "-cl-std=CL1.2", "-O2", "-emit-llvm",
		"-Xclang", ext(in.FP64, "cl_khr_fp64"), "-Xclang", ext(in.FP16, "cl_khr_fp16")}
}

// SPIRVArgs are the translator's arguments before the file names.
var SPIRVArgs = []string{"--spirv-max-version=1.0"}

// Compile compiles in.Source to SPIR-V.
func (tc *Toolchain) Compile(ctx context.Context, in Input) ([]byte, error) {
	timeout := tc.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "gour-clspirv-")
	if err != nil {
		return nil, fmt.Errorf("clspirv: %w", err)
	}
	defer os.RemoveAll(dir)
	src, bc, spv := filepath.Join(dir, "image.cl"), filepath.Join(dir, "image.bc"), filepath.Join(dir, "image.spv")
	if err := os.WriteFile(src, in.Source, 0o600); err != nil {
		return nil, fmt.Errorf("clspirv: %w", err)
	}
	args := append(ClangArgs(in), in.Args...)
	args = append(args, "-o", bc, src)
	if err := run(ctx, dir, tc.Clang, args, timeout); err != nil {
		return nil, err
	}
	translate := append(append([]string{}, SPIRVArgs...), bc, "-o", spv)
	if err := run(ctx, dir, tc.LLVMSPIRV, translate, timeout); err != nil {
		// llvm-spirv 15 cannot translate LLVM's freeze instruction, which
		// clang 15's optimiser makes of a division and a remainder of the
		// same operands. Such a program is translated from clang's IR
		// before optimisation, which the device's compiler optimises.
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Log, "freeze") {
			return nil, err
		}
		unoptimised := append(append(ClangArgs(in), "-Xclang", "-disable-llvm-optzns"), in.Args...)
		if err := run(ctx, dir, tc.Clang, append(unoptimised, "-o", bc, src), timeout); err != nil {
			return nil, err
		}
		if err := run(ctx, dir, tc.LLVMSPIRV, translate, timeout); err != nil {
			return nil, err
		}
	}
	out, err := os.ReadFile(spv)
	if err != nil {
		return nil, fmt.Errorf("clspirv: %s wrote no SPIR-V: %w", filepath.Base(tc.LLVMSPIRV), err)
	}
	return out, nil
}

// run runs one tool on files in dir, in the caller's working directory
// (relative -I paths mean what they mean to the driver). The temporary
// directory's name is left out of its output and arguments, so that a
// log reads the same on every run.
func run(ctx context.Context, dir, tool string, args []string, timeout time.Duration) error {
	cmd := exec.CommandContext(ctx, tool, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) && context.Cause(ctx) == cerr {
			return fmt.Errorf("clspirv: %s ran past %v: %w", filepath.Base(tool), timeout, cerr)
		}
		return fmt.Errorf("clspirv: %s: %w", filepath.Base(tool), context.Cause(ctx))
	}
	tmp := dir + string(filepath.Separator)
	log := strings.ReplaceAll(out.String(), tmp, "")
	if len(log) > maxLog {
		log = log[:maxLog] + "\n[output cut at 64 KiB]"
	}
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = strings.ReplaceAll(a, tmp, "")
	}
	return &CompileError{Tool: tool, Args: shown, Log: log, Err: err}
}

// Option sides, for SplitOptions.
var (
	// clangOnly are prefixes of options for clang alone; those in
	// separate lists the forms that may take their value as the next
	// word.
	clangOnly = []string{"-D", "-U", "-I", "-cl-std=", "-w", "-Werror"}
	separate  = []string{"-D", "-U", "-I"}
	// both are OpenCL's optimisation options: clang and the driver take
	// them.
	both = []string{
		"-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
		"-cl-opt-disable", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
		"-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-uniform-work-group-size", "-cl-kernel-arg-info",
	}
)

// SplitOptions divides OpenCL build options, separated by blanks, between
// clang and the driver that builds the SPIR-V (see the package
// documentation). Words in double quotes stay one option, quotes removed.
// -D, -U and -I take their value joined or as the next word; without one
// they are left to the driver.
func SplitOptions(options string) (clang []string, driver string) {
	words := fields(options)
	var drv []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case isOneOf(w, separate) && i+1 < len(words):
			clang = append(clang, w+words[i+1])
			i++
		case isClangOnly(w):
			clang = append(clang, w)
		case isOneOf(w, both):
			clang = append(clang, w)
			drv = append(drv, w)
		default:
			drv = append(drv, w)
		}
	}
	return clang, strings.Join(drv, " ")
}

func isOneOf(w string, set []string) bool {
	for _, s := range set {
		if w == s {
			return true
		}
	}
	return false
}

func isClangOnly(w string) bool {
	for _, p := range clangOnly {
		prefix := isOneOf(p, separate) || p == "-cl-std="
		if (w == p && !prefix) || (prefix && len(w) > len(p) && strings.HasPrefix(w, p)) {
			return true
		}
	}
	return strings.HasPrefix(w, "-Werror=") || strings.HasPrefix(w, "-Wno-")
}

// fields splits on blanks, keeping double-quoted runs in one word.
func fields(s string) []string {
	var (
		out  []string
		cur  strings.Builder
		in   bool // inside quotes
		have bool // cur holds a word, maybe empty ("")
	)
	for _, r := range s {
		switch {
		case r == '"':
			in, have = !in, true
		case !in && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}
