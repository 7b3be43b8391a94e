package main

import (
	"io"
	"os"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progressBars shows a bar per phase of a run (compare.Progress).
type progressBars struct {
	p    *mpb.Progress
	bars map[string]*mpb.Bar
}

func newProgressBars(w io.Writer) *progressBars {
	return &progressBars{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(40)), bars: map[string]*mpb.Bar{}}
}

func (b *progressBars) Start(phase string, total int) {
	b.bars[phase] = b.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name(phase, decor.WC{C: decor.DindentRight | decor.DextraSpace}), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO)))
}

func (b *progressBars) Step(phase, device, item string) {
	if bar := b.bars[phase]; bar != nil {
		bar.Increment()
	}
}

// wait ends the bars, complete or not, and waits for their last drawing.
func (b *progressBars) wait() {
	for _, bar := range b.bars {
		if !bar.Completed() {
			bar.Abort(false)
		}
	}
	b.p.Wait()
}

// isTerminal reports whether f is a terminal, where bars can redraw.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
