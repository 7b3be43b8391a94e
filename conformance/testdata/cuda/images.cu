// The image kernels of conformance/image.go (TestImageKernelArgs), in
// CUDA C++, mirroring testdata/opencl/images.cl with the same names and
// arguments. A CUDA image argument is its surface object, addressed in
// bytes along x and reading the stored bits (an RGBA UNORM_INT8 pixel is
// a uchar4, scaled here); a sampler is the 32-bit value of gour's CUDA
// adapter (bit 0 normalized coordinates, bits 2-4 addressing), applied by
// the kernel: sample reads with nearest filtering, clamping to the edge
// when the sampler says so and reading zeros past the edge otherwise.

extern "C" __global__ void sample(cudaSurfaceObject_t img, unsigned int s, float4 *out, int w) {
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	int h = gridDim.y * blockDim.y;
	int sx = x, sy = y;
	if (((s >> 2) & 7) == 1) {
		sx = min(max(sx, 0), w - 1);
		sy = min(max(sy, 0), h - 1);
	}
	uchar4 v = surf2Dread<uchar4>(img, sx * 4, sy, cudaBoundaryModeZero);
	out[y * w + x] = make_float4(v.x / 255.0f, v.y / 255.0f, v.z / 255.0f, v.w / 255.0f);
}

extern "C" __global__ void invert(cudaSurfaceObject_t in, cudaSurfaceObject_t out) {
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	uchar4 v = surf2Dread<uchar4>(in, x * 4, y);
	surf2Dwrite(make_uchar4(255 - v.x, 255 - v.y, 255 - v.z, 255 - v.w), out, x * 4, y);
}
