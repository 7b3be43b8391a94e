package driver

// TimestampDevice is implemented by devices that read their timer and
// the host's together (the Unified Runtime's urDeviceGetGlobalTimestamps:
// clGetDeviceAndHostTimer, zeDeviceGetGlobalTimestamps; CUDA through an
// event's elapsed time from one recorded with the host clock read).
type TimestampDevice interface {
	// GlobalTimestamps returns the device's timestamp and the host's, in
	// nanoseconds, read as close together as the driver can.
	GlobalTimestamps() (device, host uint64, err error)
}

// TimestampQueue is implemented by queues that record a device timestamp
// in order (urEnqueueTimestampRecordingExp) themselves; elsewhere the
// front end uses a marker on a profiling queue.
type TimestampQueue interface {
	// RecordTimestamp returns an event whose Profiling Start and End are
	// the device time at which the commands before it had completed.
	RecordTimestamp(blocking bool, wait []Event) (Event, error)
}
