package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compare/record"
)

func twoDrivers() *record.Record {
	r := record.New()
	ok := record.Metric{Name: "copy.h2d", Unit: "GB/s", Better: record.Higher, Rounds: []float64{10, 12, 11}, Check: record.CheckOK}
	ok.Summarize()
	wrong := record.Metric{Name: "copy.h2d", Unit: "GB/s", Better: record.Higher, Check: record.CheckWrong, Detail: "differs at byte 4"}
	r.Devices = []record.Device{
		{ID: "cuda:0", Metrics: []record.Metric{ok}, Conformance: []record.Case{{Name: "TestSame", Status: record.Pass}, {Name: "TestDiffers", Status: record.Pass}}},
		{ID: "opencl:0", Metrics: []record.Metric{wrong}, Conformance: []record.Case{{Name: "TestSame", Status: record.Pass}, {Name: "TestDiffers", Status: record.Fail, Reason: "got 3"}}},
	}
	return r
}

func TestDifferencesBetweenDriversComeFirst(t *testing.T) {
	rows := caseRows(twoDrivers())
	if len(rows) != 2 || rows[0].Name != "TestDiffers" || !rows[0].Differs || rows[1].Differs {
		t.Errorf("rows %+v, want TestDiffers first, marked as differing", rows)
	}
	var md bytes.Buffer
	if err := Markdown(&md, twoDrivers(), ""); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, want := range []string{"### Differences between drivers (1 cases)", "| TestDiffers | pass | fail |", "TestDiffers on opencl:0: fail: got 3", "| copy.h2d | GB/s | higher | 11 (10–12) | WRONG |", "differs at byte 4"} {
		if !strings.Contains(s, want) {
			t.Errorf("report has no %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "Differences between drivers") > strings.Index(s, "The same on every device") {
		t.Error("the cases that are the same come before the differences")
	}
}

func TestChartsAndPage(t *testing.T) {
	charts, err := Charts(twoDrivers())
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 1 || !bytes.Contains(charts[0].SVG, []byte("<svg")) || !bytes.HasPrefix(charts[0].PNG, []byte("\x89PNG")) {
		t.Fatalf("charts %d, want one with an SVG and a PNG", len(charts))
	}
	var page bytes.Buffer
	if err := HTML(&page, twoDrivers(), charts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "data:image/png;base64,", `<td class="fail" title="got 3">fail</td>`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page has no %q", want)
		}
	}
}
