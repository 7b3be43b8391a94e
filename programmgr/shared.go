package programmgr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// One build for identical devices. Devices of a context that a built
// binary cannot tell apart (two H100s, two sub-devices of one CPU) form a
// class: a program asked for on one of them is built for every device of
// the context in its class, one in-memory entry serves them all, the
// compiler runs once for the class (the other devices load its binary),
// and the persistent cache, whose key is the device's identity, holds one
// entry for them. Devices that differ in anything a binary depends on are
// never in one class. SYCL_CACHE_TRACE (2, the in-memory cache, or 4, the
// kernel compiler) logs each decision.

// deviceClass is what a binary depends on of a device: who builds it
// (backend, platform, driver), for what (name, versions, the IL and
// language versions it takes, its extensions, type, vendor, address bits,
// fp64 and fp16). Compute units and memory sizes are not in it: the same
// binary runs on a device of more or fewer of them.
type deviceClass struct {
	Backend, Platform, Name, DeviceVersion, DriverVersion string
	LanguageVersion, ILVersions, Extensions               string
	Type                                                  ur.DeviceType
	VendorID, AddressBits                                 uint32
	FP64, FP16                                            bool
}

func classOf(d *ur.Device) deviceClass {
	info := d.Info()
	c := deviceClass{
		Backend: d.Backend(), Name: info.Name, DeviceVersion: info.DeviceVersion, DriverVersion: info.DriverVersion,
		LanguageVersion: info.LanguageVersion, ILVersions: info.ILVersions, Extensions: info.Extensions,
		Type: info.Type, VendorID: info.VendorID, AddressBits: info.AddressBits, FP64: info.FP64, FP16: info.FP16,
	}
	if p := d.Platform(); p != nil {
		c.Platform = p.Info().Name
	}
	return c
}

// hash is the class's short name in traces: 12 hex digits of SHA-256
// over its fields.
func (c deviceClass) hash() string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%#v", c)))
	return hex.EncodeToString(sum[:6])
}

// diff names the first field in which two classes differ; "" when equal.
func (c deviceClass) diff(o deviceClass) string {
	a, b := reflect.ValueOf(c), reflect.ValueOf(o)
	for i := range a.NumField() {
		if !a.Field(i).Equal(b.Field(i)) {
			return a.Type().Field(i).Name
		}
	}
	return ""
}

// sharing is, for each device of the manager's context, the indices of
// the devices of its class (itself included, in context order).
type sharing struct {
	peers [][]int
	any   bool // some class has more than one device
}

// newSharing groups the context's devices into classes; with trace on it
// logs each pair of devices of one name that do not share, and why.
func (m *Manager) newSharing(devs []*ur.Device) sharing {
	classes := make([]deviceClass, len(devs))
	for i, d := range devs {
		classes[i] = classOf(d)
	}
	s := sharing{peers: make([][]int, len(devs))}
	for i := range devs {
		for j := range devs {
			if classes[i] == classes[j] {
				s.peers[i] = append(s.peers[i], j)
			} else if j > i && m.traceShare() && classes[i].Name == classes[j].Name {
				m.cfg.logger.Info("programmgr: separate builds", "devices", devs[i].Name()+" #"+strconv.Itoa(i)+", #"+strconv.Itoa(j),
					"differ", classes[i].diff(classes[j]), "classes", classes[i].hash()+","+classes[j].hash())
			}
		}
		s.any = s.any || len(s.peers[i]) > 1
	}
	return s
}

func (m *Manager) traceShare() bool {
	return m.cfg.trace&(TraceInMemCache|TraceKernelCompiler) != 0
}

// widen adds to devs (sorted context indices, as resolveDevices gives
// them, and their key) every device of the context in the class of one of
// them, so that identical devices share one program.
func (m *Manager) widen(devs []*ur.Device, key string) ([]*ur.Device, string) {
	if !m.share.any {
		return devs, key
	}
	idx := make([]int, 0, len(devs))
	for _, d := range devs {
		idx = append(idx, m.share.peers[m.devIndex[d]]...)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	if len(idx) == len(devs) {
		return devs, key
	}
	out := make([]*ur.Device, len(idx))
	k := make([]byte, 0, 4*len(idx))
	for i, j := range idx {
		out[i] = m.devices[j]
		k = binary.LittleEndian.AppendUint32(k, uint32(j))
	}
	if m.traceShare() {
		m.cfg.logger.Info("programmgr: shared build", "asked", deviceList(devs), "devices", deviceList(out),
			"class", classOf(devs[0]).hash())
	}
	return out, string(k)
}

func deviceList(devs []*ur.Device) string {
	names := make([]string, len(devs))
	for i, d := range devs {
		names[i] = d.Name()
	}
	return strings.Join(names, ",")
}

// kernelSlot is the key of a kernel of a program in its entry's kernel
// cache: its name and its device, since a program shared by identical
// devices gives each device a kernel of its own (kernels hold arguments).
func (m *Manager) kernelSlot(name string, dev *ur.Device) string {
	if !m.share.any {
		return name
	}
	return name + "\x00" + strconv.Itoa(m.devIndex[dev])
}

// noShareKey marks a build that must not be shared again (sharedBuild's
// fallback).
type noShareKey struct{}

// sharedBuild builds a program for devs in which some devices are of one
// class: it compiles for one device of each class and creates the program
// for every device from those binaries. ok is false where there is
// nothing to share (every device of its own class, a native image, which
// is a binary already) or the build must not be shared.
func (m *Manager) sharedBuild(ctx context.Context, img *Image, devs []*ur.Device, spec SpecValues, opts buildOptions) (p *Program, ok bool, err error) {
	if len(devs) < 2 || img.format == FormatNative || ctx.Value(noShareKey{}) != nil {
		return nil, false, nil
	}
	var reps []*ur.Device
	of := make([]int, len(devs)) // each device's representative, an index into reps
	classes := make([]deviceClass, 0, len(devs))
	for i, d := range devs {
		c := classOf(d)
		j := slices.Index(classes, c)
		if j < 0 {
			j = len(reps)
			reps = append(reps, d)
			classes = append(classes, c)
		}
		of[i] = j
	}
	if len(reps) == len(devs) {
		return nil, false, nil
	}
	first, err := m.buildOnce(ctx, img, reps, spec, opts)
	if err != nil {
		return nil, true, err
	}
	defer first.ur.Release()
	bins, err := repBinaries(first.ur, reps)
	if err != nil {
		// The adapter cannot hand its binaries back: each device builds.
		if m.traceShare() {
			m.cfg.logger.Info("programmgr: shared build not possible, building for each device", "image", img.id.Short(), "devices", deviceList(devs), "reason", fmt.Sprint(err))
		}
		p, err := m.buildOnce(context.WithValue(ctx, noShareKey{}, true), img, devs, spec, opts)
		return p, true, err
	}
	all := make([][]byte, len(devs))
	for i := range devs {
		all[i] = bins[of[i]]
	}
	if m.traceShare() {
		m.cfg.logger.Info("programmgr: one compile for identical devices", "image", img.id.Short(),
			"compiled", deviceList(reps), "devices", deviceList(devs))
	}
	p, err = m.fromBinaries(img, devs, spec, opts, all)
	return p, true, err
}

// repBinaries is each of reps' binary of p. A program lists its devices
// as its context has them (OpenCL: every device of the context, built or
// not), so each binary is found by its device.
func repBinaries(p *ur.Program, reps []*ur.Device) ([][]byte, error) {
	bins, err := p.Binaries()
	if err != nil {
		return nil, err
	}
	pdevs, err := p.Devices()
	if err != nil {
		return nil, err
	}
	if len(pdevs) != len(bins) {
		return nil, fmt.Errorf("%d binaries for %d devices", len(bins), len(pdevs))
	}
	out := make([][]byte, len(reps))
	for i, d := range reps {
		j := slices.Index(pdevs, d)
		if j < 0 || len(bins[j]) == 0 {
			return nil, fmt.Errorf("no binary for %s", d.Name())
		}
		out[i] = bins[j]
	}
	return out, nil
}
