//go:build unix

package compare

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel starts cmd in a process group of its own and makes its
// cancellation kill that whole group: a conformance case that re-runs
// itself in a process of its own (Fixture.RunInChild) leaves that
// grandchild in the group, so that killing a hung child does not leave a
// grandchild behind, still driving the device and holding its output pipe.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
