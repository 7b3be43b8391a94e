package cl

import "testing"

func TestArgTypeSize(t *testing.T) {
	for _, tt := range []struct {
		name string
		bits uint32
		want uint64
	}{
		{"char", 64, 1}, {"uchar", 64, 1}, {"short", 64, 2}, {"half", 64, 2},
		{"uint", 64, 4}, {"unsigned int", 64, 4}, {"float", 64, 4},
		{"ulong", 64, 8}, {"double", 64, 8},
		{"size_t", 64, 8}, {"size_t", 32, 4}, {"ptrdiff_t", 64, 8},
		{"float2", 64, 8}, {"float3", 64, 16}, {"float4", 64, 16}, {"uchar3", 64, 4},
		{"int8", 64, 32}, {"double16", 64, 128},
		{"float*", 64, 8}, {"float*", 32, 4}, {"struct pair*", 64, 8},
		// Nothing in the name tells these sizes.
		{"struct pair", 64, 0}, {"my_t", 64, 0}, {"image2d_t", 64, 0}, {"sampler_t", 64, 0},
		{"float5", 64, 0}, {"bool2", 64, 0}, {"", 64, 0},
	} {
		if got := ArgTypeSize(tt.name, tt.bits); got != tt.want {
			t.Errorf("ArgTypeSize(%q, %d) = %d, want %d", tt.name, tt.bits, got, tt.want)
		}
	}
}
