package expr

import "testing"

func TestScratch(t *testing.T) {
	sig := Signature{Out: Float32, Arrays: map[string]Type{"x": Float32, "y": Float32, "i": Int32}, Params: map[string]Type{"a": Float32}}
	for _, s := range []string{"out = a*x + y", "z = sqrt(x*x + y*y)", "r = x > 0 ? x : 0.1*x", "y = fma(a, x, y)", "o = i + 2.5", "o = i * 2 + x", "o = x > 0 ? 1 : 2", "o = (x>0?5:6)/2 + 0.5", "o = sqrt(2)", "o = z", "o = sqrt(x, y)", "o = i % x", "o = -x*-3", "let t = x*2; o = t*t", "o = 1 < 2", "o=", "", "o = (x", "o = x +", "o x"} {
		c, err := Compile(s, sig)
		if err != nil {
			t.Logf("%-30s ERR %v", s, err)
			continue
		}
		t.Logf("%-30s %s", s, c.Key())
	}
}
