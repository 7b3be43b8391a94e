package report

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gour-dev/gour/compare/record"
)

// Chart is one metric across the devices, drawn as SVG and PNG.
type Chart struct {
	Metric string // its name, also the files' base name
	SVG    []byte
	PNG    []byte
}

// Charts draws a bar chart per metric: one bar per device at its median,
// with a whisker from its minimum to its maximum round. Devices whose
// check is not ok get no bar: their timing means nothing.
func Charts(rec *record.Record) ([]Chart, error) {
	var out []Chart
	for _, name := range metricNames(rec) {
		c, err := chart(rec, name)
		if err != nil {
			return nil, fmt.Errorf("chart of %s: %w", name, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// bars are the medians with their min–max whiskers, at x = 0, 1, ...
type bars struct {
	med, lo, hi []float64
}

func (b bars) Len() int                        { return len(b.med) }
func (b bars) XY(i int) (float64, float64)     { return float64(i), b.med[i] }
func (b bars) YError(i int) (float64, float64) { return b.med[i] - b.lo[i], b.hi[i] - b.med[i] }

func chart(rec *record.Record, name string) (Chart, error) {
	p := plot.New()
	var b bars
	var labels []string
	unit, better := "", record.Lower
	for _, d := range rec.Devices {
		m := d.Metric(name)
		if m == nil {
			continue
		}
		unit, better = m.Unit, m.Better
		labels = append(labels, d.ID)
		if m.Check != record.CheckOK {
			b.med, b.lo, b.hi = append(b.med, 0), append(b.lo, 0), append(b.hi, 0)
			labels[len(labels)-1] += " (" + string(m.Check) + ")"
			continue
		}
		b.med, b.lo, b.hi = append(b.med, m.Median), append(b.lo, m.Min), append(b.hi, m.Max)
	}
	p.Title.Text = fmt.Sprintf("%s (%s is better)", name, better)
	p.Y.Label.Text = unit
	p.Y.Min = 0
	bc, err := plotter.NewBarChart(plotter.Values(b.med), vg.Points(28))
	if err != nil {
		return Chart{}, err
	}
	bc.Color = color.RGBA{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff}
	bc.LineStyle.Width = 0
	whiskers, err := plotter.NewYErrorBars(b)
	if err != nil {
		return Chart{}, err
	}
	p.Add(bc, whiskers, plotter.NewGrid())
	p.NominalX(labels...)
	c := Chart{Metric: name}
	width := vg.Length(max(4, 1.4*float64(len(labels)))) * vg.Inch
	for _, f := range []struct {
		format string
		dst    *[]byte
	}{{"svg", &c.SVG}, {"png", &c.PNG}} {
		wt, err := p.WriterTo(width, 3*vg.Inch, f.format)
		if err != nil {
			return Chart{}, err
		}
		var buf bytes.Buffer
		if _, err := wt.WriteTo(&buf); err != nil {
			return Chart{}, err
		}
		*f.dst = buf.Bytes()
	}
	return c, nil
}

// metricNames lists the metrics of the record's devices, in the order
// they first appear.
func metricNames(rec *record.Record) []string {
	var names []string
	seen := map[string]bool{}
	for _, d := range rec.Devices {
		for _, m := range d.Metrics {
			if !seen[m.Name] {
				seen[m.Name] = true
				names = append(names, m.Name)
			}
		}
	}
	return names
}
