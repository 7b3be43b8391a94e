// cuda_stream_depth: how many launches a CUDA stream holds, pending, before
// a launch waits for the device to make room. The CUDA adapter's quick
// launch calls (driver.QuickGate) stop well before that, since a quick call
// that waits holds up the Go garbage collector's pauses.
//
// It keeps each of 1, 2 and 4 streams busy with a kernel that spins for
// about half a second, then launches empty kernels round-robin on them and
// prints after how many a launch first took more than a millisecond.
//
//	nvcc -O2 -o bin/cuda_stream_depth scripts/bench/c/cuda_stream_depth.cu -lcuda && bin/cuda_stream_depth
#include <chrono>
#include <cstdio>

__global__ void spin(long long cycles) {
	long long start = clock64();
	while (clock64() - start < cycles) {
	}
}

__global__ void empty(unsigned long long) {}

static double now() {
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
	if (cudaFree(0) != cudaSuccess) {
		fprintf(stderr, "no CUDA device\n");
		return 1;
	}
	for (int streams = 1; streams <= 4; streams *= 2) {
		cudaStream_t s[4];
		for (int j = 0; j < streams; j++) cudaStreamCreateWithFlags(&s[j], cudaStreamNonBlocking);
		for (int j = 0; j < streams; j++) spin<<<1, 1, 0, s[j]>>>(1000000000LL);
		int waited = -1;
		for (int i = 0; i < 20000; i++) {
			double start = now();
			empty<<<1, 32, 0, s[i % streams]>>>(0);
			if (now() - start > 1e-3) {
				waited = i;
				break;
			}
		}
		printf("streams %d: the first launch to wait came after %d pending empty launches\n", streams, waited);
		cudaDeviceSynchronize();
		for (int j = 0; j < streams; j++) cudaStreamDestroy(s[j]);
	}
	return 0;
}
