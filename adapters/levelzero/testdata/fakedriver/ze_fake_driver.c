// A fake Level Zero driver for gour's tests, loaded by the real Level Zero
// loader (ZE_ENABLE_ALT_DRIVERS=/path/libze_gour_fake.so) on machines
// without an Intel GPU. fakedriver_test.go compiles it against the system's
// ze_ddi.h (Debian: libze-dev) and runs the adapter over it.
//
// It is not an emulator. It checks what gour passes (handles, stype of
// every structure, enumerations and flags, argument indices and sizes,
// ranges of device memory, event pools and slots) and answers like a small
// GPU whose "device memory" is host memory: every command runs when it is
// appended, and the kernels of conformance/testdata/spirv, and package
// compute's fill_f32, copy_f32, reduce_sum_f32 and reduce4_sum_f32
// (compiled from its OpenCL C by clang and llvm-spirv), are run by C code
// of the same name.
// Anything it does not expect is an error with a message on stderr, never
// a silent success.
//
// It reports API 1.4, one device of two sub-devices (tiles of half its
// slices, zeDeviceGetSubDevices), a compute queue group whose fill patterns are at
// most 16 bytes, 80 ns timestamp ticks, 32-bit kernel timestamps, device,
// host and single-device shared allocations (no cross-device or system
// ones), a compute group with cooperative kernels and no
// ZE_experimental_module_program. Regular command lists record their
// commands (a launch with a copy of the kernel's arguments, as Level Zero
// reads them at append) and replay them when a command queue executes
// them; every module has one global variable, gour_global_counter.
// Prefetches, memory advice, queue priorities, cooperative launches and
// executions are counted, for the test to read through gour_fake_counter.
// Images are pixel stores of the layouts and types the image section lists
// (no snorm, no 16_16, no packed or media layouts), copied to and from
// memory and between images on immediate lists; samplers are checked and
// kept; the image kernels of conformance/testdata/opencl/images.cl,
// sample and invert, read and write them in C.
// Event pools made with ZE_EVENT_POOL_FLAG_IPC keep their events' states in
// a memfd another process maps (zeEventPoolOpenIpcHandle), so that events
// are shared between processes.
// GOUR_FAKE_ZE_FAULT_KERNEL=name makes a launch of the kernel name fault,
// as a kernel writing through a wild pointer does on a GPU: the launch is
// appended without error and runs nothing, and from then on every call but
// the destroys, frees and property queries returns
// ZE_RESULT_ERROR_DEVICE_LOST (see device_lost).
#define _GNU_SOURCE // memfd_create
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>
#include <pthread.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ENTRY 64
#define MAX_ARGS 16
#define MAX_ALLOCS 4096
#define MAX_SPEC 32
#define FILL_MAX 16
#define NATIVE_MAGIC "GOURFAKEBIN"

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;

// device_lost is set by the launch of GOUR_FAKE_ZE_FAULT_KERNEL's kernel.
static int device_lost;

// survives_loss reports whether the call fn still works on a lost device:
// what frees or describes objects, so that a program can clean up.
static int survives_loss(const char *fn) {
	return strstr(fn, "Destroy") || strstr(fn, "Free") || strstr(fn, "Get") || strstr(fn, "Release");
}

static ze_result_t fail(ze_result_t r, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ze_fake_driver: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (0x%x)\n", (unsigned)r);
	va_end(ap);
	return r;
}

enum { M_DRIVER = 0x6f7a4401, M_DEVICE, M_CONTEXT, M_LIST, M_POOL, M_EVENT, M_MODULE, M_LOG, M_KERNEL, M_QUEUE, M_FENCE, M_IMAGE, M_SAMPLER };

typedef struct { unsigned magic; } object;
static object the_driver = {M_DRIVER}, the_device = {M_DEVICE};
// The device's two tiles (zeDeviceGetSubDevices): devices like it, of half
// its slices, taken wherever a device is.
#define NUM_SUBDEVICES 2
static object the_subdevices[NUM_SUBDEVICES] = {{M_DEVICE}, {M_DEVICE}};

static int subdevice_index(const void *h) {
	for (int i = 0; i < NUM_SUBDEVICES; i++)
		if (h == &the_subdevices[i]) return i;
	return -1;
}

static int is(const void *h, unsigned magic) { return h && ((const object *)h)->magic == magic; }
#define CHECK(h, m)                                                                     \
	do {                                                                                \
		if (!(h)) return fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "%s: null %s", __func__, #h); \
		if (!is((h), (m))) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %s is not a %s", __func__, #h, #m); \
	} while (0)
#define STYPE(p, want)                                                                  \
	do {                                                                                \
		if (!(p)) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "%s: null %s", __func__, #p); \
		if ((p)->stype != (want)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %s->stype 0x%x, want 0x%x", __func__, #p, (unsigned)(p)->stype, (unsigned)(want)); \
	} while (0)

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define TICK_NS 80
static uint64_t now_ticks(void) { return now_ns() / TICK_NS; }

// ---- memory -------------------------------------------------------------

// kind: 1 device, 2 host, 3 shared (memory_type maps it to
// ze_memory_type_t); dev is the allocation's device, NULL for host memory
// and shared memory of every device. Device memory is a memfd mapped
// shared, so that another process can map it through an IPC handle
// (zeMemGetIpcHandle): memfd is its descriptor, 0 for memory that is no
// memfd (descriptor 0 is standard input, never one of these); opened
// marks an allocation mapped from another process's handle, which
// zeMemCloseIpcHandle unmaps and zeMemFree refuses.
typedef struct {
	char *base;
	size_t size;
	int kind;
	ze_device_handle_t dev;
	int memfd, opened;
} allocation;
static allocation allocs[MAX_ALLOCS];

static allocation *find_alloc(const void *p) {
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i].base && (const char *)p >= allocs[i].base && (const char *)p < allocs[i].base + allocs[i].size)
			return &allocs[i];
	return NULL;
}

// check_range accepts host memory (no allocation) and ranges inside one
// allocation.
static int check_range(const void *p, size_t n) {
	allocation *a = find_alloc(p);
	return !a || (const char *)p + n <= a->base + a->size;
}

static ze_result_t alloc(int kind, ze_device_handle_t dev, size_t size, size_t alignment, void **pptr) {
	if (!pptr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "alloc: null pptr");
	if (size == 0) return fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "alloc: size 0");
	if (alignment & (alignment - 1)) return fail(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, "alloc: alignment %zu", alignment);
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].base) continue;
		void *p = NULL;
		int fd = 0;
		if (kind == 1 && alignment <= 4096) { // mmap's pages are aligned enough
			fd = memfd_create("ze_fake_device_memory", 0);
			if (fd <= 0 || ftruncate(fd, (off_t)size) != 0 || (p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
				if (fd > 0) close(fd);
				return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "alloc: a memfd of %zu bytes", size);
			}
		} else if (posix_memalign(&p, alignment < 64 ? 64 : alignment, size)) {
			return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
		}
		memset(p, 0xcd, size);
		allocs[i] = (allocation){p, size, kind, dev, fd, 0};
		*pptr = p;
		return ZE_RESULT_SUCCESS;
	}
	return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "alloc: too many allocations");
}

// release_alloc frees what alloc or MemOpenIpcHandle made.
static void release_alloc(allocation *a) {
	if (a->memfd > 0) {
		munmap(a->base, a->size);
		close(a->memfd);
	} else {
		free(a->base);
	}
	*a = (allocation){0};
}

// Counters of calls with no effect the test can see otherwise, to check
// that the adapter made them (prefetches, each advice) or did not (the
// destruction of handles it wraps without owning them).
static uint64_t prefetches, advice_count[8], context_destroys, list_destroys, mem_frees;
// Immediate lists made per ze_command_queue_priority_t, cooperative
// launches run, and command list executions.
static uint64_t priorities[3], cooperative_launches, executions;
// Images and samplers that exist, and IPC pools opened and not closed.
static uint64_t images_live, samplers_live, ipc_pools_open;

// gour_fake_counter returns a counter by name: "prefetch", "advise:N" for
// ze_memory_advice_t N, "context_destroy", "list_destroy", "mem_free",
// "priority:N" for ze_command_queue_priority_t N, "cooperative",
// "execute", the images and samplers that exist, "images" and
// "samplers", or the IPC pools opened and not closed, "ipc_pools".
ZE_DLLEXPORT uint64_t gour_fake_counter(const char *name) {
	unsigned n;
	uint64_t v = 0;
	pthread_mutex_lock(&big);
	if (!strcmp(name, "prefetch")) v = prefetches;
	else if (!strcmp(name, "context_destroy")) v = context_destroys;
	else if (!strcmp(name, "list_destroy")) v = list_destroys;
	else if (!strcmp(name, "mem_free")) v = mem_frees;
	else if (!strcmp(name, "cooperative")) v = cooperative_launches;
	else if (!strcmp(name, "execute")) v = executions;
	else if (!strcmp(name, "images")) v = images_live;
	else if (!strcmp(name, "samplers")) v = samplers_live;
	else if (!strcmp(name, "ipc_pools")) v = ipc_pools_open;
	else if (sscanf(name, "advise:%u", &n) == 1 && n < 8) v = advice_count[n];
	else if (sscanf(name, "priority:%u", &n) == 1 && n < 3) v = priorities[n];
	else fprintf(stderr, "ze_fake_driver: gour_fake_counter: no counter %s\n", name);
	pthread_mutex_unlock(&big);
	return v;
}

// ---- objects -----------------------------------------------------------

typedef struct event event;
// A pool made with ZE_EVENT_POOL_FLAG_IPC keeps its events' states in
// shared memory (a memfd, which another process maps through
// /proc/PID/fd), so that an event signalled in one process is signalled
// in the others; opened is set in a process that opened the pool's handle.
typedef struct {
	unsigned magic;
	ze_event_pool_flags_t flags;
	uint32_t count;
	event **slots;
	int fd, opened;
	int *shared;
} pool;
struct event {
	unsigned magic;
	pool *pool;
	uint32_t index;
	int own;
	volatile int *signalled; // &own, or the pool's shared slot
	uint64_t start, end;
};
typedef struct cmd cmd;
// A list is immediate (its commands run when appended) or regular: it
// records commands until zeCommandListClose and replays them at each
// zeCommandQueueExecuteCommandLists.
typedef struct {
	unsigned magic;
	ze_command_queue_mode_t mode;
	int regular, closed;
	int ncmd, cap;
	cmd *cmds;
} list;
typedef struct { unsigned magic; uint32_t ordinal; } cqueue;
typedef struct { unsigned magic; cqueue *queue; int signalled; } fence;
typedef struct { unsigned magic; char *text; } buildlog;

typedef struct {
	unsigned magic;
	uint8_t *spirv;
	size_t size;
	int nentry;
	char entry[MAX_ENTRY][64];
	void *global; // gour_global_counter, 4 bytes of device memory
} module;

#define P (-1) // a pointer to device memory (8 bytes)
#define I (-2) // a ze_image_handle_t
#define S (-3) // a ze_sampler_handle_t

typedef struct {
	const char *name;
	int nargs;
	int sizes[MAX_ARGS]; // P, a scalar's size, or 0 for a __local argument (a size, no value)
} signature;

static const signature signatures[] = {
	{"axpy", 3, {4, P, P}},
	{"iota", 1, {P}},
	{"fill_u32", 2, {P, 4}},
	{"add_one", 1, {P}},
	{"index2d", 1, {P}},
	{"index3d", 1, {P}},
	{"local_ids", 2, {P, P}},
	{"group_sum", 3, {P, P, 0}},
	{"scale", 1, {P}},
	{"scalars", 11, {P, P, 1, 1, 2, 2, 4, 4, 8, 8, 4}},
	{"axpy_f64", 3, {8, P, P}},
	{"linked", 1, {P}},
	{"broken", 1, {P}},
	// package compute's (compute/kernels.go), for float32
	{"fill_f32", 3, {P, 4, 8}},
	{"copy_f32", 3, {P, P, 8}},
	{"reduce_sum_f32", 5, {P, P, 0, 4, 8}},
	{"reduce4_sum_f32", 5, {P, P, 0, 4, 8}},
	// conformance/testdata/opencl/images.cl
	{"sample", 4, {I, S, P, 4}},
	{"invert", 2, {I, I}},
};

typedef struct {
	unsigned magic;
	const signature *sig;
	unsigned set;
	unsigned char args[MAX_ARGS][8];
	size_t local[MAX_ARGS];
	uint32_t group[3];
	uint32_t offset[3];
} kernel;

// A command a regular list recorded. A launch keeps a copy of the
// kernel's state, since Level Zero reads arguments, group size and offset
// when the launch is appended; a fill keeps its pattern.
#define MAX_WAIT 8
enum { C_BARRIER, C_SIGNAL, C_WAIT, C_COPY, C_FILL, C_LAUNCH, C_COOPERATIVE };
struct cmd {
	int op;
	kernel k;
	ze_group_count_t groups;
	void *dst;
	const void *src;
	size_t size, psize;
	unsigned char pattern[FILL_MAX];
	ze_event_handle_t signal;
	uint32_t n;
	ze_event_handle_t wait[MAX_WAIT];
};

// ---- driver and device -------------------------------------------------

static ze_result_t Init(ze_init_flags_t flags) {
	if (flags > 0x3) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeInit: flags 0x%x", flags);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DriverGet(uint32_t *pCount, ze_driver_handle_t *ph) {
	if (!pCount) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeDriverGet: null pCount");
	if (*pCount == 0 || !ph) {
		*pCount = 1;
		return ZE_RESULT_SUCCESS;
	}
	ph[0] = (ze_driver_handle_t)&the_driver;
	*pCount = 1;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DriverGetApiVersion(ze_driver_handle_t h, ze_api_version_t *v) {
	CHECK(h, M_DRIVER);
	*v = ZE_API_VERSION_1_4;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DriverGetProperties(ze_driver_handle_t h, ze_driver_properties_t *p) {
	CHECK(h, M_DRIVER);
	STYPE(p, ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
	memset(p->uuid.id, 0x42, sizeof p->uuid.id);
	p->driverVersion = (1u << 24) | (3u << 16) | 28015u; // 1.3.28015
	return ZE_RESULT_SUCCESS;
}

static const char *extensions[] = {"ZE_experimental_global_offset", "ZE_extension_float_atomics"};

static ze_result_t DriverGetExtensionProperties(ze_driver_handle_t h, uint32_t *pCount, ze_driver_extension_properties_t *p) {
	CHECK(h, M_DRIVER);
	uint32_t n = sizeof extensions / sizeof extensions[0];
	if (*pCount == 0 || !p) {
		*pCount = n;
		return ZE_RESULT_SUCCESS;
	}
	if (*pCount < n) n = *pCount;
	for (uint32_t i = 0; i < n; i++) {
		snprintf(p[i].name, sizeof p[i].name, "%s", extensions[i]);
		p[i].version = ZE_MAKE_VERSION(1, 0);
	}
	*pCount = n;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGet(ze_driver_handle_t h, uint32_t *pCount, ze_device_handle_t *ph) {
	CHECK(h, M_DRIVER);
	if (*pCount == 0 || !ph) {
		*pCount = 1;
		return ZE_RESULT_SUCCESS;
	}
	ph[0] = (ze_device_handle_t)&the_device;
	*pCount = 1;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetSubDevices(ze_device_handle_t h, uint32_t *pCount, ze_device_handle_t *ph) {
	CHECK(h, M_DEVICE);
	if (!pCount) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeDeviceGetSubDevices: null pCount");
	uint32_t n = h == (ze_device_handle_t)&the_device ? NUM_SUBDEVICES : 0;
	if (*pCount == 0 || !ph) {
		*pCount = n;
		return ZE_RESULT_SUCCESS;
	}
	if (*pCount < n) n = *pCount;
	for (uint32_t i = 0; i < n; i++) ph[i] = (ze_device_handle_t)&the_subdevices[i];
	*pCount = n;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetProperties(ze_device_handle_t h, ze_device_properties_t *p) {
	CHECK(h, M_DEVICE);
	if (!p || (p->stype != ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES && p->stype != ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2))
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeDeviceGetProperties: stype 0x%x", p ? (unsigned)p->stype : 0);
	p->type = ZE_DEVICE_TYPE_GPU;
	p->vendorId = 0x8086;
	p->deviceId = 0x56a0;
	p->flags = 0;
	p->subdeviceId = 0;
	p->coreClockRate = 2400;
	p->maxMemAllocSize = 1u << 30;
	p->maxHardwareContexts = 64;
	p->maxCommandQueuePriority = 0;
	p->numThreadsPerEU = 8;
	p->physicalEUSimdWidth = 8;
	p->numEUsPerSubslice = 16;
	p->numSubslicesPerSlice = 4;
	p->numSlices = 2;
	p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000u / TICK_NS : TICK_NS;
	p->timestampValidBits = 36;
	p->kernelTimestampValidBits = 32;
	for (int i = 0; i < ZE_MAX_DEVICE_UUID_SIZE; i++) p->uuid.id[i] = (uint8_t)i;
	snprintf(p->name, sizeof p->name, "gour fake Level Zero GPU");
	int sub = subdevice_index(h);
	if (sub >= 0) {
		p->flags = ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE;
		p->subdeviceId = (uint32_t)sub;
		p->numSlices = 1;
		p->uuid.id[ZE_MAX_DEVICE_UUID_SIZE - 1] = (uint8_t)(0x80 + sub);
	}
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetComputeProperties(ze_device_handle_t h, ze_device_compute_properties_t *p) {
	CHECK(h, M_DEVICE);
	STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
	p->maxTotalGroupSize = 1024;
	p->maxGroupSizeX = p->maxGroupSizeY = p->maxGroupSizeZ = 1024;
	p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = 1u << 30;
	p->maxSharedLocalMemory = 64 << 10;
	p->numSubGroupSizes = 3;
	p->subGroupSizes[0] = 8, p->subGroupSizes[1] = 16, p->subGroupSizes[2] = 32;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetModuleProperties(ze_device_handle_t h, ze_device_module_properties_t *p) {
	CHECK(h, M_DEVICE);
	STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES);
	p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
	p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64;
	p->fp16flags = p->fp32flags = p->fp64flags = ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_FMA;
	p->maxArgumentsSize = 2048;
	p->printfBufferSize = 4 << 20;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetCommandQueueGroupProperties(ze_device_handle_t h, uint32_t *pCount, ze_command_queue_group_properties_t *p) {
	CHECK(h, M_DEVICE);
	// Group 0 copies only, group 1 computes: the adapter must pick 1.
	if (*pCount == 0 || !p) {
		*pCount = 2;
		return ZE_RESULT_SUCCESS;
	}
	for (uint32_t i = 0; i < *pCount && i < 2; i++) STYPE(&p[i], ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES);
	p[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
	p[0].maxMemoryFillPatternSize = 4;
	p[0].numQueues = 1;
	if (*pCount > 1) {
		p[1].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS;
		p[1].maxMemoryFillPatternSize = FILL_MAX;
		p[1].numQueues = 4;
	}
	*pCount = *pCount < 2 ? *pCount : 2;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetMemoryProperties(ze_device_handle_t h, uint32_t *pCount, ze_device_memory_properties_t *p) {
	CHECK(h, M_DEVICE);
	if (*pCount == 0 || !p) {
		*pCount = 2;
		return ZE_RESULT_SUCCESS;
	}
	uint32_t n = *pCount < 2 ? *pCount : 2;
	for (uint32_t i = 0; i < n; i++) {
		STYPE(&p[i], ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES);
		p[i].totalSize = 1ull << 30; // two memories: 2 GiB in all
		p[i].maxClockRate = 1000;
		p[i].maxBusWidth = 64;
		snprintf(p[i].name, sizeof p[i].name, "HBM%u", i);
	}
	*pCount = n;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetMemoryAccessProperties(ze_device_handle_t h, ze_device_memory_access_properties_t *p) {
	CHECK(h, M_DEVICE);
	STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES);
	ze_memory_access_cap_flags_t all = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
	p->hostAllocCapabilities = all;
	p->deviceAllocCapabilities = all;
	p->sharedSingleDeviceAllocCapabilities = all | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT;
	p->sharedCrossDeviceAllocCapabilities = 0;
	p->sharedSystemAllocCapabilities = 0;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t DeviceGetGlobalTimestamps(ze_device_handle_t h, uint64_t *host, uint64_t *dev) {
	CHECK(h, M_DEVICE);
	if (!host || !dev) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeDeviceGetGlobalTimestamps");
	uint64_t ns = now_ns();
	*host = ns;
	*dev = (ns / TICK_NS) & ((1ull << 36) - 1);
	return ZE_RESULT_SUCCESS;
}

// ---- context ------------------------------------------------------------

static object *new_object(unsigned magic, size_t size) {
	object *o = calloc(1, size);
	if (o) o->magic = magic;
	return o;
}

static void free_object(void *o) {
	((object *)o)->magic = 0xdead;
	free(o);
}

static ze_result_t ContextCreateEx(ze_driver_handle_t h, const ze_context_desc_t *desc, uint32_t n, ze_device_handle_t *devs, ze_context_handle_t *ph) {
	CHECK(h, M_DRIVER);
	STYPE(desc, ZE_STRUCTURE_TYPE_CONTEXT_DESC);
	if (desc->flags > 1) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeContextCreateEx: flags");
	if (n > 0 && !devs) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeContextCreateEx: devices");
	for (uint32_t i = 0; i < n; i++) CHECK(devs[i], M_DEVICE);
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeContextCreateEx: phContext");
	*ph = (ze_context_handle_t)new_object(M_CONTEXT, sizeof(object));
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ContextCreate(ze_driver_handle_t h, const ze_context_desc_t *desc, ze_context_handle_t *ph) {
	return ContextCreateEx(h, desc, 0, NULL, ph);
}

static ze_result_t ContextDestroy(ze_context_handle_t h) {
	CHECK(h, M_CONTEXT);
	free_object(h);
	context_destroys++;
	return ZE_RESULT_SUCCESS;
}

// ---- memory -------------------------------------------------------------

static ze_result_t MemAllocDevice(ze_context_handle_t c, const ze_device_mem_alloc_desc_t *d, size_t size, size_t align, ze_device_handle_t dev, void **pp) {
	CHECK(c, M_CONTEXT);
	STYPE(d, ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC);
	CHECK(dev, M_DEVICE);
	if (d->flags > 0x7) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeMemAllocDevice: flags 0x%x", d->flags);
	if (d->ordinal != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemAllocDevice: ordinal %u", d->ordinal);
	return alloc(1, dev, size, align, pp);
}

static ze_result_t MemAllocHost(ze_context_handle_t c, const ze_host_mem_alloc_desc_t *d, size_t size, size_t align, void **pp) {
	CHECK(c, M_CONTEXT);
	STYPE(d, ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC);
	if (d->flags > 0x7) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeMemAllocHost: flags 0x%x", d->flags);
	return alloc(2, NULL, size, align, pp);
}

static ze_result_t MemAllocShared(ze_context_handle_t c, const ze_device_mem_alloc_desc_t *d, const ze_host_mem_alloc_desc_t *hd, size_t size, size_t align, ze_device_handle_t dev, void **pp) {
	CHECK(c, M_CONTEXT);
	STYPE(d, ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC);
	STYPE(hd, ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC);
	if (dev) CHECK(dev, M_DEVICE);
	if (d->flags > 0x7 || hd->flags > 0x7) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeMemAllocShared: flags 0x%x, 0x%x", d->flags, hd->flags);
	if (d->ordinal != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemAllocShared: ordinal %u", d->ordinal);
	return alloc(3, dev, size, align, pp);
}

static ze_result_t MemFree(ze_context_handle_t c, void *p) {
	CHECK(c, M_CONTEXT);
	allocation *a = find_alloc(p);
	if (!a || a->base != p) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemFree: %p is not an allocation", p);
	if (a->opened) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemFree: %p was opened from an IPC handle (zeMemCloseIpcHandle closes it)", p);
	release_alloc(a);
	mem_frees++;
	return ZE_RESULT_SUCCESS;
}

// An IPC handle of device memory names the process, the allocation's
// memfd and its size.
#define IPC_MEM_MAGIC "GOURFAKEMEM"
typedef struct {
	char magic[16];
	int32_t pid, fd;
	uint64_t size;
} ipc_mem;

static ze_result_t MemGetIpcHandle(ze_context_handle_t c, const void *ptr, ze_ipc_mem_handle_t *out) {
	CHECK(c, M_CONTEXT);
	if (!ptr || !out) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeMemGetIpcHandle: null pointer");
	allocation *a = find_alloc(ptr);
	if (!a || a->base != ptr || a->kind != 1 || a->memfd <= 0 || a->opened)
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemGetIpcHandle: %p is no device allocation of this process", ptr);
	ipc_mem im = {IPC_MEM_MAGIC, (int32_t)getpid(), a->memfd, a->size};
	memset(out, 0, sizeof *out);
	memcpy(out->data, &im, sizeof im);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t MemOpenIpcHandle(ze_context_handle_t c, ze_device_handle_t dev, ze_ipc_mem_handle_t h, ze_ipc_memory_flags_t flags, void **pptr) {
	CHECK(c, M_CONTEXT);
	CHECK(dev, M_DEVICE);
	if (!pptr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeMemOpenIpcHandle: pptr");
	if (flags > 0x3) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeMemOpenIpcHandle: flags 0x%x", flags);
	ipc_mem im;
	memcpy(&im, h.data, sizeof im);
	if (memcmp(im.magic, IPC_MEM_MAGIC, sizeof IPC_MEM_MAGIC) != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemOpenIpcHandle: not a handle of the fake");
	if (im.pid == getpid()) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemOpenIpcHandle: a handle of this process");
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", im.pid, im.fd);
	int fd = open(path, O_RDWR);
	if (fd <= 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemOpenIpcHandle: cannot open %s", path);
	void *p = mmap(NULL, im.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "zeMemOpenIpcHandle: mmap of %llu bytes", (unsigned long long)im.size);
	}
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].base) continue;
		allocs[i] = (allocation){p, im.size, 1, dev, fd, 1};
		*pptr = p;
		return ZE_RESULT_SUCCESS;
	}
	munmap(p, im.size);
	close(fd);
	return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "zeMemOpenIpcHandle: too many allocations");
}

static ze_result_t MemCloseIpcHandle(ze_context_handle_t c, const void *ptr) {
	CHECK(c, M_CONTEXT);
	allocation *a = find_alloc(ptr);
	if (!a || a->base != ptr || !a->opened) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemCloseIpcHandle: %p was not opened from an IPC handle", ptr);
	release_alloc(a);
	return ZE_RESULT_SUCCESS;
}

static ze_memory_type_t memory_type(int kind) {
	return kind == 1 ? ZE_MEMORY_TYPE_DEVICE : kind == 2 ? ZE_MEMORY_TYPE_HOST : ZE_MEMORY_TYPE_SHARED;
}

// MemGetAllocProperties answers ZE_MEMORY_TYPE_UNKNOWN, with success, for
// memory it did not allocate, as the specification asks.
static ze_result_t MemGetAllocProperties(ze_context_handle_t c, const void *ptr, ze_memory_allocation_properties_t *p, ze_device_handle_t *pdev) {
	CHECK(c, M_CONTEXT);
	if (!ptr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeMemGetAllocProperties: null ptr");
	STYPE(p, ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
	allocation *a = find_alloc(ptr);
	if (pdev) *pdev = NULL;
	if (!a) {
		p->type = ZE_MEMORY_TYPE_UNKNOWN;
		p->id = 0;
		p->pageSize = 0;
		return ZE_RESULT_SUCCESS;
	}
	p->type = memory_type(a->kind);
	p->id = (uint64_t)(a - allocs) + 1;
	p->pageSize = a->kind == 3 ? 4096 : 65536;
	if (pdev) *pdev = a->dev;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t MemGetAddressRange(ze_context_handle_t c, const void *ptr, void **pbase, size_t *psize) {
	CHECK(c, M_CONTEXT);
	if (!ptr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeMemGetAddressRange: null ptr");
	allocation *a = find_alloc(ptr);
	if (!a) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemGetAddressRange: %p is not in an allocation", ptr);
	if (pbase) *pbase = a->base;
	if (psize) *psize = a->size;
	return ZE_RESULT_SUCCESS;
}

// ---- events -------------------------------------------------------------

static ze_result_t EventPoolCreate(ze_context_handle_t c, const ze_event_pool_desc_t *d, uint32_t n, ze_device_handle_t *devs, ze_event_pool_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	STYPE(d, ZE_STRUCTURE_TYPE_EVENT_POOL_DESC);
	if (d->flags > 0x7) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeEventPoolCreate: flags 0x%x", d->flags);
	if (d->count == 0) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeEventPoolCreate: count 0");
	for (uint32_t i = 0; i < n; i++) CHECK(devs[i], M_DEVICE);
	if ((d->flags & ZE_EVENT_POOL_FLAG_IPC) && (d->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP))
		return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeEventPoolCreate: the fake shares no timestamps between processes");
	pool *p = (pool *)new_object(M_POOL, sizeof(pool));
	p->flags = d->flags;
	p->count = d->count;
	p->slots = calloc(d->count, sizeof(event *));
	p->fd = -1;
	if (d->flags & ZE_EVENT_POOL_FLAG_IPC) {
		size_t size = d->count * sizeof(int);
		p->fd = memfd_create("ze_fake_ipc_pool", 0);
		if (p->fd < 0 || ftruncate(p->fd, (off_t)size) != 0 || (p->shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0)) == MAP_FAILED) {
			if (p->fd >= 0) close(p->fd);
			free(p->slots);
			free_object(p);
			return fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "zeEventPoolCreate: shared memory for an IPC pool");
		}
	}
	*ph = (ze_event_pool_handle_t)p;
	return ZE_RESULT_SUCCESS;
}

// free_pool frees a pool without events, its shared memory included.
static ze_result_t free_pool(const char *fn, pool *p) {
	for (uint32_t i = 0; i < p->count; i++)
		if (p->slots[i]) return fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "%s: event %u still exists", fn, i);
	if (p->shared) {
		munmap(p->shared, p->count * sizeof(int));
		close(p->fd);
	}
	free(p->slots);
	free_object(p);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventPoolDestroy(ze_event_pool_handle_t h) {
	CHECK(h, M_POOL);
	pool *p = (pool *)h;
	if (p->opened) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolDestroy: a pool opened from an IPC handle (zeEventPoolCloseIpcHandle closes it)");
	return free_pool("zeEventPoolDestroy", p);
}

// An IPC handle of a pool names the process and its memfd, and the
// pool's flags and size.
#define IPC_POOL_MAGIC "GOURFAKEPOOL"
typedef struct {
	char magic[16];
	int32_t pid, fd;
	uint32_t flags, count;
} ipc_pool;

static ze_result_t EventPoolGetIpcHandle(ze_event_pool_handle_t h, ze_ipc_event_pool_handle_t *out) {
	CHECK(h, M_POOL);
	if (!out) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeEventPoolGetIpcHandle: phIpc");
	pool *p = (pool *)h;
	if (!p->shared || p->opened) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolGetIpcHandle: a pool made without ZE_EVENT_POOL_FLAG_IPC, or opened");
	ipc_pool ip = {IPC_POOL_MAGIC, (int32_t)getpid(), p->fd, p->flags, p->count};
	memset(out, 0, sizeof *out);
	memcpy(out->data, &ip, sizeof ip);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventPoolOpenIpcHandle(ze_context_handle_t c, ze_ipc_event_pool_handle_t h, ze_event_pool_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeEventPoolOpenIpcHandle: phEventPool");
	ipc_pool ip;
	memcpy(&ip, h.data, sizeof ip);
	if (memcmp(ip.magic, IPC_POOL_MAGIC, sizeof IPC_POOL_MAGIC) != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolOpenIpcHandle: not a handle of the fake");
	if (ip.pid == getpid()) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolOpenIpcHandle: a handle of this process");
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", ip.pid, ip.fd);
	int fd = open(path, O_RDWR);
	if (fd < 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolOpenIpcHandle: cannot open %s", path);
	size_t size = ip.count * sizeof(int);
	int *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shared == MAP_FAILED) {
		close(fd);
		return fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "zeEventPoolOpenIpcHandle: mmap");
	}
	pool *p = (pool *)new_object(M_POOL, sizeof(pool));
	p->flags = ip.flags;
	p->count = ip.count;
	p->slots = calloc(ip.count, sizeof(event *));
	p->fd = fd;
	p->shared = shared;
	p->opened = 1;
	*ph = (ze_event_pool_handle_t)p;
	ipc_pools_open++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventPoolCloseIpcHandle(ze_event_pool_handle_t h) {
	CHECK(h, M_POOL);
	pool *p = (pool *)h;
	if (!p->opened) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolCloseIpcHandle: a pool this process made (zeEventPoolDestroy destroys it)");
	ze_result_t r = free_pool("zeEventPoolCloseIpcHandle", p);
	if (!r) ipc_pools_open--;
	return r;
}

static ze_result_t EventCreate(ze_event_pool_handle_t h, const ze_event_desc_t *d, ze_event_handle_t *ph) {
	CHECK(h, M_POOL);
	STYPE(d, ZE_STRUCTURE_TYPE_EVENT_DESC);
	pool *p = (pool *)h;
	if (d->index >= p->count) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventCreate: index %u of a pool of %u", d->index, p->count);
	if (p->slots[d->index]) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventCreate: slot %u is taken", d->index);
	if (d->signal > 0x7 || d->wait > 0x7) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeEventCreate: scopes");
	event *e = (event *)new_object(M_EVENT, sizeof(event));
	e->pool = p;
	e->index = d->index;
	e->signalled = p->shared ? &p->shared[d->index] : &e->own;
	p->slots[d->index] = e;
	*ph = (ze_event_handle_t)e;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventDestroy(ze_event_handle_t h) {
	CHECK(h, M_EVENT);
	event *e = (event *)h;
	e->pool->slots[e->index] = NULL;
	free_object(e);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventHostSynchronize(ze_event_handle_t h, uint64_t timeout) {
	CHECK(h, M_EVENT);
	if (*((event *)h)->signalled) return ZE_RESULT_SUCCESS;
	if (timeout == UINT64_MAX && !((event *)h)->pool->shared) return fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "zeEventHostSynchronize: waits forever on an event nothing will signal");
	if (((event *)h)->pool->shared) { // another process may signal it: poll
		uint64_t until = timeout == UINT64_MAX ? UINT64_MAX : now_ns() + timeout;
		while (!*((event *)h)->signalled && now_ns() < until) {
			pthread_mutex_unlock(&big);
			usleep(1000);
			pthread_mutex_lock(&big);
			if (!is(h, M_EVENT)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventHostSynchronize: the event was destroyed during the wait");
		}
		if (*((event *)h)->signalled) return ZE_RESULT_SUCCESS;
	}
	return ZE_RESULT_NOT_READY;
}

static ze_result_t EventQueryStatus(ze_event_handle_t h) {
	CHECK(h, M_EVENT);
	return *((event *)h)->signalled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t EventHostReset(ze_event_handle_t h) {
	CHECK(h, M_EVENT);
	*((event *)h)->signalled = 0;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventHostSignal(ze_event_handle_t h) {
	CHECK(h, M_EVENT);
	*((event *)h)->signalled = 1;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t EventQueryKernelTimestamp(ze_event_handle_t h, ze_kernel_timestamp_result_t *r) {
	CHECK(h, M_EVENT);
	event *e = (event *)h;
	if (!(e->pool->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP))
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventQueryKernelTimestamp: the pool has no ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP");
	if (!*e->signalled) return ZE_RESULT_NOT_READY;
	uint64_t mask = (1ull << 32) - 1;
	r->global.kernelStart = r->context.kernelStart = e->start & mask;
	r->global.kernelEnd = r->context.kernelEnd = e->end & mask;
	return ZE_RESULT_SUCCESS;
}

// ---- command lists --------------------------------------------------------

static ze_result_t CommandListCreateImmediate(ze_context_handle_t c, ze_device_handle_t d, const ze_command_queue_desc_t *desc, ze_command_list_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	CHECK(d, M_DEVICE);
	STYPE(desc, ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
	if (desc->ordinal != 1) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListCreateImmediate: ordinal %u is not the compute group (1)", desc->ordinal);
	if (desc->index != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListCreateImmediate: index %u", desc->index);
	// API 1.4: ZE_COMMAND_QUEUE_FLAG_IN_ORDER does not exist yet.
	if (desc->flags > 0x1) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandListCreateImmediate: flags 0x%x on an API 1.4 driver", desc->flags);
	if (desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandListCreateImmediate: mode %u", desc->mode);
	if (desc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandListCreateImmediate: priority");
	list *l = (list *)new_object(M_LIST, sizeof(list));
	l->mode = desc->mode;
	*ph = (ze_command_list_handle_t)l;
	priorities[desc->priority]++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandListCreate(ze_context_handle_t c, ze_device_handle_t d, const ze_command_list_desc_t *desc, ze_command_list_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	CHECK(d, M_DEVICE);
	STYPE(desc, ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC);
	if (desc->commandQueueGroupOrdinal != 1) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListCreate: ordinal %u is not the compute group (1)", desc->commandQueueGroupOrdinal);
	if (desc->flags > 0x7) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandListCreate: flags 0x%x on an API 1.4 driver", desc->flags);
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeCommandListCreate: phCommandList");
	list *l = (list *)new_object(M_LIST, sizeof(list));
	l->regular = 1;
	*ph = (ze_command_list_handle_t)l;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandListDestroy(ze_command_list_handle_t h) {
	CHECK(h, M_LIST);
	free(((list *)h)->cmds);
	free_object(h);
	list_destroys++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandListClose(ze_command_list_handle_t h) {
	CHECK(h, M_LIST);
	list *l = (list *)h;
	if (!l->regular) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListClose: an immediate list");
	if (l->closed) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListClose: already closed");
	l->closed = 1;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandListReset(ze_command_list_handle_t h) {
	CHECK(h, M_LIST);
	list *l = (list *)h;
	if (!l->regular) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListReset: an immediate list");
	l->ncmd = 0;
	l->closed = 0;
	return ZE_RESULT_SUCCESS;
}

// RECORD is begin's answer for a regular list: the command is checked and
// to be recorded, not run.
#define RECORD ((ze_result_t)0x7fff0001)

static ze_result_t record(list *l, const cmd *c) {
	if (l->ncmd == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->cmds = realloc(l->cmds, (size_t)l->cap * sizeof(cmd));
	}
	l->cmds[l->ncmd++] = *c;
	return ZE_RESULT_SUCCESS;
}

// begin checks a command's wait list; every command before it has run.
// On a regular list it checks the handles only and answers RECORD: the
// events are checked when the list runs.
static ze_result_t begin(const char *fn, ze_command_list_handle_t l, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	CHECK(l, M_LIST);
	if (signal) CHECK(signal, M_EVENT);
	if (n > 0 && !wait) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "%s: %u wait events, no list", fn, n);
	for (uint32_t i = 0; i < n; i++) CHECK(wait[i], M_EVENT);
	if (((list *)l)->regular) {
		if (((list *)l)->closed) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: the command list is closed", fn);
		if (n > MAX_WAIT) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "%s: %u wait events (the fake records %d)", fn, n, MAX_WAIT);
		return RECORD;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!*((event *)wait[i])->signalled) return fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "%s: waits on an event nothing signalled", fn);
	}
	if (signal && *((event *)signal)->signalled) return fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "%s: signals an event already signalled", fn);
	return ZE_RESULT_SUCCESS;
}

static void finish(ze_event_handle_t signal, uint64_t start) {
	if (!signal) return;
	event *e = (event *)signal;
	e->start = start;
	e->end = now_ticks() + 1;
	*e->signalled = 1;
}

// recorded fills a cmd's common fields.
static cmd recorded(int op, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	cmd c;
	memset(&c, 0, sizeof c);
	c.op = op;
	c.signal = signal;
	c.n = n;
	for (uint32_t i = 0; i < n; i++) c.wait[i] = wait[i];
	return c;
}

static ze_result_t AppendBarrier(ze_command_list_handle_t l, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t r = begin(__func__, l, signal, n, wait);
	if (r == RECORD) {
		cmd c = recorded(C_BARRIER, signal, n, wait);
		return record((list *)l, &c);
	}
	if (r) return r;
	finish(signal, now_ticks());
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendSignalEvent(ze_command_list_handle_t l, ze_event_handle_t e) {
	if (!e) return fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "zeCommandListAppendSignalEvent: null event");
	ze_result_t r = begin(__func__, l, e, 0, NULL);
	if (r == RECORD) {
		cmd c = recorded(C_SIGNAL, e, 0, NULL);
		return record((list *)l, &c);
	}
	if (r) return r;
	finish(e, now_ticks());
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendEventReset(ze_command_list_handle_t l, ze_event_handle_t e) {
	if (!e) return fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "zeCommandListAppendEventReset: null event");
	ze_result_t r = begin(__func__, l, NULL, 0, NULL);
	if (r == RECORD) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeCommandListAppendEventReset: the fake records no event resets");
	if (r) return r;
	CHECK(e, M_EVENT);
	*((event *)e)->signalled = 0;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendWaitOnEvents(ze_command_list_handle_t l, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t r = begin(__func__, l, NULL, n, wait);
	if (r == RECORD) {
		cmd c = recorded(C_WAIT, NULL, n, wait);
		return record((list *)l, &c);
	}
	return r;
}

static ze_result_t AppendMemoryCopy(ze_command_list_handle_t l, void *dst, const void *src, size_t size, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t r = begin(__func__, l, signal, n, wait);
	if (r && r != RECORD) return r;
	if (!dst || !src) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeCommandListAppendMemoryCopy: null pointer");
	if (!find_alloc(dst) && !find_alloc(src)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListAppendMemoryCopy: neither side is device memory");
	if (!check_range(dst, size) || !check_range(src, size)) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryCopy: %zu bytes overrun an allocation", size);
	if (r == RECORD) {
		cmd c = recorded(C_COPY, signal, n, wait);
		c.dst = dst, c.src = src, c.size = size;
		return record((list *)l, &c);
	}
	uint64_t start = now_ticks();
	memmove(dst, src, size);
	finish(signal, start);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendMemoryFill(ze_command_list_handle_t l, void *ptr, const void *pattern, size_t psize, size_t size, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t r = begin(__func__, l, signal, n, wait);
	if (r && r != RECORD) return r;
	if (!ptr || !pattern) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeCommandListAppendMemoryFill: null pointer");
	if (psize == 0 || (psize & (psize - 1)) || psize > FILL_MAX) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryFill: pattern of %zu bytes (at most %d)", psize, FILL_MAX);
	if (size % psize) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryFill: size %zu, pattern %zu", size, psize);
	if (!find_alloc(ptr) || !check_range(ptr, size)) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryFill: not inside an allocation");
	if (r == RECORD) {
		cmd c = recorded(C_FILL, signal, n, wait);
		c.dst = ptr, c.size = size, c.psize = psize;
		memcpy(c.pattern, pattern, psize);
		return record((list *)l, &c);
	}
	uint64_t start = now_ticks();
	for (size_t i = 0; i < size; i += psize) memcpy((char *)ptr + i, pattern, psize);
	finish(signal, start);
	return ZE_RESULT_SUCCESS;
}

// copy_region_side checks one side of a region copy: every byte it
// touches lies in one allocation (or in host memory), and returns the
// side's first byte.
static ze_result_t copy_region_side(const char *side, const char *ptr, const ze_copy_region_t *r, uint32_t pitch, uint32_t slice, uint32_t depth, char **first) {
	if ((uint64_t)r->originX + r->width > pitch) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryCopyRegion: %s origin %u + width %u exceed the pitch %u", side, r->originX, r->width, pitch);
	if (r->depth && slice < (uint64_t)pitch * (r->originY + r->height)) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryCopyRegion: %s slice pitch %u under %u rows of %u", side, slice, r->originY + r->height, pitch);
	uint64_t z0 = r->depth ? r->originZ : 0;
	const char *p = ptr + r->originX + (uint64_t)r->originY * pitch + z0 * slice;
	const char *last = p + (uint64_t)(depth - 1) * slice + (uint64_t)(r->height - 1) * pitch + r->width - 1;
	allocation *a = find_alloc(p);
	if (a != find_alloc(last) || !check_range(p, (size_t)(last - p) + 1))
		return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryCopyRegion: the %s region overruns an allocation", side);
	*first = (char *)p;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendMemoryCopyRegion(ze_command_list_handle_t l, void *dst, const ze_copy_region_t *dr, uint32_t dpitch, uint32_t dslice,
                                          const void *src, const ze_copy_region_t *sr, uint32_t spitch, uint32_t sslice,
                                          ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t r = begin(__func__, l, signal, n, wait);
	if (r == RECORD) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeCommandListAppendMemoryCopyRegion: the fake records no region copies");
	if (r) return r;
	if (!dst || !src || !dr || !sr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeCommandListAppendMemoryCopyRegion: null pointer");
	if (dr->width != sr->width || dr->height != sr->height || dr->depth != sr->depth)
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListAppendMemoryCopyRegion: regions of %ux%ux%u and %ux%ux%u", dr->width, dr->height, dr->depth, sr->width, sr->height, sr->depth);
	if (!dr->width || !dr->height) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandListAppendMemoryCopyRegion: empty region");
	if (!find_alloc(dst) && !find_alloc(src)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListAppendMemoryCopyRegion: neither side is device memory");
	uint32_t depth = dr->depth ? dr->depth : 1;
	char *d, *s;
	if ((r = copy_region_side("destination", dst, dr, dpitch, dslice, depth, &d))) return r;
	if ((r = copy_region_side("source", src, sr, spitch, sslice, depth, &s))) return r;
	uint64_t start = now_ticks();
	for (uint32_t z = 0; z < depth; z++)
		for (uint32_t y = 0; y < dr->height; y++)
			memmove(d + (uint64_t)z * dslice + (uint64_t)y * dpitch, s + (uint64_t)z * sslice + (uint64_t)y * spitch, dr->width);
	finish(signal, start);
	return ZE_RESULT_SUCCESS;
}

// shared_range checks that a hint's range lies in one shared allocation:
// the adapter sends prefetches and advice about shared memory only.
static ze_result_t shared_range(const char *fn, const void *ptr, size_t size) {
	if (!ptr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "%s: null ptr", fn);
	allocation *a = find_alloc(ptr);
	if (!a) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %p is not in an allocation", fn, ptr);
	if (a->kind != 3) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %p is not shared memory (kind %d)", fn, ptr, a->kind);
	if (size == 0 || !check_range(ptr, size)) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "%s: %zu bytes overrun the allocation", fn, size);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendMemoryPrefetch(ze_command_list_handle_t l, const void *ptr, size_t size) {
	CHECK(l, M_LIST);
	if (((list *)l)->regular) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeCommandListAppendMemoryPrefetch: the fake records no prefetches");
	ze_result_t r = shared_range("zeCommandListAppendMemoryPrefetch", ptr, size);
	if (r) return r;
	prefetches++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendMemAdvise(ze_command_list_handle_t l, ze_device_handle_t dev, const void *ptr, size_t size, ze_memory_advice_t advice) {
	CHECK(l, M_LIST);
	if (((list *)l)->regular) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeCommandListAppendMemAdvise: the fake records no advice");
	CHECK(dev, M_DEVICE);
	if ((unsigned)advice > ZE_MEMORY_ADVICE_BIAS_UNCACHED) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandListAppendMemAdvise: advice %u", (unsigned)advice);
	ze_result_t r = shared_range("zeCommandListAppendMemAdvise", ptr, size);
	if (r) return r;
	advice_count[advice]++;
	return ZE_RESULT_SUCCESS;
}

// ---- modules --------------------------------------------------------------

// parse_spirv lists a module's entry points and finds an imported function
// (a LinkageAttributes Import decoration not naming a __spirv_ built-in).
static ze_result_t parse_spirv(module *m, char *unresolved, size_t ulen) {
	const uint32_t *w = (const uint32_t *)m->spirv;
	size_t n = m->size / 4;
	unresolved[0] = 0;
	if (m->size < 20 || m->size % 4 || w[0] != 0x07230203) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeModuleCreate: not SPIR-V");
	for (size_t i = 5; i < n;) {
		uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
		if (count == 0 || i + count > n) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeModuleCreate: SPIR-V instruction at word %zu is cut", i);
		if (op == 15 && count > 3 && m->nentry < MAX_ENTRY) { // OpEntryPoint model id name
			snprintf(m->entry[m->nentry++], 64, "%s", (const char *)&w[i + 3]);
		}
		if (op == 71 && count > 3 && w[i + 2] == 41 && w[i + count - 1] == 1) { // OpDecorate LinkageAttributes Import
			const char *name = (const char *)&w[i + 3];
			if (strncmp(name, "__spirv_", 8) != 0) snprintf(unresolved, ulen, "%s", name);
		}
		i += count;
	}
	return ZE_RESULT_SUCCESS;
}

static buildlog *new_log(const char *text) {
	buildlog *b = (buildlog *)new_object(M_LOG, sizeof(buildlog));
	b->text = strdup(text);
	return b;
}

static ze_result_t ModuleCreate(ze_context_handle_t c, ze_device_handle_t d, const ze_module_desc_t *desc, ze_module_handle_t *ph, ze_module_build_log_handle_t *plog) {
	CHECK(c, M_CONTEXT);
	CHECK(d, M_DEVICE);
	STYPE(desc, ZE_STRUCTURE_TYPE_MODULE_DESC);
	if (desc->pNext) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeModuleCreate: no extension structures (ZE_experimental_module_program) here");
	if (!desc->pInputModule || desc->inputSize == 0) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeModuleCreate: no input");
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeModuleCreate: phModule");
	*ph = NULL;
	char log[4096] = "";
	size_t len = 0;
	const uint8_t *spirv = desc->pInputModule;
	size_t size = desc->inputSize;
	size_t magic = sizeof NATIVE_MAGIC;
	if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
		if (size <= magic || memcmp(spirv, NATIVE_MAGIC, magic) != 0) {
			if (plog) *plog = (ze_module_build_log_handle_t)new_log("not a gour fake native binary");
			return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
		}
		spirv += magic, size -= magic;
		if (desc->pConstants && desc->pConstants->numConstants) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeModuleCreate: specialization constants with a native binary");
	} else if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV) {
		return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeModuleCreate: format %u", desc->format);
	}
	const char *flags = desc->pBuildFlags ? desc->pBuildFlags : "";
	len += snprintf(log + len, sizeof log - len, "gour fake driver: %s module, %zu bytes, build flags \"%s\"\n",
	                desc->format == ZE_MODULE_FORMAT_NATIVE ? "native" : "SPIR-V", size, flags);
	if (desc->pConstants) {
		const ze_module_constants_t *k = desc->pConstants;
		if (k->numConstants > MAX_SPEC) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeModuleCreate: %u constants", k->numConstants);
		if (k->numConstants && (!k->pConstantIds || !k->pConstantValues)) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeModuleCreate: constants");
		for (uint32_t i = 0; i < k->numConstants; i++) {
			uint32_t v;
			memcpy(&v, k->pConstantValues[i], sizeof v);
			len += snprintf(log + len, sizeof log - len, "specialization constant %u = 0x%x\n", k->pConstantIds[i], v);
		}
	}
	module *m = (module *)new_object(M_MODULE, sizeof(module));
	m->spirv = malloc(size);
	memcpy(m->spirv, spirv, size);
	m->size = size;
	char unresolved[256];
	ze_result_t r = parse_spirv(m, unresolved, sizeof unresolved);
	if (r == ZE_RESULT_SUCCESS && unresolved[0]) {
		len += snprintf(log + len, sizeof log - len, "error: unresolved external function '%s'\n", unresolved);
		r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
	}
	if (r == ZE_RESULT_SUCCESS && strstr(flags, "-gour-fake-build-error")) {
		len += snprintf(log + len, sizeof log - len, "error: the build flags asked for a build error\n");
		r = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
	}
	if (plog) *plog = (ze_module_build_log_handle_t)new_log(log);
	if (r != ZE_RESULT_SUCCESS) {
		free(m->spirv);
		free_object(m);
		return r;
	}
	if ((r = alloc(1, d, 4, 4, &m->global))) {
		free(m->spirv);
		free_object(m);
		return r;
	}
	memset(m->global, 0, 4);
	*ph = (ze_module_handle_t)m;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ModuleDestroy(ze_module_handle_t h) {
	CHECK(h, M_MODULE);
	module *m = (module *)h;
	release_alloc(find_alloc(m->global));
	free(m->spirv);
	free_object(h);
	return ZE_RESULT_SUCCESS;
}

// ModuleGetGlobalPointer knows one global variable in every module,
// gour_global_counter (4 bytes of device memory): the conformance SPIR-V
// has none, and the CUDA kernels name theirs so.
static ze_result_t ModuleGetGlobalPointer(ze_module_handle_t h, const char *name, size_t *psize, void **pptr) {
	CHECK(h, M_MODULE);
	if (!name) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeModuleGetGlobalPointer: pGlobalName");
	if (strcmp(name, "gour_global_counter")) return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
	if (psize) *psize = 4;
	if (pptr) *pptr = ((module *)h)->global;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ModuleDynamicLink(uint32_t n, ze_module_handle_t *ms, ze_module_build_log_handle_t *plog) {
	for (uint32_t i = 0; i < n; i++) CHECK(ms[i], M_MODULE);
	return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeModuleDynamicLink is not faked");
}

static ze_result_t ModuleGetNativeBinary(ze_module_handle_t h, size_t *pSize, uint8_t *out) {
	CHECK(h, M_MODULE);
	module *m = (module *)h;
	size_t magic = sizeof NATIVE_MAGIC, n = magic + m->size;
	if (!pSize) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeModuleGetNativeBinary: pSize");
	if (!out) {
		*pSize = n;
		return ZE_RESULT_SUCCESS;
	}
	if (*pSize < n) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeModuleGetNativeBinary: %zu bytes for %zu", *pSize, n);
	memcpy(out, NATIVE_MAGIC, magic);
	memcpy(out + magic, m->spirv, m->size);
	*pSize = n;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ModuleGetKernelNames(ze_module_handle_t h, uint32_t *pCount, const char **names) {
	CHECK(h, M_MODULE);
	module *m = (module *)h;
	if (*pCount == 0 || !names) {
		*pCount = (uint32_t)m->nentry;
		return ZE_RESULT_SUCCESS;
	}
	uint32_t n = *pCount < (uint32_t)m->nentry ? *pCount : (uint32_t)m->nentry;
	for (uint32_t i = 0; i < n; i++) names[i] = m->entry[i];
	*pCount = n;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t BuildLogDestroy(ze_module_build_log_handle_t h) {
	CHECK(h, M_LOG);
	free(((buildlog *)h)->text);
	free_object(h);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t BuildLogGetString(ze_module_build_log_handle_t h, size_t *pSize, char *out) {
	CHECK(h, M_LOG);
	const char *t = ((buildlog *)h)->text;
	size_t n = strlen(t) + 1;
	if (!out) {
		*pSize = n;
		return ZE_RESULT_SUCCESS;
	}
	if (*pSize < n) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeModuleBuildLogGetString: %zu bytes for %zu", *pSize, n);
	memcpy(out, t, n);
	return ZE_RESULT_SUCCESS;
}

// ---- kernels --------------------------------------------------------------

static ze_result_t KernelCreate(ze_module_handle_t h, const ze_kernel_desc_t *desc, ze_kernel_handle_t *ph) {
	CHECK(h, M_MODULE);
	STYPE(desc, ZE_STRUCTURE_TYPE_KERNEL_DESC);
	if (desc->flags > 0x3) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeKernelCreate: flags");
	if (!desc->pKernelName) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeKernelCreate: name");
	module *m = (module *)h;
	int found = 0;
	for (int i = 0; i < m->nentry; i++) found |= strcmp(m->entry[i], desc->pKernelName) == 0;
	if (!found) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
	const signature *sig = NULL;
	for (size_t i = 0; i < sizeof signatures / sizeof signatures[0]; i++)
		if (strcmp(signatures[i].name, desc->pKernelName) == 0) sig = &signatures[i];
	if (!sig) return fail(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, "zeKernelCreate: %s has no C implementation here", desc->pKernelName);
	kernel *k = (kernel *)new_object(M_KERNEL, sizeof(kernel));
	k->sig = sig;
	*ph = (ze_kernel_handle_t)k;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t KernelDestroy(ze_kernel_handle_t h) {
	CHECK(h, M_KERNEL);
	free_object(h);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t KernelGetProperties(ze_kernel_handle_t h, ze_kernel_properties_t *p) {
	CHECK(h, M_KERNEL);
	STYPE(p, ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES);
	p->numKernelArgs = (uint32_t)((kernel *)h)->sig->nargs;
	p->requiredGroupSizeX = p->requiredGroupSizeY = p->requiredGroupSizeZ = 0;
	p->maxSubgroupSize = 16;
	p->maxNumSubgroups = 64;
	p->localMemSize = 0;
	p->privateMemSize = 64;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t KernelSetArgumentValue(ze_kernel_handle_t h, uint32_t index, size_t size, const void *value) {
	CHECK(h, M_KERNEL);
	kernel *k = (kernel *)h;
	if ((int)index >= k->sig->nargs) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
	int want = k->sig->sizes[index];
	if (want == 0) { // __local
		if (value) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeKernelSetArgumentValue: a value for __local argument %u", index);
		if (size == 0) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
		k->local[index] = size;
	} else {
		size_t n = want < 0 ? sizeof(void *) : (size_t)want;
		if (size != n) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
		if (!value) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeKernelSetArgumentValue: no value for argument %u", index);
		memcpy(k->args[index], value, size);
		if (want == I || want == S) {
			void *h;
			memcpy(&h, value, sizeof h);
			if (!is(h, want == I ? M_IMAGE : M_SAMPLER))
				return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeKernelSetArgumentValue: argument %u of %s is %p, not a %s", index, k->sig->name, h, want == I ? "ze_image_handle_t" : "ze_sampler_handle_t");
		}
		if (want == P) {
			void *p;
			memcpy(&p, value, sizeof p);
			if (!find_alloc(p)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeKernelSetArgumentValue: argument %u of %s is %p, not device memory", index, k->sig->name, p);
		}
	}
	k->set |= 1u << index;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t KernelSetGroupSize(ze_kernel_handle_t h, uint32_t x, uint32_t y, uint32_t z) {
	CHECK(h, M_KERNEL);
	if (x == 0 || y == 0 || z == 0 || x > 1024 || y > 1024 || z > 1024 || (uint64_t)x * y * z > 1024)
		return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
	kernel *k = (kernel *)h;
	k->group[0] = x, k->group[1] = y, k->group[2] = z;
	return ZE_RESULT_SUCCESS;
}

static uint32_t suggest(uint32_t g, uint32_t limit) {
	uint32_t b = 1;
	while (b * 2 <= limit && g % (b * 2) == 0) b *= 2;
	return b;
}

static ze_result_t KernelSuggestGroupSize(ze_kernel_handle_t h, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t *x, uint32_t *y, uint32_t *z) {
	CHECK(h, M_KERNEL);
	if (!x || !y || !z) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeKernelSuggestGroupSize");
	*x = suggest(gx, 256);
	*y = suggest(gy, 256 / *x);
	*z = suggest(gz, 256 / (*x * *y));
	return ZE_RESULT_SUCCESS;
}

static ze_result_t KernelSetGlobalOffsetExp(ze_kernel_handle_t h, uint32_t x, uint32_t y, uint32_t z) {
	CHECK(h, M_KERNEL);
	kernel *k = (kernel *)h;
	k->offset[0] = x, k->offset[1] = y, k->offset[2] = z;
	return ZE_RESULT_SUCCESS;
}

// ---- launches ---------------------------------------------------------------

typedef struct {
	size_t gid[3], lid[3], grp[3], lsize[3], gsize[3], off[3];
} item;

#define PTR(T, i) (*(T **)k->args[i])
#define VAL(T, i) (*(T *)k->args[i])

// ---- images and samplers ------------------------------------------------------
// An image is a pixel store of its extent, rows of width pixels, slices of
// rows: {width, height or 1D layers, depth or 2D layers}. The fake takes
// the layouts of one, two and four 8-, 16- and 32-bit components but
// 16_16, of unsigned, signed, unorm (8 and 16 bits) and float (16 and 32
// bits) components, with swizzles naming distinct channels for the
// components and 0, 1 or "don't care" for the rest: no snorm, no packed
// layouts, no media formats.

#define IMAGE_DIM_MAX 16384
#define IMAGE_DIM3D_MAX 2048
#define IMAGE_LAYERS_MAX 2048

typedef struct {
	unsigned magic;
	ze_image_desc_t desc;
	int comps, bits;
	size_t pixel;
	uint32_t ext[3];
	unsigned char *data;
} image;

typedef struct {
	unsigned magic;
	ze_sampler_desc_t desc;
} sampler;

static ze_result_t DeviceGetImageProperties(ze_device_handle_t h, ze_device_image_properties_t *p) {
	CHECK(h, M_DEVICE);
	STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES);
	p->maxImageDims1D = p->maxImageDims2D = IMAGE_DIM_MAX;
	p->maxImageDims3D = IMAGE_DIM3D_MAX;
	p->maxImageBufferSize = 1u << 27;
	p->maxImageArraySlices = IMAGE_LAYERS_MAX;
	p->maxSamplers = 16;
	p->maxReadImageArgs = 128;
	p->maxWriteImageArgs = 64;
	return ZE_RESULT_SUCCESS;
}

// layout_shape gives a layout's components and bits; 0 for the layouts
// the fake lacks.
static int layout_shape(ze_image_format_layout_t l, int *bits) {
	switch (l) {
	case ZE_IMAGE_FORMAT_LAYOUT_8: *bits = 8; return 1;
	case ZE_IMAGE_FORMAT_LAYOUT_16: *bits = 16; return 1;
	case ZE_IMAGE_FORMAT_LAYOUT_32: *bits = 32; return 1;
	case ZE_IMAGE_FORMAT_LAYOUT_8_8: *bits = 8; return 2;
	case ZE_IMAGE_FORMAT_LAYOUT_32_32: *bits = 32; return 2;
	case ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8: *bits = 8; return 4;
	case ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16: *bits = 16; return 4;
	case ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32: *bits = 32; return 4;
	default: return 0;
	}
}

// check_image_desc checks an image descriptor: ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT
// for a format the fake lacks, an error with a message for one no driver
// takes.
static ze_result_t check_image_desc(const char *fn, const ze_image_desc_t *d, int *comps, int *bits, uint32_t ext[3]) {
	STYPE(d, ZE_STRUCTURE_TYPE_IMAGE_DESC);
	if (d->pNext) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: pNext", fn);
	if (d->flags > 0x3) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "%s: flags 0x%x", fn, d->flags);
	if (d->type > ZE_IMAGE_TYPE_3D) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "%s: image type %u", fn, d->type);
	if (d->miplevels) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %u mip levels", fn, d->miplevels);
	const ze_image_format_t *f = &d->format;
	if (f->layout > ZE_IMAGE_FORMAT_LAYOUT_BRGP) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "%s: layout %u", fn, f->layout);
	if (f->type > ZE_IMAGE_FORMAT_TYPE_FLOAT) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "%s: format type %u", fn, f->type);
	ze_image_format_swizzle_t sw[4] = {f->x, f->y, f->z, f->w};
	for (int i = 0; i < 4; i++)
		if (sw[i] > ZE_IMAGE_FORMAT_SWIZZLE_X) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "%s: swizzle %u", fn, sw[i]);
	*comps = layout_shape(f->layout, bits);
	if (!*comps) return ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT;
	// Every component names a channel, each once; the rest are constants.
	unsigned seen = 0;
	for (int i = 0; i < 4; i++) {
		if (i < *comps) {
			if (sw[i] > ZE_IMAGE_FORMAT_SWIZZLE_A || (seen & (1u << sw[i])))
				return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: component %d of a %d-component layout has swizzle %u", fn, i, *comps, sw[i]);
			seen |= 1u << sw[i];
		} else if (sw[i] < ZE_IMAGE_FORMAT_SWIZZLE_0) {
			return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: swizzle %d of a %d-component layout names channel %u", fn, i, *comps, sw[i]);
		}
	}
	switch (f->type) {
	case ZE_IMAGE_FORMAT_TYPE_SNORM: return ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT;
	case ZE_IMAGE_FORMAT_TYPE_UNORM: if (*bits == 32) return ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT; break;
	case ZE_IMAGE_FORMAT_TYPE_FLOAT: if (*bits == 8) return ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT; break;
	default: break;
	}
	// Dimensions a type does not use are 1, layers of other than arrays 0.
	int array = d->type == ZE_IMAGE_TYPE_1DARRAY || d->type == ZE_IMAGE_TYPE_2DARRAY;
	int twod = d->type == ZE_IMAGE_TYPE_2D || d->type == ZE_IMAGE_TYPE_2DARRAY || d->type == ZE_IMAGE_TYPE_3D;
	if (!d->width || !d->height || !d->depth || (!twod && d->height != 1) || (d->type != ZE_IMAGE_TYPE_3D && d->depth != 1) || (array != (d->arraylevels != 0)))
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: a type %u image of %llux%ux%u, %u layers", fn, d->type, (unsigned long long)d->width, d->height, d->depth, d->arraylevels);
	uint64_t lim = d->type == ZE_IMAGE_TYPE_3D ? IMAGE_DIM3D_MAX : IMAGE_DIM_MAX;
	if (d->width > lim || d->height > lim || d->depth > lim || d->arraylevels > IMAGE_LAYERS_MAX) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
	ext[0] = (uint32_t)d->width;
	ext[1] = d->type == ZE_IMAGE_TYPE_1DARRAY ? d->arraylevels : d->height;
	ext[2] = d->type == ZE_IMAGE_TYPE_2DARRAY ? d->arraylevels : d->depth;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ImageGetProperties(ze_device_handle_t h, const ze_image_desc_t *d, ze_image_properties_t *p) {
	CHECK(h, M_DEVICE);
	STYPE(p, ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES);
	int comps, bits;
	uint32_t ext[3];
	ze_result_t r = check_image_desc("zeImageGetProperties", d, &comps, &bits, ext);
	if (r) return r;
	p->samplerFilterFlags = ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT | ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ImageCreate(ze_context_handle_t c, ze_device_handle_t h, const ze_image_desc_t *d, ze_image_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	CHECK(h, M_DEVICE);
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeImageCreate: phImage");
	image img = {M_IMAGE};
	ze_result_t r = check_image_desc("zeImageCreate", d, &img.comps, &img.bits, img.ext);
	if (r) return r;
	img.desc = *d;
	img.pixel = (size_t)img.comps * (size_t)img.bits / 8;
	size_t n = (size_t)img.ext[0] * img.ext[1] * img.ext[2] * img.pixel;
	img.data = malloc(n);
	if (!img.data) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
	memset(img.data, 0xcd, n);
	image *p = (image *)new_object(M_IMAGE, sizeof(image));
	*p = img;
	*ph = (ze_image_handle_t)p;
	images_live++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t ImageDestroy(ze_image_handle_t h) {
	CHECK(h, M_IMAGE);
	free(((image *)h)->data);
	free_object(h);
	images_live--;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t SamplerCreate(ze_context_handle_t c, ze_device_handle_t h, const ze_sampler_desc_t *d, ze_sampler_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	CHECK(h, M_DEVICE);
	STYPE(d, ZE_STRUCTURE_TYPE_SAMPLER_DESC);
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeSamplerCreate: phSampler");
	if (d->addressMode > ZE_SAMPLER_ADDRESS_MODE_MIRROR) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeSamplerCreate: address mode %u", d->addressMode);
	if (d->filterMode > ZE_SAMPLER_FILTER_MODE_LINEAR) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeSamplerCreate: filter mode %u", d->filterMode);
	if (d->isNormalized > 1) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeSamplerCreate: isNormalized %u", d->isNormalized);
	sampler *s = (sampler *)new_object(M_SAMPLER, sizeof(sampler));
	s->desc = *d;
	*ph = (ze_sampler_handle_t)s;
	samplers_live++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t SamplerDestroy(ze_sampler_handle_t h) {
	CHECK(h, M_SAMPLER);
	free_object(h);
	samplers_live--;
	return ZE_RESULT_SUCCESS;
}

// check_region checks that a region lies in the image and has no empty
// dimension, and that the dimensions the image's type lacks are origin 0
// and extent 1.
static ze_result_t check_region(const char *fn, const image *img, const ze_image_region_t *r) {
	if (!r) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "%s: null region", fn);
	uint32_t o[3] = {r->originX, r->originY, r->originZ}, e[3] = {r->width, r->height, r->depth};
	for (int i = 0; i < 3; i++)
		if (!e[i] || o[i] > img->ext[i] || e[i] > img->ext[i] - o[i])
			return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: region (%u,%u,%u) of %ux%ux%u outside an image of %ux%ux%u", fn, o[0], o[1], o[2], e[0], e[1], e[2], img->ext[0], img->ext[1], img->ext[2]);
	return ZE_RESULT_SUCCESS;
}

static unsigned char *texel(const image *img, uint32_t x, uint32_t y, uint32_t z) {
	return img->data + (((size_t)z * img->ext[1] + y) * img->ext[0] + x) * img->pixel;
}

// copy_box copies a region between an image and packed memory.
static void copy_box(image *img, const ze_image_region_t *r, unsigned char *mem, int to_image) {
	size_t row = (size_t)r->width * img->pixel;
	for (uint32_t z = 0; z < r->depth; z++)
		for (uint32_t y = 0; y < r->height; y++) {
			unsigned char *t = texel(img, r->originX, r->originY + y, r->originZ + z);
			unsigned char *m = mem + ((size_t)z * r->height + y) * row;
			if (to_image) memmove(t, m, row);
			else memmove(m, t, row);
		}
}

static ze_result_t image_memory(const char *fn, int to_image, ze_command_list_handle_t l, ze_image_handle_t h, void *mem, const ze_image_region_t *r, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t res = begin(fn, l, signal, n, wait);
	if (res == RECORD) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "%s: the fake records no image copies", fn);
	if (res) return res;
	CHECK(h, M_IMAGE);
	if (!mem) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "%s: null pointer", fn);
	image *img = (image *)h;
	ze_image_region_t whole = {0, 0, 0, img->ext[0], img->ext[1], img->ext[2]};
	if (!r) r = &whole;
	if ((res = check_region(fn, img, r))) return res;
	size_t size = (size_t)r->width * r->height * r->depth * img->pixel;
	if (!check_range(mem, size)) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "%s: %zu bytes overrun an allocation", fn, size);
	uint64_t start = now_ticks();
	copy_box(img, r, mem, to_image);
	finish(signal, start);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendImageCopyToMemory(ze_command_list_handle_t l, void *dst, ze_image_handle_t src, const ze_image_region_t *r, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	return image_memory("zeCommandListAppendImageCopyToMemory", 0, l, src, dst, r, signal, n, wait);
}

static ze_result_t AppendImageCopyFromMemory(ze_command_list_handle_t l, ze_image_handle_t dst, const void *src, const ze_image_region_t *r, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	return image_memory("zeCommandListAppendImageCopyFromMemory", 1, l, dst, (void *)src, r, signal, n, wait);
}

static ze_result_t AppendImageCopyRegion(ze_command_list_handle_t l, ze_image_handle_t dst, ze_image_handle_t src, const ze_image_region_t *dr, const ze_image_region_t *sr, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	const char *fn = "zeCommandListAppendImageCopyRegion";
	ze_result_t res = begin(fn, l, signal, n, wait);
	if (res == RECORD) return fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "%s: the fake records no image copies", fn);
	if (res) return res;
	CHECK(dst, M_IMAGE);
	CHECK(src, M_IMAGE);
	image *d = (image *)dst, *s = (image *)src;
	if (memcmp(&d->desc.format, &s->desc.format, sizeof d->desc.format))
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: images of different formats", fn);
	ze_image_region_t dw = {0, 0, 0, d->ext[0], d->ext[1], d->ext[2]}, sw = {0, 0, 0, s->ext[0], s->ext[1], s->ext[2]};
	if (!dr) dr = &dw;
	if (!sr) sr = &sw;
	if (dr->width != sr->width || dr->height != sr->height || dr->depth != sr->depth)
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: regions of %ux%ux%u and %ux%ux%u", fn, dr->width, dr->height, dr->depth, sr->width, sr->height, sr->depth);
	if ((res = check_region(fn, d, dr)) || (res = check_region(fn, s, sr))) return res;
	uint64_t start = now_ticks();
	size_t size = (size_t)sr->width * sr->height * sr->depth * s->pixel;
	unsigned char *tmp = malloc(size);
	copy_box(s, sr, tmp, 0);
	copy_box(d, dr, tmp, 1);
	free(tmp);
	finish(signal, start);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendImageCopy(ze_command_list_handle_t l, ze_image_handle_t dst, ze_image_handle_t src, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	CHECK(dst, M_IMAGE);
	CHECK(src, M_IMAGE);
	image *d = (image *)dst, *s = (image *)src;
	if (memcmp(d->ext, s->ext, sizeof d->ext)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListAppendImageCopy: images of different sizes");
	return AppendImageCopyRegion(l, dst, src, NULL, NULL, signal, n, wait);
}

// read_texel reads a pixel as the kernel's read_image{f,ui,i} would, its
// components put in the channels the swizzle names: floats for unorm and
// float formats (f), integers (u) for the others.
static void read_texel(const image *img, uint32_t x, uint32_t y, uint32_t z, float f[4], uint32_t u[4]) {
	const unsigned char *t = texel(img, x, y, z);
	ze_image_format_swizzle_t sw[4] = {img->desc.format.x, img->desc.format.y, img->desc.format.z, img->desc.format.w};
	for (int c = 0; c < 4; c++) f[c] = c == 3, u[c] = c == 3;
	for (int i = 0; i < img->comps; i++) {
		uint32_t v = 0;
		memcpy(&v, t + i * img->bits / 8, (size_t)img->bits / 8);
		int c = sw[i];
		u[c] = v;
		switch (img->desc.format.type) {
		case ZE_IMAGE_FORMAT_TYPE_UNORM: f[c] = (float)v / (float)((1u << img->bits) - 1); break;
		case ZE_IMAGE_FORMAT_TYPE_FLOAT:
			if (img->bits == 32) memcpy(&f[c], &v, 4);
			else f[c] = 0; // half reads are not faked
			break;
		default: f[c] = (float)v; break;
		}
	}
}

// write_texel_u writes integer channels, saturated to the components'
// width, as write_imageui does.
static void write_texel_u(image *img, uint32_t x, uint32_t y, uint32_t z, const uint32_t u[4]) {
	unsigned char *t = texel(img, x, y, z);
	ze_image_format_swizzle_t sw[4] = {img->desc.format.x, img->desc.format.y, img->desc.format.z, img->desc.format.w};
	for (int i = 0; i < img->comps; i++) {
		uint32_t v = u[sw[i]];
		if (img->bits < 32 && v > (1u << img->bits) - 1) v = (1u << img->bits) - 1;
		memcpy(t + i * img->bits / 8, &v, (size_t)img->bits / 8);
	}
}

// sample_coord applies a sampler's addressing to a pixel coordinate; 0
// where the read is of the border.
static int sample_coord(const sampler *s, int64_t v, uint32_t size, uint32_t *out) {
	if (v >= 0 && v < size) {
		*out = (uint32_t)v;
		return 1;
	}
	if (s->desc.addressMode == ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER) return 0;
	*out = v < 0 ? 0 : size - 1; // clamp; none is undefined, and clamps here
	return 1;
}

// image_kernel runs one work-item of the image kernels (images.cl).
static void image_kernel(kernel *k, const item *it) {
	image *in = *(image **)k->args[0];
	uint32_t x = (uint32_t)it->gid[0], y = (uint32_t)it->gid[1];
	float f[4];
	uint32_t u[4];
	if (!strcmp(k->sig->name, "sample")) {
		const sampler *s = *(sampler **)k->args[1];
		float *out = *(float **)k->args[2] + 4 * ((size_t)y * (size_t)*(int32_t *)k->args[3] + x);
		uint32_t sx, sy;
		if (sample_coord(s, x, in->ext[0], &sx) && sample_coord(s, y, in->ext[1], &sy)) read_texel(in, sx, sy, 0, f, u);
		else f[0] = f[1] = f[2] = f[3] = 0;
		memcpy(out, f, sizeof f);
	} else { // invert
		image *out = *(image **)k->args[1];
		read_texel(in, x, y, 0, f, u);
		for (int c = 0; c < 4; c++) u[c] = 255 - u[c];
		write_texel_u(out, x, y, 0, u);
	}
}

// check_image_launch checks the image kernels' arguments before a launch:
// live handles, 2D images of the sizes the launch reads and writes, and
// an output buffer for sample's every work-item.
static ze_result_t check_image_launch(kernel *k, const size_t gsize[3]) {
	const char *name = k->sig->name;
	for (int i = 0; i < k->sig->nargs; i++) {
		int want = k->sig->sizes[i];
		if (want != I && want != S) continue;
		void *h = *(void **)k->args[i];
		if (!is(h, want == I ? M_IMAGE : M_SAMPLER)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: argument %d was destroyed", name, i);
		if (want == I) {
			image *img = h;
			if (img->desc.type != ZE_IMAGE_TYPE_2D) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: argument %d is not a 2D image", name, i);
			if (gsize[0] > img->ext[0] || gsize[1] > img->ext[1] || gsize[2] != 1) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: %zux%zux%zu work-items for a %ux%u image", name, gsize[0], gsize[1], gsize[2], img->ext[0], img->ext[1]);
		}
	}
	if (!strcmp(name, "sample")) {
		int32_t w = *(int32_t *)k->args[3];
		if (w <= 0 || !check_range(*(void **)k->args[2], 16 * (size_t)w * gsize[1])) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of sample: w = %d overruns argument 2's allocation", w);
		if (((image *)*(void **)k->args[0])->desc.format.type != ZE_IMAGE_FORMAT_TYPE_UNORM && ((image *)*(void **)k->args[0])->desc.format.type != ZE_IMAGE_FORMAT_TYPE_FLOAT)
			return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of sample: read_imagef of an integer image");
	} else {
		image *in = *(image **)k->args[0], *out = *(image **)k->args[1];
		if (in->desc.format.type != ZE_IMAGE_FORMAT_TYPE_UINT || out->desc.format.type != ZE_IMAGE_FORMAT_TYPE_UINT)
			return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of invert: read_imageui or write_imageui of an image that is not unsigned");
		if (!(out->desc.flags & ZE_IMAGE_FLAG_KERNEL_WRITE)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of invert: argument 1 was made without ZE_IMAGE_FLAG_KERNEL_WRITE");
	}
	return ZE_RESULT_SUCCESS;
}


// reduce_sum_f32_group runs one work-group of compute's reduce_sum_f32
// (in, partial, __local scratch, ident, n), as the kernel does on a GPU
// (no COMPUTE_BLOCKED): each work-item adds a grid-strided share of the
// input in four accumulators, then the group adds its work-items' sums in
// a halving tree, and writes one partial. The same additions in the same
// order as the kernel, so the result is the same to the bit. Reads come
// before the write, so the second pass may run in place.
// group_sum_f32 adds a work-group's L values in a halving tree, as the
// kernels do in local memory, frees them and returns the sum.
static float group_sum_f32(float *scratch, size_t L) {
	for (size_t h = L / 2; h > 0; h >>= 1)
		for (size_t lid = 0; lid < h; lid++) scratch[lid] = scratch[lid] + scratch[lid + h];
	float sum = scratch[0];
	free(scratch);
	return sum;
}

static void reduce_sum_f32_group(kernel *k, const item *it) {
	const float *in = PTR(float, 0);
	float *partial = PTR(float, 1);
	float ident = VAL(float, 3);
	uint64_t n = VAL(uint64_t, 4);
	size_t L = it->lsize[0];
	uint64_t stride = it->gsize[0];
	float *scratch = malloc(L * sizeof(float));
	for (size_t lid = 0; lid < L; lid++) {
		float acc = ident, acc1 = ident, acc2 = ident, acc3 = ident;
		uint64_t i = (uint64_t)it->grp[0] * L + lid;
		for (; i + 3 * stride < n; i += 4 * stride) {
			acc = acc + in[i];
			acc1 = acc1 + in[i + stride];
			acc2 = acc2 + in[i + 2 * stride];
			acc3 = acc3 + in[i + 3 * stride];
		}
		for (; i < n; i += stride) acc = acc + in[i];
		scratch[lid] = (acc + acc1) + (acc2 + acc3);
	}
	partial[it->grp[0]] = group_sum_f32(scratch, L);
}

// reduce4_sum_f32_group runs one work-group of compute's reduce4_sum_f32,
// the first pass that reads four elements at a time (vload4): work-item j
// adds vectors j, j+stride, ... two an iteration, each component into its
// own accumulator, then one of the elements past the last whole four;
// the same additions in the same order as the kernel.
static void reduce4_sum_f32_group(kernel *k, const item *it) {
	const float *in = PTR(float, 0);
	float *partial = PTR(float, 1);
	float ident = VAL(float, 3);
	uint64_t n = VAL(uint64_t, 4), n4 = n / 4;
	size_t L = it->lsize[0];
	uint64_t stride = it->gsize[0];
	float *scratch = malloc(L * sizeof(float));
	for (size_t lid = 0; lid < L; lid++) {
		float acc[4] = {ident, ident, ident, ident};
		uint64_t i = (uint64_t)it->grp[0] * L + lid;
		for (; i + stride < n4; i += 2 * stride) {
			for (int c = 0; c < 4; c++) acc[c] = acc[c] + in[4 * i + c];
			for (int c = 0; c < 4; c++) acc[c] = acc[c] + in[4 * (i + stride) + c];
		}
		for (; i < n4; i += stride)
			for (int c = 0; c < 4; c++) acc[c] = acc[c] + in[4 * i + c];
		for (uint64_t t = 4 * n4 + (uint64_t)it->grp[0] * L + lid; t < n; t += stride) acc[0] = acc[0] + in[t];
		scratch[lid] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
	}
	partial[it->grp[0]] = group_sum_f32(scratch, L);
}

static void run_item(kernel *k, const item *it, char *scratch) {
	const char *n = k->sig->name;
	size_t i = it->gid[0];
	if (!strcmp(n, "iota")) PTR(uint32_t, 0)[i] = (uint32_t)i;
	else if (!strcmp(n, "fill_u32")) PTR(uint32_t, 0)[i] = VAL(uint32_t, 1);
	else if (!strcmp(n, "add_one")) PTR(uint32_t, 0)[i] += 1;
	else if (!strcmp(n, "scale")) PTR(int32_t, 0)[i] *= 1;
	else if (!strcmp(n, "axpy")) PTR(float, 2)[i] = VAL(float, 0) * PTR(float, 1)[i] + PTR(float, 2)[i];
	else if (!strcmp(n, "axpy_f64")) PTR(double, 2)[i] = VAL(double, 0) * PTR(double, 1)[i] + PTR(double, 2)[i];
	else if (!strcmp(n, "linked")) PTR(int32_t, 0)[i] = 3 * (int32_t)i;
	else if (!strcmp(n, "index2d")) {
		size_t lin = (it->gid[1] - it->off[1]) * it->gsize[0] + (it->gid[0] - it->off[0]);
		PTR(uint32_t, 0)[lin] = (uint32_t)(it->gid[0] | (it->gid[1] << 10));
	} else if (!strcmp(n, "index3d")) {
		size_t lin = ((it->gid[2] - it->off[2]) * it->gsize[1] + (it->gid[1] - it->off[1])) * it->gsize[0] + (it->gid[0] - it->off[0]);
		PTR(uint32_t, 0)[lin] = (uint32_t)(it->gid[0] | (it->gid[1] << 10) | (it->gid[2] << 20));
	} else if (!strcmp(n, "local_ids")) {
		PTR(uint32_t, 0)[i] = (uint32_t)((it->grp[0] << 16) | it->lid[0]);
		if (i == 0) PTR(uint32_t, 1)[0] = (uint32_t)it->lsize[0];
	} else if (!strcmp(n, "group_sum")) {
		// Run per work-group by launch(): scratch holds the group's sum.
		*(uint32_t *)scratch += PTR(uint32_t, 0)[i];
		if (it->lid[0] == it->lsize[0] - 1) PTR(uint32_t, 1)[it->grp[0]] = *(uint32_t *)scratch;
	} else if (!strcmp(n, "fill_f32")) {
		if (i < VAL(uint64_t, 2)) PTR(float, 0)[i] = VAL(float, 1);
	} else if (!strcmp(n, "copy_f32")) {
		if (i < VAL(uint64_t, 2)) PTR(float, 0)[i] = PTR(float, 1)[i];
	} else if (!strcmp(n, "sample") || !strcmp(n, "invert")) {
		image_kernel(k, it);
	} else if (!strcmp(n, "reduce_sum_f32")) {
		if (it->lid[0] == it->lsize[0] - 1) reduce_sum_f32_group(k, it);
	} else if (!strcmp(n, "reduce4_sum_f32")) {
		if (it->lid[0] == it->lsize[0] - 1) reduce4_sum_f32_group(k, it);
	} else if (!strcmp(n, "scalars")) {
		if (i == 0) {
			int64_t *out = PTR(int64_t, 0);
			out[0] = VAL(int8_t, 2), out[1] = VAL(uint8_t, 3), out[2] = VAL(int16_t, 4), out[3] = VAL(uint16_t, 5);
			out[4] = VAL(int32_t, 6), out[5] = VAL(uint32_t, 7), out[6] = VAL(int64_t, 8), out[7] = (int64_t)VAL(uint64_t, 9);
			PTR(float, 1)[0] = VAL(float, 10);
		}
	}
}

// max_cooperative is how many work-groups of the kernel's group size a
// cooperative launch may have: 64Ki work-items in all.
static uint32_t max_cooperative(const kernel *k) {
	uint32_t n = 65536 / (k->group[0] * k->group[1] * k->group[2]);
	return n ? n : 1;
}

static ze_result_t launch(const char *fn, int op, ze_command_list_handle_t l, ze_kernel_handle_t h, const ze_group_count_t *groups, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	ze_result_t r = begin(fn, l, signal, n, wait);
	if (r && r != RECORD) return r;
	CHECK(h, M_KERNEL);
	if (!groups) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "%s: pLaunchFuncArgs", fn);
	kernel *k = (kernel *)h;
	if (k->set != (1u << k->sig->nargs) - 1) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s with arguments unset (mask 0x%x)", k->sig->name, k->set);
	if (!k->group[0]) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s without zeKernelSetGroupSize", k->sig->name);
	uint32_t count[3] = {groups->groupCountX, groups->groupCountY, groups->groupCountZ};
	if (!count[0] || !count[1] || !count[2]) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s with a group count of 0", k->sig->name);
	if (op == C_COOPERATIVE && (uint64_t)count[0] * count[1] * count[2] > max_cooperative(k))
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %u×%u×%u groups of %s, more than zeKernelSuggestMaxCooperativeGroupCount's %u", fn, count[0], count[1], count[2], k->sig->name, max_cooperative(k));
	const char *fault = getenv("GOUR_FAKE_ZE_FAULT_KERNEL");
	if (fault && strcmp(fault, k->sig->name) == 0) {
		fprintf(stderr, "ze_fake_driver: %s faulted (GOUR_FAKE_ZE_FAULT_KERNEL): the device is lost\n", k->sig->name);
		device_lost = 1;
		return ZE_RESULT_SUCCESS;
	}
	if (r == RECORD) {
		cmd c = recorded(op, signal, n, wait);
		c.k = *k;
		c.groups = *groups;
		return record((list *)l, &c);
	}
	item it;
	for (int d = 0; d < 3; d++) {
		it.lsize[d] = k->group[d];
		it.gsize[d] = (size_t)k->group[d] * count[d];
		it.off[d] = k->offset[d];
	}
	// The element-wise kernels write 4 bytes per work-item through argument
	// 0: all of them must land in its allocation, so that a pointer
	// argument into the middle of one is checked.
	const char *name = k->sig->name;
	if (!strcmp(name, "iota") || !strcmp(name, "fill_u32") || !strcmp(name, "add_one")) {
		size_t items = it.off[0] + it.gsize[0];
		if (!check_range(PTR(uint32_t, 0), 4 * items)) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: %zu items overrun argument 0's allocation", name, items);
	}
	// compute's kernels: n elements in and out, and reduce_sum_f32's local
	// memory and partials. A one-dimensional launch, every n guarded.
	if (!strcmp(name, "fill_f32") || !strcmp(name, "copy_f32") || !strcmp(name, "reduce_sum_f32")) {
		int reduce = name[0] == 'r';
		uint64_t elems = VAL(uint64_t, reduce ? 4 : 2);
		if (count[1] != 1 || count[2] != 1 || k->group[1] != 1 || k->group[2] != 1 || it.off[0])
			return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: not a one-dimensional launch without offset", name);
		if (reduce) {
			if (k->local[2] < 4 * (size_t)k->group[0]) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: %zu bytes of local memory for %u work-items", name, k->local[2], k->group[0]);
			if (elems == 0 || (k->group[0] & (k->group[0] - 1))) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: n = %llu, group size %u", name, (unsigned long long)elems, k->group[0]);
			if (!check_range(PTR(float, 0), 4 * elems) || !check_range(PTR(float, 1), 4 * (size_t)count[0]))
				return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: %llu elements or %u partials overrun their allocations", name, (unsigned long long)elems, count[0]);
		} else {
			if (!check_range(PTR(float, 0), 4 * elems) || (name[0] == 'c' && !check_range(PTR(float, 1), 4 * elems)))
				return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "launch of %s: %llu elements overrun an allocation", name, (unsigned long long)elems);
		}
	}
	if (!strcmp(name, "sample") || !strcmp(name, "invert")) {
		if ((r = check_image_launch(k, it.gsize))) return r;
	}
	uint64_t start = now_ticks();
	char scratch[8];
	for (size_t gz = 0; gz < count[2]; gz++)
		for (size_t gy = 0; gy < count[1]; gy++)
			for (size_t gx = 0; gx < count[0]; gx++) {
				memset(scratch, 0, sizeof scratch);
				it.grp[0] = gx, it.grp[1] = gy, it.grp[2] = gz;
				for (size_t lz = 0; lz < it.lsize[2]; lz++)
					for (size_t ly = 0; ly < it.lsize[1]; ly++)
						for (size_t lx = 0; lx < it.lsize[0]; lx++) {
							it.lid[0] = lx, it.lid[1] = ly, it.lid[2] = lz;
							for (int d = 0; d < 3; d++) it.gid[d] = it.off[d] + it.grp[d] * it.lsize[d] + it.lid[d];
							run_item(k, &it, scratch);
						}
			}
	finish(signal, start);
	if (op == C_COOPERATIVE) cooperative_launches++;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t AppendLaunchKernel(ze_command_list_handle_t l, ze_kernel_handle_t h, const ze_group_count_t *groups, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	return launch("zeCommandListAppendLaunchKernel", C_LAUNCH, l, h, groups, signal, n, wait);
}

static ze_result_t AppendLaunchCooperativeKernel(ze_command_list_handle_t l, ze_kernel_handle_t h, const ze_group_count_t *groups, ze_event_handle_t signal, uint32_t n, ze_event_handle_t *wait) {
	return launch("zeCommandListAppendLaunchCooperativeKernel", C_COOPERATIVE, l, h, groups, signal, n, wait);
}

static ze_result_t KernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t h, uint32_t *total) {
	CHECK(h, M_KERNEL);
	if (!total) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeKernelSuggestMaxCooperativeGroupCount: totalGroupCount");
	kernel *k = (kernel *)h;
	if (!k->group[0]) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeKernelSuggestMaxCooperativeGroupCount on %s without zeKernelSetGroupSize", k->sig->name);
	*total = max_cooperative(k);
	return ZE_RESULT_SUCCESS;
}

// ---- command queues and fences ------------------------------------------------

static ze_result_t CommandQueueCreate(ze_context_handle_t c, ze_device_handle_t d, const ze_command_queue_desc_t *desc, ze_command_queue_handle_t *ph) {
	CHECK(c, M_CONTEXT);
	CHECK(d, M_DEVICE);
	STYPE(desc, ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
	if (desc->ordinal != 1) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandQueueCreate: ordinal %u is not the compute group (1)", desc->ordinal);
	if (desc->index != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandQueueCreate: index %u", desc->index);
	if (desc->flags > 0x1) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandQueueCreate: flags 0x%x on an API 1.4 driver", desc->flags);
	if (desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandQueueCreate: mode %u", desc->mode);
	if (desc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeCommandQueueCreate: priority");
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeCommandQueueCreate: phCommandQueue");
	cqueue *q = (cqueue *)new_object(M_QUEUE, sizeof(cqueue));
	q->ordinal = desc->ordinal;
	*ph = (ze_command_queue_handle_t)q;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandQueueDestroy(ze_command_queue_handle_t h) {
	CHECK(h, M_QUEUE);
	free_object(h);
	return ZE_RESULT_SUCCESS;
}

// replay runs a regular list's commands, in order, as an immediate list
// would have when they were appended.
static ze_result_t replay(list *l) {
	static list runner = {M_LIST, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, 0, 0, 0, 0, NULL};
	ze_command_list_handle_t rl = (ze_command_list_handle_t)&runner;
	for (int i = 0; i < l->ncmd; i++) {
		cmd *c = &l->cmds[i];
		ze_result_t r = ZE_RESULT_SUCCESS;
		switch (c->op) {
		case C_BARRIER: r = AppendBarrier(rl, c->signal, c->n, c->wait); break;
		case C_SIGNAL: r = AppendSignalEvent(rl, c->signal); break;
		case C_WAIT: r = AppendWaitOnEvents(rl, c->n, c->wait); break;
		case C_COPY: r = AppendMemoryCopy(rl, c->dst, c->src, c->size, c->signal, c->n, c->wait); break;
		case C_FILL: r = AppendMemoryFill(rl, c->dst, c->pattern, c->psize, c->size, c->signal, c->n, c->wait); break;
		case C_LAUNCH:
		case C_COOPERATIVE:
			r = launch("replayed launch", c->op, rl, (ze_kernel_handle_t)&c->k, &c->groups, c->signal, c->n, c->wait);
			break;
		}
		if (r) return fail(r, "zeCommandQueueExecuteCommandLists: command %d of the list failed", i);
	}
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandQueueExecuteCommandLists(ze_command_queue_handle_t h, uint32_t n, ze_command_list_handle_t *lists, ze_fence_handle_t hf) {
	CHECK(h, M_QUEUE);
	if (n == 0 || !lists) return fail(ZE_RESULT_ERROR_INVALID_SIZE, "zeCommandQueueExecuteCommandLists: %u lists", n);
	fence *f = (fence *)hf;
	if (f) {
		CHECK(hf, M_FENCE);
		if (f->queue != (cqueue *)h) return fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "zeCommandQueueExecuteCommandLists: the fence is of another queue");
		if (f->signalled) return fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "zeCommandQueueExecuteCommandLists: the fence is signalled: reset it first");
	}
	for (uint32_t i = 0; i < n; i++) {
		CHECK(lists[i], M_LIST);
		list *l = (list *)lists[i];
		if (!l->regular) return fail(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE, "zeCommandQueueExecuteCommandLists: list %u is immediate", i);
		if (!l->closed) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandQueueExecuteCommandLists: list %u is not closed", i);
	}
	for (uint32_t i = 0; i < n; i++) {
		ze_result_t r = replay((list *)lists[i]);
		if (r) return r;
	}
	executions++;
	if (f) f->signalled = 1;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t CommandQueueSynchronize(ze_command_queue_handle_t h, uint64_t timeout) {
	CHECK(h, M_QUEUE);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t FenceCreate(ze_command_queue_handle_t q, const ze_fence_desc_t *desc, ze_fence_handle_t *ph) {
	CHECK(q, M_QUEUE);
	STYPE(desc, ZE_STRUCTURE_TYPE_FENCE_DESC);
	if (desc->flags > 0x1) return fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "zeFenceCreate: flags 0x%x", desc->flags);
	if (!ph) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeFenceCreate: phFence");
	fence *f = (fence *)new_object(M_FENCE, sizeof(fence));
	f->queue = (cqueue *)q;
	f->signalled = desc->flags & ZE_FENCE_FLAG_SIGNALED;
	*ph = (ze_fence_handle_t)f;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t FenceDestroy(ze_fence_handle_t h) {
	CHECK(h, M_FENCE);
	free_object(h);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t FenceHostSynchronize(ze_fence_handle_t h, uint64_t timeout) {
	CHECK(h, M_FENCE);
	if (((fence *)h)->signalled) return ZE_RESULT_SUCCESS;
	if (timeout == UINT64_MAX) return fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "zeFenceHostSynchronize: waits forever on a fence of no execution");
	return ZE_RESULT_NOT_READY;
}

static ze_result_t FenceQueryStatus(ze_fence_handle_t h) {
	CHECK(h, M_FENCE);
	return ((fence *)h)->signalled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t FenceReset(ze_fence_handle_t h) {
	CHECK(h, M_FENCE);
	((fence *)h)->signalled = 0;
	return ZE_RESULT_SUCCESS;
}

// ---- every entry point under one lock ----------------------------------------

#define LOCKED(ret, name, params, args)                    \
	static ret name##_locked params {                        \
		pthread_mutex_lock(&big);                             \
		ret r = device_lost && !survives_loss(#name)          \
			? ZE_RESULT_ERROR_DEVICE_LOST : name args; \
		pthread_mutex_unlock(&big);                           \
		return r;                                             \
	}

LOCKED(ze_result_t, ContextCreateEx, (ze_driver_handle_t a, const ze_context_desc_t *b, uint32_t c, ze_device_handle_t *d, ze_context_handle_t *e), (a, b, c, d, e))
LOCKED(ze_result_t, ContextCreate, (ze_driver_handle_t a, const ze_context_desc_t *b, ze_context_handle_t *c), (a, b, c))
LOCKED(ze_result_t, ContextDestroy, (ze_context_handle_t a), (a))
LOCKED(ze_result_t, MemAllocDevice, (ze_context_handle_t a, const ze_device_mem_alloc_desc_t *b, size_t c, size_t d, ze_device_handle_t e, void **f), (a, b, c, d, e, f))
LOCKED(ze_result_t, MemAllocHost, (ze_context_handle_t a, const ze_host_mem_alloc_desc_t *b, size_t c, size_t d, void **e), (a, b, c, d, e))
LOCKED(ze_result_t, MemAllocShared, (ze_context_handle_t a, const ze_device_mem_alloc_desc_t *b, const ze_host_mem_alloc_desc_t *c, size_t d, size_t e, ze_device_handle_t f, void **g), (a, b, c, d, e, f, g))
LOCKED(ze_result_t, MemFree, (ze_context_handle_t a, void *b), (a, b))
LOCKED(ze_result_t, MemGetIpcHandle, (ze_context_handle_t a, const void *b, ze_ipc_mem_handle_t *c), (a, b, c))
LOCKED(ze_result_t, MemOpenIpcHandle, (ze_context_handle_t a, ze_device_handle_t b, ze_ipc_mem_handle_t c, ze_ipc_memory_flags_t d, void **e), (a, b, c, d, e))
LOCKED(ze_result_t, MemCloseIpcHandle, (ze_context_handle_t a, const void *b), (a, b))
LOCKED(ze_result_t, MemGetAllocProperties, (ze_context_handle_t a, const void *b, ze_memory_allocation_properties_t *c, ze_device_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, MemGetAddressRange, (ze_context_handle_t a, const void *b, void **c, size_t *d), (a, b, c, d))
LOCKED(ze_result_t, EventPoolCreate, (ze_context_handle_t a, const ze_event_pool_desc_t *b, uint32_t c, ze_device_handle_t *d, ze_event_pool_handle_t *e), (a, b, c, d, e))
LOCKED(ze_result_t, EventPoolDestroy, (ze_event_pool_handle_t a), (a))
LOCKED(ze_result_t, EventCreate, (ze_event_pool_handle_t a, const ze_event_desc_t *b, ze_event_handle_t *c), (a, b, c))
LOCKED(ze_result_t, EventDestroy, (ze_event_handle_t a), (a))
LOCKED(ze_result_t, EventHostSynchronize, (ze_event_handle_t a, uint64_t b), (a, b))
LOCKED(ze_result_t, EventQueryStatus, (ze_event_handle_t a), (a))
LOCKED(ze_result_t, EventHostReset, (ze_event_handle_t a), (a))
LOCKED(ze_result_t, EventHostSignal, (ze_event_handle_t a), (a))
LOCKED(ze_result_t, EventQueryKernelTimestamp, (ze_event_handle_t a, ze_kernel_timestamp_result_t *b), (a, b))
LOCKED(ze_result_t, CommandListCreateImmediate, (ze_context_handle_t a, ze_device_handle_t b, const ze_command_queue_desc_t *c, ze_command_list_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, CommandListDestroy, (ze_command_list_handle_t a), (a))
LOCKED(ze_result_t, AppendBarrier, (ze_command_list_handle_t a, ze_event_handle_t b, uint32_t c, ze_event_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, AppendSignalEvent, (ze_command_list_handle_t a, ze_event_handle_t b), (a, b))
LOCKED(ze_result_t, AppendWaitOnEvents, (ze_command_list_handle_t a, uint32_t b, ze_event_handle_t *c), (a, b, c))
LOCKED(ze_result_t, AppendMemoryCopy, (ze_command_list_handle_t a, void *b, const void *c, size_t d, ze_event_handle_t e, uint32_t f, ze_event_handle_t *g), (a, b, c, d, e, f, g))
LOCKED(ze_result_t, AppendMemoryFill, (ze_command_list_handle_t a, void *b, const void *c, size_t d, size_t e, ze_event_handle_t f, uint32_t g, ze_event_handle_t *h), (a, b, c, d, e, f, g, h))
LOCKED(ze_result_t, AppendMemoryCopyRegion, (ze_command_list_handle_t a, void *b, const ze_copy_region_t *c, uint32_t d, uint32_t e, const void *f, const ze_copy_region_t *g, uint32_t h, uint32_t i, ze_event_handle_t j, uint32_t k, ze_event_handle_t *l), (a, b, c, d, e, f, g, h, i, j, k, l))
LOCKED(ze_result_t, AppendMemoryPrefetch, (ze_command_list_handle_t a, const void *b, size_t c), (a, b, c))
LOCKED(ze_result_t, AppendMemAdvise, (ze_command_list_handle_t a, ze_device_handle_t b, const void *c, size_t d, ze_memory_advice_t e), (a, b, c, d, e))
LOCKED(ze_result_t, AppendLaunchKernel, (ze_command_list_handle_t a, ze_kernel_handle_t b, const ze_group_count_t *c, ze_event_handle_t d, uint32_t e, ze_event_handle_t *f), (a, b, c, d, e, f))
LOCKED(ze_result_t, ModuleCreate, (ze_context_handle_t a, ze_device_handle_t b, const ze_module_desc_t *c, ze_module_handle_t *d, ze_module_build_log_handle_t *e), (a, b, c, d, e))
LOCKED(ze_result_t, ModuleDestroy, (ze_module_handle_t a), (a))
LOCKED(ze_result_t, ModuleGetGlobalPointer, (ze_module_handle_t a, const char *b, size_t *c, void **d), (a, b, c, d))
LOCKED(ze_result_t, KernelSuggestMaxCooperativeGroupCount, (ze_kernel_handle_t a, uint32_t *b), (a, b))
LOCKED(ze_result_t, AppendLaunchCooperativeKernel, (ze_command_list_handle_t a, ze_kernel_handle_t b, const ze_group_count_t *c, ze_event_handle_t d, uint32_t e, ze_event_handle_t *f), (a, b, c, d, e, f))
LOCKED(ze_result_t, CommandListCreate, (ze_context_handle_t a, ze_device_handle_t b, const ze_command_list_desc_t *c, ze_command_list_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, CommandListClose, (ze_command_list_handle_t a), (a))
LOCKED(ze_result_t, CommandListReset, (ze_command_list_handle_t a), (a))
LOCKED(ze_result_t, CommandQueueCreate, (ze_context_handle_t a, ze_device_handle_t b, const ze_command_queue_desc_t *c, ze_command_queue_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, CommandQueueDestroy, (ze_command_queue_handle_t a), (a))
LOCKED(ze_result_t, CommandQueueExecuteCommandLists, (ze_command_queue_handle_t a, uint32_t b, ze_command_list_handle_t *c, ze_fence_handle_t d), (a, b, c, d))
LOCKED(ze_result_t, CommandQueueSynchronize, (ze_command_queue_handle_t a, uint64_t b), (a, b))
LOCKED(ze_result_t, FenceCreate, (ze_command_queue_handle_t a, const ze_fence_desc_t *b, ze_fence_handle_t *c), (a, b, c))
LOCKED(ze_result_t, FenceDestroy, (ze_fence_handle_t a), (a))
LOCKED(ze_result_t, FenceHostSynchronize, (ze_fence_handle_t a, uint64_t b), (a, b))
LOCKED(ze_result_t, FenceQueryStatus, (ze_fence_handle_t a), (a))
LOCKED(ze_result_t, FenceReset, (ze_fence_handle_t a), (a))
LOCKED(ze_result_t, ModuleDynamicLink, (uint32_t a, ze_module_handle_t *b, ze_module_build_log_handle_t *c), (a, b, c))
LOCKED(ze_result_t, ModuleGetNativeBinary, (ze_module_handle_t a, size_t *b, uint8_t *c), (a, b, c))
LOCKED(ze_result_t, ModuleGetKernelNames, (ze_module_handle_t a, uint32_t *b, const char **c), (a, b, c))
LOCKED(ze_result_t, BuildLogDestroy, (ze_module_build_log_handle_t a), (a))
LOCKED(ze_result_t, BuildLogGetString, (ze_module_build_log_handle_t a, size_t *b, char *c), (a, b, c))
LOCKED(ze_result_t, KernelCreate, (ze_module_handle_t a, const ze_kernel_desc_t *b, ze_kernel_handle_t *c), (a, b, c))
LOCKED(ze_result_t, KernelDestroy, (ze_kernel_handle_t a), (a))
LOCKED(ze_result_t, KernelGetProperties, (ze_kernel_handle_t a, ze_kernel_properties_t *b), (a, b))
LOCKED(ze_result_t, KernelSetArgumentValue, (ze_kernel_handle_t a, uint32_t b, size_t c, const void *d), (a, b, c, d))
LOCKED(ze_result_t, KernelSetGroupSize, (ze_kernel_handle_t a, uint32_t b, uint32_t c, uint32_t d), (a, b, c, d))
LOCKED(ze_result_t, KernelSuggestGroupSize, (ze_kernel_handle_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t *e, uint32_t *f, uint32_t *g), (a, b, c, d, e, f, g))
LOCKED(ze_result_t, KernelSetGlobalOffsetExp, (ze_kernel_handle_t a, uint32_t b, uint32_t c, uint32_t d), (a, b, c, d))
LOCKED(ze_result_t, EventPoolGetIpcHandle, (ze_event_pool_handle_t a, ze_ipc_event_pool_handle_t *b), (a, b))
LOCKED(ze_result_t, EventPoolOpenIpcHandle, (ze_context_handle_t a, ze_ipc_event_pool_handle_t b, ze_event_pool_handle_t *c), (a, b, c))
LOCKED(ze_result_t, EventPoolCloseIpcHandle, (ze_event_pool_handle_t a), (a))
LOCKED(ze_result_t, AppendEventReset, (ze_command_list_handle_t a, ze_event_handle_t b), (a, b))
LOCKED(ze_result_t, DeviceGetImageProperties, (ze_device_handle_t a, ze_device_image_properties_t *b), (a, b))
LOCKED(ze_result_t, ImageGetProperties, (ze_device_handle_t a, const ze_image_desc_t *b, ze_image_properties_t *c), (a, b, c))
LOCKED(ze_result_t, ImageCreate, (ze_context_handle_t a, ze_device_handle_t b, const ze_image_desc_t *c, ze_image_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, ImageDestroy, (ze_image_handle_t a), (a))
LOCKED(ze_result_t, SamplerCreate, (ze_context_handle_t a, ze_device_handle_t b, const ze_sampler_desc_t *c, ze_sampler_handle_t *d), (a, b, c, d))
LOCKED(ze_result_t, SamplerDestroy, (ze_sampler_handle_t a), (a))
LOCKED(ze_result_t, AppendImageCopy, (ze_command_list_handle_t a, ze_image_handle_t b, ze_image_handle_t c, ze_event_handle_t d, uint32_t e, ze_event_handle_t *f), (a, b, c, d, e, f))
LOCKED(ze_result_t, AppendImageCopyRegion, (ze_command_list_handle_t a, ze_image_handle_t b, ze_image_handle_t c, const ze_image_region_t *d, const ze_image_region_t *e, ze_event_handle_t f, uint32_t g, ze_event_handle_t *h), (a, b, c, d, e, f, g, h))
LOCKED(ze_result_t, AppendImageCopyToMemory, (ze_command_list_handle_t a, void *b, ze_image_handle_t c, const ze_image_region_t *d, ze_event_handle_t e, uint32_t f, ze_event_handle_t *g), (a, b, c, d, e, f, g))
LOCKED(ze_result_t, AppendImageCopyFromMemory, (ze_command_list_handle_t a, ze_image_handle_t b, const void *c, const ze_image_region_t *d, ze_event_handle_t e, uint32_t f, ze_event_handle_t *g), (a, b, c, d, e, f, g))

// ---- the tables the loader asks for -------------------------------------------

#define EXPORT ZE_DLLEXPORT ze_result_t ZE_APICALL

EXPORT zeGetGlobalProcAddrTable(ze_api_version_t v, ze_global_dditable_t *t) {
	t->pfnInit = Init;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetDriverProcAddrTable(ze_api_version_t v, ze_driver_dditable_t *t) {
	t->pfnGet = DriverGet;
	t->pfnGetApiVersion = DriverGetApiVersion;
	t->pfnGetProperties = DriverGetProperties;
	t->pfnGetExtensionProperties = DriverGetExtensionProperties;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetDeviceProcAddrTable(ze_api_version_t v, ze_device_dditable_t *t) {
	t->pfnGet = DeviceGet;
	t->pfnGetProperties = DeviceGetProperties;
	t->pfnGetComputeProperties = DeviceGetComputeProperties;
	t->pfnGetModuleProperties = DeviceGetModuleProperties;
	t->pfnGetCommandQueueGroupProperties = DeviceGetCommandQueueGroupProperties;
	t->pfnGetMemoryProperties = DeviceGetMemoryProperties;
	t->pfnGetMemoryAccessProperties = DeviceGetMemoryAccessProperties;
	t->pfnGetGlobalTimestamps = DeviceGetGlobalTimestamps;
	t->pfnGetSubDevices = DeviceGetSubDevices;
	t->pfnGetImageProperties = DeviceGetImageProperties_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetContextProcAddrTable(ze_api_version_t v, ze_context_dditable_t *t) {
	t->pfnCreate = ContextCreate_locked;
	t->pfnCreateEx = ContextCreateEx_locked;
	t->pfnDestroy = ContextDestroy_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetMemProcAddrTable(ze_api_version_t v, ze_mem_dditable_t *t) {
	t->pfnAllocDevice = MemAllocDevice_locked;
	t->pfnAllocHost = MemAllocHost_locked;
	t->pfnAllocShared = MemAllocShared_locked;
	t->pfnFree = MemFree_locked;
	t->pfnGetAllocProperties = MemGetAllocProperties_locked;
	t->pfnGetAddressRange = MemGetAddressRange_locked;
	t->pfnGetIpcHandle = MemGetIpcHandle_locked;
	t->pfnOpenIpcHandle = MemOpenIpcHandle_locked;
	t->pfnCloseIpcHandle = MemCloseIpcHandle_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetEventPoolProcAddrTable(ze_api_version_t v, ze_event_pool_dditable_t *t) {
	t->pfnCreate = EventPoolCreate_locked;
	t->pfnDestroy = EventPoolDestroy_locked;
	t->pfnGetIpcHandle = EventPoolGetIpcHandle_locked;
	t->pfnOpenIpcHandle = EventPoolOpenIpcHandle_locked;
	t->pfnCloseIpcHandle = EventPoolCloseIpcHandle_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetEventProcAddrTable(ze_api_version_t v, ze_event_dditable_t *t) {
	t->pfnCreate = EventCreate_locked;
	t->pfnDestroy = EventDestroy_locked;
	t->pfnHostSignal = EventHostSignal_locked;
	t->pfnHostSynchronize = EventHostSynchronize_locked;
	t->pfnQueryStatus = EventQueryStatus_locked;
	t->pfnHostReset = EventHostReset_locked;
	t->pfnQueryKernelTimestamp = EventQueryKernelTimestamp_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetCommandListProcAddrTable(ze_api_version_t v, ze_command_list_dditable_t *t) {
	t->pfnCreateImmediate = CommandListCreateImmediate_locked;
	t->pfnDestroy = CommandListDestroy_locked;
	t->pfnAppendBarrier = AppendBarrier_locked;
	t->pfnAppendMemoryCopy = AppendMemoryCopy_locked;
	t->pfnAppendMemoryFill = AppendMemoryFill_locked;
	t->pfnAppendMemoryCopyRegion = AppendMemoryCopyRegion_locked;
	t->pfnAppendMemoryPrefetch = AppendMemoryPrefetch_locked;
	t->pfnAppendMemAdvise = AppendMemAdvise_locked;
	t->pfnAppendSignalEvent = AppendSignalEvent_locked;
	t->pfnAppendWaitOnEvents = AppendWaitOnEvents_locked;
	t->pfnAppendLaunchKernel = AppendLaunchKernel_locked;
	t->pfnAppendLaunchCooperativeKernel = AppendLaunchCooperativeKernel_locked;
	t->pfnCreate = CommandListCreate_locked;
	t->pfnClose = CommandListClose_locked;
	t->pfnReset = CommandListReset_locked;
	t->pfnAppendEventReset = AppendEventReset_locked;
	t->pfnAppendImageCopy = AppendImageCopy_locked;
	t->pfnAppendImageCopyRegion = AppendImageCopyRegion_locked;
	t->pfnAppendImageCopyToMemory = AppendImageCopyToMemory_locked;
	t->pfnAppendImageCopyFromMemory = AppendImageCopyFromMemory_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetModuleProcAddrTable(ze_api_version_t v, ze_module_dditable_t *t) {
	t->pfnCreate = ModuleCreate_locked;
	t->pfnDestroy = ModuleDestroy_locked;
	t->pfnDynamicLink = ModuleDynamicLink_locked;
	t->pfnGetNativeBinary = ModuleGetNativeBinary_locked;
	t->pfnGetKernelNames = ModuleGetKernelNames_locked;
	t->pfnGetGlobalPointer = ModuleGetGlobalPointer_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetModuleBuildLogProcAddrTable(ze_api_version_t v, ze_module_build_log_dditable_t *t) {
	t->pfnDestroy = BuildLogDestroy_locked;
	t->pfnGetString = BuildLogGetString_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetKernelProcAddrTable(ze_api_version_t v, ze_kernel_dditable_t *t) {
	t->pfnCreate = KernelCreate_locked;
	t->pfnDestroy = KernelDestroy_locked;
	t->pfnGetProperties = KernelGetProperties_locked;
	t->pfnSetArgumentValue = KernelSetArgumentValue_locked;
	t->pfnSetGroupSize = KernelSetGroupSize_locked;
	t->pfnSuggestGroupSize = KernelSuggestGroupSize_locked;
	t->pfnSuggestMaxCooperativeGroupCount = KernelSuggestMaxCooperativeGroupCount_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetKernelExpProcAddrTable(ze_api_version_t v, ze_kernel_exp_dditable_t *t) {
	t->pfnSetGlobalOffsetExp = KernelSetGlobalOffsetExp_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetCommandQueueProcAddrTable(ze_api_version_t v, ze_command_queue_dditable_t *t) {
	t->pfnCreate = CommandQueueCreate_locked;
	t->pfnDestroy = CommandQueueDestroy_locked;
	t->pfnExecuteCommandLists = CommandQueueExecuteCommandLists_locked;
	t->pfnSynchronize = CommandQueueSynchronize_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetImageProcAddrTable(ze_api_version_t v, ze_image_dditable_t *t) {
	t->pfnGetProperties = ImageGetProperties_locked;
	t->pfnCreate = ImageCreate_locked;
	t->pfnDestroy = ImageDestroy_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetSamplerProcAddrTable(ze_api_version_t v, ze_sampler_dditable_t *t) {
	t->pfnCreate = SamplerCreate_locked;
	t->pfnDestroy = SamplerDestroy_locked;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetFenceProcAddrTable(ze_api_version_t v, ze_fence_dditable_t *t) {
	t->pfnCreate = FenceCreate_locked;
	t->pfnDestroy = FenceDestroy_locked;
	t->pfnHostSynchronize = FenceHostSynchronize_locked;
	t->pfnQueryStatus = FenceQueryStatus_locked;
	t->pfnReset = FenceReset_locked;
	return ZE_RESULT_SUCCESS;
}

// ---- virtual memory -----------------------------------------------------
// Reservations are address space without access (mmap PROT_NONE);
// physical memory is a memfd, mapped into a reservation with MAP_FIXED, so
// that what is written through one mapping is the physical memory's.

#define VM_PAGE (64 * 1024)

typedef struct {
	unsigned magic;
	int fd;
	size_t size;
} physical_mem;

enum { M_PHYSICAL = 0x6f7a4480 };

static int vm_prot(ze_memory_access_attribute_t a) {
	switch (a) {
	case ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE: return PROT_READ | PROT_WRITE;
	case ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY: return PROT_READ;
	default: return PROT_NONE;
	}
}

static ze_result_t VirtualMemQueryPageSize(ze_context_handle_t c, ze_device_handle_t d, size_t size, size_t *page) {
	CHECK(c, M_CONTEXT);
	CHECK(d, M_DEVICE);
	if (!page) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeVirtualMemQueryPageSize: null pagesize");
	*page = VM_PAGE;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t VirtualMemReserve(ze_context_handle_t c, const void *start, size_t size, void **out) {
	CHECK(c, M_CONTEXT);
	if (!out) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeVirtualMemReserve: null pptr");
	if (size == 0 || size % VM_PAGE) return fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "zeVirtualMemReserve: %zu bytes", size);
	void *p = mmap((void *)start, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "zeVirtualMemReserve: mmap failed");
	// The range is device memory for copies and fills, as a real driver's.
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].base) continue;
		allocs[i] = (allocation){p, size, 1, (ze_device_handle_t)&the_device};
		*out = p;
		return ZE_RESULT_SUCCESS;
	}
	munmap(p, size);
	return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "zeVirtualMemReserve: too many allocations");
}

static ze_result_t VirtualMemFree(ze_context_handle_t c, const void *ptr, size_t size) {
	CHECK(c, M_CONTEXT);
	if (!ptr) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zeVirtualMemFree: null ptr");
	allocation *a = find_alloc(ptr);
	if (!a || a->base != ptr) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeVirtualMemFree: no reservation at %p", ptr);
	a->base = NULL;
	munmap((void *)ptr, size);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t PhysicalMemCreate(ze_context_handle_t c, ze_device_handle_t d, ze_physical_mem_desc_t *desc, ze_physical_mem_handle_t *out) {
	CHECK(c, M_CONTEXT);
	CHECK(d, M_DEVICE);
	STYPE(desc, ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC);
	if (!out) return fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zePhysicalMemCreate: null handle");
	if (desc->size == 0 || desc->size % VM_PAGE) return fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "zePhysicalMemCreate: %zu bytes", desc->size);
	int fd = memfd_create("ze_fake_physical", 0);
	if (fd < 0 || ftruncate(fd, (off_t)desc->size) != 0) {
		if (fd >= 0) close(fd);
		return fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "zePhysicalMemCreate: memfd failed");
	}
	physical_mem *m = calloc(1, sizeof *m);
	m->magic = M_PHYSICAL;
	m->fd = fd;
	m->size = desc->size;
	*out = (ze_physical_mem_handle_t)m;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t PhysicalMemDestroy(ze_context_handle_t c, ze_physical_mem_handle_t h) {
	CHECK(c, M_CONTEXT);
	CHECK(h, M_PHYSICAL);
	physical_mem *m = (physical_mem *)h;
	close(m->fd);
	m->magic = 0;
	free(m);
	return ZE_RESULT_SUCCESS;
}

static ze_result_t VirtualMemMap(ze_context_handle_t c, const void *ptr, size_t size, ze_physical_mem_handle_t h, size_t offset, ze_memory_access_attribute_t access) {
	CHECK(c, M_CONTEXT);
	CHECK(h, M_PHYSICAL);
	physical_mem *m = (physical_mem *)h;
	if (!ptr || size == 0 || offset + size > m->size) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeVirtualMemMap: %zu bytes at %zu of %zu", size, offset, m->size);
	if (mmap((void *)ptr, size, vm_prot(access), MAP_SHARED | MAP_FIXED, m->fd, (off_t)offset) == MAP_FAILED)
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeVirtualMemMap: mmap failed");
	return ZE_RESULT_SUCCESS;
}

static ze_result_t VirtualMemUnmap(ze_context_handle_t c, const void *ptr, size_t size) {
	CHECK(c, M_CONTEXT);
	if (mmap((void *)ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
		return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeVirtualMemUnmap: mmap failed");
	return ZE_RESULT_SUCCESS;
}

static ze_result_t VirtualMemSetAccessAttribute(ze_context_handle_t c, const void *ptr, size_t size, ze_memory_access_attribute_t access) {
	CHECK(c, M_CONTEXT);
	if (mprotect((void *)ptr, size, vm_prot(access)) != 0) return fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeVirtualMemSetAccessAttribute: mprotect failed");
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetVirtualMemProcAddrTable(ze_api_version_t v, ze_virtual_mem_dditable_t *t) {
	t->pfnReserve = VirtualMemReserve;
	t->pfnFree = VirtualMemFree;
	t->pfnQueryPageSize = VirtualMemQueryPageSize;
	t->pfnMap = VirtualMemMap;
	t->pfnUnmap = VirtualMemUnmap;
	t->pfnSetAccessAttribute = VirtualMemSetAccessAttribute;
	return ZE_RESULT_SUCCESS;
}

EXPORT zeGetPhysicalMemProcAddrTable(ze_api_version_t v, ze_physical_mem_dditable_t *t) {
	t->pfnCreate = PhysicalMemCreate;
	t->pfnDestroy = PhysicalMemDestroy;
	return ZE_RESULT_SUCCESS;
}

// The loader asks every driver for every table; the ones the fake does not
// implement stay empty.
#define EMPTY(name, type) \
	EXPORT name(ze_api_version_t v, type *t) { return ZE_RESULT_SUCCESS; }

EMPTY(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
EMPTY(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t)
EMPTY(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
EMPTY(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
EMPTY(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
EMPTY(zetGetCommandListProcAddrTable, zet_command_list_dditable_t)
EMPTY(zetGetContextProcAddrTable, zet_context_dditable_t)
EMPTY(zetGetDebugProcAddrTable, zet_debug_dditable_t)
EMPTY(zetGetDeviceProcAddrTable, zet_device_dditable_t)
EMPTY(zetGetKernelProcAddrTable, zet_kernel_dditable_t)
EMPTY(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t)
EMPTY(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t)
EMPTY(zetGetMetricProcAddrTable, zet_metric_dditable_t)
EMPTY(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t)
EMPTY(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t)
EMPTY(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t)
EMPTY(zetGetModuleProcAddrTable, zet_module_dditable_t)
EMPTY(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
EMPTY(zesGetDeviceProcAddrTable, zes_device_dditable_t)
EMPTY(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
EMPTY(zesGetDriverProcAddrTable, zes_driver_dditable_t)
EMPTY(zesGetEngineProcAddrTable, zes_engine_dditable_t)
EMPTY(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
EMPTY(zesGetFanProcAddrTable, zes_fan_dditable_t)
EMPTY(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
EMPTY(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
EMPTY(zesGetLedProcAddrTable, zes_led_dditable_t)
EMPTY(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
EMPTY(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
EMPTY(zesGetPowerProcAddrTable, zes_power_dditable_t)
EMPTY(zesGetPsuProcAddrTable, zes_psu_dditable_t)
EMPTY(zesGetRasProcAddrTable, zes_ras_dditable_t)
EMPTY(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
EMPTY(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
EMPTY(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
