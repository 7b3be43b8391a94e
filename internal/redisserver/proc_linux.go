package redisserver

import "syscall"

// sysProcAttr puts the server in a process group of its own, so that a
// terminal's Ctrl-C goes to the program, whose cleanup stops the server,
// and has the kernel kill the server if the program dies without it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
