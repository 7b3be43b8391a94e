package report

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gour-dev/gour/compare/record"
)

// Files are the names WriteAll gives its outputs in the output directory.
const (
	RecordFile   = "record.json"
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	ChartsDir    = "charts" // <metric>.svg and <metric>.png
)

// WriteAll writes the record, the charts, the Markdown report and the HTML
// page into dir, which it creates.
func WriteAll(dir string, rec *record.Record) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := rec.WriteFile(filepath.Join(dir, RecordFile)); err != nil {
		return err
	}
	return WriteReport(dir, rec)
}

// WriteReport writes what WriteAll does but the record: the charts, the
// Markdown report and the HTML page, into dir, which it creates.
func WriteReport(dir string, rec *record.Record) error {
	charts, err := Charts(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755); err != nil {
		return err
	}
	for _, c := range charts {
		for ext, data := range map[string][]byte{".svg": c.SVG, ".png": c.PNG} {
			if err := os.WriteFile(filepath.Join(dir, ChartsDir, c.Metric+ext), data, 0o644); err != nil {
				return err
			}
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, rec, ChartsDir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, MarkdownFile), md.Bytes(), 0o644); err != nil {
		return err
	}
	var page bytes.Buffer
	if err := HTML(&page, rec, charts); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, HTMLFile), page.Bytes(), 0o644)
}

// caseRow is one conformance case across the devices.
type caseRow struct {
	Name    string
	Cells   []record.Case // by device, Status "" where the device lacks it
	Differs bool          // the devices do not all give the same status
}

// caseRows returns the conformance matrix, the cases whose status differs
// between devices first.
func caseRows(rec *record.Record) []caseRow {
	var names []string
	for _, d := range rec.Devices {
		for _, c := range d.Conformance {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	var rows []caseRow
	for _, n := range names {
		row := caseRow{Name: n}
		for _, d := range rec.Devices {
			var cell record.Case
			if i := slices.IndexFunc(d.Conformance, func(c record.Case) bool { return c.Name == n }); i >= 0 {
				cell = d.Conformance[i]
			}
			row.Cells = append(row.Cells, cell)
			row.Differs = row.Differs || cell.Status != row.Cells[0].Status
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b caseRow) int {
		switch {
		case a.Differs == b.Differs:
			return 0
		case a.Differs:
			return -1
		}
		return 1
	})
	return rows
}

// counts sums a device's case statuses.
func counts(d record.Device) string {
	n := map[record.Status]int{}
	for _, c := range d.Conformance {
		n[c.Status]++
	}
	s := fmt.Sprintf("%d pass, %d fail, %d skip", n[record.Pass], n[record.Fail], n[record.Skip])
	if n[record.Timeout] > 0 {
		s += fmt.Sprintf(", %d timeout", n[record.Timeout])
	}
	return s
}

// cell is a metric's table cell: "median (min–max)", or its check.
func cell(m *record.Metric) string {
	switch {
	case m == nil:
		return "—"
	case m.Check != record.CheckOK:
		return strings.ToUpper(string(m.Check))
	}
	s := fmt.Sprintf("%s (%s–%s)", num(m.Median), num(m.Min), num(m.Max))
	if m.Peak > 0 {
		s += fmt.Sprintf(", %.0f%% of peak", 100*m.Median/m.Peak)
	}
	return s
}

// inProcesses says how many child processes shared the rounds, where the
// record knows.
func inProcesses(s record.Settings) string {
	if s.Processes < 2 {
		return ""
	}
	return fmt.Sprintf(" in %d processes", min(s.Processes, s.Rounds))
}

// num formats a value with three significant digits.
func num(v float64) string { return fmt.Sprintf("%.3g", v) }

func units(rec *record.Record, name string) (string, record.Better) {
	for _, d := range rec.Devices {
		if m := d.Metric(name); m != nil {
			return m.Unit, m.Better
		}
	}
	return "", ""
}

// Markdown writes the report: the run, the devices, the conformance
// matrix with the differences between drivers first, the metrics, their
// charts (as images under chartsDir), and the notes of every check that
// was not ok.
func Markdown(w io.Writer, rec *record.Record, chartsDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Driver comparison, %s\n\n", rec.Date.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "gour %s on %s (%s/%s, %d CPUs), %s; %d rounds per metric%s, %d launches per round.\n\n",
		buildName(rec.Gour), rec.Machine.Hostname, rec.Machine.OS, rec.Machine.Arch, rec.Machine.CPUs, rec.Gour.GoVersion, rec.Settings.Rounds, inProcesses(rec.Settings), rec.Settings.Launches)
	b.WriteString("## Devices\n\n| Device | Name | Platform | Driver | Compute units | Clock (MHz) | Conformance |\n|---|---|---|---|---|---|---|\n")
	for _, d := range rec.Devices {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %s |\n", d.ID, esc(d.Name), esc(d.Platform+" "+d.PlatformVersion), esc(d.DriverVersion), d.ComputeUnits, d.MaxClockMHz, counts(d))
	}
	for _, d := range rec.Devices {
		if d.Error != "" {
			fmt.Fprintf(&b, "\n**%s failed:** %s\n", d.ID, esc(d.Error))
		}
	}
	writeTimes(&b, rec)
	if rows := caseRows(rec); len(rows) > 0 {
		b.WriteString("\n## Conformance\n\n")
		header := "| Case |"
		sep := "|---|"
		for _, d := range rec.Devices {
			header += " " + d.ID + " |"
			sep += "---|"
		}
		differ := slices.IndexFunc(rows, func(r caseRow) bool { return !r.Differs })
		if differ < 0 {
			differ = len(rows)
		}
		if differ == 0 {
			b.WriteString("Every case gives the same result on every device.\n\n")
		} else {
			fmt.Fprintf(&b, "### Differences between drivers (%d cases)\n\n%s\n%s\n", differ, header, sep)
			for _, r := range rows[:differ] {
				writeCaseRow(&b, r)
			}
			b.WriteString("\n")
		}
		if differ < len(rows) {
			fmt.Fprintf(&b, "### The same on every device (%d cases)\n\n%s\n%s\n", len(rows)-differ, header, sep)
			for _, r := range rows[differ:] {
				writeCaseRow(&b, r)
			}
			b.WriteString("\n")
		}
		var reasons []string
		for _, r := range rows {
			for i, c := range r.Cells {
				if c.Reason != "" && c.Status != record.Pass {
					reasons = append(reasons, fmt.Sprintf("- %s on %s: %s: %s", r.Name, rec.Devices[i].ID, c.Status, esc(c.Reason)))
				}
			}
		}
		if len(reasons) > 0 {
			b.WriteString("Reasons:\n\n" + strings.Join(reasons, "\n") + "\n")
		}
	}
	if names := metricNames(rec); len(names) > 0 {
		b.WriteString("\n## Metrics\n\nMedian (minimum–maximum) over the rounds. A check other than ok means the device's results were wrong or missing: no number is given for it.\n\n| Metric | Unit | Better |")
		sep := "|---|---|---|"
		for _, d := range rec.Devices {
			b.WriteString(" " + d.ID + " |")
			sep += "---|"
		}
		b.WriteString("\n" + sep + "\n")
		for _, n := range names {
			unit, better := units(rec, n)
			fmt.Fprintf(&b, "| %s | %s | %s |", n, unit, better)
			for _, d := range rec.Devices {
				b.WriteString(" " + cell(d.Metric(n)) + " |")
			}
			b.WriteString("\n")
		}
		var notes []string
		for _, d := range rec.Devices {
			for _, m := range d.Metrics {
				if m.Detail != "" {
					notes = append(notes, fmt.Sprintf("- %s on %s (%s): %s", m.Name, d.ID, m.Check, esc(m.Detail)))
				}
			}
		}
		if len(notes) > 0 {
			b.WriteString("\nNotes:\n\n" + strings.Join(notes, "\n") + "\n")
		}
		if chartsDir != "" {
			b.WriteString("\n### Charts\n\n")
			for _, n := range names {
				fmt.Fprintf(&b, "![%s](%s/%s.svg)\n", n, chartsDir, n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTimes writes where the run's time went: each device's phases, and
// its slowest cases and metrics.
func writeTimes(b *strings.Builder, rec *record.Record) {
	var total float64
	for _, d := range rec.Devices {
		total += d.ConformanceSeconds + d.MetricsSeconds
	}
	if total == 0 { // a record from before phases were timed
		return
	}
	fmt.Fprintf(b, "\n## Time\n\n%s in all. Wall time per device and phase, with the slowest cases and metrics.\n\n| Device | Conformance | Metrics | Slowest |\n|---|---|---|---|\n", seconds(total))
	for _, d := range rec.Devices {
		type item struct {
			name string
			secs float64
		}
		var items []item
		for _, c := range d.Conformance {
			items = append(items, item{c.Name, c.Duration})
		}
		for _, m := range d.Metrics {
			items = append(items, item{m.Name, m.Seconds})
		}
		slices.SortStableFunc(items, func(x, y item) int { return cmp.Compare(y.secs, x.secs) })
		var slowest []string
		for _, it := range items[:min(3, len(items))] {
			if it.secs > 0 {
				slowest = append(slowest, fmt.Sprintf("%s %s", it.name, seconds(it.secs)))
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", d.ID, seconds(d.ConformanceSeconds), seconds(d.MetricsSeconds), strings.Join(slowest, ", "))
	}
}

// seconds formats a duration given in seconds, to the millisecond.
func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

func writeCaseRow(b *strings.Builder, r caseRow) {
	fmt.Fprintf(b, "| %s |", r.Name)
	for _, c := range r.Cells {
		s := string(c.Status)
		if s == "" {
			s = "—"
		}
		fmt.Fprintf(b, " %s |", s)
	}
	b.WriteString("\n")
}

// esc keeps text from breaking a Markdown table.
func esc(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(strings.TrimSpace(s))
}

func buildName(b record.Build) string {
	s := b.Version
	if b.Revision != "" {
		s = b.Revision[:min(12, len(b.Revision))]
		if b.Modified {
			s += "+modified"
		}
	}
	if s == "" {
		s = "(unknown build)"
	}
	return s
}

// HTML writes one self-contained page: the report's tables, every chart
// inlined as SVG, and each PNG inlined as a data URL.
func HTML(w io.Writer, rec *record.Record, charts []Chart) error {
	type metricRow struct {
		Name, Unit string
		Better     record.Better
		Cells      []string
	}
	type chartView struct {
		Metric string
		SVG    template.HTML
		PNG    template.URL
	}
	data := struct {
		Rec       *record.Record
		Processes string
		Build     string
		Counts    []string
		Rows      []caseRow
		Differ    int
		Metrics   []metricRow
		Charts    []chartView
	}{Rec: rec, Processes: inProcesses(rec.Settings), Build: buildName(rec.Gour)}
	for _, d := range rec.Devices {
		data.Counts = append(data.Counts, counts(d))
	}
	data.Rows = caseRows(rec)
	for _, r := range data.Rows {
		if r.Differs {
			data.Differ++
		}
	}
	for _, n := range metricNames(rec) {
		unit, better := units(rec, n)
		row := metricRow{Name: n, Unit: unit, Better: better}
		for _, d := range rec.Devices {
			row.Cells = append(row.Cells, cell(d.Metric(n)))
		}
		data.Metrics = append(data.Metrics, row)
	}
	for _, c := range charts {
		svg := string(c.SVG)
		if i := strings.Index(svg, "<svg"); i >= 0 {
			svg = svg[i:] // the XML declaration has no place inside HTML
		}
		data.Charts = append(data.Charts, chartView{Metric: c.Metric, SVG: template.HTML(svg),
			PNG: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(c.PNG))})
	}
	return page.Execute(w, data)
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Driver comparison {{.Rec.Date.Format "2006-01-02 15:04"}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.pass{background:#e6f4e6}.fail,.timeout,.WRONG,.ERROR,.TIMEOUT{background:#f8dddd}.skip{background:#f4f4dc}
.charts figure{display:inline-block;margin:.5em}
</style></head><body>
<h1>Driver comparison, {{.Rec.Date.Format "2006-01-02 15:04 MST"}}</h1>
<p>gour {{.Build}} on {{.Rec.Machine.Hostname}} ({{.Rec.Machine.OS}}/{{.Rec.Machine.Arch}}, {{.Rec.Machine.CPUs}} CPUs), {{.Rec.Gour.GoVersion}}; {{.Rec.Settings.Rounds}} rounds per metric{{.Processes}}, {{.Rec.Settings.Launches}} launches per round.</p>
<h2>Devices</h2>
<table><tr><th>Device</th><th>Name</th><th>Platform</th><th>Driver</th><th>Compute units</th><th>Clock (MHz)</th><th>Conformance</th></tr>
{{range $i, $d := .Rec.Devices}}<tr><td>{{$d.ID}}</td><td>{{$d.Name}}</td><td>{{$d.Platform}} {{$d.PlatformVersion}}</td><td>{{$d.DriverVersion}}</td><td>{{$d.ComputeUnits}}</td><td>{{$d.MaxClockMHz}}</td><td>{{index $.Counts $i}}</td></tr>
{{end}}</table>
{{range .Rec.Devices}}{{if .Error}}<p><b>{{.ID}} failed:</b> {{.Error}}</p>{{end}}{{end}}
{{if .Rows}}<h2>Conformance</h2>
<p>{{if .Differ}}The {{.Differ}} cases whose result differs between drivers come first.{{else}}Every case gives the same result on every device.{{end}}</p>
<table><tr><th>Case</th>{{range .Rec.Devices}}<th>{{.ID}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{if .Differs}}<b>{{.Name}}</b>{{else}}{{.Name}}{{end}}</td>{{range .Cells}}<td class="{{.Status}}" title="{{.Reason}}">{{if .Status}}{{.Status}}{{else}}—{{end}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if .Metrics}}<h2>Metrics</h2>
<p>Median (minimum–maximum) over the rounds. A check other than ok means the device's results were wrong or missing.</p>
<table><tr><th>Metric</th><th>Unit</th><th>Better</th>{{range .Rec.Devices}}<th>{{.ID}}</th>{{end}}</tr>
{{range .Metrics}}<tr><td>{{.Name}}</td><td>{{.Unit}}</td><td>{{.Better}}</td>{{range .Cells}}<td class="{{.}}">{{.}}</td>{{end}}</tr>
{{end}}</table>
<ul>{{range $d := .Rec.Devices}}{{range .Metrics}}{{if .Detail}}<li>{{.Name}} on {{$d.ID}} ({{.Check}}): {{.Detail}}</li>{{end}}{{end}}{{end}}</ul>
<h2>Charts</h2><div class="charts">
{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Metric}} · <a download="{{.Metric}}.png" href="{{.PNG}}">PNG</a></figcaption></figure>
{{end}}</div>{{end}}
</body></html>
`))
