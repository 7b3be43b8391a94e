package testenv

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// LogRecorder is a slog.Handler that keeps every record, for tests of
// what a package logs: slog.New(&LogRecorder{}).
type LogRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *LogRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *LogRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.recs = append(r.recs, rec.Clone())
	r.mu.Unlock()
	return nil
}

func (r *LogRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *LogRecorder) WithGroup(string) slog.Handler      { return r }

// Count returns the number of records of level.
func (r *LogRecorder) Count(level slog.Level) int {
	return len(r.Messages(level))
}

// Messages returns the messages of level, each with its attributes
// (" key=value").
func (r *LogRecorder) Messages(level slog.Level) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		if rec.Level != level {
			continue
		}
		var b strings.Builder
		b.WriteString(rec.Message)
		rec.Attrs(func(a slog.Attr) bool {
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
			return true
		})
		out = append(out, b.String())
	}
	return out
}
