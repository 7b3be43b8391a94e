package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
