package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gour-dev/gour/compare/record"
)

// Chart is one metric across the devices, drawn as SVG and PNG.
type Chart struct {
	Metric string // its name, also the files' base name
	SVG    []byte
	PNG    []byte
}

// Charts draws a chart per metric: a horizontal bar per device at its
// median, labelled with the value, with a whisker from its minimum to its
// maximum round. A device is named by its name, its id and its platform,
// so that the same GPU through CUDA and through OpenCL can be told apart.
// Devices whose check is not ok get no bar, only their check: their timing
// means nothing. Where the medians span more than LogSpan, the value axis
// is logarithmic, so that a CPU beside a GPU still has a visible bar.
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

// LogSpan is the ratio of the largest median to the smallest beyond which
// a chart's value axis is logarithmic.
const LogSpan = 20

// bar is one device's bar: its median and whisker, or, where the check
// is not ok, none and the check as its text.
type bar struct {
	med, lo, hi float64
	ok          bool
	text        string
}

// hbars draws horizontal bars from the value axis's minimum, the first
// device at the top, each with its value written past its whisker's end.
type hbars struct {
	bars  []bar
	color color.Color
	font  text.Style
	thick vg.Length
}

// y is the vertical position of bar i: the first at the top.
func (h *hbars) y(i int) float64 { return float64(len(h.bars) - 1 - i) }

func (h *hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, b := range h.bars {
		y := trY(h.y(i))
		end := trX(p.X.Min)
		if b.ok {
			x0, x1 := trX(p.X.Min), trX(b.med)
			rect := []vg.Point{{X: x0, Y: y - h.thick/2}, {X: x1, Y: y - h.thick/2}, {X: x1, Y: y + h.thick/2}, {X: x0, Y: y + h.thick/2}}
			c.FillPolygon(h.color, c.ClipPolygonXY(rect))
			lo, hi := trX(b.lo), trX(b.hi)
			ls := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
			tip := h.thick / 3
			c.StrokeLines(ls, c.ClipLinesXY([]vg.Point{{X: lo, Y: y}, {X: hi, Y: y}})...)
			c.StrokeLines(ls, c.ClipLinesXY([]vg.Point{{X: lo, Y: y - tip}, {X: lo, Y: y + tip}})...)
			c.StrokeLines(ls, c.ClipLinesXY([]vg.Point{{X: hi, Y: y - tip}, {X: hi, Y: y + tip}})...)
			end = max(x1, hi)
		}
		c.FillText(h.font, vg.Point{X: end + textGap, Y: y}, b.text)
	}
}

// textGap is the space between a bar's end and its value.
const textGap = vg.Length(4)

func (h *hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, b := range h.bars {
		if b.ok {
			xmin, xmax = min(xmin, b.lo, b.med), max(xmax, b.hi, b.med)
		}
	}
	if xmin > xmax { // no bar
		xmin, xmax = 0, 1
	}
	return xmin, xmax, -0.5, float64(len(h.bars)) - 0.5
}

// GlyphBoxes are the values' texts, so that the plot leaves room for them
// past the longest bar.
func (h *hbars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for i, b := range h.bars {
		x := p.X.Min
		if b.ok {
			x = max(b.med, b.hi)
		}
		w, ht := h.font.Width(b.text), h.font.Height(b.text)
		boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(x), Y: p.Y.Norm(h.y(i)),
			Rectangle: vg.Rectangle{Min: vg.Point{X: textGap, Y: -ht / 2}, Max: vg.Point{X: textGap + w, Y: ht / 2}}})
	}
	return boxes
}

// deviceLabel names a device on a chart: its name, then its id and
// platform.
func deviceLabel(d record.Device) string {
	name := d.Name
	if name == "" {
		name = d.ID
	}
	second := d.ID
	if d.Platform != "" {
		second += " · " + d.Platform
	}
	return clip(name, 48) + "\n" + clip(second, 48)
}

// clip shortens s to n runes, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// value formats a bar's value with three significant digits and no
// exponent where one is not needed.
func value(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmt.Sprintf("%.3g", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func chart(rec *record.Record, name string) (Chart, error) {
	p := plot.New()
	sans := func(s *text.Style, size vg.Length) {
		s.Font.Typeface, s.Font.Variant, s.Font.Size = "Liberation", "Sans", size
	}
	sans(&p.Title.TextStyle, 12)
	sans(&p.X.Label.TextStyle, 10)
	sans(&p.X.Tick.Label, 9)
	sans(&p.Y.Tick.Label, 9)
	h := &hbars{color: color.RGBA{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff}, thick: vg.Points(13)}
	h.font = p.Y.Tick.Label
	h.font.XAlign, h.font.YAlign = draw.XLeft, draw.YCenter
	var labels []string
	unit, better := "", record.Lower
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range rec.Devices {
		m := d.Metric(name)
		if m == nil {
			continue
		}
		unit, better = m.Unit, m.Better
		labels = append(labels, deviceLabel(d))
		if m.Check != record.CheckOK {
			h.bars = append(h.bars, bar{text: strings.ToUpper(string(m.Check))})
			continue
		}
		if !(m.Median > 0) || math.IsInf(m.Max, 0) || math.IsNaN(m.Max) { // nothing to draw
			h.bars = append(h.bars, bar{text: value(m.Median)})
			continue
		}
		h.bars = append(h.bars, bar{med: m.Median, lo: m.Min, hi: m.Max, ok: true, text: value(m.Median)})
		lo, hi = min(lo, m.Median), max(hi, m.Median)
	}
	p.Title.Text = fmt.Sprintf("%s (%s, %s is better)", name, unit, better)
	p.X.Label.Text = unit + ": median of the rounds; whiskers: lowest to highest round"
	logAxis := hi/lo > LogSpan
	if logAxis {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = decadeTicks{}
		p.X.Label.Text += " (log scale)"
		// Whole decades at both ends, so that the axis has ticks and
		// a bar starts from a round number.
		minLo := lo
		for _, b := range h.bars {
			if b.ok && b.lo > 0 {
				minLo = min(minLo, b.lo)
			}
		}
		p.X.Min = math.Pow(10, math.Floor(math.Log10(minLo)))
		p.X.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
		for i, b := range h.bars { // a whisker below the axis starts at it
			if b.ok {
				h.bars[i].lo = max(b.lo, p.X.Min)
			}
		}
	} else {
		p.X.Min = 0
		p.X.Tick.Marker = plainTicks{plot.DefaultTicks{}}
	}
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid, h)
	if !logAxis {
		_, xmax, _, _ := h.DataRange()
		p.X.Max = xmax * 1.02
	}
	// The labels from the top: NominalY puts the first at the bottom.
	slices.Reverse(labels)
	if len(labels) > 0 {
		p.NominalY(labels...)
	}
	p.Y.Padding = 0
	width := 7.5 * vg.Inch
	height := vg.Length(1.1+0.5*float64(len(labels))) * vg.Inch
	// A margin on every side, so that no label touches the edge.
	margin := vg.Points(8)
	drawOn := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		p.Draw(draw.Crop(dc, margin, -margin, margin/2, -margin/2))
	}
	svg := vgsvg.New(width, height)
	drawOn(svg)
	var s bytes.Buffer
	if _, err := svg.WriteTo(&s); err != nil {
		return Chart{}, err
	}
	// The SVG names the font the layout was measured with; where a viewer
	// lacks it, fonts of the same metrics (Arial) come before any sans.
	svgText := bytes.ReplaceAll(s.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))
	drawOn(img)
	var png bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&png); err != nil {
		return Chart{}, err
	}
	return Chart{Metric: name, SVG: svgText, PNG: png.Bytes()}, nil
}

// plainTicks labels a ticker's ticks without the trailing zeros
// (25000, not 25000.00).
type plainTicks struct{ plot.Ticker }

func (t plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
		}
	}
	return ticks
}

// decadeTicks marks a logarithmic axis: a labelled tick at every power of
// ten, unlabelled ones between. (plot.LogTicks starts a decade late
// where the logarithm of the minimum rounds to just above its integer.)
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo) + 1e-9); e <= math.Ceil(math.Log10(hi)-1e-9); e++ {
		d := math.Pow(10, e)
		for i := 1; i < 10; i++ {
			v := d * float64(i)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if i == 1 {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// pngDPI is the resolution of the PNG charts: sharp on a high-density
// screen.
const pngDPI = 160

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
