package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"unicode"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/ur"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is urinfo without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, "urinfo", urinfo(args, stdout, stderr))
}

// urinfo parses args, discovers with the selector in force and writes the
// report; it fails when no device is selected.
func urinfo(args []string, stdout, stderr io.Writer) error {
	c := cli.New("urinfo", "[--device SELECTOR] [--verbose | --json]", `
List the devices gour finds, one line per device as sycl-ls prints them;
adapters that did not load go to standard error, with the reason.
Exit status: 0 with a device listed, 1 when none is selected, 2 on misuse.`)
	verbose := c.Flags.Bool("verbose", false, "print every device and platform property, and every adapter's status")
	asJSON := c.Flags.Bool("json", false, "print the devices and every adapter's status as JSON")
	c.DeviceFlag()
	if err := c.Parse(args, stdout); err != nil {
		return err
	}
	if *verbose && *asJSON {
		return cli.Usagef(c.Name, "--verbose and --json cannot be used together")
	}
	sys, sel, err := c.Discover()
	if err != nil {
		return err
	}
	rep := newReport(sys)

	// Each adapter failure is printed once: in the report where it has
	// them (--verbose, --json), else on standard error.
	switch {
	case *asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	case *verbose:
		writeVerbose(stdout, rep)
	default:
		for _, d := range rep.Devices {
			fmt.Fprintln(stdout, d.String)
		}
		cli.WriteAdapterFailures(stderr, sys)
	}
	if len(sys.Devices) == 0 {
		return cli.NoDevice(sys, sel, "")
	}
	return nil
}

// report is what urinfo knows after one discovery, in the shape of its
// JSON output.
type report struct {
	Devices  []deviceReport  `json:"devices"`
	Adapters []adapterReport `json:"adapters"`
}

type deviceReport struct {
	Backend  string `json:"backend"`
	Index    int    `json:"index"`
	String   string `json:"string"` // the sycl-ls line
	Platform fields `json:"platform"`
	Info     fields `json:"info"`
	// Memory is the device's memory now, where the driver reports it.
	Memory *memoryReport `json:"memory,omitempty"`
	// Queries holds every Unified Runtime device query the device
	// answers (Device.QueryAll), keyed by its name without the
	// UR_DEVICE_INFO_ prefix, in ur_device_info_t order; Unsupported
	// names those it cannot answer.
	Queries     queryFields `json:"queries"`
	Unsupported []string    `json:"unsupported_queries"`
	// BLAS is the status of each vendor BLAS library of package blas for
	// the device's backend (CLBlast on OpenCL, cuBLAS on CUDA).
	BLAS []blasReport `json:"blas,omitempty"`
}

type blasReport struct {
	Backend   string `json:"backend"`
	Library   string `json:"library"`
	Available bool   `json:"available"`
	Version   string `json:"version,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

type memoryReport struct {
	Free  uint64 `json:"free"`
	Total uint64 `json:"total"`
}

type adapterReport struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

func newReport(sys *ur.System) report {
	rep := report{Devices: []deviceReport{}, Adapters: []adapterReport{}}
	for _, d := range sys.Devices {
		rep.Devices = append(rep.Devices, deviceReport{
			Backend:  d.Backend(),
			Index:    d.Index(),
			String:   d.String(),
			Platform: structFields(d.Platform().Info()),
			Info:     structFields(d.Info()),
			Memory:   memoryOf(d),
			BLAS:     blasOf(d),
		})
		r := &rep.Devices[len(rep.Devices)-1]
		r.Queries, r.Unsupported = queriesOf(d)
	}
	for _, s := range sys.Statuses {
		a := adapterReport{Name: s.Name, Available: s.Err == nil, Reason: cli.AdapterReason(s)}
		rep.Adapters = append(rep.Adapters, a)
	}
	return rep
}

// memoryOf reads the device's free memory, or nil where its driver cannot
// tell.
func memoryOf(d *ur.Device) *memoryReport {
	free, total, err := d.FreeMemory()
	if err != nil {
		return nil
	}
	return &memoryReport{Free: free, Total: total}
}

// blasOf is the status of the vendor BLAS libraries for d.
func blasOf(d *ur.Device) []blasReport {
	var out []blasReport
	for _, s := range blas.Available(d) {
		out = append(out, blasReport{Backend: string(s.Backend), Library: s.Library, Available: s.Loaded, Version: s.Version, Reason: s.Reason})
	}
	return out
}

func writeVerbose(w io.Writer, rep report) {
	for i, d := range rep.Devices {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, d.String)
		fmt.Fprintf(w, "  backend: %s\n  index: %d\n", d.Backend, d.Index)
		fmt.Fprintln(w, "  platform:")
		for _, f := range d.Platform {
			writeField(w, f)
		}
		fmt.Fprintln(w, "  device:")
		for _, f := range d.Info {
			writeField(w, f)
		}
		if len(d.Queries) > 0 {
			fmt.Fprintln(w, "  queries:")
		}
		for _, q := range d.Queries {
			fmt.Fprintf(w, "    %s: %s\n", q.Name, q.text())
		}
		if len(d.Unsupported) > 0 {
			fmt.Fprintf(w, "  unsupported queries: %s\n", strings.Join(d.Unsupported, " "))
		}
		if m := d.Memory; m != nil {
			fmt.Fprintf(w, "  memory: %s free of %s\n", humanBytes(m.Free), humanBytes(m.Total))
		}
		if len(d.BLAS) > 0 {
			fmt.Fprintln(w, "  blas:")
		}
		for _, b := range d.BLAS {
			switch {
			case b.Available && b.Version != "":
				fmt.Fprintf(w, "    %s: loaded (%s %s)\n", b.Backend, b.Library, b.Version)
			case b.Available:
				fmt.Fprintf(w, "    %s: loaded (%s)\n", b.Backend, b.Library)
			default:
				fmt.Fprintf(w, "    %s: not available: %s\n", b.Backend, b.Reason)
			}
		}
	}
	if len(rep.Adapters) > 0 {
		if len(rep.Devices) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "adapters:")
		for _, a := range rep.Adapters {
			if a.Available {
				fmt.Fprintf(w, "  %s: loaded\n", a.Name)
			} else {
				fmt.Fprintf(w, "  %s: not available: %s\n", a.Name, a.Reason)
			}
		}
	}
}

func writeField(w io.Writer, f field) {
	if t := f.text(); t != "" {
		fmt.Fprintf(w, "    %s: %s\n", f.Key, t)
	} else {
		fmt.Fprintf(w, "    %s:\n", f.Key)
	}
}

// field is one exported field of an info struct, named in snake_case.
type field struct {
	Key   string
	Name  string // the Go field name
	Value any
}

// fields keeps the order of the struct in JSON, which a map would not.
type fields []field

func (fs fields) MarshalJSON() ([]byte, error) {
	return orderedJSON(len(fs), func(i int) (string, string, any) { return fs[i].Key, fs[i].Name, jsonValue(fs[i].Value) })
}

// orderedJSON is a JSON object of n members in order: member i's key and
// value, and its name in an error.
func orderedJSON(n int, member func(i int) (key, name string, value any)) ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		key, name, value := member(i)
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// jsonValue gives types with a name (the device type) their name rather
// than their number; structs keep their fields.
func jsonValue(v any) any {
	if _, ok := v.(json.Marshaler); ok || reflect.ValueOf(v).Kind() == reflect.Struct {
		return v
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return v
}

// structFields lists the exported fields of a struct by reflection, so a
// property added to ur.DeviceInfo or ur.PlatformInfo shows up without
// touching urinfo.
func structFields(v any) fields {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	out := make(fields, 0, rt.NumField())
	for i := range rt.NumField() {
		sf := rt.Field(i)
		if !sf.IsExported() {
			continue
		}
		out = append(out, field{Key: snakeCase(sf.Name), Name: sf.Name, Value: rv.Field(i).Interface()})
	}
	return out
}

// text formats a value for --verbose: sizes also in binary units, native
// handles in hex, IDs in both, vector widths by element type.
func (f field) text() string {
	switch v := f.Value.(type) {
	case string:
		return v
	case uintptr:
		return fmt.Sprintf("%#x", v)
	case uint32:
		if strings.HasSuffix(f.Name, "ID") {
			return fmt.Sprintf("%d (%#x)", v, v)
		}
	case uint64:
		if strings.HasSuffix(f.Name, "Size") && f.Name != "MaxWorkGroupSize" && v >= 1024 {
			return fmt.Sprintf("%d (%s)", v, humanBytes(v))
		}
	case [7]uint32:
		if strings.HasSuffix(f.Name, "VectorWidths") {
			names := [7]string{"char", "short", "int", "long", "float", "double", "half"}
			parts := make([]string, len(v))
			for i, n := range v {
				parts[i] = fmt.Sprintf("%s=%d", names[i], n)
			}
			return strings.Join(parts, " ")
		}
	}
	return fmt.Sprint(f.Value)
}

func humanBytes(n uint64) string {
	const unit = 1024
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(n) / unit
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// snakeCaseOverrides names fields whose acronyms the rule below splits badly.
var snakeCaseOverrides = map[string]string{
	"MaxClockMHz": "max_clock_mhz",
}

// snakeCase turns a Go field name into a key: "MaxWorkGroupSize" →
// "max_work_group_size", "FP64" → "fp64", "ILVersions" → "il_versions",
// "VendorID" → "vendor_id".
func snakeCase(name string) string {
	if s, ok := snakeCaseOverrides[name]; ok {
		return s
	}
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// queryField is one answered device query.
type queryField struct {
	Name  string // without UR_DEVICE_INFO_
	Kind  ur.QueryKind
	Value any
}

// queryFields keeps the queries in order in JSON.
type queryFields []queryField

func (qs queryFields) MarshalJSON() ([]byte, error) {
	return orderedJSON(len(qs), func(i int) (string, string, any) { return qs[i].Name, qs[i].Name, qs[i].jsonValue() })
}

// queriesOf answers every query; the unanswered are listed by name.
func queriesOf(d *ur.Device) (queryFields, []string) {
	answered := queryFields{}
	unsupported := []string{}
	for _, r := range d.QueryAll() {
		if r.Err != nil {
			unsupported = append(unsupported, r.Name)
			continue
		}
		answered = append(answered, queryField{Name: r.Name, Kind: r.Kind, Value: r.Value})
	}
	return answered, unsupported
}

// jsonValue: handles by name, bytes (a UUID) in hex, the rest as they are.
func (q queryField) jsonValue() any {
	switch v := q.Value.(type) {
	case *ur.Platform:
		if v == nil {
			return nil
		}
		return v.Info().Name
	case *ur.Device:
		if v == nil {
			return nil
		}
		return v.String()
	case []byte:
		return fmt.Sprintf("%x", v)
	}
	return q.Value
}

// text formats the value for --verbose: bit-fields in hex, the rest as
// in JSON.
func (q queryField) text() string {
	if q.Kind == ur.QueryFlags {
		return fmt.Sprintf("%#x", q.Value)
	}
	v := q.jsonValue()
	if v == nil {
		return "none"
	}
	return fmt.Sprint(v)
}
