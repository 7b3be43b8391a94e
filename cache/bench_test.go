package cache

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkGetHit measures a warm lookup: locks, two reads, checksums
// and the use stamp.
func BenchmarkGetHit(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run(human(size), func(b *testing.B) {
			c := mustOpen(b, b.TempDir())
			k := key("bench")
			put(b, c, k, size)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, ok := c.Get(k); !ok {
					b.Fatal("miss")
				}
			}
		})
	}
}

func BenchmarkGetOrBuildHit(b *testing.B) {
	c := mustOpen(b, b.TempDir())
	k := key("bench")
	put(b, c, k, 1<<20)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, hit, _ := c.GetOrBuild(context.Background(), k, testInfo, nil); !hit {
			b.Fatal("miss")
		}
	}
}

func BenchmarkPut(b *testing.B) {
	c := mustOpen(b, b.TempDir())
	bin := binFor(key("x"), 1<<20)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k := key("bench")
		k.CompileOptions = "-D N=" + strconv.Itoa(i)
		if err := c.Put(k, bin, testInfo); err != nil {
			b.Fatal(err)
		}
	}
}

func human(n int) string {
	if n >= 1<<20 {
		return itoa(n>>20) + "MiB"
	}
	return itoa(n>>10) + "KiB"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
