package driver

import "testing"

// TestDeviceQueryTable: the table is in ascending order without
// duplicates (Lookup searches it) and every query has a kind.
func TestDeviceQueryTable(t *testing.T) {
	qs := DeviceQueries()
	if len(qs) < 130 {
		t.Fatalf("%d queries", len(qs))
	}
	for i, q := range qs {
		if i > 0 && qs[i-1].Query >= q.Query {
			t.Errorf("%s after %s", q.Query, qs[i-1].Query)
		}
		if q.Kind == 0 {
			t.Errorf("%s has no kind", q.Query)
		}
		if got, ok := q.Query.Lookup(); !ok || got != q {
			t.Errorf("Lookup(%d) = %v, %v", q.Query, got, ok)
		}
	}
	if DeviceInfoMaxComputeUnits != 3 || DeviceInfoTimestampRecordingSupportExp != 0x2018 || DeviceInfoProgramSetSpecializationConstants != 121 {
		t.Error("numbers differ from ur_device_info_t")
	}
	if _, ok := DeviceQuery(0x7777).Lookup(); ok {
		t.Error("0x7777 found")
	}
	if s := DeviceQuery(0x7777).String(); s != "DeviceQuery(0x7777)" {
		t.Error(s)
	}
}
