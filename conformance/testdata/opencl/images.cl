// The image kernels of conformance/image.go (TestImageKernelArgs): sample
// reads an image through a sampler, invert reads one image and writes
// another.
__kernel void sample(__read_only image2d_t img, sampler_t s, __global float4* out, int w) {
	int x = get_global_id(0), y = get_global_id(1);
	out[y*w + x] = read_imagef(img, s, (int2)(x, y));
}
__kernel void invert(__read_only image2d_t in, __write_only image2d_t out) {
	int2 p = (int2)(get_global_id(0), get_global_id(1));
	uint4 v = read_imageui(in, p);
	write_imageui(out, p, (uint4)(255) - v);
}
