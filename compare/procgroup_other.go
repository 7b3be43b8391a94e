//go:build !unix

package compare

import "os/exec"

// killGroupOnCancel leaves cmd as it is where there are no process groups:
// its cancellation kills the child alone, and the WaitDelay childCommand
// sets bounds the wait for output pipes that a grandchild keeps open.
func killGroupOnCancel(cmd *exec.Cmd) {}
