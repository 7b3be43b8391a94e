package gokernel

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// block emits a block; top is the kernel function's own body, where
// kern.Shared may be called.
func (c *compiler) block(b *ast.BlockStmt, top bool) (string, error) {
	var out strings.Builder
	out.WriteString("{\n")
	c.depth++
	defer func() { c.depth-- }()
	for _, s := range b.List {
		if top {
			if txt, ok, err := c.sharedDecl(s); err != nil {
				return "", err
			} else if ok {
				out.WriteString(c.indent() + txt + "\n")
				continue
			}
		}
		txt, err := c.stmt(s)
		if err != nil {
			return "", err
		}
		out.WriteString(txt)
	}
	out.WriteString(strings.Repeat("\t", c.depth-1) + "}")
	return out.String(), nil
}

func (c *compiler) indent() string { return strings.Repeat("\t", c.depth) }

// sharedDecl emits `v := kern.Shared[T](it, n)` as the group's array.
func (c *compiler) sharedDecl(s ast.Stmt) (string, bool, error) {
	as, ok := s.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || len(as.Lhs) != 1 {
		return "", false, nil
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || c.kernCall(call) != "Shared" {
		return "", false, nil
	}
	if as.Tok != token.DEFINE {
		return "", false, c.errorf(as, "kern.Shared's array must be declared with :=")
	}
	id := as.Lhs[0].(*ast.Ident)
	obj := c.info.Defs[id]
	st := c.concrete(obj.Type()).(*types.Slice)
	ct, ok := c.cType(st.Elem())
	if !ok {
		return "", false, c.errorf(as, "shared arrays of %s are not in the subset", st.Elem())
	}
	n := c.info.Types[call.Args[1]].Value
	if n == nil {
		return c.dynamicShared(as, call, obj, ct)
	}
	size, _ := constant.Int64Val(n)
	if size <= 0 {
		return "", false, c.errorf(call.Args[1], "kern.Shared's length must be positive, not %d", size)
	}
	c.shared[obj] = strconv.FormatInt(size, 10)
	return fmt.Sprintf("%s%s %s[%d];", pick(c.lang == langOpenCL, "__local ", "__shared__ "), ct, c.name(obj), size), true, nil
}

// dynamicShared emits `v := kern.Shared[T](it, n)` whose length is the
// kernel's integer parameter n, never assigned: work-group memory sized
// at launch, from n's argument. OpenCL takes it as a __local pointer
// parameter, CUDA as the offset of gour's local-memory convention into
// the launch's dynamic shared memory (gour_local); either way a
// parameter after the kernel's own, which Launch adds
// (ur.ArgLocalMem(n·size of T)).
func (c *compiler) dynamicShared(as *ast.AssignStmt, call *ast.CallExpr, obj types.Object, ct string) (string, bool, error) {
	id, _ := ast.Unparen(call.Args[1]).(*ast.Ident)
	var param types.Object
	if id != nil {
		param = c.info.Uses[id]
	}
	index, ok := c.kparams[param]
	if !ok || !isInteger(param.Type()) {
		return "", false, c.errorf(call.Args[1], "kern.Shared's length must be a constant, or an integer parameter of the kernel (work-group memory sized at launch)")
	}
	var assigned ast.Node
	ast.Inspect(c.kbody, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		}
		for _, l := range lhs {
			if lid, ok := ast.Unparen(l).(*ast.Ident); ok && c.info.Uses[lid] == param && assigned == nil {
				assigned = n
			}
		}
		return assigned == nil
	})
	if assigned != nil {
		return "", false, c.errorf(assigned, "%s sizes a shared array at launch: the kernel must not assign it", param.Name())
	}
	elem := hostSizes.Sizeof(c.concrete(obj.Type()).(*types.Slice).Elem())
	c.dynamic = append(c.dynamic, DynamicShared{Param: index, Elem: int(elem)})
	name := c.name(obj)
	c.shared[obj] = "gok_" + name + "_len"
	decl := c.intType() + " gok_" + name + "_len = (" + c.intType() + ")(" + c.name(param) + ");"
	if c.lang == langOpenCL {
		c.extraParams = append(c.extraParams, "__local "+ct+"* "+name)
		return decl, true, nil
	}
	c.usesDynamic = true
	c.extraParams = append(c.extraParams, "unsigned long long gok_"+name+"_off")
	return decl + "\n" + c.indent() + ct + "* " + name + " = (" + ct + "*)(gour_local + gok_" + name + "_off);", true, nil
}

// kernCall returns the name of the kern function or Item method a call
// calls, or "".
func (c *compiler) kernCall(call *ast.CallExpr) string {
	fun := call.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if s := c.info.Selections[sel]; s != nil {
		for _, t := range []string{"Item", "Float16", "BFloat16"} {
			if isKern(s.Recv(), t) {
				return t + "." + sel.Sel.Name
			}
		}
		return ""
	}
	if o := c.info.Uses[sel.Sel]; o != nil && o.Pkg() != nil && o.Pkg().Path() == kernPath {
		return sel.Sel.Name
	}
	return ""
}

func (c *compiler) stmt(s ast.Stmt) (string, error) {
	in := c.indent()
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return "", c.errorf(s, "this expression is not a statement")
		}
		e, err := c.expr(call)
		if err != nil {
			return "", err
		}
		return in + e + ";\n", nil
	case *ast.DeclStmt:
		return c.varDecl(s)
	case *ast.AssignStmt:
		return c.assign(s)
	case *ast.IncDecStmt:
		x, err := c.expr(s.X)
		if err != nil {
			return "", err
		}
		op := "+"
		if s.Tok == token.DEC {
			op = "-"
		}
		return in + x + " = " + c.arith(op, x, "1", c.typeOf(s.X)) + ";\n", nil
	case *ast.BlockStmt:
		b, err := c.block(s, false)
		return in + b + "\n", err
	case *ast.IfStmt:
		return c.ifStmt(s)
	case *ast.ForStmt:
		return c.forStmt(s)
	case *ast.RangeStmt:
		return c.rangeStmt(s)
	case *ast.SwitchStmt:
		return c.switchStmt(s)
	case *ast.BranchStmt:
		if s.Label != nil {
			return "", c.errorf(s, "labelled %s is not in the subset", s.Tok)
		}
		switch s.Tok {
		case token.BREAK:
			return in + "break;\n", nil
		case token.CONTINUE:
			return in + "continue;\n", nil
		}
		return "", c.errorf(s, "%s is not in the subset", s.Tok)
	case *ast.ReturnStmt:
		switch len(s.Results) {
		case 0:
			return in + "return;\n", nil
		case 1:
			e, err := c.expr(s.Results[0])
			return in + "return " + e + ";\n", err
		}
		return "", c.errorf(s, "a device function returns one value at most")
	case *ast.EmptyStmt:
		return "", nil
	case *ast.GoStmt:
		return "", c.errorf(s, "goroutines are not in the kernel subset: a kernel's parallelism is its work-items")
	case *ast.DeferStmt:
		return "", c.errorf(s, "defer is not in the kernel subset")
	case *ast.SelectStmt, *ast.SendStmt:
		return "", c.errorf(s, "channels are not in the kernel subset")
	case *ast.TypeSwitchStmt:
		return "", c.errorf(s, "type switches are not in the kernel subset: a kernel has no interfaces")
	case *ast.LabeledStmt:
		return "", c.errorf(s, "labels are not in the kernel subset")
	}
	return "", c.errorf(s, "%T is not in the kernel subset", s)
}

// varDecl emits `var x T` (zeroed, as Go does) and `var x = v`.
func (c *compiler) varDecl(s *ast.DeclStmt) (string, error) {
	gd, ok := s.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		if ok && gd.Tok == token.CONST {
			return "", nil // constants are folded where they are used
		}
		return "", c.errorf(s, "only var and const declarations are in the kernel subset")
	}
	var out strings.Builder
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, id := range vs.Names {
			obj := c.info.Defs[id]
			if id.Name == "_" {
				continue
			}
			var init string
			if i < len(vs.Values) {
				e, err := c.expr(vs.Values[i])
				if err != nil {
					return "", err
				}
				init = e
			}
			d, err := c.declare(id, c.concrete(obj.Type()), init)
			if err != nil {
				return "", err
			}
			out.WriteString(c.indent() + d + "\n")
		}
	}
	return out.String(), nil
}

// declare is a local variable's declaration, zeroed without init.
func (c *compiler) declare(at ast.Node, t types.Type, init string) (string, error) {
	name := c.name(c.objOf(at))
	if arr, ok := t.Underlying().(*types.Array); ok {
		ct, ok := c.cType(arr.Elem())
		if !ok {
			return "", c.errorf(at, "arrays of %s are not in the subset", arr.Elem())
		}
		if init != "" {
			return "", c.errorf(at, "an array is declared zeroed (var a [N]T), then assigned element by element")
		}
		return fmt.Sprintf("%s %s[%d] = {0};", ct, name, arr.Len()), nil
	}
	if _, ok := t.Underlying().(*types.Struct); ok {
		ct, why := c.structType(t)
		if why != "" {
			return "", c.errorf(at, "a local variable of type %s: %s", t, why)
		}
		if init == "" {
			init = "{0}" // zeroed, as Go's
		}
		return ct + " " + name + " = " + init + ";", nil
	}
	ct, ok := c.cType(t)
	if !ok {
		return "", c.errorf(at, "a local variable of type %s is not in the kernel subset (numbers, bools, arrays of numbers and structs of numbers)", t)
	}
	if init == "" {
		init = "0"
	}
	return ct + " " + name + " = " + init + ";", nil
}

func (c *compiler) objOf(n ast.Node) types.Object {
	id := n.(*ast.Ident)
	if o := c.info.Defs[id]; o != nil {
		return o
	}
	return c.info.Uses[id]
}

func (c *compiler) assign(s *ast.AssignStmt) (string, error) {
	in := c.indent()
	if len(s.Lhs) != len(s.Rhs) {
		return "", c.errorf(s, "multiple values from one call are not in the subset")
	}
	if len(s.Lhs) > 1 {
		if s.Tok == token.DEFINE || s.Tok == token.ASSIGN {
			// a, b = b, a: evaluate every right side first, as Go does.
			var out strings.Builder
			var tmps []string
			for _, r := range s.Rhs {
				e, err := c.expr(r)
				if err != nil {
					return "", err
				}
				ct, ok := c.cType(c.typeOf(r))
				if !ok {
					return "", c.errorf(r, "a value of type %s is not in the subset", c.typeOf(r))
				}
				c.tmps++
				tmp := fmt.Sprintf("gok_t%d", c.tmps)
				tmps = append(tmps, tmp)
				out.WriteString(fmt.Sprintf("%s%s %s = %s;\n", in, ct, tmp, e))
			}
			for i, l := range s.Lhs {
				one := &ast.AssignStmt{Lhs: []ast.Expr{l}, Tok: s.Tok, TokPos: s.TokPos, Rhs: []ast.Expr{&ast.Ident{Name: tmps[i], NamePos: s.Rhs[i].Pos()}}}
				txt, err := c.assignOne(one, tmps[i])
				if err != nil {
					return "", err
				}
				out.WriteString(txt)
			}
			return out.String(), nil
		}
	}
	r, err := c.expr(s.Rhs[0])
	if err != nil {
		return "", err
	}
	return c.assignOne(s, r)
}

// assignOne emits one assignment of the emitted value r.
func (c *compiler) assignOne(s *ast.AssignStmt, r string) (string, error) {
	in := c.indent()
	l := s.Lhs[0]
	if id, ok := l.(*ast.Ident); ok && id.Name == "_" {
		return in + "(void)(" + r + ");\n", nil
	}
	if s.Tok == token.DEFINE {
		if obj := c.info.Defs[l.(*ast.Ident)]; obj != nil {
			d, err := c.declare(l, c.concrete(obj.Type()), r)
			if err != nil {
				return "", err
			}
			return in + d + "\n", nil
		}
		// := redeclaring an existing variable: an assignment.
	}
	if _, ok := c.typeOf(l).Underlying().(*types.Array); ok {
		return "", c.errorf(s, "assigning an array is not in the kernel subset (C cannot): assign its elements, or a struct holding it")
	}
	x, err := c.expr(l)
	if err != nil {
		return "", err
	}
	switch s.Tok {
	case token.ASSIGN, token.DEFINE:
		return in + x + " = " + r + ";\n", nil
	}
	op := strings.TrimSuffix(s.Tok.String(), "=")
	return in + x + " = " + c.binary(op, x, r, c.typeOf(l), s) + ";\n", nil
}

func (c *compiler) ifStmt(s *ast.IfStmt) (string, error) {
	in := c.indent()
	var out strings.Builder
	if s.Init != nil {
		// The init's variables live in the if's scope: a C block around it.
		init, err := c.stmt(s.Init)
		if err != nil {
			return "", err
		}
		out.WriteString(in + "{\n" + init)
	}
	cond, err := c.expr(s.Cond)
	if err != nil {
		return "", err
	}
	body, err := c.block(s.Body, false)
	if err != nil {
		return "", err
	}
	out.WriteString(in + "if " + wrapped(cond) + " " + body)
	if s.Else != nil {
		var els string
		switch e := s.Else.(type) {
		case *ast.BlockStmt:
			els, err = c.block(e, false)
		case *ast.IfStmt:
			c.depth++
			els, err = c.ifStmt(e)
			c.depth--
			els = "{\n" + els + in + "}"
		}
		if err != nil {
			return "", err
		}
		out.WriteString(" else " + els)
	}
	out.WriteString("\n")
	if s.Init != nil {
		out.WriteString(in + "}\n")
	}
	return out.String(), nil
}

func (c *compiler) forStmt(s *ast.ForStmt) (string, error) {
	in := c.indent()
	var init, post string
	var err error
	if s.Init != nil {
		if init, err = c.stmt(s.Init); err != nil {
			return "", err
		}
	}
	cond := "1"
	if s.Cond != nil {
		if cond, err = c.expr(s.Cond); err != nil {
			return "", err
		}
	}
	if s.Post != nil {
		c.depth++
		if post, err = c.signedStep(s.Post); post == "" && err == nil {
			post, err = c.stmt(s.Post)
		}
		c.depth--
		if err != nil {
			return "", err
		}
	}
	body, err := c.block(s.Body, false)
	if err != nil {
		return "", err
	}
	// for (init; cond; post) with post run where continue jumps: a
	// while loop whose continue would skip post, so post goes in C's for.
	postExpr := strings.TrimSuffix(strings.TrimSpace(post), ";")
	if strings.Contains(postExpr, ";") {
		return "", c.errorf(s.Post, "this post statement is not in the subset")
	}
	return in + "{\n" + init + in + "for (; " + cond + "; " + postExpr + ") " + body + "\n" + in + "}\n", nil
}

// signedStep emits a for loop's step of a signed 64-bit counter (i++,
// i--, i += n, i -= n) as C's signed arithmetic, without the wrap Go's
// other signed arithmetic keeps: the device compiler may then assume the
// counter does not overflow, and unroll the loop (a grid-stride sum ran
// at 0.77 of C's speed with the step wrapping). Stepping past 2^63 is
// the one difference from Go. It returns "" for any other statement.
func (c *compiler) signedStep(s ast.Stmt) (string, error) {
	var x, step ast.Expr
	op := ""
	switch s := s.(type) {
	case *ast.IncDecStmt:
		x, op = s.X, s.Tok.String()
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 || (s.Tok != token.ADD_ASSIGN && s.Tok != token.SUB_ASSIGN) {
			return "", nil
		}
		x, step, op = s.Lhs[0], s.Rhs[0], s.Tok.String()
	default:
		return "", nil
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return "", nil
	}
	b, ok := c.typeOf(id).Underlying().(*types.Basic)
	if !ok || (b.Kind() != types.Int && b.Kind() != types.Int64) {
		return "", nil
	}
	name := c.name(c.info.Uses[id])
	if step == nil {
		return name + op, nil
	}
	v, err := c.expr(step)
	if err != nil {
		return "", err
	}
	return name + " " + op + " (" + v + ")", nil
}

// rangeStmt emits `for i := range n` over an integer.
func (c *compiler) rangeStmt(s *ast.RangeStmt) (string, error) {
	t := c.typeOf(s.X)
	if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return "", c.errorf(s, "range over %s is not in the subset: range over an integer, or index the slice", t)
	}
	if s.Value != nil {
		return "", c.errorf(s, "range over an integer has one variable")
	}
	n, err := c.expr(s.X)
	if err != nil {
		return "", err
	}
	ct, _ := c.cType(t)
	body, err := c.block(s.Body, false)
	if err != nil {
		return "", err
	}
	in := c.indent()
	v := "gok_i"
	if s.Key != nil && s.Key.(*ast.Ident).Name != "_" {
		v = c.name(c.objOf(s.Key))
	}
	return fmt.Sprintf("%s{\n%s%s gok_n = %s;\n%sfor (%s %s = 0; %s < gok_n; %s++) %s\n%s}\n", in, in, ct, n, in, ct, v, v, v, body, in), nil
}

// switchStmt emits a switch as an if-else chain: Go's cases do not fall
// through and may be any expressions.
func (c *compiler) switchStmt(s *ast.SwitchStmt) (string, error) {
	in := c.indent()
	var out strings.Builder
	out.WriteString(in + "{\n")
	c.depth++
	defer func() { c.depth-- }()
	if s.Init != nil {
		init, err := c.stmt(s.Init)
		if err != nil {
			return "", err
		}
		out.WriteString(init)
	}
	tag := ""
	if s.Tag != nil {
		e, err := c.expr(s.Tag)
		if err != nil {
			return "", err
		}
		ct, ok := c.cType(c.typeOf(s.Tag))
		if !ok {
			return "", c.errorf(s.Tag, "a switch on %s is not in the subset", c.typeOf(s.Tag))
		}
		tag = "gok_tag"
		out.WriteString(c.indent() + ct + " gok_tag = " + e + ";\n")
	}
	// break inside a case leaves the switch: a one-pass loop around it.
	out.WriteString(c.indent() + "do {\n")
	var def *ast.CaseClause
	first := true
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		if cc.List == nil {
			def = cc
			continue
		}
		var conds []string
		for _, e := range cc.List {
			x, err := c.expr(e)
			if err != nil {
				return "", err
			}
			if tag != "" {
				x = "(" + tag + " == " + x + ")"
			}
			conds = append(conds, x)
		}
		body, err := c.caseBody(cc)
		if err != nil {
			return "", err
		}
		kw := "} else if ("
		if first {
			kw = "if ("
		}
		first = false
		cond := strings.Join(conds, " || ")
		if len(conds) == 1 {
			cond = strings.TrimSuffix(strings.TrimPrefix(wrapped(cond), "("), ")")
		}
		out.WriteString(c.indent() + kw + cond + ") {\n" + body)
	}
	if def != nil {
		body, err := c.caseBody(def)
		if err != nil {
			return "", err
		}
		if first {
			out.WriteString(c.indent() + "{\n" + body)
		} else {
			out.WriteString(c.indent() + "} else {\n" + body)
		}
		first = false
	}
	if !first {
		out.WriteString(c.indent() + "}\n")
	}
	out.WriteString(c.indent() + "} while (0);\n" + in + "}\n")
	return out.String(), nil
}

func (c *compiler) caseBody(cc *ast.CaseClause) (string, error) {
	var out strings.Builder
	c.depth++
	defer func() { c.depth-- }()
	for _, s := range cc.Body {
		if b, ok := s.(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
			return "", c.errorf(s, "fallthrough is not in the subset")
		}
		if b, ok := s.(*ast.BranchStmt); ok && b.Tok == token.CONTINUE {
			return "", c.errorf(s, "continue inside a switch is not in the subset")
		}
		txt, err := c.stmt(s)
		if err != nil {
			return "", err
		}
		out.WriteString(txt)
	}
	return out.String(), nil
}

// wrapped is a condition in the one pair of parentheses C wants: its own
// where it is wholly in parentheses already (C compilers warn of two).
func wrapped(cond string) string {
	if strings.HasPrefix(cond, "(") && strings.HasSuffix(cond, ")") {
		depth := 0
		for i, r := range cond {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 && i < len(cond)-1 {
				return "(" + cond + ")"
			}
		}
		return cond
	}
	return "(" + cond + ")"
}
