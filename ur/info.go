package ur

import (
	"errors"
	"fmt"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// DeviceQuery is one device property, named and numbered as the Unified
// Runtime's ur_device_info_t: DeviceInfoMaxComputeUnits is
// UR_DEVICE_INFO_MAX_COMPUTE_UNITS. Device.Query answers it.
type DeviceQuery = driver.DeviceQuery

// QueryKind is the Go type of a query's value (DeviceQuery.Kind).
type QueryKind = driver.QueryKind

// Query kinds: the dynamic type of the value Device.Query gives.
const (
	QueryUint32  = driver.QueryUint32  // uint32
	QueryUint64  = driver.QueryUint64  // uint64 (uint64_t and size_t)
	QueryBool    = driver.QueryBool    // bool
	QueryString  = driver.QueryString  // string
	QueryFlags   = driver.QueryFlags   // uint64, a ur_*_flags_t bit-field
	QueryEnum    = driver.QueryEnum    // uint32, a ur_*_t enumerator
	QueryUint64s = driver.QueryUint64s // []uint64
	QueryUint32s = driver.QueryUint32s // []uint32
	QueryBytes   = driver.QueryBytes   // []byte
	QueryHandle  = driver.QueryHandle  // *Platform or *Device
	QueryHandles = driver.QueryHandles // []*Device
)

// DeviceQueryInfo describes a query: number, name without the
// UR_DEVICE_INFO_ prefix, kind.
type DeviceQueryInfo = driver.DeviceQueryInfo

// DeviceQueries lists every query Device.Query knows, in ur_device_info_t
// order.
func DeviceQueries() []DeviceQueryInfo { return driver.DeviceQueries() }

// DeviceQueryResult is one query's answer: Value, or Err when the device
// cannot answer.
type DeviceQueryResult struct {
	DeviceQueryInfo
	Value any
	Err   error
}

// Query answers one device property, as the Unified Runtime's
// urDeviceGetInfo: the value's dynamic type is q.Kind()'s (uint32,
// uint64, bool, string, []uint64, []uint32, []byte; *Platform for
// DeviceInfoPlatform, *Device for DeviceInfoParentDevice, nil for a root
// device). The driver is asked first (clGetDeviceInfo,
// cuDeviceGetAttribute, zeDeviceGet*Properties); what it cannot answer
// comes from what gour knows of the device (DeviceInfo, PartitionInfo,
// the front end's own features), and what neither knows is an error
// matching both ErrUnsupportedFeature and the Unified Runtime's
// ErrUnsupportedEnumeration, never a zero value. A number that is no
// query gives ErrInvalidEnumeration.
func (d *Device) Query(q DeviceQuery) (rv any, rerr error) {
	const op = "Device.Query"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d)
		tc.args.Uint("query", uint64(q))
		defer tc.end(&rerr)
	}

	if d == nil {
		return nil, nilHandle("Device", op)
	}
	if err := d.usable(op); err != nil {
		return nil, err
	}
	info, ok := q.Lookup()
	if !ok {
		return nil, newError(ErrInvalidEnumeration, op, d.adapter.name, "%s is no device query", q)
	}
	if v, handled, err := d.frontQuery(q); handled {
		if err != nil {
			return nil, d.queryError(op, q, err)
		}
		return v, nil
	}
	var why error
	if dq, ok := d.drv.(driver.DeviceQuerier); ok {
		v, err := dq.Query(q)
		switch {
		case err == nil:
			v, err := normalizeQuery(info, v)
			if err != nil {
				return nil, newError(ErrUnknown, op, d.adapter.name, "%s: %v", q, err)
			}
			return v, nil
		case errors.Is(err, driver.ResultUnsupportedEnumeration) || errors.Is(err, driver.ResultUnsupportedFeature):
			why = err
		default:
			return nil, wrapError(err, op, d.adapter.name)
		}
	}
	if v, ok := d.infoQuery(q); ok {
		return v, nil
	}
	if why == nil {
		why = driver.Unanswered(q, "the "+d.adapter.name+" adapter does not answer it")
	}
	return nil, d.queryError(op, q, why)
}

// queryError makes the unsupported error of q, matching
// ErrUnsupportedFeature and ErrUnsupportedEnumeration, from an adapter's
// or the front end's reason; other errors are wrapped as they are.
func (d *Device) queryError(op string, q DeviceQuery, err error) error {
	if !errors.Is(err, driver.ResultUnsupportedEnumeration) && !errors.Is(err, driver.ResultUnsupportedFeature) {
		return wrapError(err, op, d.adapter.name)
	}
	msg := err.Error()
	var de *driver.Error
	if errors.As(err, &de) {
		msg = de.Message
	}
	return &Error{Result: ErrUnsupportedFeature, Op: op, Adapter: d.adapter.name,
		Message: fmt.Sprintf("device %q cannot answer %s: %s", d.info.Name, q, trimQuery(msg, q)),
		Err:     ErrUnsupportedEnumeration}
}

func trimQuery(msg string, q DeviceQuery) string {
	prefix := q.String() + ": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return msg
}

// QueryUint answers a query of kind QueryUint32, QueryUint64, QueryFlags
// or QueryEnum as a uint64; another kind gives ErrInvalidValue.
func (d *Device) QueryUint(q DeviceQuery) (uint64, error) {
	if err := d.checkKind("Device.QueryUint", q, QueryUint32, QueryUint64, QueryFlags, QueryEnum); err != nil {
		return 0, err
	}
	v, err := d.Query(q)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case uint32:
		return uint64(v), nil
	case uint64:
		return v, nil
	}
	return 0, newError(ErrUnknown, "Device.QueryUint", d.adapter.name, "%s gave %T", q, v)
}

// QueryBool answers a query of kind QueryBool; another kind gives
// ErrInvalidValue.
func (d *Device) QueryBool(q DeviceQuery) (bool, error) {
	if err := d.checkKind("Device.QueryBool", q, QueryBool); err != nil {
		return false, err
	}
	v, err := d.Query(q)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

// QueryString answers a query of kind QueryString; another kind gives
// ErrInvalidValue.
func (d *Device) QueryString(q DeviceQuery) (string, error) {
	if err := d.checkKind("Device.QueryString", q, QueryString); err != nil {
		return "", err
	}
	v, err := d.Query(q)
	if err != nil {
		return "", err
	}
	s, _ := v.(string)
	return s, nil
}

func (d *Device) checkKind(op string, q DeviceQuery, kinds ...QueryKind) error {
	if d == nil {
		return nilHandle("Device", op)
	}
	info, ok := q.Lookup()
	if !ok {
		return newError(ErrInvalidEnumeration, op, d.adapter.name, "%s is no device query", q)
	}
	for _, k := range kinds {
		if info.Kind == k {
			return nil
		}
	}
	return newError(ErrInvalidValue, op, d.adapter.name, "%s is of kind %s", q, info.Kind)
}

// QueryAll answers every query of DeviceQueries, in order: the table
// urinfo --verbose and --json print.
func (d *Device) QueryAll() []DeviceQueryResult {
	qs := DeviceQueries()
	out := make([]DeviceQueryResult, len(qs))
	for i, info := range qs {
		v, err := d.Query(info.Query)
		out[i] = DeviceQueryResult{DeviceQueryInfo: info, Value: v, Err: err}
	}
	return out
}

// normalizeQuery checks an adapter's value against the query's kind,
// widening what may be widened (an int, a uint32 for a uint64).
func normalizeQuery(info DeviceQueryInfo, v any) (any, error) {
	bad := func() (any, error) { return nil, fmt.Errorf("the adapter gave %T for a %s query", v, info.Kind) }
	switch info.Kind {
	case QueryUint32, QueryEnum:
		switch x := v.(type) {
		case uint32:
			return x, nil
		case int:
			return uint32(x), nil
		}
	case QueryUint64, QueryFlags:
		switch x := v.(type) {
		case uint64:
			return x, nil
		case uint32:
			return uint64(x), nil
		case int:
			return uint64(x), nil
		}
	case QueryBool:
		if x, ok := v.(bool); ok {
			return x, nil
		}
	case QueryString:
		if x, ok := v.(string); ok {
			return x, nil
		}
	case QueryUint64s:
		if x, ok := v.([]uint64); ok {
			return x, nil
		}
	case QueryUint32s:
		if x, ok := v.([]uint32); ok {
			return x, nil
		}
	case QueryBytes:
		if x, ok := v.([]byte); ok {
			return x, nil
		}
	}
	return bad()
}

// frontQuery answers the queries the front end owns: handles, what it
// provides itself (pools), what it keeps (partitions, USM) and what
// optional driver interfaces say. handled is false for the others.
func (d *Device) frontQuery(q DeviceQuery) (v any, handled bool, err error) {
	switch q {
	case DeviceInfoPlatform:
		return d.platform, true, nil
	case DeviceInfoParentDevice:
		return d.parent, true, nil
	case DeviceInfoComponentDevices, DeviceInfoCompositeDevice:
		return nil, true, driver.Unanswered(q, "gour has no composite devices")
	case DeviceInfoUSMPoolSupport:
		return true, true, nil // the front end pools where the driver does not
	case DeviceInfoGlobalMemFree:
		free, _, err := d.FreeMemory()
		if err != nil {
			return nil, true, driver.Unanswered(q, "the driver does not report free memory")
		}
		return free, true, nil
	case DeviceInfoPartitionMaxSubDevices:
		return d.PartitionInfo().MaxSubDevices, true, nil
	case DeviceInfoSupportedPartitions:
		out := []uint32{}
		for _, k := range d.PartitionInfo().Kinds {
			out = append(out, partitionEnum(k))
		}
		return out, true, nil
	case DeviceInfoPartitionAffinityDomain:
		var flags uint64
		for _, dom := range d.PartitionInfo().Domains {
			flags |= 1 << (uint(dom) - 1)
		}
		return flags, true, nil
	case DeviceInfoPartitionType:
		p := d.partition
		if d.parent == nil || p.Kind == PartitionNone {
			return []uint32{}, true, nil
		}
		out := []uint32{partitionEnum(p.Kind)}
		switch p.Kind {
		case PartitionEqually:
			out = append(out, p.Units)
		case PartitionByCounts:
			out = append(out, p.Counts...)
		case PartitionByAffinityDomain:
			out = append(out, 1<<(uint(p.Domain)-1))
		}
		return out, true, nil
	case DeviceInfoUSMHostSupport, DeviceInfoUSMDeviceSupport, DeviceInfoUSMSingleSharedSupport,
		DeviceInfoUSMCrossSharedSupport, DeviceInfoUSMSystemSharedSupport:
		if dq, ok := d.drv.(driver.DeviceQuerier); ok {
			if v, err := dq.Query(q); err == nil {
				v, err := normalizeQuery(DeviceQueryInfo{Kind: QueryFlags}, v)
				return v, true, err
			}
		}
		u := d.info.USM
		has := map[DeviceQuery]bool{DeviceInfoUSMHostSupport: u.Host, DeviceInfoUSMDeviceSupport: u.Device,
			DeviceInfoUSMSingleSharedSupport: u.Shared}[q]
		if has {
			return uint64(driver.USMAccess), true, nil
		}
		return uint64(0), true, nil
	}
	if f := frontQueries[q]; f != nil {
		v, err := f(d)
		return v, true, err
	}
	return nil, false, nil
}

// frontQueries holds the answers other files of the front end give
// (virtual memory, timestamps, IPC): each asks its optional driver
// interface.
var frontQueries = map[DeviceQuery]func(d *Device) (any, error){}

// partitionEnum is ur_device_partition_t's value of a kind.
func partitionEnum(k PartitionKind) uint32 {
	switch k {
	case PartitionEqually:
		return 0x1086
	case PartitionByCounts:
		return 0x1087
	case PartitionByAffinityDomain:
		return 0x1088
	}
	return 0
}

// infoQuery answers from DeviceInfo, what every adapter reports at
// discovery; ok is false for a query DeviceInfo does not hold or holds as
// unknown (an empty UUID).
func (d *Device) infoQuery(q DeviceQuery) (any, bool) {
	in := &d.info
	switch q {
	case DeviceInfoType:
		switch in.Type {
		case DeviceTypeGPU:
			return uint32(driver.URDeviceTypeGPU), true
		case DeviceTypeCPU:
			return uint32(driver.URDeviceTypeCPU), true
		case DeviceTypeAccelerator:
			return uint32(driver.URDeviceTypeFPGA), true
		}
		return uint32(driver.URDeviceTypeMCA), true
	case DeviceInfoVendorID:
		return in.VendorID, true
	case DeviceInfoMaxComputeUnits, DeviceInfoNumComputeUnits:
		return in.ComputeUnits, true
	case DeviceInfoMaxWorkItemDimensions:
		return uint32(3), true
	case DeviceInfoMaxWorkItemSizes:
		return in.MaxWorkItemSizes[:], true
	case DeviceInfoMaxWorkGroupSize:
		return in.MaxWorkGroupSize, true
	case DeviceInfoMaxClockFrequency:
		return in.MaxClockMHz, true
	case DeviceInfoAddressBits:
		return in.AddressBits, true
	case DeviceInfoMaxMemAllocSize:
		return in.MaxMemAllocSize, true
	case DeviceInfoGlobalMemSize:
		return in.GlobalMemSize, true
	case DeviceInfoLocalMemSize:
		return in.LocalMemSize, true
	case DeviceInfoHostUnifiedMemory:
		return in.HostUnifiedMemory, true
	case DeviceInfoProfilingTimerResolution:
		return in.ProfilingResolutionNS, true
	case DeviceInfoName:
		return in.Name, true
	case DeviceInfoVendor:
		return in.Vendor, true
	case DeviceInfoDriverVersion:
		return in.DriverVersion, true
	case DeviceInfoVersion:
		return in.DeviceVersion, true
	case DeviceInfoExtensions:
		return in.Extensions, true
	case DeviceInfoILVersion:
		if in.ILVersions == "" {
			return nil, false
		}
		return in.ILVersions, true
	case DeviceInfoAvailable:
		return true, true
	case DeviceInfoUUID:
		return uuidBytes(in.UUID)
	}
	if q >= DeviceInfoPreferredVectorWidthChar && q <= DeviceInfoPreferredVectorWidthHalf {
		return in.PreferredVectorWidths[q-DeviceInfoPreferredVectorWidthChar], true
	}
	if q >= DeviceInfoNativeVectorWidthChar && q <= DeviceInfoNativeVectorWidthHalf {
		return in.NativeVectorWidths[q-DeviceInfoNativeVectorWidthChar], true
	}
	if q == DeviceInfoMemBaseAddrAlign && in.MemBaseAddrAlign != 0 {
		return uint32(in.MemBaseAddrAlign * 8), true // bits, as CL_DEVICE_MEM_BASE_ADDR_ALIGN
	}
	return nil, false
}

// uuidBytes reads the 16 bytes of a UUID DeviceInfo spells in hex with
// dashes and an optional prefix ("GPU-5a5d…"); ok is false for another
// form or none.
func uuidBytes(s string) (any, bool) {
	var out []byte
	hexval := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case c >= 'a' && c <= 'f':
			return int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10
		}
		return -1
	}
	if i := len(s) - 36; i >= 0 {
		s = s[i:]
	}
	var digits []int
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			continue
		}
		v := hexval(s[i])
		if v < 0 {
			return nil, false
		}
		digits = append(digits, v)
	}
	if len(digits) != 32 {
		return nil, false
	}
	for i := 0; i < 32; i += 2 {
		out = append(out, byte(digits[i]<<4|digits[i+1]))
	}
	return out, true
}
