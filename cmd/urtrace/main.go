package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/gour-dev/gour/trace"
)

const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  urtrace summary [-top N] FILE
  urtrace draw [-o OUT.png|.svg|.pdf] [-from MS] [-to MS] FILE
  urtrace repair [-o OUT] FILE
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	fs := flag.NewFlagSet("urtrace "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		top      = fs.Int("top", 10, "rows of each table")
		out      = fs.String("o", "", "output file")
		from, to = fs.Float64("from", 0, "start of the window drawn, ms"), fs.Float64("to", 0, "end of the window drawn, ms (0: the end)")
	)
	switch args[0] {
	case "summary", "draw", "repair":
	default:
		fmt.Fprintf(stderr, "urtrace: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "urtrace %s: want one trace file\n%s", args[0], usage)
		return exitUsage
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "urtrace:", err)
		return exitError
	}
	switch args[0] {
	case "repair":
		err = repair(path, data, *out, stdout)
	default:
		events, truncated, _, rerr := trace.Read(data)
		if rerr != nil {
			fmt.Fprintf(stderr, "urtrace: %s: %v\n", path, rerr)
			return exitError
		}
		if truncated {
			fmt.Fprintf(stderr, "urtrace: %s is cut short after %d events (urtrace repair closes it)\n", path, len(events))
		}
		if args[0] == "summary" {
			summary(stdout, events, *top)
		} else {
			if *out == "" {
				*out = strings.TrimSuffix(path, filepath.Ext(path)) + ".png"
			}
			err = drawTimeline(*out, events, *from, *to)
			if err == nil {
				fmt.Fprintln(stdout, "wrote", *out)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "urtrace:", err)
		return exitError
	}
	return exitOK
}

func repair(path string, data []byte, out string, stdout io.Writer) error {
	fixed, n, truncated, err := trace.Repair(data)
	if err != nil {
		return err
	}
	if !truncated && out == "" {
		fmt.Fprintf(stdout, "%s is whole: %d events\n", path, n)
		return nil
	}
	if out == "" {
		out = path
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, fixed, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return err
	}
	fmt.Fprintf(stdout, "%s: %d whole events kept, closed\n", out, n)
	return nil
}

// track names a trace's tracks from its metadata events.
type tracks map[[2]int64]string

func trackNames(events []trace.Event) tracks {
	t := tracks{}
	for _, e := range events {
		if e.Ph == "M" && e.Name == "thread_name" {
			if n, ok := e.Args["name"].(string); ok {
				t[[2]int64{e.Pid, e.Tid}] = n
			}
		}
	}
	return t
}

func (t tracks) name(pid, tid int64) string {
	if n, ok := t[[2]int64{pid, tid}]; ok {
		return n
	}
	if pid == trace.DevicePID {
		return fmt.Sprintf("queue %d", tid)
	}
	return fmt.Sprintf("host %d", tid)
}

type callStat struct {
	name         string
	n            int
	total, worst float64
}

type gap struct {
	queue        string
	at, len      float64
	before, next string
}

func summary(w io.Writer, events []trace.Event, top int) {
	names := trackNames(events)
	calls := map[string]*callStat{}
	queues := map[int64][]trace.Event{}
	var first, last float64
	seen := false
	for _, e := range events {
		if e.Ph != "X" && e.Ph != "i" {
			continue
		}
		if !seen || e.Ts < first {
			first = e.Ts
		}
		last = max(last, e.End())
		seen = true
		if e.Ph != "X" {
			continue
		}
		if e.Pid == trace.DevicePID {
			queues[e.Tid] = append(queues[e.Tid], e)
			continue
		}
		key := e.Name
		s := calls[key]
		if s == nil {
			s = &callStat{name: key}
			calls[key] = s
		}
		s.n++
		s.total += e.Dur
		s.worst = max(s.worst, e.Dur)
	}
	fmt.Fprintf(w, "%d events over %s\n\n", len(events), ms(last-first))
	stats := make([]*callStat, 0, len(calls))
	for _, s := range calls {
		stats = append(stats, s)
	}
	slices.SortFunc(stats, func(a, b *callStat) int { return cmp.Compare(b.total, a.total) })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "host calls and spans by total time:")
	fmt.Fprintln(tw, "call\tcount\ttotal\tmean\tmax\t")
	for i, s := range stats {
		if i == top {
			fmt.Fprintf(tw, "(%d more)\t\t\t\t\t\n", len(stats)-top)
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", s.name, s.n, ms(s.total), us(s.total/float64(s.n)), us(s.worst))
	}
	tw.Flush()
	if len(queues) == 0 {
		fmt.Fprintln(w, "\nno device commands (the queues did not profile: GOUR_TRACE_DEVICE=0?)")
		return
	}
	fmt.Fprintln(w, "\nqueues (device times):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "queue\tcommands\tfrom\tto\tbusy\tbusy fraction\t")
	var gaps []gap
	ids := make([]int64, 0, len(queues))
	for id := range queues {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		cmds := queues[id]
		slices.SortFunc(cmds, func(a, b trace.Event) int { return cmp.Compare(a.Ts, b.Ts) })
		busy, end := 0.0, cmds[0].Ts
		for i, c := range cmds {
			if c.Ts > end && i > 0 {
				gaps = append(gaps, gap{queue: names.name(trace.DevicePID, id), at: end - first, len: c.Ts - end, before: cmds[i-1].Name, next: c.Name})
			}
			s := max(c.Ts, end)
			if c.End() > s {
				busy += c.End() - s
			}
			end = max(end, c.End())
		}
		span := end - cmds[0].Ts
		frac := 1.0
		if span > 0 {
			frac = busy / span
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1f%%\t\n", names.name(trace.DevicePID, id), len(cmds), ms(cmds[0].Ts-first), ms(end-first), ms(busy), 100*frac)
	}
	tw.Flush()
	slices.SortFunc(gaps, func(a, b gap) int { return cmp.Compare(b.len, a.len) })
	fmt.Fprintln(w, "\nlargest gaps between commands on a queue:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "gap\tqueue\tat\tafter\tbefore\t")
	for i, g := range gaps {
		if i == top {
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", us(g.len), g.queue, ms(g.at), g.before, g.next)
	}
	tw.Flush()
}

func ms(us float64) string { return fmt.Sprintf("%.3f ms", us/1000) }
func us(v float64) string  { return fmt.Sprintf("%.1f µs", v) }
