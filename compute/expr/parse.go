package expr

import (
	"fmt"
	"strings"
)

// Func is a parsed function: its let bindings and its assignment, not yet
// typed. Check types it against a Signature.
type Func struct {
	src    string
	lets   []letStmt
	out    string
	outPos Pos
	body   *ast
}

type letStmt struct {
	name string
	pos  Pos
	val  *ast
}

// OutName is the name assigned to.
func (f *Func) OutName() string { return f.out }

type astKind uint8

const (
	aNum astKind = iota
	aIdent
	aUnary
	aBinary
	aCond
	aCall
)

type ast struct {
	kind astKind
	pos  Pos
	op   string // operator, or the function called
	text string // identifier or literal
	args []*ast
}

// maxDepth bounds nesting (parentheses, calls, ?: and unary operators),
// so that no input makes the recursive parser go arbitrarily deep, and
// maxTree bounds the checked tree's depth, which a chain of binary
// operators (x + x + ..., parsed by a loop) adds to one level per
// operator, so that the recursive checker, evaluator and generators do
// not either.
const (
	maxDepth = 256
	maxTree  = 4096
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tOp
	tBad
)

type token struct {
	kind tokKind
	text string
	pos  Pos
}

type parser struct {
	src    string
	off    int
	line   int
	lstart int
	tok    token
	depth  int
}

// Parse parses a function: one assignment, name = expression, optionally
// after let bindings (let name = expression;), with an optional final
// semicolon. The grammar is in the package documentation.
func Parse(src string) (*Func, error) {
	p := &parser{src: src, line: 1}
	f, err := p.parseFunc()
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (p *parser) pos(off int) Pos {
	return Pos{Offset: off, Line: p.line, Col: off - p.lstart + 1}
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (p *parser) next() {
	// Blanks and comments (// to the end of the line).
	for p.off < len(p.src) {
		c := p.src[p.off]
		if c == '\n' {
			p.off++
			p.line++
			p.lstart = p.off
		} else if c == ' ' || c == '\t' || c == '\r' {
			p.off++
		} else if c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '/' {
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.off++
			}
		} else {
			break
		}
	}
	start := p.off
	pos := p.pos(start)
	if p.off >= len(p.src) {
		p.tok = token{tEOF, "", pos}
		return
	}
	c := p.src[p.off]
	switch {
	case isLetter(c):
		for p.off < len(p.src) && (isLetter(p.src[p.off]) || isDigit(p.src[p.off])) {
			p.off++
		}
		p.tok = token{tIdent, p.src[start:p.off], pos}
	case isDigit(c) || c == '.' && p.off+1 < len(p.src) && isDigit(p.src[p.off+1]):
		p.scanNumber()
		p.tok = token{tNum, p.src[start:p.off], pos}
	default:
		for _, op := range []string{"<=", ">=", "==", "!=", "&&", "||"} {
			if strings.HasPrefix(p.src[p.off:], op) {
				p.off += 2
				p.tok = token{tOp, op, pos}
				return
			}
		}
		if strings.IndexByte("+-*/%<>!?:(),;=", c) >= 0 {
			p.off++
			p.tok = token{tOp, string(c), pos}
			return
		}
		// One character, or one UTF-8 sequence, for the message.
		n := 1
		for p.off+n < len(p.src) && p.src[p.off+n]&0xC0 == 0x80 && n < 4 {
			n++
		}
		p.off += n
		p.tok = token{tBad, p.src[start:p.off], pos}
	}
}

// scanNumber takes the longest run that looks like a number; whether it is
// a valid literal is decided when it is typed (strconv).
func (p *parser) scanNumber() {
	s := p.src
	if s[p.off] == '0' && p.off+1 < len(s) && (s[p.off+1] == 'x' || s[p.off+1] == 'X') {
		p.off += 2
		for p.off < len(s) && (isDigit(s[p.off]) || isLetter(s[p.off])) {
			p.off++
		}
		return
	}
	for p.off < len(s) && (isDigit(s[p.off]) || s[p.off] == '.') {
		p.off++
	}
	if p.off < len(s) && (s[p.off] == 'e' || s[p.off] == 'E') {
		p.off++
		if p.off < len(s) && (s[p.off] == '+' || s[p.off] == '-') {
			p.off++
		}
	}
	// Letters and digits run on: "1e5x" is one bad literal, not 1e5 and x.
	for p.off < len(s) && (isDigit(s[p.off]) || isLetter(s[p.off])) {
		p.off++
	}
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tNum:
		return "number " + t.text
	case tIdent:
		return "name " + t.text
	case tBad:
		return fmt.Sprintf("character %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) unexpected(want string) *Error {
	if p.tok.kind == tEOF {
		return errorf(p.tok.pos, "", "unterminated expression: want %s, got end of input", want)
	}
	return errorf(p.tok.pos, p.tok.text, "unexpected %s, want %s", describe(p.tok), want)
}

func (p *parser) isOp(op string) bool { return p.tok.kind == tOp && p.tok.text == op }

func (p *parser) parseFunc() (*Func, error) {
	p.next()
	if p.tok.kind == tEOF {
		return nil, errorf(p.tok.pos, "", "empty input: want name = expression")
	}
	f := &Func{src: p.src}
	for p.tok.kind == tIdent && p.tok.text == "let" {
		p.next()
		if p.tok.kind != tIdent {
			return nil, p.unexpected("a name after let")
		}
		l := letStmt{name: p.tok.text, pos: p.tok.pos}
		p.next()
		if !p.isOp("=") {
			return nil, p.unexpected(`"=" after let ` + l.name)
		}
		p.next()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.isOp(";") {
			return nil, p.unexpected(`";" after let ` + l.name)
		}
		p.next()
		l.val = v
		f.lets = append(f.lets, l)
	}
	if p.tok.kind != tIdent {
		if p.tok.kind == tEOF {
			return nil, errorf(p.tok.pos, "", "assignment missing: want name = expression")
		}
		return nil, p.unexpected("name = expression")
	}
	f.out, f.outPos = p.tok.text, p.tok.pos
	p.next()
	if !p.isOp("=") {
		return nil, errorf(p.tok.pos, f.out, "assignment missing: want %s = expression, got %s", f.out, describe(p.tok))
	}
	p.next()
	body, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.isOp(";") {
		p.next()
	}
	if p.tok.kind != tEOF {
		return nil, p.unexpected("end of input")
	}
	f.body = body
	return f, nil
}

// Binary operators by precedence, loosest first, as in C.
var precedence = [][]string{
	{"||"},
	{"&&"},
	{"==", "!="},
	{"<", "<=", ">", ">="},
	{"+", "-"},
	{"*", "/", "%"},
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errorf(p.tok.pos, "", "expression nested too deeply (more than %d levels)", maxDepth)
	}
	return nil
}

// expr = binary(0) [ "?" expr ":" expr ].
func (p *parser) expr() (*ast, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	c, err := p.binary(0)
	if err != nil || !p.isOp("?") {
		return c, err
	}
	pos := p.tok.pos
	p.next()
	a, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(":") {
		return nil, p.unexpected(`":" of ?:`)
	}
	p.next()
	b, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &ast{kind: aCond, pos: pos, op: "?:", args: []*ast{c, a, b}}, nil
}

func (p *parser) binary(level int) (*ast, error) {
	if level == len(precedence) {
		return p.unary()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tOp && contains(precedence[level], p.tok.text) {
		op, pos := p.tok.text, p.tok.pos
		p.next()
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &ast{kind: aBinary, pos: pos, op: op, args: []*ast{x, y}}
	}
	return x, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) unary() (*ast, error) {
	if p.isOp("-") || p.isOp("+") || p.isOp("!") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		op, pos := p.tok.text, p.tok.pos
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &ast{kind: aUnary, pos: pos, op: op, args: []*ast{x}}, nil
	}
	return p.primary()
}

func (p *parser) primary() (*ast, error) {
	t := p.tok
	switch {
	case t.kind == tNum:
		p.next()
		return &ast{kind: aNum, pos: t.pos, text: t.text}, nil
	case t.kind == tIdent:
		p.next()
		if !p.isOp("(") {
			return &ast{kind: aIdent, pos: t.pos, text: t.text}, nil
		}
		p.next()
		call := &ast{kind: aCall, pos: t.pos, op: t.text}
		if p.isOp(")") {
			p.next()
			return call, nil
		}
		for {
			a, err := p.expr()
			if err != nil {
				return nil, err
			}
			call.args = append(call.args, a)
			if p.isOp(")") {
				p.next()
				return call, nil
			}
			if !p.isOp(",") {
				return nil, p.unexpected(`"," or ")" in call of ` + t.text)
			}
			p.next()
		}
	case p.isOp("("):
		p.next()
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.unexpected(`")"`)
		}
		p.next()
		return x, nil
	}
	return nil, p.unexpected("an expression")
}
