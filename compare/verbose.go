package compare

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/compare/record"
)

// verboseParser reads the output of a go test run in verbose mode (-v),
// whose top-level tests are conformance cases, and gives each case's
// result as it ends. It attributes log lines as go test does: to the test
// named by the last "=== RUN", "=== CONT" or "=== NAME" line.
//
// The conformance child could have emitted its own protocol instead, but a
// case's skip and failure messages are only in the test log; reading the
// log go test prints keeps them, with nothing of the testing package
// re-implemented.
type verboseParser struct {
	current string // the case running, "" between cases
	// ended is the case whose own result line came last: go test prints
	// its sub-tests' results after it, so its result is known at the
	// next line that is not one of those.
	ended  string
	secs   float64
	owner  string // the test the next log lines belong to
	logs   map[string][]string
	status map[string]record.Status
	order  []string // tests in the order they ended
}

func newVerboseParser() *verboseParser {
	return &verboseParser{logs: map[string][]string{}, status: map[string]record.Status{}}
}

func (p *verboseParser) running() string { return p.current }

var (
	headerLine = regexp.MustCompile(`^=== (RUN|CONT|NAME|PAUSE)\s+(\S.*)$`)
	resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)$`)
)

// line takes one line of output; when it completes a case's results, it
// returns the case's result and true.
func (p *verboseParser) line(l string) (record.Case, bool) {
	if m := resultLine.FindStringSubmatch(l); m != nil && strings.Contains(m[2], "/") {
		p.status[m[2]] = statuses[m[1]]
		p.order = append(p.order, m[2])
		return record.Case{}, false
	}
	done, ok := p.flush()
	p.take(l)
	return done, ok
}

// flush returns the result of the case that ended, if any: at the end of
// the output, or at a line that is not one of its sub-tests' results.
func (p *verboseParser) flush() (record.Case, bool) {
	if p.ended == "" {
		return record.Case{}, false
	}
	c := p.result(p.ended)
	c.Duration = p.secs
	p.ended = ""
	return c, true
}

var statuses = map[string]record.Status{"PASS": record.Pass, "FAIL": record.Fail, "SKIP": record.Skip}

func (p *verboseParser) take(l string) {
	if m := headerLine.FindStringSubmatch(l); m != nil {
		name := m[2]
		if m[1] != "PAUSE" {
			p.owner = name
		}
		if m[1] == "RUN" && !strings.Contains(name, "/") {
			p.current = name
		}
		return
	}
	if m := resultLine.FindStringSubmatch(l); m != nil { // a case's own result
		name := m[2]
		p.status[name] = statuses[m[1]]
		p.order = append(p.order, name)
		p.secs, _ = strconv.ParseFloat(m[3], 64)
		p.ended, p.current, p.owner = name, "", ""
		return
	}
	if strings.HasPrefix(l, "    ") && p.owner != "" {
		p.logs[p.owner] = append(p.logs[p.owner], strings.TrimSpace(l))
	}
}

// result is a case's result from its tests': fail when it failed; skip
// when it or every one of its leaf sub-tests skipped (go test reports such
// a parent as passing); else pass, noting the sub-tests skipped.
func (p *verboseParser) result(name string) record.Case {
	c := record.Case{Name: name, Status: p.status[name]}
	var leaves, skipped, failed []string
	for _, t := range p.order {
		if !strings.HasPrefix(t, name+"/") || p.hasChildren(t) {
			continue
		}
		leaves = append(leaves, t)
		switch p.status[t] {
		case record.Skip:
			skipped = append(skipped, t)
		case record.Fail:
			failed = append(failed, t)
		}
	}
	switch {
	case c.Status == record.Fail:
		c.Reason = p.reason(name, failed)
	case c.Status == record.Skip:
		c.Reason = p.reason(name, nil)
	case len(leaves) > 0 && len(skipped) == len(leaves):
		c.Status, c.Reason = record.Skip, p.reason(name, skipped)
	case len(skipped) > 0:
		c.Reason = fmt.Sprintf("%d of %d sub-tests skipped: %s", len(skipped), len(leaves), p.reason(name, skipped[:1]))
	}
	return c
}

func (p *verboseParser) hasChildren(t string) bool {
	for _, o := range p.order {
		if strings.HasPrefix(o, t+"/") {
			return true
		}
	}
	return false
}

// reason is the first lines logged by the case and the tests given, at
// most 400 bytes.
func (p *verboseParser) reason(name string, tests []string) string {
	var lines []string
	for _, t := range append([]string{name}, tests...) {
		for _, l := range p.logs[t] {
			if l != "" && len(lines) < 4 {
				lines = append(lines, l)
			}
		}
	}
	r := strings.Join(lines, " | ")
	if len(r) > 400 {
		r = r[:400] + "…"
	}
	return r
}
