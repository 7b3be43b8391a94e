// Kernels of the gour conformance suite, in OpenCL C 1.2.
// Every backend has the same kernels, with the same names and arguments,
// in its own language under testdata/<backend>/.

#ifndef SCALE
#define SCALE 1
#endif

// y = a*x + y
__kernel void axpy(float a, __global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

// out[i] = i, with i the global id (global offset included).
__kernel void iota(__global uint *out) {
    size_t i = get_global_id(0);
    out[i] = (uint)i;
}

// out[i] = value
__kernel void fill_u32(__global uint *out, uint value) {
    out[get_global_id(0)] = value;
}

// out[i] += 1, for launches that must run in order.
__kernel void add_one(__global uint *out) {
    out[get_global_id(0)] += 1;
}

// Each work-item writes its coordinates, packed as x | y<<10 | z<<20, at
// its linear id (z*H + y)*W + x, counted from the global offset.
__kernel void index2d(__global uint *out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t w = get_global_size(0);
    size_t lin = (y - get_global_offset(1)) * w + (x - get_global_offset(0));
    out[lin] = (uint)(x | (y << 10));
}

__kernel void index3d(__global uint *out) {
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t w = get_global_size(0), h = get_global_size(1);
    size_t lin = ((z - get_global_offset(2)) * h + (y - get_global_offset(1))) * w + (x - get_global_offset(0));
    out[lin] = (uint)(x | (y << 10) | (z << 20));
}

// Each work-item writes its group id and local id in dimension 0, packed
// as group<<16 | local, and the local size in sizes[0].
__kernel void local_ids(__global uint *out, __global uint *sizes) {
    size_t i = get_global_id(0);
    out[i] = (uint)((get_group_id(0) << 16) | get_local_id(0));
    if (i == 0) {
        sizes[0] = (uint)get_local_size(0);
    }
}

// Each work-group sums its part of in through a __local buffer of one uint
// per work-item; the local size must be a power of two.
__kernel void group_sum(__global const uint *in, __global uint *out, __local uint *scratch) {
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (l < s) {
            scratch[l] += scratch[l + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        out[get_group_id(0)] = scratch[0];
    }
}

// x[i] *= SCALE: build with -DSCALE=n to change the result.
__kernel void scale(__global int *x) {
    x[get_global_id(0)] *= SCALE;
}

// Every scalar type by value; out receives each, widened to long, and fout
// the float.
__kernel void scalars(__global long *out, __global float *fout,
                      char c, uchar uc, short s, ushort us,
                      int i, uint ui, long l, ulong ul, float f) {
    if (get_global_id(0) == 0) {
        out[0] = c;
        out[1] = uc;
        out[2] = s;
        out[3] = us;
        out[4] = i;
        out[5] = ui;
        out[6] = l;
        out[7] = (long)ul;
        fout[0] = f;
    }
}

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// y = a*x + y in double precision, present only on fp64 devices.
__kernel void axpy_f64(double a, __global const double *x, __global double *y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
#endif
