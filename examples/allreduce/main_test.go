package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur/leaktest"
)

// TestMain lets the test binary be a rank the launcher started, as the
// program is.
func TestMain(m *testing.M) {
	if os.Getenv(envRank) != "" {
		if err := child(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(leaktest.Main(m))
}

// TestRun runs the example as a user does: this process is rank 0 and
// starts rank 1 as a second process; they meet through a real
// redis-server and all-reduce x[i] = i + rank: 2i + 1 on both.
func TestRun(t *testing.T) {
	testenv.Devices(t)
	srv := testenv.StartRedis(t)
	var out strings.Builder
	const count = 1000
	if err := launch(&out, config{redis: srv.URL(""), nranks: 2, count: count, timeout: 30 * time.Second}); err != nil {
		t.Fatalf("launch: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	re := regexp.MustCompile(`^rank (\d) of 2 \((nccl|ring) on .+\): rendezvous [0-9.]+ ms; sum\[:4\] = \[1 3 5 7\] sum\[999\] = 1999$`)
	if len(lines) != 2 {
		t.Fatalf("printed %q; want a line per rank", out.String())
	}
	for r, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != fmt.Sprint(r) {
			t.Errorf("rank %d printed %q", r, l)
		}
	}
	t.Log(out.String())
}
