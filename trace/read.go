package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Event is one trace event as Read returns it.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // microseconds
	Dur  float64        `json:"dur,omitempty"` // microseconds, for ph "X"
	Pid  int64          `json:"pid"`
	Tid  int64          `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// End returns the event's end in microseconds.
func (e Event) End() float64 { return e.Ts + e.Dur }

// Read parses a trace in the JSON array format, or the object format with
// a traceEvents array. A trace cut short (a program that exited while
// recording, a full disk) gives the events before the cut, truncated true
// and no error; end is the offset just after the last whole event.
func Read(data []byte) (events []Event, truncated bool, end int64, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, false, 0, fmt.Errorf("trace: not a trace: %w", err)
	}
	if d, ok := tok.(json.Delim); ok && d == '{' {
		// The object format: find traceEvents.
		for {
			k, err := dec.Token()
			if err != nil {
				return nil, true, 0, fmt.Errorf("trace: no traceEvents: %w", err)
			}
			if k == "traceEvents" {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, true, 0, fmt.Errorf("trace: %w", err)
			}
		}
		if tok, err = dec.Token(); err != nil {
			return nil, true, 0, fmt.Errorf("trace: %w", err)
		}
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, false, 0, errors.New("trace: not a trace: want a JSON array of events")
	}
	end = dec.InputOffset()
	for dec.More() {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			return events, true, end, nil
		}
		events = append(events, ev)
		end = dec.InputOffset()
	}
	if _, err := dec.Token(); err != nil {
		return events, true, end, nil
	}
	return events, false, end, nil
}

// Repair returns a truncated trace cut after its last whole event and
// closed, how many events it keeps and whether it was truncated. A whole
// trace comes back as it is.
func Repair(data []byte) (out []byte, events int, truncated bool, err error) {
	evs, truncated, end, err := Read(data)
	if err != nil {
		return nil, 0, false, err
	}
	if !truncated {
		return data, len(evs), false, nil
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return nil, 0, true, errors.New("trace: cannot repair a trace in the object format")
	}
	out = append(bytes.Clone(data[:end]), "\n]\n"...)
	return out, len(evs), true, nil
}

// Validate checks a trace as the trace event format requires what gour
// writes of it, strictly (a JSON array, closed): every event has a phase
// gour writes (X complete, i instant, M metadata), a name, a pid and tid,
// a time; a complete event a duration of zero or more; metadata a name
// in its args. It returns the events.
func Validate(data []byte) ([]Event, error) {
	events, truncated, _, err := Read(data)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, errors.New("trace: cut short")
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("trace: not a JSON array of events: %w", err)
	}
	if len(events) != len(raw) {
		return nil, errors.New("trace: cut short")
	}
	for i, e := range events {
		for _, field := range []string{"name", "ph", "pid", "tid"} {
			if _, ok := raw[i][field]; !ok {
				return nil, fmt.Errorf("trace: event %d has no %s", i, field)
			}
		}
		switch e.Ph {
		case "X":
			if _, ok := raw[i]["dur"]; !ok || e.Dur < 0 {
				return nil, fmt.Errorf("trace: complete event %d (%s) has no duration, or a negative one", i, e.Name)
			}
			fallthrough
		case "i":
			if _, ok := raw[i]["ts"]; !ok || e.Ts < 0 {
				return nil, fmt.Errorf("trace: event %d (%s) has no time, or a negative one", i, e.Name)
			}
		case "M":
			if _, ok := e.Args["name"]; !ok && e.Name != "process_sort_index" {
				return nil, fmt.Errorf("trace: metadata event %d (%s) names nothing", i, e.Name)
			}
		default:
			return nil, fmt.Errorf("trace: event %d has phase %q", i, e.Ph)
		}
	}
	return events, nil
}

// ValidateFile is Validate of the file at path.
func ValidateFile(path string) ([]Event, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Validate(data)
}

// OnQueue returns the commands on device queues' tracks, by queue id.
func OnQueue(events []Event) map[int64][]Event {
	m := map[int64][]Event{}
	for _, e := range events {
		if e.Pid == DevicePID && e.Ph == "X" {
			m[e.Tid] = append(m[e.Tid], e)
		}
	}
	return m
}
