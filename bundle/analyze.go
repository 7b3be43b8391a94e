package bundle

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// KernelInfo is what Analyze found about one kernel.
type KernelInfo struct {
	Name string
	// Aspects the kernel uses, with those of every function and type it
	// reaches (for SPIR-V, the module's: capabilities are per module).
	Aspects Aspects
	// SubGroupSizes the kernel requires, sorted.
	SubGroupSizes []uint32
}

// Analysis is what Analyze found in device code.
type Analysis struct {
	Format  Format
	Kernels []KernelInfo // sorted by name
	// SpecConstants are the SPIR-V module's specialization constants.
	SpecConstants []SpecConstant
	// SPIRVVersion is the SPIR-V module's version, "1.0".
	SPIRVVersion string
	// PTXTarget is the architecture of a PTX module's .target,
	// "compute_52": the oldest the PTX JIT-compiles for.
	PTXTarget string

	src   []byte
	decls []*decl // top-level declarations of C or PTX, in source order
}

// Kernel returns the analysis of the named kernel.
func (a *Analysis) Kernel(name string) (KernelInfo, bool) {
	i, ok := slices.BinarySearchFunc(a.Kernels, name, func(k KernelInfo, n string) int { return strings.Compare(k.Name, n) })
	if !ok {
		return KernelInfo{}, false
	}
	return a.Kernels[i], true
}

// Analyze finds the kernels of device code and the aspects each uses.
//
//   - SPIR-V: the module's OpEntryPoint kernels; aspects from its
//     OpCapability instructions (Float64, Float16, Int64Atomics, Groups and
//     GroupNonUniform*), which hold for the whole module; required
//     sub-group sizes; specialization constants with their IDs, names,
//     sizes and defaults.
//   - PTX: the .entry functions and the .target; per entry, fp64 for .f64
//     operands, fp16 for .f16, 64-bit atomics for atom/red on 64-bit
//     integers, in its body or in the .func functions it calls.
//   - OpenCL C and CUDA C: see Split's heuristic, in the package
//     documentation.
//
// Native binaries are not analyzed (an error carrying ur.ErrInvalidValue):
// their kernels are given by the caller.
func Analyze(format Format, code []byte) (*Analysis, error) {
	switch format {
	case FormatSPIRV:
		return analyzeSPIRV(code)
	case FormatPTX:
		return analyzePTX(code)
	case FormatOpenCLC, FormatCUDAC:
		return analyzeC(format, code), nil
	}
	return nil, errorf(ur.ErrInvalidValue, "bundle.Analyze", "%s code cannot be analyzed: name its kernels and aspects", format)
}

// decl is one top-level declaration: a function (kernel or not), a
// prototype, a type, a variable or a #define.
type decl struct {
	start, end    int      // its bytes in the source
	names         []string // the names it declares
	refs          []string // the identifiers it uses
	kernel        bool
	function      bool // a definition or prototype, which a split may cut
	macro         bool // a #define: never cut
	aspects       Aspects
	subGroupSizes []uint32
}

// reach returns the declarations reachable from roots through the names
// they use, roots included.
func reach(decls []*decl, byName map[string][]*decl, roots ...*decl) map[*decl]bool {
	seen := map[*decl]bool{}
	stack := slices.Clone(roots)
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[d] {
			continue
		}
		seen[d] = true
		for _, r := range d.refs {
			stack = append(stack, byName[r]...)
		}
	}
	return seen
}

func closureAspects(set map[*decl]bool) Aspects {
	var a Aspects
	for d := range set {
		a |= d.aspects
	}
	return a
}

func indexNames(decls []*decl) map[string][]*decl {
	m := map[string][]*decl{}
	for _, d := range decls {
		for _, n := range d.names {
			m[n] = append(m[n], d)
		}
	}
	return m
}

// finish fills a.Kernels from the declarations.
func (a *Analysis) finish() {
	byName := indexNames(a.decls)
	seen := map[string]int{}
	for _, d := range a.decls {
		if !d.kernel || len(d.names) == 0 {
			continue
		}
		k := KernelInfo{Name: d.names[0], Aspects: closureAspects(reach(a.decls, byName, d)), SubGroupSizes: d.subGroupSizes}
		if i, dup := seen[k.Name]; dup { // a prototype and the definition
			a.Kernels[i].Aspects |= k.Aspects
			a.Kernels[i].SubGroupSizes = slices.Compact(slices.Sorted(slices.Values(append(a.Kernels[i].SubGroupSizes, k.SubGroupSizes...))))
			continue
		}
		seen[k.Name] = len(a.Kernels)
		a.Kernels = append(a.Kernels, k)
	}
	slices.SortFunc(a.Kernels, func(x, y KernelInfo) int { return strings.Compare(x.Name, y.Name) })
}

// ---- C: OpenCL C and CUDA C ----

type token struct {
	text       string
	start, end int
}

func (t token) ident() bool {
	c := t.text[0]
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// maskC returns src with comments and the contents of string and character
// literals blanked (newlines kept) and the preprocessor directives found,
// each as its byte range; directives are blanked too.
func maskC(src []byte) (code []byte, directives [][2]int) {
	code = slices.Clone(src)
	blank := func(i, j int) {
		for k := i; k < j; k++ {
			if code[k] != '\n' {
				code[k] = ' '
			}
		}
	}
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && lineStart:
			j := i
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] == '\n' {
					j += 2
					continue
				}
				if src[j] == '/' && j+1 < len(src) && src[j+1] == '*' {
					k := indexFrom(src, j+2, "*/")
					j = k
					continue
				}
				j++
			}
			directives = append(directives, [2]int{i, j})
			blank(i, j)
			i = j
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := i
			for j < len(src) && src[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := indexFrom(src, i+2, "*/")
			blank(i, j)
			i = j
			continue
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			blank(i+1, max(i+1, j-1))
			i = j
		default:
			i++
		}
		lineStart = false
	}
	return code, directives
}

// indexFrom returns the index just past the first sep at or after i, or
// len(b).
func indexFrom(b []byte, i int, sep string) int {
	if i >= len(b) {
		return len(b)
	}
	k := strings.Index(string(b[i:]), sep)
	if k < 0 {
		return len(b)
	}
	return i + k + len(sep)
}

// tokenize splits masked code into identifiers, numbers and single
// punctuation characters.
func tokenize(code []byte, base int) []token {
	var toks []token
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c <= ' ':
			i++
		case c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || (c >= '0' && c <= '9') || c == '.':
			j := i + 1
			for j < len(code) && (code[j] == '_' || code[j] == '.' || (code[j]|0x20 >= 'a' && code[j]|0x20 <= 'z') || (code[j] >= '0' && code[j] <= '9')) {
				j++
			}
			// "a.b" in C is two identifiers and a dot; numbers keep theirs.
			word := string(code[i:j])
			if c != '.' && !(c >= '0' && c <= '9') && strings.Contains(word, ".") {
				for _, part := range strings.Split(word, ".") {
					if part != "" {
						toks = append(toks, token{part, base + i, base + i + len(part)})
					}
					i += len(part) + 1
				}
				i = j
				continue
			}
			toks = append(toks, token{word, base + i, base + j})
			i = j
		default:
			toks = append(toks, token{string(c), base + i, base + i + 1})
			i++
		}
	}
	return toks
}

// matching returns the index of the token closing the bracket at i, or
// len(toks)-1 when it is not closed.
func matching(toks []token, i int) int {
	open, closing := toks[i].text, map[string]string{"(": ")", "[": "]", "{": "}"}[toks[i].text]
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].text {
		case open:
			depth++
		case closing:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks) - 1
}

var (
	transparentBlock = regexp.MustCompile(`^(extern\s*"[^"]*"|namespace(\s+[A-Za-z_]\w*)?)\s*$`)
	defineDirective  = regexp.MustCompile(`^#\s*define\s+([A-Za-z_]\w*)`)
	fp16Pragma       = regexp.MustCompile(`#\s*pragma\s+OPENCL\s+EXTENSION\s+(cl_khr_fp16|all)\s*:\s*enable`)
	cKeywords        = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true, "sizeof": true,
		"__attribute__": true, "__launch_bounds__": true, "__declspec": true, "alignas": true, "decltype": true}
)

// analyzeC applies the heuristic of the package documentation.
func analyzeC(format Format, src []byte) *Analysis {
	a := &Analysis{Format: format, src: src}
	code, directives := maskC(src)
	toks := tokenize(code, 0)
	fp16 := fp16Pragma.Match(src)
	opencl := format == FormatOpenCLC

	newDecl := func(ts []token, start, end int) *decl {
		d := &decl{start: start, end: end}
		d.aspects = cAspects(ts, opencl, fp16)
		return d
	}
	var stmt []token // the tokens of the statement read so far
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.text {
		case "{":
			if len(stmt) == 0 || transparentBlock.MatchString(string(src[stmt[0].start:t.start])) {
				stmt = stmt[:0] // extern "C" { and namespace n {: their contents are top level
				continue
			}
			j := matching(toks, i)
			if name, ok := functionHeader(stmt); ok {
				all := toks[indexOfToken(toks, stmt[0]) : j+1]
				d := newDecl(all, stmt[0].start, toks[j].end)
				d.names, d.function = []string{name}, true
				d.kernel = hasKernelQualifier(stmt, opencl)
				d.subGroupSizes = reqdSubGroupSizes(stmt)
				d.refs = identsExcept(all, name)
				a.decls = append(a.decls, d)
				stmt = stmt[:0]
				i = j
				continue
			}
			stmt = append(stmt, toks[i:j+1]...)
			i = j
		case "}":
			stmt = stmt[:0] // the end of a transparent block
		case ";":
			if len(stmt) > 0 {
				d := newDecl(stmt, stmt[0].start, t.end)
				d.names, d.function = declaredNames(stmt)
				d.kernel = d.function && hasKernelQualifier(stmt, opencl)
				d.refs = identsExcept(stmt, d.names...)
				a.decls = append(a.decls, d)
			}
			stmt = stmt[:0]
		case "(", "[":
			j := matching(toks, i)
			stmt = append(stmt, toks[i:j+1]...)
			i = j
		default:
			stmt = append(stmt, t)
		}
	}
	for _, r := range directives {
		text := string(src[r[0]:r[1]])
		m := defineDirective.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		body := tokenize(maskDirectiveBody(text), r[0])
		d := newDecl(body, r[0], r[1])
		d.names, d.macro = []string{m[1]}, true
		d.refs = identsExcept(body, m[1], "define")
		a.decls = append(a.decls, d)
	}
	slices.SortStableFunc(a.decls, func(x, y *decl) int { return x.start - y.start })
	a.finish()
	return a
}

// maskDirectiveBody blanks the comments and literal contents of a directive.
func maskDirectiveBody(text string) []byte {
	b := []byte(text)
	if len(b) > 0 {
		b[0] = ' ' // the '#', which would make the line a directive again
	}
	m, _ := maskC(b)
	return m
}

func indexOfToken(toks []token, t token) int {
	i, _ := slices.BinarySearchFunc(toks, t.start, func(x token, start int) int { return x.start - start })
	return i
}

// functionHeader reports whether stmt, the tokens before a '{', ends a
// function's header — "name(...)" followed only by attributes or
// qualifiers — and returns the name.
func functionHeader(stmt []token) (string, bool) {
	end := len(stmt)
	for end > 0 {
		last := stmt[end-1]
		if last.ident() && (last.text == "const" || last.text == "noexcept" || last.text == "override") {
			end--
			continue
		}
		if last.text != ")" {
			return "", false
		}
		open := openingParen(stmt[:end])
		if open < 1 || !stmt[open-1].ident() {
			return "", false
		}
		name := stmt[open-1].text
		if name == "__attribute__" || name == "__launch_bounds__" || name == "__declspec" {
			end = open - 1
			continue
		}
		if cKeywords[name] || stmt[0].text == "typedef" || slices.ContainsFunc(stmt[:open], func(t token) bool { return t.text == "=" }) {
			return "", false
		}
		return name, true
	}
	return "", false
}

// openingParen returns the index of the '(' matching the ')' that ends ts.
func openingParen(ts []token) int {
	depth := 0
	for i := len(ts) - 1; i >= 0; i-- {
		switch ts[i].text {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// declaredNames returns what a statement ending in ';' declares: a
// prototype's function name (function true), a typedef's name, a struct,
// union or enum tag and an enum's constants, or a variable's name.
func declaredNames(stmt []token) (names []string, function bool) {
	if name, ok := prototypeName(stmt); ok {
		return []string{name}, true
	}
	for i, t := range stmt {
		if (t.text == "struct" || t.text == "union" || t.text == "enum") && i+1 < len(stmt) && stmt[i+1].ident() {
			names = append(names, stmt[i+1].text)
		}
		if t.text == "enum" {
			for j := i + 1; j < len(stmt); j++ {
				if stmt[j].text == "{" {
					for k := j + 1; k < len(stmt) && stmt[k].text != "}"; k++ {
						if stmt[k].ident() && (stmt[k-1].text == "{" || stmt[k-1].text == ",") {
							names = append(names, stmt[k].text)
						}
					}
					break
				}
			}
		}
	}
	// The declarator: the last identifier at brace depth 0 before '=', '['
	// or the end (a typedef's new name, a variable).
	depth := 0
	last := ""
	for _, t := range stmt {
		switch t.text {
		case "{", "(":
			depth++
		case "}", ")":
			depth--
		case "=", "[":
			if depth == 0 {
				goto done
			}
		default:
			if depth == 0 && t.ident() && !isTypeWord(t.text) {
				last = t.text
			}
		}
	}
done:
	if last != "" && !slices.Contains(names, last) {
		names = append(names, last)
	}
	return names, false
}

// prototypeName reports whether stmt declares a function without
// defining it: "type name(params)" with nothing but attributes after.
func prototypeName(stmt []token) (string, bool) {
	if len(stmt) == 0 || stmt[0].text == "typedef" {
		return "", false
	}
	return functionHeader(stmt)
}

// isTypeWord reports whether an identifier is a keyword of a declaration
// rather than a declared name.
func isTypeWord(s string) bool {
	switch s {
	case "const", "constant", "__constant", "global", "__global", "static", "extern", "volatile", "restrict",
		"struct", "union", "enum", "typedef", "unsigned", "signed", "__device__", "__constant__", "__shared__", "inline":
		return true
	}
	return false
}

func hasKernelQualifier(stmt []token, opencl bool) bool {
	for _, t := range stmt {
		if opencl && (t.text == "__kernel" || t.text == "kernel") || !opencl && t.text == "__global__" {
			return true
		}
	}
	return false
}

// reqdSubGroupSizes reads intel_reqd_sub_group_size(N) from a header.
func reqdSubGroupSizes(stmt []token) []uint32 {
	var out []uint32
	for i := 0; i+3 < len(stmt); i++ {
		if stmt[i].text == "intel_reqd_sub_group_size" && stmt[i+1].text == "(" && stmt[i+3].text == ")" {
			if n, err := strconv.ParseUint(stmt[i+2].text, 0, 32); err == nil && n > 0 && n <= maxSubGroup {
				out = append(out, uint32(n))
			}
		}
	}
	return out
}

func identsExcept(ts []token, except ...string) []string {
	var out []string
	for _, t := range ts {
		if t.ident() && !slices.Contains(except, t.text) {
			out = append(out, t.text)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cAspects are the aspects the identifiers of a declaration show it uses.
func cAspects(ts []token, opencl, fp16Enabled bool) Aspects {
	var a Aspects
	atom, wide := false, false
	for _, t := range ts {
		s := t.text
		if !t.ident() {
			continue
		}
		switch {
		case s == "double" || isVector(s, "double"):
			a |= AspectFP64
		case !opencl:
			continue
		case isVector(s, "half") || (s == "half" && fp16Enabled):
			a |= AspectFP16
		case s == "atomic_long" || s == "atomic_ulong":
			a |= AspectInt64Atomics
		case strings.HasPrefix(s, "atom_"):
			atom = true
		case s == "long" || s == "ulong" || isVector(s, "long") || isVector(s, "ulong"):
			wide = true
		case strings.HasPrefix(s, "sub_group_") || strings.HasPrefix(s, "get_sub_group_") ||
			strings.HasPrefix(s, "get_max_sub_group_") || strings.HasPrefix(s, "get_num_sub_groups") ||
			strings.HasPrefix(s, "get_enqueued_num_sub_groups") || strings.HasPrefix(s, "intel_sub_group_"):
			a |= AspectSubGroups
		}
	}
	if atom && wide {
		a |= AspectInt64Atomics
	}
	return a
}

// isVector reports whether s is an OpenCL vector of base: base2, 3, 4, 8, 16.
func isVector(s, base string) bool {
	n, ok := strings.CutPrefix(s, base)
	return ok && (n == "2" || n == "3" || n == "4" || n == "8" || n == "16")
}

// ---- PTX ----

var (
	ptxTarget = regexp.MustCompile(`(?m)^\s*\.target\s+(sm_\d+a?)`)
	ptxFunc   = regexp.MustCompile(`\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)`)
	ptxAtom64 = regexp.MustCompile(`\b(atom|red)(\.\w+)*\.[usb]64\b`)
)

func analyzePTX(code []byte) (*Analysis, error) {
	a := &Analysis{Format: FormatPTX, src: code}
	masked, _ := maskC(code) // PTX comments are C's; it has no directives starting with '#'
	text := string(masked)
	if m := ptxTarget.FindStringSubmatch(text); m != nil {
		a.PTXTarget = "compute_" + strings.TrimPrefix(m[1], "sm_")
	} else {
		return nil, errorf(ur.ErrInvalidBinary, "bundle.Analyze", "not PTX: no .target sm_XX line")
	}
	for _, m := range ptxFunc.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[4]:m[5]]
		open := strings.IndexAny(text[m[1]:], "{;")
		if open < 0 || text[m[1]+open] == ';' {
			continue // a declaration
		}
		start := m[1] + open
		toks := tokenize(masked[start:], start)
		end := toks[matching(toks, 0)].end
		body := text[start:end]
		d := &decl{start: m[0], end: end, names: []string{name}, kernel: text[m[2]:m[3]] == "entry", function: true}
		if strings.Contains(body, ".f64") {
			d.aspects |= AspectFP64
		}
		if strings.Contains(body, ".f16") {
			d.aspects |= AspectFP16
		}
		if ptxAtom64.MatchString(body) {
			d.aspects |= AspectInt64Atomics
		}
		d.refs = identsExcept(tokenize(masked[start:end], start), name)
		a.decls = append(a.decls, d)
	}
	a.finish()
	if len(a.Kernels) == 0 {
		return nil, errorf(ur.ErrInvalidBinary, "bundle.Analyze", "PTX with no .entry: no kernel")
	}
	return a, nil
}
