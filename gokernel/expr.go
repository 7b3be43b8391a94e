package gokernel

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strconv"
	"strings"
)

func (c *compiler) expr(e ast.Expr) (string, error) {
	tv := c.info.Types[e]
	if tv.Value != nil {
		return c.constant(e, tv)
	}
	switch e := e.(type) {
	case *ast.Ident:
		o := c.info.Uses[e]
		if o == nil {
			o = c.info.Defs[e]
		}
		switch o := o.(type) {
		case *types.Var:
			if o.Parent() == c.pkg.Scope() {
				return "", c.errorf(e, "package variable %s: a kernel reads only its parameters and locals", e.Name)
			}
			return c.name(o), nil
		case *types.Nil:
			return "", c.errorf(e, "nil is not in the kernel subset")
		}
		return "", c.errorf(e, "%s is not in the kernel subset here", e.Name)
	case *ast.ParenExpr:
		x, err := c.expr(e.X)
		return "(" + x + ")", err
	case *ast.BinaryExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return "", err
		}
		y, err := c.expr(e.Y)
		if err != nil {
			return "", err
		}
		op := e.Op.String()
		if _, ok := c.typeOf(e.X).Underlying().(*types.Struct); ok {
			return "", c.errorf(e, "comparing structs is not in the kernel subset: compare their fields")
		}
		if _, ok := c.typeOf(e.X).Underlying().(*types.Array); ok {
			return "", c.errorf(e, "comparing arrays is not in the kernel subset: compare their elements")
		}
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return "(" + x + " " + op + " " + y + ")", nil
		}
		return c.binary(op, x, y, c.typeOf(e), e), nil
	case *ast.UnaryExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return "", err
		}
		switch e.Op {
		case token.SUB:
			if isSigned(c.typeOf(e)) {
				return c.arith("-", "0", x, c.typeOf(e)), nil
			}
			return "(-" + x + ")", nil
		case token.ADD:
			return x, nil
		case token.NOT:
			return "(!" + x + ")", nil
		case token.XOR:
			return "(~" + x + ")", nil
		case token.AND:
			return "(&" + x + ")", nil
		}
		return "", c.errorf(e, "the operator %s is not in the kernel subset", e.Op)
	case *ast.IndexExpr:
		if c.info.Types[e.X].IsType() || c.info.Instances[identOf(e.X)].Type != nil {
			return "", c.errorf(e, "a generic function's value is not in the subset")
		}
		x, err := c.expr(e.X)
		if err != nil {
			return "", err
		}
		i, err := c.expr(e.Index)
		if err != nil {
			return "", err
		}
		switch t := c.typeOf(e.X).Underlying().(type) {
		case *types.Slice:
			n := x + "_len"
			if id, ok := e.X.(*ast.Ident); ok {
				if size := c.shared[c.info.Uses[id]]; size != "" {
					n = size
				}
			}
			return c.checked(e, x, i, n), nil
		case *types.Array:
			return c.checked(e, x, i, strconv.FormatInt(t.Len(), 10)), nil
		}
		return "", c.errorf(e, "indexing %s is not in the kernel subset", c.typeOf(e.X))
	case *ast.CallExpr:
		return c.call(e)
	case *ast.SelectorExpr:
		if sel := c.info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			x, err := c.expr(e.X)
			if err != nil {
				return "", err
			}
			if _, ok := c.typeOf(e.X).(*types.Pointer); ok {
				return "", c.errorf(e, "pointers are not in the kernel subset")
			}
			return x + "." + cName(e.Sel.Name), nil
		}
		return "", c.errorf(e, "%s: package values and method values are not in the kernel subset", exprString(e))
	case *ast.FuncLit:
		return "", c.errorf(e, "closures are not in the kernel subset")
	case *ast.CompositeLit:
		if _, ok := c.typeOf(e).Underlying().(*types.Struct); ok {
			return "", c.errorf(e, "struct literals are not in the kernel subset: declare the struct zeroed (var s T) and assign its fields")
		}
		return "", c.errorf(e, "composite literals allocate: not in the kernel subset")
	case *ast.SliceExpr:
		return "", c.errorf(e, "slicing is not in the kernel subset: pass an offset")
	case *ast.StarExpr:
		return "", c.errorf(e, "pointers are not in the kernel subset (take &x[i] for an atomic)")
	case *ast.TypeAssertExpr:
		return "", c.errorf(e, "interfaces are not in the kernel subset")
	}
	return "", c.errorf(e, "%T is not in the kernel subset", e)
}

func identOf(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	case *ast.IndexExpr:
		return identOf(e.X)
	case *ast.IndexListExpr:
		return identOf(e.X)
	}
	return nil
}

func exprString(e ast.Expr) string {
	var b strings.Builder
	if s, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := s.X.(*ast.Ident); ok {
			b.WriteString(x.Name + ".")
		}
		b.WriteString(s.Sel.Name)
	}
	return b.String()
}

func isSigned(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0 && b.Info()&types.IsUnsigned == 0
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// binary emits x op y of type t, with Go's meaning: signed +, - and *
// wrap (computed unsigned: C leaves their overflow undefined), &^ is
// x & ~y.
func (c *compiler) binary(op, x, y string, t types.Type, at ast.Node) string {
	switch op {
	case "+", "-", "*":
		return c.arith(op, x, y, t)
	case "&^":
		return "(" + x + " & ~" + y + ")"
	case "%":
		if !isInteger(t) {
			return "fmod(" + x + ", " + y + ")"
		}
	}
	return "(" + x + " " + op + " " + y + ")"
}

// arith is x op y wrapping as Go's signed integers do.
func (c *compiler) arith(op, x, y string, t types.Type) string {
	if !isSigned(t) {
		return "(" + x + " " + op + " " + y + ")"
	}
	ct, _ := c.cType(t)
	ut := map[string]string{"int": "uint", "long": "ulong", "long long": "unsigned long long", "short": "ushort", "char": "uchar"}[ct]
	if c.lang == langCUDA {
		ut = map[string]string{"int": "unsigned int", "long long": "unsigned long long", "short": "unsigned short", "char": "unsigned char"}[ct]
	}
	return fmt.Sprintf("((%s)((%s)(%s) %s (%s)(%s)))", ct, ut, x, op, ut, y)
}

// constant emits a constant of e's type: 0.5 in float32 code is 0.5f,
// so float32 code stays float32 as Go's rules keep it.
func (c *compiler) constant(e ast.Expr, tv types.TypeAndValue) (string, error) {
	t := c.concrete(tv.Type)
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 && b.Kind() != types.UntypedFloat && b.Kind() != types.UntypedBool {
		t = types.Default(t) // a shift's count stays untyped: an int
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return "", c.errorf(e, "a constant of type %s is not in the kernel subset", t)
	}
	v := tv.Value
	switch {
	case b.Kind() == types.Bool || b.Kind() == types.UntypedBool:
		if constant.BoolVal(v) {
			return "true", nil
		}
		return "false", nil
	case b.Kind() == types.Float32:
		f, _ := constant.Float32Val(v)
		return floatLit(float64(f), 32), nil
	case b.Kind() == types.Float64 || b.Kind() == types.UntypedFloat:
		c.usesFP64 = true
		f, _ := constant.Float64Val(v)
		return floatLit(f, 64), nil
	case b.Info()&types.IsInteger != 0:
		ct, _ := c.cType(t)
		s := v.ExactString()
		if b.Info()&types.IsUnsigned != 0 {
			return "((" + ct + ")" + s + "u)", nil
		}
		if i, ok := constant.Int64Val(v); ok && i == math.MinInt64 {
			return "((" + ct + ")(-9223372036854775807LL - 1))", nil
		}
		if ct == "int" {
			return s, nil
		}
		return "((" + ct + ")" + s + "LL)", nil
	}
	return "", c.errorf(e, "a constant of type %s is not in the kernel subset", t)
}

func floatLit(f float64, bits int) string {
	switch {
	case math.IsInf(f, 1):
		return pick(bits == 32, "INFINITY", "((double)INFINITY)")
	case math.IsInf(f, -1):
		return pick(bits == 32, "(-INFINITY)", "(-(double)INFINITY)")
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	if bits == 32 {
		s += "f"
	}
	return s
}

// call emits a conversion, a builtin, an intrinsic or a device function.
func (c *compiler) call(e *ast.CallExpr) (string, error) {
	tv := c.info.Types[e.Fun]
	if tv.IsType() {
		if len(e.Args) != 1 {
			return "", c.errorf(e, "a conversion takes one value")
		}
		ct, ok := c.cType(c.concrete(tv.Type))
		if !ok {
			return "", c.errorf(e, "a conversion to %s is not in the kernel subset", c.concrete(tv.Type))
		}
		x, err := c.expr(e.Args[0])
		return "((" + ct + ")(" + x + "))", err
	}
	if tv.IsBuiltin() {
		return c.builtin(e)
	}
	if k := c.kernCall(e); k != "" {
		return c.intrinsic(k, e)
	}
	var fn *types.Func
	if id := identOf(e.Fun); id != nil {
		fn, _ = c.info.Uses[id].(*types.Func)
	}
	if fn == nil {
		return "", c.errorf(e, "this call is not in the kernel subset: call kern's functions, the builtins or functions of the package")
	}
	if fn.Pkg() != c.pkg {
		if fn.Pkg() != nil && fn.Pkg().Path() == "math" {
			return "", c.errorf(e, "math.%s is float64: call kern.%s, which devices have in float32", fn.Name(), fn.Name())
		}
		return "", c.errorf(e, "%s is not a function of the kernel's package", fn.FullName())
	}
	var targs []types.Type
	if inst := c.info.Instances[identOf(e.Fun)]; inst.TypeArgs != nil {
		for i := range inst.TypeArgs.Len() {
			targs = append(targs, c.concrete(inst.TypeArgs.At(i)))
		}
	}
	if fn.Type().(*types.Signature).Recv() != nil {
		return "", c.errorf(e, "methods are not in the kernel subset (but kern's): call a function taking the value")
	}
	if slices.Contains(c.stack, fn) {
		return "", c.errorf(e, "%s calls itself: recursion is not in the kernel subset (devices have no call stack for it)", fn.Name())
	}
	var args []string
	local := map[int]bool{}
	sig := fn.Type().(*types.Signature)
	for i, a := range e.Args {
		if isItem(sig.Params().At(i).Type()) {
			continue
		}
		x, err := c.expr(a)
		if err != nil {
			return "", err
		}
		if _, ok := c.typeOf(a).Underlying().(*types.Slice); ok {
			id, ok := a.(*ast.Ident)
			if !ok {
				return "", c.errorf(a, "a device function takes a slice parameter or shared array as it is (no slicing)")
			}
			o := c.info.Uses[id]
			local[i] = c.isShared(o)
			if n := c.shared[o]; n != "" {
				args = append(args, x, n)
			} else {
				args = append(args, x, x+"_len")
			}
			continue
		}
		args = append(args, x)
	}
	if err := c.deviceFunc(fn, e, targs, local); err != nil {
		return "", err
	}
	if c.debug {
		args = append(args, "gok_err")
	}
	return deviceName(fn, targs, local) + "(" + strings.Join(args, ", ") + ")", nil
}

func (c *compiler) builtin(e *ast.CallExpr) (string, error) {
	name := identOf(e.Fun).Name
	switch name {
	case "len":
		id, ok := e.Args[0].(*ast.Ident)
		if !ok {
			return "", c.errorf(e, "len of a kernel's slice or array variable only")
		}
		o := c.info.Uses[id]
		if n := c.shared[o]; n != "" {
			return n, nil
		}
		if _, ok := c.concrete(o.Type()).Underlying().(*types.Slice); ok {
			return c.name(o) + "_len", nil
		}
		return "", c.errorf(e, "len of %s is not in the subset", c.concrete(o.Type()))
	case "min", "max":
		t := c.typeOf(e)
		x, err := c.expr(e.Args[0])
		if err != nil {
			return "", err
		}
		for _, a := range e.Args[1:] {
			y, err := c.expr(a)
			if err != nil {
				return "", err
			}
			ct, _ := c.cType(t)
			if ct == "float" || ct == "double" {
				// The device's fmax and fmin: one instruction each, where a
				// compare and select kept a CUDA softmax at 0.69 of C's
				// speed. A NaN operand gives the other (Go's gives NaN).
				suffix := ""
				if c.lang == langCUDA && ct == "float" {
					suffix = "f" // fmaxf; OpenCL's fmax is overloaded
				}
				x = fmt.Sprintf("f%s%s(%s, %s)", name, suffix, x, y)
				continue
			}
			cmp := "<"
			if name == "max" {
				cmp = ">"
			}
			x = fmt.Sprintf("gok_%s_%s(%s, %s)", name, strings.ReplaceAll(ct, " ", "_"), x, y)
			c.need(fmt.Sprintf("%s gok_%s_%s(%s a, %s b) { return a %s b ? a : b; }", ct, name, strings.ReplaceAll(ct, " ", "_"), ct, ct, cmp))
		}
		return x, nil
	}
	return "", c.errorf(e, "the builtin %s is not in the kernel subset", name)
}

// need adds a helper function once, before the functions.
func (c *compiler) need(def string) {
	fn := pick(c.lang == langOpenCL, "static inline ", "__device__ inline ") + def
	if !slices.Contains(c.helpers, fn) {
		c.helpers = append(c.helpers, fn)
	}
}

// intrinsic emits a kern function or Item method.
func (c *compiler) intrinsic(name string, e *ast.CallExpr) (string, error) {
	cl := c.lang == langOpenCL
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		if i == 0 && isItem(c.typeOf(a)) {
			continue
		}
		x, err := c.expr(a)
		if err != nil {
			return "", err
		}
		args[i] = x
	}
	dim := func() (string, error) {
		v := c.info.Types[e.Args[0]].Value
		if v == nil {
			return "", c.errorf(e, "the dimension of %s must be a constant 0, 1 or 2", name)
		}
		d, _ := constant.Int64Val(v)
		if d < 0 || d > 2 {
			return "", c.errorf(e, "dimension %d of %s: 0, 1 or 2", d, name)
		}
		return strconv.FormatInt(d, 10), nil
	}
	ids := map[string][2]string{
		"Item.GlobalID": {"get_global_id", "GOK_GID"}, "Item.LocalID": {"get_local_id", "GOK_LID"},
		"Item.GroupID": {"get_group_id", "GOK_GRP"}, "Item.GlobalSize": {"get_global_size", "GOK_GSZ"},
		"Item.LocalSize": {"get_local_size", "GOK_LSZ"}, "Item.NumGroups": {"get_num_groups", "GOK_NGR"},
	}
	if f, ok := ids[name]; ok {
		d, err := dim()
		if err != nil {
			return "", err
		}
		if cl {
			return "((long)" + f[0] + "(" + d + "))", nil
		}
		return f[1] + "(" + d + ")", nil
	}
	math1 := map[string][2]string{
		"Sqrt": {"sqrt", "sqrtf"}, "Exp": {"exp", "expf"}, "Log": {"log", "logf"}, "Tanh": {"tanh", "tanhf"},
		"Abs": {"fabs", "fabsf"}, "Rsqrt": {"rsqrt", "rsqrtf"},
	}
	if f, ok := math1[name]; ok {
		return pick(cl, f[0], f[1]) + "(" + args[0] + ")", nil
	}
	if strings.HasPrefix(name, "Item.Subgroup") || name == "Item.NumSubgroups" || subgroupOps[name] != 0 {
		return c.subgroup(name, e, args)
	}
	switch name {
	case "Float16.Float32", "BFloat16.Float32":
		recv, err := c.expr(e.Fun.(*ast.SelectorExpr).X)
		if err != nil {
			return "", err
		}
		c.usesHalf = true
		return pick(name == "Float16.Float32", "gok_f16_to_f32(", "gok_bf16_to_f32(") + recv + ")", nil
	case "F16", "BF16":
		c.usesHalf = true
		return pick(name == "F16", "gok_f32_to_f16(", "gok_f32_to_bf16(") + args[0] + ")", nil
	case "Item.Barrier":
		return pick(cl, "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)", "__syncthreads()"), nil
	case "Shared":
		return "", c.errorf(e, "kern.Shared is called as `name := kern.Shared[T](it, n)`, a statement of the kernel function's own body")
	case "AtomicAddInt32", "AtomicAddUint32":
		return pick(cl, "atomic_add", "atomicAdd") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicMaxInt32":
		return pick(cl, "atomic_max", "atomicMax") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicMinInt32":
		return pick(cl, "atomic_min", "atomicMin") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicAndUint32":
		return pick(cl, "atomic_and", "atomicAnd") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicOrUint32":
		return pick(cl, "atomic_or", "atomicOr") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicXorUint32":
		return pick(cl, "atomic_xor", "atomicXor") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicAddInt64", "AtomicAddUint64":
		c.needInt64Atomics = true
		if cl {
			return "atom_add(" + args[0] + ", " + args[1] + ")", nil
		}
		return "((" + pick(name == "AtomicAddInt64", "long long", "unsigned long long") + ")atomicAdd((unsigned long long*)(" + args[0] + "), (unsigned long long)(" + args[1] + ")))", nil
	case "AtomicXchgInt32":
		return pick(cl, "atomic_xchg", "atomicExch") + "(" + args[0] + ", " + args[1] + ")", nil
	case "AtomicCASInt32":
		return pick(cl, "atomic_cmpxchg", "atomicCAS") + "(" + args[0] + ", " + args[1] + ", " + args[2] + ")", nil
	case "AtomicAddFloat32":
		if !cl {
			return "atomicAdd(" + args[0] + ", " + args[1] + ")", nil
		}
		if c.pointsToShared(e.Args[0]) {
			return "gok_atomic_add_f32_local(" + args[0] + ", " + args[1] + ")", nil
		}
		return "gok_atomic_add_f32(" + args[0] + ", " + args[1] + ")", nil
	}
	return "", c.errorf(e, "kern.%s is not supported on devices yet", name)
}

// pointsToShared reports whether e is &a[i] of a shared array a.
func (c *compiler) pointsToShared(e ast.Expr) bool {
	u, ok := e.(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return false
	}
	ix, ok := u.X.(*ast.IndexExpr)
	if !ok {
		return false
	}
	id, ok := ix.X.(*ast.Ident)
	return ok && c.isShared(c.info.Uses[id])
}

// subgroupOps are kern's subgroup functions and the aspect each needs.
var subgroupOps = map[string]Aspect{
	"Shuffle": AspectSubgroupShuffle, "ShuffleXor": AspectSubgroupShuffle, "Ballot": AspectSubgroupBallot,
	"SubgroupAdd": AspectSubgroups, "SubgroupMax": AspectSubgroups, "SubgroupMin": AspectSubgroups,
}

// subgroup emits a subgroup operation: OpenCL's sub_group functions
// (cl_khr_subgroups and its shuffle and ballot extensions), CUDA's warp
// intrinsics over the warp's work-items (gok_sg_mask: all 32 lanes but
// in a work-group's last, partial warp).
func (c *compiler) subgroup(name string, e *ast.CallExpr, args []string) (string, error) {
	cl := c.lang == langOpenCL
	c.needs |= AspectSubgroups | subgroupOps[name]
	switch name {
	case "Item.SubgroupSize":
		return pick(cl, "((long)get_sub_group_size())", "((long long)gok_sg_size())"), nil
	case "Item.SubgroupLocalID":
		return pick(cl, "((long)get_sub_group_local_id())", "((long long)(gok_sg_lin() & 31u))"), nil
	case "Item.SubgroupID":
		return pick(cl, "((long)get_sub_group_id())", "((long long)(gok_sg_lin() >> 5))"), nil
	case "Item.NumSubgroups":
		return pick(cl, "((long)get_num_sub_groups())", "((long long)((blockDim.x * blockDim.y * blockDim.z + 31u) >> 5))"), nil
	case "Ballot":
		if cl {
			c.need("ulong gok_ballot(int p) { uint4 b = sub_group_ballot(p); return ((ulong)b.y << 32) | b.x; }")
			return "gok_ballot(" + args[1] + ")", nil
		}
		return "((unsigned long long)__ballot_sync(gok_sg_mask(), " + args[1] + "))", nil
	}
	t := c.typeOf(e)
	ct, ok := c.cType(t)
	if !ok || ct == "bool" || t.Underlying().(*types.Basic).Info()&types.IsNumeric == 0 {
		return "", c.errorf(e, "kern.%s of %s is not in the subset", name, t)
	}
	switch name {
	case "Shuffle":
		return pick(cl, "sub_group_shuffle("+args[1]+", (uint)("+args[2]+"))", "__shfl_sync(gok_sg_mask(), "+args[1]+", (int)("+args[2]+"))"), nil
	case "ShuffleXor":
		return pick(cl, "sub_group_shuffle_xor("+args[1]+", (uint)("+args[2]+"))", "__shfl_xor_sync(gok_sg_mask(), "+args[1]+", (int)("+args[2]+"))"), nil
	}
	op := strings.ToLower(strings.TrimPrefix(name, "Subgroup")) // add, max, min
	if cl {
		return "sub_group_reduce_" + op + "(" + args[1] + ")", nil
	}
	// A tree: lane l takes lane l+16's value, then l+8's, ..., lane 0's
	// the result, broadcast (the CPU's order, kern.SubgroupAdd's); in a
	// full warp the butterfly, which gives every lane lane 0's value in
	// the same order without the broadcast.
	var combine string
	isFloat := ct == "float" || ct == "double"
	switch {
	case op == "add":
		combine = c.arith("+", "a", "b", t)
	case isFloat:
		combine = "f" + op + pick(ct == "float", "f", "") + "(a, b)"
	default:
		combine = "(b " + pick(op == "max", ">", "<") + " a ? b : a)"
	}
	fn := "gok_sg_" + op + "_" + strings.ReplaceAll(ct, " ", "_")
	c.need(fmt.Sprintf("%[1]s %[2]s_op(%[1]s a, %[1]s b) { return %[3]s; }", ct, fn, combine))
	c.need(fmt.Sprintf(`%[1]s %[2]s(%[1]s v) {
	unsigned int m = gok_sg_mask(), n = gok_sg_size(), l = gok_sg_lin() & 31u;
	if (n == 32u) {
		for (int o = 16; o > 0; o >>= 1) v = %[2]s_op(v, __shfl_xor_sync(m, v, o));
		return v;
	}
	for (int o = 16; o > 0; o >>= 1) {
		%[1]s w = __shfl_down_sync(m, v, o);
		if (l + o < n) v = %[2]s_op(v, w);
	}
	return __shfl_sync(m, v, 0);
}`, ct, fn))
	return fn + "(" + args[1] + ")", nil
}
