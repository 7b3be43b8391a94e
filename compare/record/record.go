package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"time"
)

// SchemaVersion is the version of the record format this package writes
// and reads. It changes whenever a field changes meaning or goes away, so
// that a diff never compares numbers that mean different things; adding a
// field does not change it.
const SchemaVersion = 1

// Record is one comparison run: where and when it ran, with which gour,
// and what every selected device gave.
type Record struct {
	Schema   int       `json:"schema"` // SchemaVersion when written
	Date     time.Time `json:"date"`
	Gour     Build     `json:"gour"`
	Machine  Machine   `json:"machine"`
	Settings Settings  `json:"settings"`
	Devices  []Device  `json:"devices"`
}

// Build identifies the gour that made the record, from the binary's build
// information: the VCS fields are empty where the binary was built without
// them (go run, go test, -buildvcs=false).
type Build struct {
	Module    string `json:"module"`
	Version   string `json:"version,omitempty"` // the module version, "(devel)" for a local build
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"` // the commit's time
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// Machine is the host the run was made on.
type Machine struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
}

// Settings are what the run was asked to do, so that two records can be
// told apart by more than their numbers.
type Settings struct {
	Selector      string            `json:"selector,omitempty"`
	Rounds        int               `json:"rounds"`
	Launches      int               `json:"launches"`                // launches per round of the launch metrics
	BufferBytes   uint64            `json:"buffer_bytes"`            // bytes per transfer; 0 chose per device
	CaseTimeout   string            `json:"case_timeout"`            // a Go duration
	MetricTimeout string            `json:"metric_timeout"`          // a Go duration
	MetricBudget  string            `json:"metric_budget,omitempty"` // a Go duration: past it a metric stops after 3 rounds
	Processes     int               `json:"processes,omitempty"`     // child processes sharing a metric's rounds
	Env           map[string]string `json:"env,omitempty"`           // the variables that change what is measured
}

// Device is what one device gave: its identity, its conformance results and
// its metrics. Error is set when the device could not be run at all.
type Device struct {
	ID              string   `json:"id"` // "opencl:0": backend and index, as a selector names it
	Backend         string   `json:"backend"`
	Index           int      `json:"index"`
	Type            string   `json:"type"`
	Name            string   `json:"name"`
	Vendor          string   `json:"vendor,omitempty"`
	Platform        string   `json:"platform,omitempty"`
	PlatformVersion string   `json:"platform_version,omitempty"`
	DeviceVersion   string   `json:"device_version,omitempty"`
	DriverVersion   string   `json:"driver_version,omitempty"`
	ComputeUnits    uint32   `json:"compute_units,omitempty"`
	MaxClockMHz     uint32   `json:"max_clock_mhz,omitempty"`
	GlobalMemBytes  uint64   `json:"global_mem_bytes,omitempty"`
	Error           string   `json:"error,omitempty"`
	Conformance     []Case   `json:"conformance,omitempty"`
	Metrics         []Metric `json:"metrics,omitempty"`
	// ConformanceSeconds and MetricsSeconds are the wall time of the
	// device's two phases, child processes started and killed included.
	ConformanceSeconds float64 `json:"conformance_seconds,omitempty"`
	MetricsSeconds     float64 `json:"metrics_seconds,omitempty"`
}

// Status is the outcome of a conformance case on a device.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Skip    Status = "skip"
	Timeout Status = "timeout" // no result within the case timeout: the device was given up on for that case
)

// Case is one conformance case's result on one device.
type Case struct {
	Name     string  `json:"name"`
	Status   Status  `json:"status"`
	Reason   string  `json:"reason,omitempty"` // why it failed or skipped, from its log
	Duration float64 `json:"duration_s"`
}

// Check is whether a metric's results were right.
type Check string

const (
	CheckOK      Check = "ok"      // the results were verified
	CheckWrong   Check = "wrong"   // the device computed or copied something else: the timing means nothing
	CheckError   Check = "error"   // a call failed; no timing
	CheckTimeout Check = "timeout" // no result within the metric timeout
	CheckSkipped Check = "skipped" // the metric does not apply to the device
)

// Better says which way a metric improves.
type Better string

const (
	Lower  Better = "lower"
	Higher Better = "higher"
)

// Metric is one measurement on one device: every round's value and their
// summary. Rounds, Median, Min and Max are in Unit.
type Metric struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Better Better    `json:"better"`
	Rounds []float64 `json:"rounds,omitempty"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Check  Check     `json:"check"`
	Detail string    `json:"detail,omitempty"` // what was wrong, the error, or how it was measured
	// Peak is the device's nominal peak in Unit where one is derived from
	// its information (the FMA metric's GFLOP/s), 0 otherwise.
	Peak float64 `json:"peak,omitempty"`
	// Seconds is the wall time the metric took to measure: its warm-up,
	// its rounds and its checks.
	Seconds float64 `json:"seconds,omitempty"`
	// ProcessRounds is how many of Rounds each child process measured, in
	// the order of Rounds (the first ProcessRounds[0] rounds are the first
	// process's), and ProcessMedians the median of each process's rounds.
	// A diff takes its noise from the spread of the process medians: what
	// changes between processes (where the driver put the buffers, the
	// state of its caches and clocks) is often far more than what changes
	// within one. Both are empty in records from before they were kept.
	ProcessRounds  []int     `json:"process_rounds,omitempty"`
	ProcessMedians []float64 `json:"process_medians,omitempty"`
}

// Summarize sets Median, Min and Max from Rounds, and ProcessMedians from
// Rounds and ProcessRounds.
func (m *Metric) Summarize() {
	m.ProcessMedians = nil
	if len(m.Rounds) == 0 {
		m.Median, m.Min, m.Max = 0, 0, 0
		return
	}
	m.Median, m.Min, m.Max = Median(m.Rounds), slices.Min(m.Rounds), slices.Max(m.Rounds)
	for _, g := range m.Processes() {
		m.ProcessMedians = append(m.ProcessMedians, Median(g))
	}
}

// Processes splits Rounds by process, as ProcessRounds says; nil when
// ProcessRounds is empty or does not add up to the rounds.
func (m *Metric) Processes() [][]float64 {
	if len(m.ProcessRounds) == 0 {
		return nil
	}
	var out [][]float64
	rest := m.Rounds
	for _, n := range m.ProcessRounds {
		if n < 1 || n > len(rest) {
			return nil
		}
		out = append(out, rest[:n:n])
		rest = rest[n:]
	}
	if len(rest) > 0 {
		return nil
	}
	return out
}

// Median is the median of xs, 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Metric returns the device's metric of that name, or nil.
func (d *Device) Metric(name string) *Metric {
	for i := range d.Metrics {
		if d.Metrics[i].Name == name {
			return &d.Metrics[i]
		}
	}
	return nil
}

// Device returns the record's device of that ID, or nil.
func (r *Record) Device(id string) *Device {
	for i := range r.Devices {
		if r.Devices[i].ID == id {
			return &r.Devices[i]
		}
	}
	return nil
}

// New returns a record dated now, with this binary's build and machine.
func New() *Record {
	host, _ := os.Hostname()
	return &Record{
		Schema:  SchemaVersion,
		Date:    time.Now().UTC().Truncate(time.Second),
		Gour:    ThisBuild(),
		Machine: Machine{Hostname: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()},
	}
}

// ThisBuild reads the running binary's build information.
func ThisBuild() Build {
	b := Build{Module: "github.com/gour-dev/gour", GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Version = info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Write writes r as indented JSON.
func (r *Record) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteFile writes r to path.
func (r *Record) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// ErrSchema is wrapped by the errors of a record that is not one this
// package can read: another schema version, or no record at all.
var ErrSchema = errors.New("not a urcompare record of schema version " + fmt.Sprint(SchemaVersion))

// Read decodes a record and checks it (Validate). Fields it does not know
// are refused, so that a record of a newer schema cannot pass for this one.
func Read(r io.Reader) (*Record, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	// The version first, so that a record of another schema is named as
	// such rather than by the first field that does not fit.
	var head struct {
		Schema *int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if head.Schema == nil {
		return nil, fmt.Errorf("%w: no \"schema\" field", ErrSchema)
	}
	if *head.Schema != SchemaVersion {
		return nil, fmt.Errorf("%w: schema version %d (this urcompare reads %d)", ErrSchema, *head.Schema, SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rec Record
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("malformed record: %w", err)
	}
	if err := rec.Validate(); err != nil {
		return nil, err
	}
	return &rec, nil
}

// ReadFile reads the record at path; errors name the file.
func ReadFile(path string) (*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// Validate checks what a diff relies on: unique device IDs, unique metric
// names per device with a unit and a direction, known statuses, and
// summaries that agree with the rounds.
func (r *Record) Validate() error {
	ids := map[string]bool{}
	for _, d := range r.Devices {
		if d.ID == "" {
			return errors.New("invalid record: a device has no id")
		}
		if ids[d.ID] {
			return fmt.Errorf("invalid record: device %s appears twice", d.ID)
		}
		ids[d.ID] = true
		names := map[string]bool{}
		for _, m := range d.Metrics {
			switch {
			case m.Name == "":
				return fmt.Errorf("invalid record: device %s: a metric has no name", d.ID)
			case names[m.Name]:
				return fmt.Errorf("invalid record: device %s: metric %s appears twice", d.ID, m.Name)
			case m.Unit == "":
				return fmt.Errorf("invalid record: device %s: metric %s has no unit", d.ID, m.Name)
			case m.Better != Lower && m.Better != Higher:
				return fmt.Errorf("invalid record: device %s: metric %s: better is %q, want %q or %q", d.ID, m.Name, m.Better, Lower, Higher)
			}
			names[m.Name] = true
			switch m.Check {
			case CheckOK, CheckWrong, CheckError, CheckTimeout, CheckSkipped:
			default:
				return fmt.Errorf("invalid record: device %s: metric %s: unknown check %q", d.ID, m.Name, m.Check)
			}
			if len(m.ProcessRounds) > 0 && m.Processes() == nil {
				return fmt.Errorf("invalid record: device %s: metric %s: process_rounds %v do not add up to its %d rounds", d.ID, m.Name, m.ProcessRounds, len(m.Rounds))
			}
			if len(m.Rounds) > 0 {
				s := m
				s.Summarize()
				if s.Median != m.Median || s.Min != m.Min || s.Max != m.Max {
					return fmt.Errorf("invalid record: device %s: metric %s: median/min/max %g/%g/%g do not match its rounds (%g/%g/%g)",
						d.ID, m.Name, m.Median, m.Min, m.Max, s.Median, s.Min, s.Max)
				}
				if !slices.Equal(s.ProcessMedians, m.ProcessMedians) {
					return fmt.Errorf("invalid record: device %s: metric %s: process_medians %v do not match its rounds (%v)", d.ID, m.Name, m.ProcessMedians, s.ProcessMedians)
				}
			} else if len(m.ProcessMedians) > 0 {
				return fmt.Errorf("invalid record: device %s: metric %s: process_medians without rounds", d.ID, m.Name)
			}
		}
		for _, c := range d.Conformance {
			switch c.Status {
			case Pass, Fail, Skip, Timeout:
			default:
				return fmt.Errorf("invalid record: device %s: case %s: unknown status %q", d.ID, c.Name, c.Status)
			}
		}
	}
	return nil
}
