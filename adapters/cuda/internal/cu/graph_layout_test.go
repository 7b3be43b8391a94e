package cu

import (
	"testing"
	"unsafe"
)

// TestLaunchLayouts checks the structs of graph.go against cuda.h of CUDA
// 12.x and 13.0 as the bindgen output of cudarc and cuda-python quote it:
// CUlaunchConfig_st (seven unsigned ints, CUstream hStream,
// CUlaunchAttribute *attrs, unsigned int numAttrs); CUlaunchAttribute_st
// (CUlaunchAttributeID id, char pad[8 - sizeof(id)], the
// CUlaunchAttributeValue union of char pad[64] and its members);
// CUDA_KERNEL_NODE_PARAMS_v2_st (CUfunction func, seven unsigned ints,
// void **kernelParams, void **extra, CUkernel kern, CUcontext ctx);
// CUDA_MEMSET_NODE_PARAMS_st (CUdeviceptr dst, size_t pitch, unsigned int
// value, unsigned int elementSize, size_t width, size_t height).
func TestLaunchLayouts(t *testing.T) {
	var c LaunchConfig
	var a LaunchAttribute
	var k KernelNodeParams
	var m MemsetNodeParams
	for _, x := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(CUlaunchConfig)", unsafe.Sizeof(c), 56},
		{"offsetof(CUlaunchConfig, blockDimX)", unsafe.Offsetof(c.BlockDimX), 12},
		{"offsetof(CUlaunchConfig, sharedMemBytes)", unsafe.Offsetof(c.SharedMemBytes), 24},
		{"offsetof(CUlaunchConfig, hStream)", unsafe.Offsetof(c.Stream), 32},
		{"offsetof(CUlaunchConfig, attrs)", unsafe.Offsetof(c.Attrs), 40},
		{"offsetof(CUlaunchConfig, numAttrs)", unsafe.Offsetof(c.NumAttrs), 48},

		{"sizeof(CUlaunchAttribute)", unsafe.Sizeof(a), 72},
		{"offsetof(CUlaunchAttribute, value)", unsafe.Offsetof(a.Value), 8},

		{"sizeof(CUDA_KERNEL_NODE_PARAMS_v2)", unsafe.Sizeof(k), 72},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, gridDimX)", unsafe.Offsetof(k.GridDimX), 8},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, blockDimX)", unsafe.Offsetof(k.BlockDimX), 20},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, sharedMemBytes)", unsafe.Offsetof(k.SharedMemBytes), 32},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kernelParams)", unsafe.Offsetof(k.KernelParams), 40},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, extra)", unsafe.Offsetof(k.Extra), 48},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kern)", unsafe.Offsetof(k.Kern), 56},
		{"offsetof(CUDA_KERNEL_NODE_PARAMS_v2, ctx)", unsafe.Offsetof(k.Ctx), 64},

		{"sizeof(CUDA_MEMSET_NODE_PARAMS)", unsafe.Sizeof(m), 40},
		{"offsetof(CUDA_MEMSET_NODE_PARAMS, pitch)", unsafe.Offsetof(m.Pitch), 8},
		{"offsetof(CUDA_MEMSET_NODE_PARAMS, value)", unsafe.Offsetof(m.Value), 16},
		{"offsetof(CUDA_MEMSET_NODE_PARAMS, elementSize)", unsafe.Offsetof(m.ElementSize), 20},
		{"offsetof(CUDA_MEMSET_NODE_PARAMS, width)", unsafe.Offsetof(m.Width), 24},
		{"offsetof(CUDA_MEMSET_NODE_PARAMS, height)", unsafe.Offsetof(m.Height), 32},
	} {
		if x.got != x.want {
			t.Errorf("%s = %d, want %d", x.name, x.got, x.want)
		}
	}
}

// TestLaunchConstantValues checks the launch and queue model's constants
// against cuda.h (CUlaunchAttributeID_enum, CUstreamCaptureMode_enum,
// CUfunction_attribute_enum, CUdevice_attribute_enum).
func TestLaunchConstantValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"CU_LAUNCH_ATTRIBUTE_COOPERATIVE", int64(LaunchAttributeCooperative), 2},
		{"CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", int64(LaunchAttributeClusterDimension), 4},
		{"CU_STREAM_CAPTURE_MODE_GLOBAL", int64(StreamCaptureModeGlobal), 0},
		{"CU_STREAM_CAPTURE_MODE_THREAD_LOCAL", int64(StreamCaptureModeThreadLocal), 1},
		{"CU_STREAM_CAPTURE_MODE_RELAXED", int64(StreamCaptureModeRelaxed), 2},
		{"CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", int64(FuncAttributeMaxDynamicSharedSizeBytes), 8},
		{"CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", int64(DeviceAttributeMaxSharedMemoryPerBlockOptin), 97},
		{"CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH", int64(DeviceAttributeCooperativeLaunch), 95},
		{"CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH", int64(DeviceAttributeClusterLaunch), 120},
		{"CU_DEVICE_ATTRIBUTE_WARP_SIZE", int64(DeviceAttributeWarpSize), 10},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestZeroLibLaunchCalls: the launch model's entry points on a table
// without them answer NotSupported, never calling address zero.
func TestZeroLibLaunchCalls(t *testing.T) {
	var l Lib
	if l.HasLaunchKernelEx() || l.HasGraphs() || l.HasStreamCapture() {
		t.Error("zero Lib reports optional launch entry points")
	}
	var cfg LaunchConfig
	var kp KernelNodeParams
	var mp MemsetNodeParams
	var cp Memcpy3D
	var a LaunchAttribute
	var dep GraphNode
	rs := map[string]Result{
		"LaunchKernelEx":               l.LaunchKernelEx(&cfg, 0, nil, nil),
		"LaunchKernelExIn":             l.LaunchKernelExIn(0, &cfg, 0, nil, nil),
		"GraphDestroy":                 l.GraphDestroy(0),
		"GraphKernelNodeSetAttribute":  l.GraphKernelNodeSetAttribute(0, &a),
		"GraphLaunch":                  l.GraphLaunch(0, 0),
		"GraphExecDestroy":             l.GraphExecDestroy(0),
		"GraphExecKernelNodeSetParams": l.GraphExecKernelNodeSetParams(0, 0, &kp),
		"StreamBeginCapture":           l.StreamBeginCapture(0, StreamCaptureModeRelaxed),
	}
	_, rs["GraphCreate"] = l.GraphCreate()
	_, rs["GraphAddKernelNode"] = l.GraphAddKernelNode(0, &dep, &kp)
	_, rs["GraphAddMemcpyNode"] = l.GraphAddMemcpyNode(0, &dep, &cp, 0)
	_, rs["GraphAddMemsetNode"] = l.GraphAddMemsetNode(0, &dep, &mp, 0)
	_, rs["GraphInstantiate"] = l.GraphInstantiate(0, 0)
	_, rs["StreamEndCapture"] = l.StreamEndCapture(0)
	_, rs["StreamCreateWithPriority"] = l.StreamCreateWithPriority(0, 0)
	_, _, rs["CtxGetStreamPriorityRange"] = l.CtxGetStreamPriorityRange()
	_, rs["OccupancyMaxActiveBlocksPerMultiprocessor"] = l.OccupancyMaxActiveBlocksPerMultiprocessor(0, 32, 0)
	for name, r := range rs {
		if r != NotSupported {
			t.Errorf("%s on a zero Lib = %v, want %v", name, r, NotSupported)
		}
	}
}
