package trace

import "testing"

func TestGoid(t *testing.T) {
	if goidOffset() < 0 {
		t.Fatal("no offset")
	}
	t.Log(goidOffset())
	for range 5 {
		ch := make(chan [2]int64)
		go func() { ch <- [2]int64{goid(), slowGoid()} }()
		r := <-ch
		if r[0] != r[1] {
			t.Fatal(r)
		}
	}
}
func BenchmarkGoid(b *testing.B) {
	for range b.N {
		goid()
	}
}
func BenchmarkSlowGoid(b *testing.B) {
	for range b.N {
		slowGoid()
	}
}
