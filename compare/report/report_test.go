package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"

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

// gpuAndCPU is a GPU and a CPU a thousand times slower, with their names.
func gpuAndCPU(cpu float64) *record.Record {
	r := record.New()
	m := func(v float64) record.Metric {
		m := record.Metric{Name: "axpy", Unit: "GB/s", Better: record.Higher, Rounds: []float64{v * 0.98, v, v * 1.01}, Check: record.CheckOK}
		m.Summarize()
		return m
	}
	r.Devices = []record.Device{
		{ID: "cuda:0", Name: "NVIDIA H100 80GB HBM3", Platform: "NVIDIA CUDA BACKEND", Metrics: []record.Metric{m(2480)}},
		{ID: "opencl:0", Name: "cpu-skylake-avx512-Intel(R) Xeon(R) Processor", Platform: "Portable Computing Language", Metrics: []record.Metric{m(cpu)}},
		{ID: "opencl:1", Name: "NVIDIA H100 80GB HBM3", Platform: "NVIDIA CUDA", Metrics: []record.Metric{m(2652)}},
	}
	return r
}

var svgText = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*font-size:([0-9.]+)px">([^<]*)</text>`)

// TestChartsAreReadable checks what a reader needs of a chart: every text
// inside the image (the title and the last label were cut off once),
// devices named, the values written, and a logarithmic axis where the
// values span decades.
func TestChartsAreReadable(t *testing.T) {
	for _, tc := range []struct {
		cpu float64
		log bool
	}{{92.5, true}, {1500, false}} {
		charts, err := Charts(gpuAndCPU(tc.cpu))
		if err != nil {
			t.Fatal(err)
		}
		svg := string(charts[0].SVG)
		var w, h float64
		if _, err := fmt.Sscanf(svg[strings.Index(svg, "viewBox="):], `viewBox="0 0 %g %g"`, &w, &h); err != nil {
			t.Fatalf("no viewBox: %v", err)
		}
		var texts []string
		for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			size, _ := strconv.ParseFloat(m[3], 64)
			s := html.UnescapeString(m[4])
			texts = append(texts, s)
			face := font.DefaultCache.Lookup(font.Font{Typeface: "Liberation", Variant: "Sans"}, font.Length(size))
			right := x + float64(face.Width(s))
			// y is negated (the SVG is drawn upside down), at the
			// baseline: the descent below it, the ascent above.
			if x < 0 || right > w || -y-0.25*size < 0 || -y+0.95*size > h {
				t.Errorf("cpu %g: %q at x %g–%.1f, baseline %g: outside the %gx%g chart", tc.cpu, s, x, right, -y, w, h)
			}
		}
		all := strings.Join(texts, "\n")
		for _, want := range []string{"axpy (GB/s, higher is better)", "NVIDIA H100 80GB HBM3", "cuda:0 · NVIDIA CUDA BACKEND", "opencl:1 · NVIDIA CUDA", "cpu-skylake-avx512-Intel(R) Xeon(R) Processor", "2480", "2652", value(tc.cpu)} {
			if !strings.Contains(all, want) {
				t.Errorf("cpu %g: the chart has no %q; its texts:\n%s", tc.cpu, want, all)
			}
		}
		if got := strings.Contains(all, "(log scale)"); got != tc.log {
			t.Errorf("cpu %g beside 2480: log scale %v, want %v", tc.cpu, got, tc.log)
		}
	}
}

func TestValueLabels(t *testing.T) {
	for v, want := range map[float64]string{60555.2: "60555", 2480.4: "2480", 92.46: "92.5", 5.213: "5.21", 0.04253: "0.0425", 2.5e7: "2.5e+07"} {
		if got := value(v); got != want {
			t.Errorf("value(%g) = %q, want %q", v, got, want)
		}
	}
}

// A chart with no bar to draw (every check not ok, or a median of 0) is
// still drawn, with the checks or values as text.
func TestChartsWithoutBars(t *testing.T) {
	r := gpuAndCPU(100)
	r.Devices[0].Metrics[0].Check = record.CheckTimeout
	r.Devices[1].Metrics[0] = record.Metric{Name: "axpy", Unit: "GB/s", Better: record.Higher, Check: record.CheckOK, Rounds: []float64{0, 0}}
	r.Devices[1].Metrics[0].Summarize()
	r.Devices[2].Metrics[0].Check = record.CheckWrong
	charts, err := Charts(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">TIMEOUT<", ">0<", ">WRONG<"} {
		if !bytes.Contains(charts[0].SVG, []byte(want)) {
			t.Errorf("the chart has no %s", want)
		}
	}
}
