package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/urkey"
	_ "github.com/gour-dev/gour/drivers" // every adapter, and the remote tier's Redis store
	"github.com/gour-dev/gour/ur"
)

// Exit statuses (doc.go lists them).
const (
	exitOK    = 0 // done; also -h and --help
	exitError = 1 // the command failed, or verify found problems it left
	exitUsage = 2 // misuse: an unknown command or flag, a malformed value
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, discover))
}

// presentFunc returns the device keys present now and the backends
// whose adapter loaded.
type presentFunc func() (devices []cache.DeviceKey, loaded []string, err error)

// discover finds every device of every adapter that loads.
func discover() ([]cache.DeviceKey, []string, error) {
	sys, err := ur.Discover(ur.Config{Selector: "*:*"})
	if err != nil {
		return nil, nil, err
	}
	var keys []cache.DeviceKey
	for _, d := range sys.Devices {
		keys = append(keys, urkey.Device(d))
	}
	var loaded []string
	for _, a := range sys.Adapters {
		loaded = append(loaded, a.Name())
	}
	return keys, loaded, nil
}

type options struct {
	dir      string
	remote   string
	json     bool
	repair   bool
	maxSize  string
	olderThn string
	stale    bool
}

const usage = `usage: urcache [--dir DIR | --remote URL] [--json] COMMAND [flags]

commands:
  ls                 list entries (last use, size, device, image, kernels, options)
  stat               totals and settings
  verify [--repair]  check every entry; --repair removes bad ones
  prune [--max-size SIZE] [--older-than AGE] [--stale]
                     sweep, and remove entries by size, age or absent device
  clear              remove every entry
  key new|show FILE  make a key pair for signing remote entries, or show a
                     key file's public key (urcache key help)
  help               print this help

flags, before or after the command:
  --dir DIR          the cache root (default: SYCL_CACHE_DIR, else
                     $XDG_CACHE_HOME/gour, else $HOME/.cache/gour)
  --remote URL       the remote tier instead: redis://[user:password@]host:port[/db]
                     (rediss:// for TLS; ?prefix=P for another key prefix),
                     as in GOUR_CACHE_REMOTE; stat also shows the hit rate
  --json             print JSON
  -h, --help         print this help

SIZE: bytes, or a number with a unit K, M, G or T (powers of 1024): 500M, 2G.
AGE: a Go duration (36h) or days (7d).
exit status: 0 done, 1 failed (or verify left problems), 2 misuse.
`

// commonFlags makes the flag set of urcache or of one of its commands.
// Its Usage prints nothing: run prints the usage, to stdout when it was
// asked for and to stderr after a misuse.
func commonFlags(name string, o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	fs.StringVar(&o.dir, "dir", o.dir, "cache root")
	fs.StringVar(&o.remote, "remote", o.remote, "the remote tier's URL")
	fs.BoolVar(&o.json, "json", o.json, "print JSON")
	return fs
}

// parseFlags parses args into fs; on -h or --help it prints the usage to
// stdout, on a bad flag (which the flag package has reported) to stderr.
// ok is false when run must return status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (status int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return exitOK, false
	default:
		fmt.Fprint(stderr, usage)
		return exitUsage, false
	}
}

// run is urcache without the process; it returns the exit status.
func run(args []string, stdout, stderr io.Writer, present presentFunc) int {
	var o options
	fs := commonFlags("urcache", &o, stderr)
	if status, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return status
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "urcache: no command")
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	if cmd == "key" {
		return runKey(rest, stdout, stderr)
	}
	cfs := commonFlags("urcache "+cmd, &o, stderr)
	switch cmd {
	case "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "ls", "stat", "clear":
	case "verify":
		cfs.BoolVar(&o.repair, "repair", false, "remove bad entries")
	case "prune":
		cfs.StringVar(&o.maxSize, "max-size", "", "remove least recently used entries down to SIZE")
		cfs.StringVar(&o.olderThn, "older-than", "", "remove entries unused for longer than AGE")
		cfs.BoolVar(&o.stale, "stale", false, "remove entries of devices no longer present")
	default:
		fmt.Fprintf(stderr, "urcache: unknown command %q\n", cmd)
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if status, ok := parseFlags(cfs, rest, stdout, stderr); !ok {
		return status
	}
	if cfs.NArg() != 0 {
		fmt.Fprintf(stderr, "urcache %s: unexpected argument %q\n", cmd, cfs.Arg(0))
		return exitUsage
	}
	var prune cache.PruneOptions
	if cmd == "prune" {
		var err error
		if o.maxSize != "" {
			if prune.MaxSize, err = cache.ParseSize(o.maxSize); err != nil || prune.MaxSize <= 0 {
				fmt.Fprintf(stderr, "urcache prune: --max-size %q: want a size above 0: bytes, or a number with a unit K, M, G or T (powers of 1024), such as 500M or 2G\n", o.maxSize)
				return exitUsage
			}
		}
		if o.olderThn != "" {
			if prune.OlderThan, err = parseAge(o.olderThn); err != nil || prune.OlderThan <= 0 {
				fmt.Fprintf(stderr, "urcache prune: --older-than %q: want a duration above 0, such as 36h or 7d\n", o.olderThn)
				return exitUsage
			}
		}
	}

	if o.remote != "" {
		if o.dir != "" {
			fmt.Fprintln(stderr, "urcache: --dir and --remote name two caches: give one")
			return exitUsage
		}
		return runRemote(cmd, o, prune, stdout, stderr, present)
	}
	c, root, done, status := openCache(o, stderr)
	if c == nil {
		return status
	}
	defer done()
	w := &writer{out: stdout, err: stderr, json: o.json, root: root}
	switch cmd {
	case "ls":
		return w.ls(c)
	case "stat":
		return w.stat(c)
	case "verify":
		return w.verify(c, o.repair)
	case "prune":
		if o.stale {
			devs, loaded, err := present()
			if err != nil {
				fmt.Fprintln(stderr, "urcache prune --stale:", err)
				return exitError
			}
			prune.Remove = staleFilter(devs, loaded)
			if len(loaded) == 0 {
				fmt.Fprintln(stderr, "urcache prune --stale: no adapter loaded; no entry is judged stale")
			}
		}
		res, err := c.Prune(prune)
		return w.pruned(res, err)
	case "clear":
		res, err := c.Clear()
		return w.pruned(res, err)
	}
	return exitUsage
}

// openCache opens the cache at o.dir (or the default root). A root that
// does not exist is opened as an empty cache in a temporary directory
// (removed by done), so that the tool creates nothing. It returns nil and
// an exit status on failure.
func openCache(o options, stderr io.Writer) (c *cache.Cache, root string, done func(), status int) {
	done = func() {}
	on := true
	cfg := cache.Config{Dir: o.dir, Persistent: &on, Logger: slog.New(slog.DiscardHandler)}
	if v, _ := strconv.Atoi(os.Getenv(cache.EnvTrace)); v&1 != 0 {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	root, err := cfg.Root()
	if err != nil {
		fmt.Fprintln(stderr, "urcache:", err)
		return nil, "", done, exitError
	}
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
		empty, err := os.MkdirTemp("", "urcache-empty-")
		if err != nil {
			fmt.Fprintln(stderr, "urcache:", err)
			return nil, "", done, exitError
		}
		done = func() { os.RemoveAll(empty) }
		fmt.Fprintf(stderr, "urcache: no cache at %s\n", root)
		cfg.Dir = empty
	}
	c, err = cache.Open(cfg)
	if err != nil {
		done()
		fmt.Fprintln(stderr, "urcache:", err)
		return nil, "", func() {}, exitUsage
	}
	if !c.Enabled() {
		done()
		fmt.Fprintln(stderr, "urcache:", c.Err())
		return nil, "", func() {}, exitError
	}
	return c, root, done, exitOK
}

// staleFilter selects entries of a loaded backend whose device key
// matches no present device.
func staleFilter(devs []cache.DeviceKey, loaded []string) func(cache.EntryStat) bool {
	present := map[cache.DeviceKey]bool{}
	for _, d := range devs {
		present[d] = true
	}
	isLoaded := map[string]bool{}
	for _, b := range loaded {
		isLoaded[b] = true
	}
	return func(e cache.EntryStat) bool {
		return isLoaded[e.Key.Device.Backend] && !present[e.Key.Device]
	}
}

// parseAge reads a Go duration or a number of days ("7d").
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 || n > 1e5 {
			return 0, fmt.Errorf("bad age %q", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	return time.ParseDuration(s)
}

// writer prints text or JSON.
type writer struct {
	out, err io.Writer
	json     bool
	root     string // the cache root asked for (shown by stat)
}

func (w *writer) emit(v any) {
	enc := json.NewEncoder(w.out)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

type jsonDevice struct {
	Backend  string `json:"backend"`
	Platform string `json:"platform"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Driver   string `json:"driver"`
}

type jsonEntry struct {
	Path           string     `json:"path"`
	Device         jsonDevice `json:"device"`
	DeviceDir      string     `json:"device_dir"`
	Images         []string   `json:"images"`
	Spec           string     `json:"spec"`
	CompileOptions string     `json:"compile_options"`
	LinkOptions    string     `json:"link_options"`
	Format         string     `json:"format"`
	Kernels        []string   `json:"kernels"`
	ImageSize      int64      `json:"image_size"`
	Size           int64      `json:"size"`
	BinarySize     int64      `json:"binary_size"`
	Created        time.Time  `json:"created"`
	LastUse        time.Time  `json:"last_use"`
	Signer         string     `json:"signer,omitempty"` // remote: a trusted key's name, an untrusted key's fingerprint, or "unsigned"
}

func (w *writer) ls(c *cache.Cache) int {
	list, err := c.List()
	if err != nil {
		fmt.Fprintln(w.err, "urcache ls:", err)
		return exitError
	}
	entries := make([]listed, len(list))
	for i, e := range list {
		entries[i] = listed{EntryStat: e}
	}
	w.list(entries, false)
	return exitOK
}

// listed is an entry as ls lists it: a remote one has a signer.
type listed struct {
	cache.EntryStat
	signer string
}

// list writes entries as ls does, local or remote (with their signers).
func (w *writer) list(list []listed, remote bool) {
	if w.json {
		out := make([]jsonEntry, 0, len(list))
		for _, e := range list {
			d := e.Key.Device
			je := jsonEntry{
				Path: e.Path, Device: jsonDevice{d.Backend, d.Platform, d.Name, d.Version, d.Driver}, DeviceDir: e.DeviceDir,
				Images: []string{}, Spec: hex.EncodeToString(e.Key.Spec),
				CompileOptions: e.Key.CompileOptions, LinkOptions: e.Key.LinkOptions, Format: e.Info.Format,
				Kernels: e.Info.Kernels, ImageSize: e.Info.ImageSize, Size: e.Size, BinarySize: e.BinarySize,
				Created: e.Created, LastUse: e.LastUse, Signer: e.signer,
			}
			if je.Kernels == nil {
				je.Kernels = []string{}
			}
			for _, id := range e.Key.Images {
				je.Images = append(je.Images, hex.EncodeToString(id[:]))
			}
			out = append(out, je)
		}
		w.emit(out)
		return
	}
	tw := tabwriter.NewWriter(w.out, 0, 4, 2, ' ', 0)
	signer := func(string) string { return "" }
	if remote {
		fmt.Fprint(tw, "SIGNER\t")
		signer = func(s string) string { return s + "\t" }
	}
	fmt.Fprintln(tw, "LAST USE\tSIZE\tDEVICE\tIMAGE\tKERNELS\tOPTIONS")
	for _, e := range list {
		d := e.Key.Device
		img := "-"
		if len(e.Key.Images) > 0 {
			img = hex.EncodeToString(e.Key.Images[0][:6])
			if len(e.Key.Images) > 1 {
				img += fmt.Sprintf("+%d", len(e.Key.Images)-1)
			}
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", signer(e.signer), e.LastUse.Local().Format("2006-01-02 15:04:05"), human(e.Size),
			fmt.Sprintf("%s: %s [%s]", d.Backend, d.Name, d.Driver), img, kernels(e.Info.Kernels), optionsColumn(e.Key))
	}
	tw.Flush()
}

// optionsColumn shows a key's options in the listing: the compile options,
// then the link options, if any, marked as such; "-" for none. It is the
// last column, so that long options do not push the others apart.
func optionsColumn(k cache.Key) string {
	var parts []string
	if k.CompileOptions != "" {
		parts = append(parts, k.CompileOptions)
	}
	if k.LinkOptions != "" {
		parts = append(parts, "[link: "+k.LinkOptions+"]")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func kernels(ks []string) string {
	if len(ks) == 0 {
		return "-"
	}
	s := strings.Join(ks, ",")
	if len(s) <= 48 {
		return s
	}
	n := 0
	for i, k := range ks {
		if n+len(k) > 40 {
			return strings.Join(ks[:i], ",") + fmt.Sprintf(",… (%d)", len(ks))
		}
		n += len(k) + 1
	}
	return s
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func (w *writer) stat(c *cache.Cache) int {
	st, err := c.Stats()
	if err != nil {
		fmt.Fprintln(w.err, "urcache stat:", err)
		return exitError
	}
	st.Dir = w.root
	if w.json {
		w.emit(struct {
			Dir              string     `json:"dir"`
			Entries          int        `json:"entries"`
			Devices          int        `json:"devices"`
			Bytes            int64      `json:"bytes"`
			TrackedBytes     int64      `json:"tracked_bytes"`
			MaxSize          int64      `json:"max_size"`
			ThresholdDays    int        `json:"threshold_days"`
			EvictionDisabled bool       `json:"eviction_disabled"`
			ReadOnly         bool       `json:"read_only"`
			OldestUse        *time.Time `json:"oldest_use,omitempty"`
			NewestUse        *time.Time `json:"newest_use,omitempty"`
		}{st.Dir, st.Entries, st.Devices, st.Bytes, st.TrackedBytes, st.MaxSize, st.ThresholdDays, st.EvictionDisabled,
			st.ReadOnly, timePtr(st.Oldest), timePtr(st.Newest)})
		return exitOK
	}
	tw := tabwriter.NewWriter(w.out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "dir:\t%s\n", st.Dir)
	if st.ReadOnly {
		fmt.Fprintf(tw, "read-only:\tyes (hits are served; nothing is stored, pruned or repaired)\n")
	}
	fmt.Fprintf(tw, "entries:\t%d\n", st.Entries)
	fmt.Fprintf(tw, "devices:\t%d\n", st.Devices)
	fmt.Fprintf(tw, "size:\t%s (%d bytes)\n", human(st.Bytes), st.Bytes)
	if st.TrackedBytes >= 0 {
		fmt.Fprintf(tw, "tracked size:\t%d bytes (cache_size.txt)\n", st.TrackedBytes)
	} else {
		fmt.Fprintf(tw, "tracked size:\tnone (cache_size.txt missing)\n")
	}
	limit := "no limit"
	if st.MaxSize > 0 {
		limit = fmt.Sprintf("%s (%d bytes)", human(st.MaxSize), st.MaxSize)
	}
	age := "off"
	if st.ThresholdDays > 0 {
		age = fmt.Sprintf("%d days", st.ThresholdDays)
	}
	if st.EvictionDisabled {
		limit, age = "eviction disabled", "eviction disabled"
	}
	fmt.Fprintf(tw, "max size:\t%s\n", limit)
	fmt.Fprintf(tw, "age limit:\t%s\n", age)
	if st.Entries > 0 {
		fmt.Fprintf(tw, "oldest use:\t%s\n", st.Oldest.Local().Format(time.DateTime))
		fmt.Fprintf(tw, "newest use:\t%s\n", st.Newest.Local().Format(time.DateTime))
	}
	tw.Flush()
	return exitOK
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (w *writer) verify(c *cache.Cache, repair bool) int {
	res, err := c.Verify(repair)
	if err != nil {
		fmt.Fprintln(w.err, "urcache verify:", err)
		return exitError
	}
	return w.verified(res, repair, nil)
}

// verified writes what verify found, local or remote; the exit status
// says whether problems are left.
// verified reports what verify found; signers, for the remote tier,
// counts the values of each signer.
func (w *writer) verified(res cache.VerifyResult, repair bool, signers map[string]int) int {
	left := 0
	for _, p := range res.Problems {
		if !p.Removed {
			left++
		}
	}
	if w.json {
		type jp struct {
			Path    string `json:"path"`
			Reason  string `json:"reason"`
			Removed bool   `json:"removed"`
		}
		out := struct {
			Entries  int            `json:"entries"`
			Good     int            `json:"good"`
			Busy     int            `json:"busy"`
			Problems []jp           `json:"problems"`
			Signers  map[string]int `json:"signers,omitempty"`
		}{res.Entries, res.Good, res.Busy, []jp{}, signers}
		for _, p := range res.Problems {
			out.Problems = append(out.Problems, jp{p.Path, p.Reason, p.Removed})
		}
		w.emit(out)
	} else {
		for _, p := range res.Problems {
			state := ""
			if p.Removed {
				state = " (removed)"
			}
			fmt.Fprintf(w.out, "BAD %s: %s%s\n", p.Path, p.Reason, state)
		}
		fmt.Fprintf(w.out, "%d entries, %d good, %d problems", res.Entries, res.Good, len(res.Problems))
		if repair {
			fmt.Fprintf(w.out, ", %d removed", len(res.Problems)-left)
		}
		if res.Busy > 0 {
			fmt.Fprintf(w.out, ", %d directories busy (not checked)", res.Busy)
		}
		fmt.Fprintln(w.out)
		names := slices.Sorted(maps.Keys(signers))
		for _, name := range names {
			fmt.Fprintf(w.out, "signed by %s: %d\n", name, signers[name])
		}
	}
	if left > 0 {
		return exitError
	}
	return exitOK
}

func (w *writer) pruned(res cache.PruneResult, err error) int {
	if err != nil {
		fmt.Fprintln(w.err, "urcache:", err)
		return exitError
	}
	if w.json {
		w.emit(struct {
			Removed   int   `json:"removed"`
			Freed     int64 `json:"freed"`
			Swept     int   `json:"swept"`
			Busy      int   `json:"busy"`
			Entries   int   `json:"entries"`
			Bytes     int64 `json:"bytes"`
			DirsFreed int   `json:"dirs_freed"`
		}{res.Removed, res.Freed, res.Swept, res.Busy, res.Entries, res.Bytes, res.DirsFreed})
		return exitOK
	}
	fmt.Fprintf(w.out, "removed %d entries, swept %d files, freed %s; %d entries (%s) left",
		res.Removed, res.Swept, human(res.Freed), res.Entries, human(res.Bytes))
	if res.Busy > 0 {
		fmt.Fprintf(w.out, "; %d directories busy (skipped)", res.Busy)
	}
	fmt.Fprintln(w.out)
	return exitOK
}
