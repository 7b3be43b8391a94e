package record

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func sample() *Record {
	r := New()
	m := Metric{Name: "launch.queue", Unit: "ns", Better: Lower, Rounds: []float64{3, 1, 2, 10}, Check: CheckOK}
	m.Summarize()
	r.Devices = []Device{{ID: "opencl:0", Backend: "opencl", Name: "cpu", Metrics: []Metric{m},
		Conformance: []Case{{Name: "TestA", Status: Pass, Duration: 0.5}}}}
	return r
}

func TestSummarize(t *testing.T) {
	m := sample().Devices[0].Metrics[0]
	if m.Median != 2.5 || m.Min != 1 || m.Max != 10 {
		t.Errorf("median/min/max of %v = %g/%g/%g, want 2.5/1/10", m.Rounds, m.Median, m.Min, m.Max)
	}
	if got := Median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("Median(5, 1, 3) = %g, want 3", got)
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	want := sample()
	if err := want.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != SchemaVersion || got.Devices[0].Metrics[0].Median != 2.5 || got.Devices[0].Conformance[0].Status != Pass || !got.Date.Equal(want.Date) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

func TestReadRefuses(t *testing.T) {
	encoded := func(edit func(*Record)) string {
		r := sample()
		edit(r)
		var buf bytes.Buffer
		if err := r.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	for _, tc := range []struct {
		name, input, want string
		schema            bool
	}{
		{"not JSON", "{", "malformed JSON", false},
		{"no schema", `{"devices": []}`, `no "schema" field`, true},
		{"other schema", encoded(func(r *Record) { r.Schema = 2 }), "schema version 2 (this urcompare reads 1)", true},
		{"unknown field", strings.Replace(encoded(func(*Record) {}), `"schema": 1,`, `"schema": 1, "extra": true,`, 1), `unknown field "extra"`, false},
		{"wrong type", strings.Replace(encoded(func(*Record) {}), `"rounds": 0`, `"rounds": "ten"`, 1), "malformed record", false},
		{"duplicate device", encoded(func(r *Record) { r.Devices = append(r.Devices, r.Devices[0]) }), "device opencl:0 appears twice", false},
		{"no unit", encoded(func(r *Record) { r.Devices[0].Metrics[0].Unit = "" }), "metric launch.queue has no unit", false},
		{"bad direction", encoded(func(r *Record) { r.Devices[0].Metrics[0].Better = "faster" }), `better is "faster"`, false},
		{"bad check", encoded(func(r *Record) { r.Devices[0].Metrics[0].Check = "fine" }), `unknown check "fine"`, false},
		{"bad status", encoded(func(r *Record) { r.Devices[0].Conformance[0].Status = "green" }), `unknown status "green"`, false},
		{"summary off", encoded(func(r *Record) { r.Devices[0].Metrics[0].Median = 7 }), "do not match its rounds", false},
	} {
		_, err := Read(strings.NewReader(tc.input))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read = %v, want an error saying %q", tc.name, err, tc.want)
		}
		if errors.Is(err, ErrSchema) != tc.schema {
			t.Errorf("%s: errors.Is(%v, ErrSchema) = %v, want %v", tc.name, err, !tc.schema, tc.schema)
		}
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	_, err := ReadFile("testdata/does-not-exist.json")
	if err == nil || !strings.Contains(err.Error(), "does-not-exist.json") {
		t.Errorf("ReadFile of a missing file = %v, want an error naming it", err)
	}
}
