package diff

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gour-dev/gour/compare/record"
)

// DefaultMinEffect is the smallest relative change flagged, however quiet
// the processes: 10 %, what two runs of an unchanged build can differ by
// beyond what their processes show (the machine busier, warmer, or
// rebooted between them).
const DefaultMinEffect = 0.10

// DefaultConfidence is the confidence of the interval outside which a
// change is flagged: 99.9 %, so that a comparison of some fifty metrics,
// three times over, of identical builds flags nothing.
const DefaultConfidence = 0.999

// Options choose what Compare compares.
type Options struct {
	// MinEffect is the smallest relative change flagged; 0 is
	// DefaultMinEffect.
	MinEffect float64
	// Confidence is the confidence of the interval of a ratio outside
	// which it is flagged, in (0, 1); 0 is DefaultConfidence.
	Confidence float64
	// Metrics keeps only these metrics; a name neither record has is an
	// error. Empty keeps every metric.
	Metrics []string
	// Devices keeps only these device IDs ("cuda:0"); an ID neither record
	// has is an error. Empty keeps every device.
	Devices []string
}

// Verdict is what Compare concludes about one metric or case.
type Verdict string

const (
	Same        Verdict = "same"        // within the noise
	Regression  Verdict = "regression"  // worse beyond the noise, or newly wrong or failing
	Improvement Verdict = "improvement" // better beyond the noise, or newly right or passing
	Unchecked   Verdict = "unchecked"   // neither run has a checked value to compare
	OnlyBase    Verdict = "only in base"
	OnlyNew     Verdict = "only in new"
)

// MetricChange is one metric of one device in both records.
type MetricChange struct {
	Device, Metric, Unit string
	Better               record.Better
	// Base and New are the runs' values: the geometric mean of their
	// process medians, or, where the noise is from the rounds (Basis), the
	// medians of the rounds.
	Base, New float64
	// Ratio is New/Base.
	Ratio float64
	// Slowdown is how much worse the new run is, whichever way the metric
	// improves: New/Base for a time, Base/New for a bandwidth; above 1 is
	// worse.
	Slowdown float64
	// Noise is the relative change the runs cannot tell from chance: the
	// half-width of the ratio's confidence interval from the spread of the
	// process medians of both runs, or, where the records lack them, the
	// sum of both runs' relative half-ranges of the rounds, (max − min) /
	// (2·median). A change is flagged beyond the larger of Noise and the
	// minimum effect.
	Noise float64
	// Basis is what Noise came from: "5+5 processes", or "rounds" where
	// a record has no process medians (or one process a run).
	Basis   string
	Verdict Verdict
	Note    string // a check that is not ok, and why
}

// CaseChange is a conformance case whose status differs between the
// records.
type CaseChange struct {
	Device, Case string
	Base, New    record.Status // "" where a record lacks the case
	Verdict      Verdict
	Reason       string // the new run's reason
}

// Result is the comparison of two records.
type Result struct {
	Metrics []MetricChange
	Cases   []CaseChange // only cases whose status changed
	// Notes are differences that are not results: devices present in one
	// record only, a device whose name changed, metrics whose noise could
	// not come from the processes.
	Notes []string
	// MinEffect and Confidence are the options the verdicts were made
	// with.
	MinEffect, Confidence float64
}

// Regressions counts the metrics and cases whose verdict is Regression.
func (r *Result) Regressions() int {
	n := 0
	for _, m := range r.Metrics {
		if m.Verdict == Regression {
			n++
		}
	}
	for _, c := range r.Cases {
		if c.Verdict == Regression {
			n++
		}
	}
	return n
}

// MismatchError is two records that cannot be compared: the same metric
// in different units, or in opposite directions.
type MismatchError struct {
	Device, Metric string
	What           string // "unit" or "better"
	Base, New      string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("records do not match: device %s, metric %s: %s %q in base, %q in new", e.Device, e.Metric, e.What, e.Base, e.New)
}

// ErrUnknown is wrapped by the error for a metric or device that Options
// name and neither record has.
var ErrUnknown = errors.New("unknown")

// Compare compares new against base, device by device (matched by ID) and
// metric by metric (by name).
func Compare(base, new *record.Record, opts Options) (*Result, error) {
	if opts.MinEffect == 0 {
		opts.MinEffect = DefaultMinEffect
	}
	if opts.Confidence == 0 {
		opts.Confidence = DefaultConfidence
	}
	if opts.MinEffect < 0 {
		return nil, fmt.Errorf("negative minimum effect %g", opts.MinEffect)
	}
	if opts.Confidence <= 0 || opts.Confidence >= 1 {
		return nil, fmt.Errorf("confidence %g: want a number between 0 and 1", opts.Confidence)
	}
	if err := checkNames(base, new, opts); err != nil {
		return nil, err
	}
	res := &Result{MinEffect: opts.MinEffect, Confidence: opts.Confidence}
	for _, id := range deviceIDs(base, new) {
		if len(opts.Devices) > 0 && !slices.Contains(opts.Devices, id) {
			continue
		}
		bd, nd := base.Device(id), new.Device(id)
		switch {
		case nd == nil:
			res.Notes = append(res.Notes, fmt.Sprintf("device %s (%s) is only in base", id, bd.Name))
			continue
		case bd == nil:
			res.Notes = append(res.Notes, fmt.Sprintf("device %s (%s) is only in new", id, nd.Name))
			continue
		case bd.Name != nd.Name:
			res.Notes = append(res.Notes, fmt.Sprintf("device %s is %q in base and %q in new", id, bd.Name, nd.Name))
		}
		if bd.DriverVersion != nd.DriverVersion {
			res.Notes = append(res.Notes, fmt.Sprintf("device %s: driver %s in base, %s in new", id, bd.DriverVersion, nd.DriverVersion))
		}
		changes, err := compareMetrics(id, bd, nd, [2]record.Settings{base.Settings, new.Settings}, opts)
		if err != nil {
			return nil, err
		}
		res.Metrics = append(res.Metrics, changes...)
		res.Cases = append(res.Cases, compareCases(id, bd, nd)...)
	}
	res.Notes = append(res.Notes, basisNotes(res.Metrics)...)
	return res, nil
}

// basisNotes says which comparisons could not take their noise from the
// processes, and why.
func basisNotes(ms []MetricChange) []string {
	var rounds, rebuilt int
	for _, m := range ms {
		switch {
		case m.Basis == basisRounds:
			rounds++
		case strings.HasSuffix(m.Basis, "(from the order of the rounds)"):
			rebuilt++
		}
	}
	var notes []string
	if rebuilt > 0 {
		notes = append(notes, fmt.Sprintf("%d metrics: a record keeps no process medians (it is older than them); they were split from its rounds in the order its processes measured them", rebuilt))
	}
	if rounds > 0 {
		notes = append(notes, fmt.Sprintf("%d metrics: no process medians to compare (a record older than them, or one process a run): their noise is the spread of the rounds, which misses what varies between processes", rounds))
	}
	return notes
}

// checkNames refuses metrics and devices that Options name and neither
// record has.
func checkNames(base, new *record.Record, opts Options) error {
	ids := deviceIDs(base, new)
	for _, id := range opts.Devices {
		if !slices.Contains(ids, id) {
			return fmt.Errorf("%w device %q: the records have %s", ErrUnknown, id, strings.Join(ids, ", "))
		}
	}
	var names []string
	for _, r := range []*record.Record{base, new} {
		for _, d := range r.Devices {
			for _, m := range d.Metrics {
				if !slices.Contains(names, m.Name) {
					names = append(names, m.Name)
				}
			}
		}
	}
	for _, n := range opts.Metrics {
		if !slices.Contains(names, n) {
			return fmt.Errorf("%w metric %q: the records have %s", ErrUnknown, n, strings.Join(names, ", "))
		}
	}
	return nil
}

// deviceIDs lists the device IDs of base, then those only new has.
func deviceIDs(base, new *record.Record) []string {
	var ids []string
	for _, r := range []*record.Record{base, new} {
		for _, d := range r.Devices {
			if !slices.Contains(ids, d.ID) {
				ids = append(ids, d.ID)
			}
		}
	}
	return ids
}

func compareMetrics(id string, bd, nd *record.Device, settings [2]record.Settings, opts Options) ([]MetricChange, error) {
	var names []string
	for _, d := range []*record.Device{bd, nd} {
		for _, m := range d.Metrics {
			if !slices.Contains(names, m.Name) && (len(opts.Metrics) == 0 || slices.Contains(opts.Metrics, m.Name)) {
				names = append(names, m.Name)
			}
		}
	}
	var out []MetricChange
	for _, name := range names {
		bm, nm := bd.Metric(name), nd.Metric(name)
		switch {
		case nm == nil:
			out = append(out, MetricChange{Device: id, Metric: name, Unit: bm.Unit, Better: bm.Better, Base: bm.Median, Verdict: OnlyBase})
			continue
		case bm == nil:
			out = append(out, MetricChange{Device: id, Metric: name, Unit: nm.Unit, Better: nm.Better, New: nm.Median, Verdict: OnlyNew})
			continue
		case bm.Unit != nm.Unit:
			return nil, &MismatchError{Device: id, Metric: name, What: "unit", Base: bm.Unit, New: nm.Unit}
		case bm.Better != nm.Better:
			return nil, &MismatchError{Device: id, Metric: name, What: "better", Base: string(bm.Better), New: string(nm.Better)}
		}
		out = append(out, compareMetric(id, bm, nm, settings, opts))
	}
	return out, nil
}

// compareMetric judges one metric. A check that went from ok to anything
// else is a regression whatever the numbers; the other way, an
// improvement.
func compareMetric(id string, bm, nm *record.Metric, settings [2]record.Settings, opts Options) MetricChange {
	c := MetricChange{Device: id, Metric: bm.Name, Unit: bm.Unit, Better: bm.Better, Base: bm.Median, New: nm.Median}
	bOK, nOK := bm.Check == record.CheckOK, nm.Check == record.CheckOK
	switch {
	case bOK && !nOK:
		c.Verdict, c.Note = Regression, checkNote(nm)
		return c
	case !bOK && nOK:
		c.Verdict, c.Note = Improvement, "base: "+checkNote(bm)
		return c
	case !bOK && !nOK:
		c.Verdict, c.Note = Unchecked, "base: "+checkNote(bm)+"; new: "+checkNote(nm)
		return c
	}
	if bm.Median <= 0 || nm.Median <= 0 {
		c.Verdict, c.Note = Unchecked, "a median is not positive"
		return c
	}
	bs, bRebuilt, bOK := processSample(bm, settings[0])
	ns, nRebuilt, nOK := processSample(nm, settings[1])
	var d, hw float64
	var ok bool
	if bOK && nOK {
		d, hw, _, ok = interval(bs, ns, opts.Confidence)
	}
	if ok {
		c.Base, c.New = math.Exp(meanOf(bs.logs)), math.Exp(meanOf(ns.logs))
		c.Ratio, c.Noise = math.Exp(d), math.Expm1(hw)
		c.Basis = basis(len(bs.logs), len(ns.logs), bRebuilt || nRebuilt)
	} else {
		c.Ratio = nm.Median / bm.Median
		c.Noise = halfRange(bm) + halfRange(nm)
		c.Basis = basisRounds
	}
	c.Slowdown = c.Ratio
	if bm.Better == record.Higher {
		c.Slowdown = 1 / c.Ratio
	}
	limit := 1 + max(opts.MinEffect, c.Noise)
	switch {
	case c.Slowdown > limit:
		c.Verdict = Regression
	case c.Slowdown < 1/limit:
		c.Verdict = Improvement
	default:
		c.Verdict = Same
	}
	return c
}

func meanOf(xs []float64) float64 {
	m, _ := meanSS(xs)
	return m
}

// halfRange is the spread of a metric's rounds relative to their median:
// (max − min) / (2·median). Two runs whose medians differ by less than the
// sum of their half-ranges have overlapping rounds, and a difference the
// rounds themselves show from one to the next is not a change.
func halfRange(m *record.Metric) float64 {
	if m.Median <= 0 || math.IsInf(m.Max, 0) {
		return 0
	}
	return (m.Max - m.Min) / (2 * m.Median)
}

func checkNote(m *record.Metric) string {
	if m.Detail == "" {
		return string(m.Check)
	}
	return string(m.Check) + ": " + m.Detail
}

func compareCases(id string, bd, nd *record.Device) []CaseChange {
	status := func(d *record.Device) map[string]record.Case {
		out := map[string]record.Case{}
		for _, c := range d.Conformance {
			out[c.Name] = c
		}
		return out
	}
	bs, ns := status(bd), status(nd)
	var names []string
	for _, d := range []*record.Device{bd, nd} {
		for _, c := range d.Conformance {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	var out []CaseChange
	for _, name := range names {
		b, n := bs[name], ns[name]
		if b.Status == n.Status {
			continue
		}
		c := CaseChange{Device: id, Case: name, Base: b.Status, New: n.Status, Reason: n.Reason}
		bad := func(s record.Status) bool { return s == record.Fail || s == record.Timeout }
		switch {
		case bad(n.Status) && !bad(b.Status):
			c.Verdict = Regression
		case bad(b.Status) && n.Status == record.Pass:
			c.Verdict = Improvement
		case b.Status == "":
			c.Verdict = OnlyNew
		case n.Status == "":
			c.Verdict = OnlyBase
		default:
			c.Verdict = Same // pass ↔ skip, fail ↔ timeout: listed, not judged
		}
		out = append(out, c)
	}
	return out
}
