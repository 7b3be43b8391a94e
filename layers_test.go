package gour_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/gour-dev/gour"

// floors is the house of docs/design.md's layer diagram, bottom up: a
// package stands on the floor of its longest listed path prefix.
// Imports point down a floor or across one, never up. A package that
// matches no prefix fails the test, so that the diagram is kept in step
// with the tree.
var floors = [][]string{
	// 0: leaves, importing nothing of gour.
	{"dtype", "trace", "internal/dl", "internal/fileowner", "internal/redisopt",
		"internal/redisserver", "compute/expr", "compare/record", "gokernel/kern",
		"conformance/internal/gencases", "ur/internal/gensentinels",
		"adapters/levelzero/internal/ze/internal/cheaders"},
	// 1: the native floor (NVIDIA's libraries found and the driver
	// opened once) and the raw bindings on it.
	{"internal/nvlib", "adapters/opencl/internal", "adapters/cuda/internal",
		"adapters/levelzero/internal", "blas/internal", "collectives/internal",
		"cache/signing"},
	// 2: the adapter contract; the byte cache.
	{"ur/driver", "cache", "compare/diff", "compare/report"},
	// 3: the adapters, which translate only.
	{"adapters/opencl", "adapters/cuda", "adapters/levelzero"},
	// 4: the API.
	{"ur"},
	// 5: what stands on ur alone: helpers of tests and conformance
	// runs (internal/harness), the adapters' set, ur's tools.
	{"internal/harness", "adapters/all", "adapters/cuda/nvrtc", "ur/leaktest",
		"bundle", "cache/urkey", "supervise", "programmgr/internal", "conformance"},
	// 6: building programs once.
	{"programmgr", "compare"},
	// 7: vendor libraries on ur's queues.
	{"blas", "collectives"},
	// 8: the runtime of arrays; bridges to other Go libraries.
	{"compute", "blas/gonumblas", "collectives/redisrendezvous"},
	// 9: kernels written in Go; the soak; a program's driver set.
	{"gokernel", "soak", "drivers"},
	// 10: models, tools and examples.
	{"models", "gokernel/internal/testkernels", "cmd", "examples", "scripts"},
}

// floorOf returns the floor of a package path relative to the module,
// or -1.
func floorOf(rel string) int {
	best, floor := -1, -1
	for f, rooms := range floors {
		for _, r := range rooms {
			if (rel == r || strings.HasPrefix(rel, r+"/")) && len(r) > best {
				best, floor = len(r), f
			}
		}
	}
	return floor
}

// TestLayers checks that no import of the module's packages (their own
// files, not their tests) runs up a floor.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Skipf("no go command: %v", err) // the layering is a property of the source, checked where Go is
	}
	packages := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if pkg == "" {
			continue // this package: documentation and this test
		}
		packages++
		from := floorOf(pkg)
		if from < 0 {
			t.Errorf("%s stands on no floor: add it to floors (and to docs/design.md's diagram)", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if to := floorOf(rel); to > from {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import running up", pkg, from, rel, to)
			}
		}
	}
	if packages < 40 {
		t.Fatalf("go list named %d packages: want the module's", packages)
	}
	t.Logf("%d packages on %d floors, no import running up", packages, len(floors))
}
