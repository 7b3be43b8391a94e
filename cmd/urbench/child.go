package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// childLimit bounds one child process: a hung child fails the benchmark
// instead of hanging it.
const childLimit = 10 * time.Minute

// childOutput runs this program's benchmark as a child, with env added to
// this process's environment, and returns its standard output; its
// standard error goes to ours. Children run without a remote cache tier
// unless env names one, so that a GOUR_CACHE_REMOTE of the caller's does
// not serve what they time.
func childOutput(benchmark string, args, env []string) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), childLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{benchmark}, args...)...)
	// The last of a repeated variable wins: env's GOUR_CACHE_REMOTE over
	// "off".
	cmd.Env = append(append(os.Environ(), "GOUR_CACHE_REMOTE=off"), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("child %s ran past %v", benchmark, childLimit)
	}
	return out, err
}
