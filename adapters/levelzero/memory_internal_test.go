package levelzero

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// TestUSMSupport maps zeDeviceGetMemoryAccessProperties: a kind with
// zero capabilities is missing, and a failing query leaves no USM.
func TestUSMSupport(t *testing.T) {
	rw := ze.MemoryAccessCapFlagRW
	got := usmSupport(&ze.DeviceMemoryAccessProperties{DeviceAllocCapabilities: rw, HostAllocCapabilities: rw, SharedCrossDeviceAllocCapabilities: rw}, ze.Success)
	if !got.Device || !got.Host || got.Shared || got.Via != "level_zero" || !strings.Contains(got.Missing, "shared") {
		t.Errorf("device and host only: %+v", got)
	}
	got = usmSupport(&ze.DeviceMemoryAccessProperties{}, ze.Success)
	if got.Device || got.Host || got.Shared || got.Via != "" || got.Missing == "" {
		t.Errorf("no capabilities: %+v", got)
	}
	got = usmSupport(&ze.DeviceMemoryAccessProperties{DeviceAllocCapabilities: rw}, ze.ErrorUnsupportedFeature)
	if got.Device || !strings.Contains(got.Missing, "zeDeviceGetMemoryAccessProperties") {
		t.Errorf("failing query: %+v", got)
	}
}

func TestZeAdvice(t *testing.T) {
	for _, c := range []struct {
		advice    driver.USMAdvice
		want      ze.MemoryAdvice
		ok, known bool
	}{
		{driver.AdviseReadMostly, ze.MemoryAdviceSetReadMostly, true, true},
		{driver.AdviseClearReadMostly, ze.MemoryAdviceClearReadMostly, true, true},
		{driver.AdvisePreferDevice, ze.MemoryAdviceSetPreferredLocation, true, true},
		{driver.AdvisePreferHost, ze.MemoryAdviceClearPreferredLocation, true, true},
		{driver.AdviseAccessedByDevice, 0, false, true},
		{driver.AdviseClearAccessedByDevice, 0, false, true},
		{0, 0, false, false},
		{driver.AdviseClearAccessedByDevice + 1, 0, false, false},
	} {
		a, ok, known := zeAdvice(c.advice)
		if a != c.want || ok != c.ok || known != c.known {
			t.Errorf("zeAdvice(%d) = %v, %v, %v; want %v, %v, %v", c.advice, a, ok, known, c.want, c.ok, c.known)
		}
	}
}

// TestCopyRectLimits: extents and pitches past ze_copy_region_t's 32 bits
// are refused before any driver call (the queue has no list to call on).
func TestCopyRectLimits(t *testing.T) {
	q := &queue{}
	for _, r := range []driver.Rect{
		{Region: [3]uint64{1 << 32, 1, 1}, SrcRowPitch: 1 << 32, DstRowPitch: 1 << 32},
		{Region: [3]uint64{16, 2, 1}, SrcRowPitch: 16, DstRowPitch: 1 << 33},
		{Region: [3]uint64{16, 2, 2}, SrcRowPitch: 16, SrcSlicePitch: 1 << 32, DstRowPitch: 16, DstSlicePitch: 32},
	} {
		_, err := q.CopyRect(driver.RectOperand{Ptr: 0x1000}, driver.RectOperand{Ptr: 0x2000}, r, false, nil, false)
		if !errors.Is(err, driver.ResultUnsupportedSize) {
			t.Errorf("CopyRect(%+v) = %v, want UNSUPPORTED_SIZE", r, err)
		}
	}
}
