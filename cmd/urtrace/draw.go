package main

import (
	"cmp"
	"errors"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gour-dev/gour/trace"
)

// Colours of the categories: ur's host calls, device commands, the
// program manager's and the cache's spans.
var colours = map[string]color.RGBA{
	"ur":         {R: 0x4c, G: 0x72, B: 0xb0, A: 0xff},
	"device":     {R: 0xdd, G: 0x84, B: 0x52, A: 0xff},
	"programmgr": {R: 0x81, G: 0x72, B: 0xb3, A: 0xff},
	"cache":      {R: 0x55, G: 0xa8, B: 0x68, A: 0xff},
}

var otherColour = color.RGBA{R: 0x93, G: 0x93, B: 0x93, A: 0xff}

type bar struct {
	row      int
	from, to float64 // ms
	colour   color.RGBA
}

// timeline draws bars, one row per track, row 0 at the top.
type timeline struct {
	bars []bar
	rows int
}

func (t *timeline) y(row int) float64 { return float64(t.rows - 1 - row) }

func (t *timeline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	tr := func(x, y float64) (vg.Length, vg.Length) { return trX(x), trY(y) }
	const half = 0.35
	for _, b := range t.bars {
		x0, y0 := tr(b.from, t.y(b.row)-half)
		xb, y1 := tr(b.to, t.y(b.row)+half)
		if xb-x0 < 0.4 { // keep the shortest command visible
			xb = x0 + 0.4
		}
		rect := []vg.Point{{X: x0, Y: y0}, {X: xb, Y: y0}, {X: xb, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(b.colour, c.ClipPolygonXY(rect))
	}
}

func (t *timeline) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = 0, 0
	for i, b := range t.bars {
		if i == 0 || b.from < xmin {
			xmin = b.from
		}
		xmax = max(xmax, b.to)
	}
	return xmin, xmax, -0.5, float64(t.rows) - 0.5
}

// drawTimeline writes the timeline of events between from and to (ms since the
// first event; to 0: the end) to out.
func drawTimeline(out string, events []trace.Event, from, to float64) error {
	names := trackNames(events)
	type key [2]int64
	rows := map[key]int{}
	var keys []key
	first, seen := 0.0, false
	for _, e := range events {
		if e.Ph != "X" {
			continue
		}
		if !seen || e.Ts < first {
			first, seen = e.Ts, true
		}
		k := key{e.Pid, e.Tid}
		if _, ok := rows[k]; !ok {
			rows[k] = 0
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return errors.New("the trace has no timed events to draw")
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	for i, k := range keys {
		rows[k] = i
	}
	t := &timeline{rows: len(keys)}
	for _, e := range events {
		if e.Ph != "X" {
			continue
		}
		a, b := (e.Ts-first)/1000, (e.End()-first)/1000
		if b < from || (to > 0 && a > to) {
			continue
		}
		col, ok := colours[e.Cat]
		if !ok {
			col = otherColour
		}
		if e.Pid == trace.DevicePID {
			col = colours["device"]
		}
		t.bars = append(t.bars, bar{row: rows[key{e.Pid, e.Tid}], from: a, to: b, colour: col})
	}
	// The longest first, so that a call inside a span is drawn over it.
	slices.SortStableFunc(t.bars, func(a, b bar) int { return cmp.Compare(b.to-b.from, a.to-a.from) })
	p := plot.New()
	p.Title.Text = "gour trace: host calls (blue), device commands (orange), program manager (purple), cache (green)"
	p.X.Label.Text = "ms"
	var ticks []plot.Tick
	for _, k := range keys {
		ticks = append(ticks, plot.Tick{Value: t.y(rows[k]), Label: names.name(k[0], k[1])})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(t) // sets the axes to the data's range
	if from > 0 {
		p.X.Min = from
	}
	if to > 0 {
		p.X.Max = to
	}
	height := vg.Length(1.2+0.3*float64(len(keys))) * vg.Inch
	return p.Save(11*vg.Inch, height, out)
}
