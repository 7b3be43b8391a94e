package testkernels

// The subgroup kernels, a module of their own (Subgroups, in
// zz_subgroups.go) since they need a device aspect the others do not:
//
//go:generate go run github.com/gour-dev/gour/cmd/gokernel -o zz_subgroups.go -var Subgroups subgroups.go

import "github.com/gour-dev/gour/gokernel/kern"

// sgGroup is the work-group size of the subgroup kernels.
const sgGroup = 128

// SubgroupSum sums each work-group's elements of x into sums[group]: a
// butterfly of xor-shuffles in each subgroup, each subgroup's total to
// shared memory, then the first subgroup's shuffles over those.
func SubgroupSum(it kern.Item, x, sums []float32) {
	partial := kern.Shared[float32](it, sgGroup)
	v := x[it.GlobalID(0)]
	for off := it.SubgroupSize() / 2; off > 0; off /= 2 {
		v += kern.ShuffleXor(it, v, off)
	}
	if it.SubgroupLocalID() == 0 {
		partial[it.SubgroupID()] = v
	}
	it.Barrier()
	if it.SubgroupID() == 0 {
		v = 0
		if it.SubgroupLocalID() < it.NumSubgroups() {
			v = partial[it.SubgroupLocalID()]
		}
		v = kern.SubgroupAdd(it, v)
		if it.LocalID(0) == 0 {
			sums[it.GroupID(0)] = v
		}
	}
}

// SubgroupOps writes, for each work-item, the results of every subgroup
// operation, 10 to a work-item: its lane, the subgroup's size, id and
// count, the value of the next lane around, of the lane xor 1, the
// subgroup's sum, max and min of x, and the ballot of the odd values
// (its low 32 bits), and, into f, the float32 sum, max and min.
func SubgroupOps(it kern.Item, x []int32, out []int32, f []float32) {
	i := it.GlobalID(0)
	lane, size := it.SubgroupLocalID(), it.SubgroupSize()
	v := x[i]
	out[i*10] = int32(lane)
	out[i*10+1] = int32(size)
	out[i*10+2] = int32(it.SubgroupID())
	out[i*10+3] = int32(it.NumSubgroups())
	out[i*10+4] = kern.Shuffle(it, v, (lane+1)%size)
	out[i*10+5] = kern.ShuffleXor(it, v, 1)
	out[i*10+6] = kern.SubgroupAdd(it, v)
	out[i*10+7] = kern.SubgroupMax(it, v)
	out[i*10+8] = kern.SubgroupMin(it, v)
	out[i*10+9] = int32(uint32(kern.Ballot(it, v%2 != 0)))
	fv := float32(v) * 0.5
	f[i*3] = kern.SubgroupAdd(it, fv)
	f[i*3+1] = kern.SubgroupMax(it, fv)
	f[i*3+2] = kern.SubgroupMin(it, fv)
}
