// Package redisserver starts a private redis-server for tests and
// benchmarks: on a free port of 127.0.0.1, in a temporary directory,
// with nothing saved to disk.
package redisserver

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Server is a running redis-server.
type Server struct {
	Port int
	Dir  string
	cmd  *exec.Cmd
	done chan struct{}
	own  bool // Dir was made by Start
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// URL is redis://127.0.0.1:port/0, with password if not empty.
func (s *Server) URL(password string) string {
	if password != "" {
		return "redis://:" + password + "@" + s.Addr() + "/0"
	}
	return "redis://" + s.Addr() + "/0"
}

// Start runs bin (redis-server from PATH when empty) with the given
// extra arguments (such as "--requirepass", "x") in dir (a new temporary
// directory when empty), and waits until it answers PING. A carried
// server (see carriedLibs) gets its folder on its LD_LIBRARY_PATH, the
// server's only.
func Start(bin, dir string, args ...string) (*Server, error) {
	if bin == "" {
		bin = "redis-server"
	}
	// An absolute path: the server runs in dir, where a relative one
	// (given, or found through a relative PATH entry) means another file.
	bin, err := exec.LookPath(bin)
	if err != nil {
		return nil, err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	var env []string // nil: this process's environment
	if libs := carriedLibs(bin); libs != "" {
		if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
			libs += ":" + old
		}
		env = append(os.Environ(), "LD_LIBRARY_PATH="+libs)
	}
	own := dir == ""
	if !own {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	} else {
		d, err := os.MkdirTemp("", "redis-")
		if err != nil {
			return nil, err
		}
		dir = d
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir, "--enable-debug-command", "local", "--daemonize", "no", "--loglevel", "warning",
			"--logfile", filepath.Join(dir, "redis.log")}, args...)
		cmd := exec.Command(bin, all...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			if own {
				os.RemoveAll(dir)
			}
			return nil, err
		}
		s := &Server{Port: port, Dir: dir, cmd: cmd, done: make(chan struct{}), own: own}
		go func() { cmd.Wait(); close(s.done) }()
		if err := s.waitReady(5 * time.Second); err != nil {
			s.Kill()
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			lastErr = fmt.Errorf("%v (log: %s)", err, strings.TrimSpace(string(log)))
			continue
		}
		return s, nil
	}
	if own {
		os.RemoveAll(dir)
	}
	return nil, lastErr
}

// carriedLibs is the folder of the redis-server at the absolute path bin
// where it is a carried one, with the libraries it needs beside it
// (scripts/bench/collectives.sh): in a folder bin/redis, or beside shared
// libraries (lib*.so*); else "". Without them on its LD_LIBRARY_PATH such
// a server exits at once.
func carriedLibs(bin string) string {
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	dir := filepath.Dir(bin)
	if filepath.Base(dir) == "redis" && filepath.Base(filepath.Dir(dir)) == "bin" {
		return dir
	}
	if libs, _ := filepath.Glob(filepath.Join(dir, "lib*.so*")); len(libs) > 0 {
		return dir
	}
	return ""
}

// FreePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady pings until the server answers (any answer: one with a
// password answers NOAUTH).
func (s *Server) waitReady(d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return errors.New("redis-server exited")
		default:
		}
		if _, err := s.Do("PING"); err == nil || !isNetErr(err) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("redis-server did not answer in time")
}

func isNetErr(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, syscall.ECONNREFUSED)
}

// Do sends one command (inline-free RESP) and returns the first line of
// the answer; an error reply is an error.
func (s *Server) Do(args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(command(args)); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if strings.HasPrefix(line, "-") {
		return "", errors.New(line[1:])
	}
	return line, nil
}

// Send writes one command and does not wait for the answer (DEBUG SLEEP).
func (s *Server) Send(args ...string) error {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return err
	}
	_, err = c.Write(command(args))
	c.SetDeadline(time.Now().Add(time.Minute))
	go func() { bufio.NewReader(c).ReadString('\n'); c.Close() }()
	return err
}

// Kill kills the server at once (SIGKILL) and waits for it.
func (s *Server) Kill() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	<-s.done
}

// Stop kills the server and removes its directory if Start made it.
func (s *Server) Stop() {
	s.Kill()
	if s.own {
		os.RemoveAll(s.Dir)
	}
}

// command encodes a command in RESP, as an array of bulk strings.
func command(args []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return []byte(b.String())
}
