package driver

import (
	"fmt"
	"sort"
)

// This file holds the device queries beyond DeviceInfo: every property
// the Unified Runtime's urDeviceGetInfo names (ur_device_info_t), answered
// one at a time. DeviceInfo stays the properties read once at discovery;
// a query is read when asked (GLOBAL_MEM_FREE changes).

// DeviceQuery is one device property, numbered as the Unified Runtime's
// ur_device_info_t (deviceinfo_generated.go lists them).
type DeviceQuery uint32

// QueryKind is the Go type of a query's value.
type QueryKind uint8

// Query kinds and the dynamic type of the value each gives.
const (
	QueryUint32  QueryKind = iota + 1 // uint32
	QueryUint64                       // uint64 (uint64_t and size_t)
	QueryBool                         // bool
	QueryString                       // string
	QueryFlags                        // uint64: a ur_*_flags_t bit-field
	QueryEnum                         // uint32: a ur_*_t enumerator
	QueryUint64s                      // []uint64 (size_t[])
	QueryUint32s                      // []uint32
	QueryBytes                        // []byte (a UUID)
	QueryHandle                       // a handle (the front end answers these)
	QueryHandles                      // handles (the front end answers these)
)

// String names the kind as the Go type of its values.
func (k QueryKind) String() string {
	switch k {
	case QueryUint32, QueryEnum:
		return "uint32"
	case QueryUint64, QueryFlags:
		return "uint64"
	case QueryBool:
		return "bool"
	case QueryString:
		return "string"
	case QueryUint64s:
		return "[]uint64"
	case QueryUint32s:
		return "[]uint32"
	case QueryBytes:
		return "[]byte"
	case QueryHandle:
		return "handle"
	case QueryHandles:
		return "[]handle"
	}
	return fmt.Sprintf("QueryKind(%d)", uint8(k))
}

// DeviceQueryInfo describes one query: its number, the Unified Runtime's
// name without the UR_DEVICE_INFO_ prefix, and its value's kind.
type DeviceQueryInfo struct {
	Query DeviceQuery
	Name  string
	Kind  QueryKind
}

// DeviceQueries lists every query gour knows, in ur_device_info_t order.
func DeviceQueries() []DeviceQueryInfo {
	return append([]DeviceQueryInfo(nil), deviceQueries...)
}

// Lookup describes q; ok is false for a number that is no query.
func (q DeviceQuery) Lookup() (info DeviceQueryInfo, ok bool) {
	i := sort.Search(len(deviceQueries), func(i int) bool { return deviceQueries[i].Query >= q })
	if i < len(deviceQueries) && deviceQueries[i].Query == q {
		return deviceQueries[i], true
	}
	return DeviceQueryInfo{}, false
}

// String is the Unified Runtime's name, "UR_DEVICE_INFO_MAX_COMPUTE_UNITS",
// or "DeviceQuery(n)" for a number that is no query.
func (q DeviceQuery) String() string {
	if info, ok := q.Lookup(); ok {
		return "UR_DEVICE_INFO_" + info.Name
	}
	return fmt.Sprintf("DeviceQuery(%#x)", uint32(q))
}

// Kind is the kind of q's value, 0 for a number that is no query.
func (q DeviceQuery) Kind() QueryKind {
	info, _ := q.Lookup()
	return info.Kind
}

// DeviceQuerier is implemented by devices that answer queries themselves
// (clGetDeviceInfo, cuDeviceGetAttribute, zeDeviceGet*Properties). Query
// is given only queries Lookup knows, never a handle kind, and returns a
// value of the query's kind, or an error with ResultUnsupportedEnumeration
// for a query the driver cannot answer: the front end then answers from
// DeviceInfo where it can, and otherwise reports it unsupported.
type DeviceQuerier interface {
	Query(q DeviceQuery) (any, error)
}

// Unanswered is the error of a query the driver cannot answer, naming
// why.
func Unanswered(q DeviceQuery, why string) *Error {
	return Errorf(ResultUnsupportedEnumeration, "%s: %s", q, why)
}

// Bit-fields some queries give, with the Unified Runtime's values.
const (
	// ur_device_usm_access_capability_flags_t
	USMAccess                 = 1 << 0
	USMAtomicAccess           = 1 << 1
	USMConcurrentAccess       = 1 << 2
	USMAtomicConcurrentAccess = 1 << 3

	// ur_device_fp_capability_flags_t
	FPCorrectlyRoundedDivideSqrt = 1 << 0
	FPRoundToNearest             = 1 << 1
	FPRoundToZero                = 1 << 2
	FPRoundToInf                 = 1 << 3
	FPInfNaN                     = 1 << 4
	FPDenorm                     = 1 << 5
	FPFMA                        = 1 << 6
	FPSoftFloat                  = 1 << 7

	// ur_queue_flags_t (the bits device queries report)
	QueueFlagOutOfOrder = 1 << 0
	QueueFlagProfiling  = 1 << 1

	// ur_device_exec_capability_flags_t
	ExecKernel       = 1 << 0
	ExecNativeKernel = 1 << 1

	// ur_memory_order_capability_flags_t
	MemoryOrderRelaxed = 1 << 0
	MemoryOrderAcquire = 1 << 1
	MemoryOrderRelease = 1 << 2
	MemoryOrderAcqRel  = 1 << 3
	MemoryOrderSeqCst  = 1 << 4

	// ur_memory_scope_capability_flags_t
	MemoryScopeWorkItem  = 1 << 0
	MemoryScopeSubGroup  = 1 << 1
	MemoryScopeWorkGroup = 1 << 2
	MemoryScopeDevice    = 1 << 3
	MemoryScopeSystem    = 1 << 4
)

// Enumerators some queries give, with the Unified Runtime's values.
const (
	// ur_device_type_t
	URDeviceTypeGPU  = 3
	URDeviceTypeCPU  = 4
	URDeviceTypeFPGA = 5
	URDeviceTypeMCA  = 6

	// ur_device_mem_cache_type_t
	CacheNone      = 0
	CacheReadOnly  = 1
	CacheReadWrite = 2

	// ur_device_local_mem_type_t
	LocalMemNone   = 0
	LocalMemLocal  = 1
	LocalMemGlobal = 2
)
