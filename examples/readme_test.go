package examples

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A region is the code between "// README: begin NAME" and
// "// README: end NAME" in a program under examples/, without its common
// indentation and the blank lines at either end.
type region struct {
	file, name string
	begin      int // the line of its begin marker
	line       int // the line of the first line of body
	body       []string
}

// A block is a ```go block of the README and the region it says it copies.
type block struct {
	n, line      int // its number among the Go blocks, and the line of its first code line
	file, region string
	body         []string
}

var (
	markerRE = regexp.MustCompile(`^\s*// README: (begin|end) (\S+)\s*$`)
	sourceRE = regexp.MustCompile(`^<!-- (examples/\S+\.go): (\S+) -->$`)
)

// regionsOf finds the marked regions of a Go file. Regions neither nest
// nor overlap, and each name appears once per file.
func regionsOf(file, text string) (map[string]*region, []error) {
	regions := map[string]*region{}
	var errs []error
	var open *region
	var lines []string
	for i, line := range strings.Split(text, "\n") {
		m := markerRE.FindStringSubmatch(line)
		if m == nil {
			if open != nil {
				lines = append(lines, line)
			}
			continue
		}
		switch kind, name := m[1], m[2]; {
		case kind == "begin" && open != nil:
			errs = append(errs, fmt.Errorf("%s:%d: region %q begins inside region %q", file, i+1, name, open.name))
		case kind == "begin" && regions[name] != nil:
			errs = append(errs, fmt.Errorf("%s:%d: region %q begins a second time", file, i+1, name))
		case kind == "begin":
			open, lines = &region{file: file, name: name, begin: i + 1, line: i + 2}, nil
		case open == nil || open.name != name:
			errs = append(errs, fmt.Errorf("%s:%d: end of region %q, which is not open", file, i+1, name))
		default:
			open.line, open.body = trimBlock(open.line, dedent(lines))
			regions[name], open = open, nil
		}
	}
	if open != nil {
		errs = append(errs, fmt.Errorf("%s:%d: region %q never ends", file, open.begin, open.name))
	}
	return regions, errs
}

// blocksOf finds the ```go blocks of a Markdown text. Each must have an
// HTML comment naming its region on the line above.
func blocksOf(markdown string) ([]block, []error) {
	var blocks []block
	var errs []error
	lines := strings.Split(markdown, "\n")
	for i := 0; i < len(lines); i++ {
		fence := i + 1 // its line number
		line := strings.TrimRight(lines[i], " \t")
		trimmed := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		isGo := trimmed == "```go"
		if isGo && trimmed != line {
			errs = append(errs, fmt.Errorf("README.md:%d: an indented Go block cannot be checked against its source", fence))
		}
		end := slices.IndexFunc(lines[fence:], func(l string) bool { return strings.TrimSpace(l) == "```" })
		if end < 0 {
			errs = append(errs, fmt.Errorf("README.md:%d: code block never closed", fence))
			break
		}
		body := lines[fence : fence+end]
		i = fence + end // the closing fence
		if !isGo {
			continue
		}
		b := block{n: len(blocks) + 1, line: fence + 1, body: body}
		var source []string
		if fence >= 2 {
			source = sourceRE.FindStringSubmatch(strings.TrimSpace(lines[fence-2]))
		}
		if source == nil {
			errs = append(errs, fmt.Errorf("README.md:%d: Go block %d has no <!-- examples/DIR/FILE.go: REGION --> comment on the line above it", fence, b.n))
		} else {
			b.file, b.region = source[1], source[2]
		}
		blocks = append(blocks, b)
	}
	return blocks, errs
}

// compare checks every block against its region, and that every region is
// shown. regions is keyed by file, then by region name.
func compare(blocks []block, regions map[string]map[string]*region) []error {
	var errs []error
	shown := map[*region]bool{}
	for _, b := range blocks {
		if b.file == "" {
			continue // blocksOf reported it
		}
		r := regions[b.file][b.region]
		if r == nil {
			errs = append(errs, fmt.Errorf("README.md:%d: Go block %d copies region %q of %s, which has no such region", b.line-1, b.n, b.region, b.file))
			continue
		}
		shown[r] = true
		if err := diff(b, r); err != nil {
			errs = append(errs, err)
		}
	}
	for _, file := range slices.Sorted(maps.Keys(regions)) {
		for _, name := range slices.Sorted(maps.Keys(regions[file])) {
			if r := regions[file][name]; !shown[r] {
				errs = append(errs, fmt.Errorf("%s:%d: region %q is shown by no Go block of README.md", r.file, r.begin, r.name))
			}
		}
	}
	return errs
}

// diff says where a block first departs from its region.
func diff(b block, r *region) error {
	for i := 0; i < max(len(b.body), len(r.body)); i++ {
		var readme, source string
		if i < len(b.body) {
			readme = b.body[i]
		}
		if i < len(r.body) {
			source = r.body[i]
		}
		if i >= len(b.body) || i >= len(r.body) || readme != source {
			return fmt.Errorf("README.md Go block %d (line %d) differs from region %q of %s (line %d):\n"+
				"\tREADME.md:%d: %q\n\t%s:%d: %q\n"+
				"\tcopy the region, without its indentation, into the block",
				b.n, b.line, r.name, r.file, r.line, b.line+i, lineOrEnd(readme, i < len(b.body)),
				r.file, r.line+i, lineOrEnd(source, i < len(r.body)))
		}
	}
	return nil
}

func lineOrEnd(line string, ok bool) string {
	if !ok {
		return "(end of code)"
	}
	return line
}

// dedent removes the indentation all non-blank lines share.
func dedent(lines []string) []string {
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = indent, false
			continue
		}
		for !strings.HasPrefix(indent, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(strings.TrimRight(l, " \t"), prefix)
	}
	return out
}

// trimBlock drops blank lines at both ends, moving the first line number
// along.
func trimBlock(line int, lines []string) (int, []string) {
	for len(lines) > 0 && lines[0] == "" {
		lines, line = lines[1:], line+1
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return line, lines
}

// TestReadme checks that every Go block of README.md is a copy of the
// region of a program under examples/ that it names, and that every region
// is shown: the README's code is the examples' code, which go test
// compiles and runs.
func TestReadme(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, errs := blocksOf(string(readme))
	if len(blocks) == 0 {
		errs = append(errs, fmt.Errorf("README.md has no Go block"))
	}
	regions := map[string]map[string]*region{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		// This file's markers are test data for TestReadmeCheck.
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || path == "readme_test.go" {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name := "examples/" + filepath.ToSlash(path)
		rs, rerrs := regionsOf(name, string(text))
		errs = append(errs, rerrs...)
		if len(rs) > 0 {
			regions[name] = rs
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	errs = append(errs, compare(blocks, regions)...)
	for _, err := range errs {
		t.Error(err)
	}
	if !t.Failed() {
		t.Logf("%d Go blocks of README.md match their regions in %d files", len(blocks), len(regions))
	}
}

// TestReadmeCheck shows that the check finds each kind of disagreement.
func TestReadmeCheck(t *testing.T) {
	const source = `package main

func main() {
	// README: begin hello
	x := 1

	println(x)
	// README: end hello
	// README: begin unused
	println()
	// README: end unused
}
`
	const readme = "Text.\n\n" +
		"<!-- examples/hello/main.go: hello -->\n```go\nx := 1\n\nprintln(x)\n```\n\n" +
		"```go\nprintln()\n```\n\n" +
		"<!-- examples/hello/main.go: hello -->\n```go\nx := 2\n\nprintln(x)\n```\n\n" +
		"<!-- examples/hello/main.go: hello -->\n```go\nx := 1\n```\n\n" +
		"<!-- examples/hello/main.go: missing -->\n```go\n```\n\n" +
		"```sh\nnot go\n```\n"
	rs, errs := regionsOf("examples/hello/main.go", source)
	if len(errs) != 0 {
		t.Fatalf("regionsOf: %v", errs)
	}
	if r := rs["hello"]; r == nil || r.line != 5 || strings.Join(r.body, "|") != "x := 1||println(x)" {
		t.Fatalf("region hello = %+v, want line 5, body x := 1||println(x)", r)
	}
	blocks, errs := blocksOf(readme)
	if len(blocks) != 5 {
		t.Fatalf("blocksOf found %d Go blocks, want 5", len(blocks))
	}
	errs = append(errs, compare(blocks, map[string]map[string]*region{"examples/hello/main.go": rs})...)
	want := []string{
		`README.md:10: Go block 2 has no <!-- examples/DIR/FILE.go: REGION --> comment`,
		`README.md Go block 3 (line 16) differs from region "hello" of examples/hello/main.go (line 5):` +
			"\n\tREADME.md:16: \"x := 2\"",
		`README.md Go block 4 (line 23) differs from region "hello" of examples/hello/main.go (line 5):` +
			"\n\tREADME.md:24: \"(end of code)\"\n\texamples/hello/main.go:6: \"\"",
		`README.md:27: Go block 5 copies region "missing" of examples/hello/main.go, which has no such region`,
		`examples/hello/main.go:9: region "unused" is shown by no Go block of README.md`,
	}
	if len(errs) != len(want) {
		t.Errorf("got %d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	for i := range min(len(errs), len(want)) {
		if !strings.HasPrefix(errs[i].Error(), want[i]) {
			t.Errorf("error %d:\n%s\nwant it to begin with\n%s", i+1, errs[i], want[i])
		}
	}

	for _, bad := range []struct{ markdown, want string }{
		{"Text.\n```go\nx := 1\n", "README.md:2: code block never closed"},
		{"- item\n  ```go\n  x := 1\n  ```\n", "README.md:2: an indented Go block cannot be checked against its source"},
	} {
		_, errs := blocksOf(bad.markdown)
		if len(errs) == 0 || errs[0].Error() != bad.want {
			t.Errorf("blocksOf(%q) = %v, want the error %s", bad.markdown, errs, bad.want)
		}
	}
	for _, bad := range []struct{ source, want string }{
		{"// README: begin a\n// README: begin b\n", `x.go:2: region "b" begins inside region "a"`},
		{"// README: end a\n", `x.go:1: end of region "a", which is not open`},
		{"\n// README: begin a\n", `x.go:2: region "a" never ends`},
		{"// README: begin a\n// README: end a\n// README: begin a\n// README: end a\n", `x.go:3: region "a" begins a second time`},
	} {
		_, errs := regionsOf("x.go", bad.source)
		if len(errs) == 0 || errs[0].Error() != bad.want {
			t.Errorf("regionsOf(%q) = %v, want the error %s", bad.source, errs, bad.want)
		}
	}
}
