package cltrace

import (
	stdcontext "context"

	"github.com/gour-dev/gour/ur/driver"
)

// Every object forwards to the inner adapter's object of the same kind,
// counting the call, and wraps what it returns; objects passed in are
// unwrapped first, since the inner adapter knows only its own.

var (
	cContextRelease      = newCounter("Context.Release")
	cContextNewQueue     = newCounter("Context.NewQueue")
	cContextNewBuffer    = newCounter("Context.NewBuffer")
	cContextFromSource   = newCounter("Context.NewProgramFromSource")
	cContextFromIL       = newCounter("Context.NewProgramFromIL")
	cContextFromBinaries = newCounter("Context.NewProgramFromBinaries")
	cContextLink         = newCounter("Context.Link")

	cQueueRelease = newCounter("Queue.Release")
	cQueueFlush   = newCounter("Queue.Flush")
	cQueueFinish  = newCounter("Queue.Finish")
	cQueueWrite   = newCounter("Queue.WriteBuffer")
	cQueueRead    = newCounter("Queue.ReadBuffer")
	cQueueCopy    = newCounter("Queue.CopyBuffer")
	cQueueFill    = newCounter("Queue.FillBuffer")
	cQueueLaunch  = newCounter("Queue.Launch")

	cMemRelease = newCounter("Mem.Release")

	cProgramRelease     = newCounter("Program.Release")
	cProgramBuild       = newCounter("Program.Build")
	cProgramCompile     = newCounter("Program.Compile")
	cProgramBuildLog    = newCounter("Program.BuildLog")
	cProgramBinaries    = newCounter("Program.Binaries")
	cProgramBinarySizes = newCounter("Program.BinarySizes")
	cProgramDevices     = newCounter("Program.Devices")
	cProgramKernelNames = newCounter("Program.KernelNames")
	cProgramSpecConst   = newCounter("Program.SetSpecConstant")
	cProgramNewKernel   = newCounter("Program.NewKernel")

	cKernelRelease  = newCounter("Kernel.Release")
	cKernelArgValue = newCounter("Kernel.SetArgValue")
	cKernelArgMem   = newCounter("Kernel.SetArgMem")
	cKernelArgLocal = newCounter("Kernel.SetArgLocal")
	cKernelInfo     = newCounter("Kernel.Info")

	cEventRelease   = newCounter("Event.Release")
	cEventWait      = newCounter("Event.Wait")
	cEventStatus    = newCounter("Event.Status")
	cEventProfiling = newCounter("Event.Profiling")
)

type context struct {
	a     *adapter
	inner driver.Context
}

func (c *context) Native() uintptr { return c.inner.Native() }

func (c *context) Release() error {
	cContextRelease.add()
	return c.inner.Release()
}

func (c *context) NewQueue(dev driver.Device, props driver.QueueProperties) (driver.Queue, error) {
	cContextNewQueue.add()
	id, err := unwrapDevice(dev)
	if err != nil {
		return nil, err
	}
	q, err := c.inner.NewQueue(id, props)
	if err != nil {
		return nil, err
	}
	return &queue{a: c.a, inner: q}, nil
}

func (c *context) NewBuffer(flags driver.MemFlags, size uint64, host []byte) (driver.Mem, error) {
	cContextNewBuffer.add()
	m, err := c.inner.NewBuffer(flags, size, host)
	if err != nil {
		return nil, err
	}
	return &mem{inner: m}, nil
}

func (c *context) NewProgramFromSource(source string) (driver.Program, error) {
	cContextFromSource.add()
	return c.program(c.inner.NewProgramFromSource(source))
}

func (c *context) NewProgramFromIL(il []byte) (driver.Program, error) {
	cContextFromIL.add()
	return c.program(c.inner.NewProgramFromIL(il))
}

func (c *context) NewProgramFromBinaries(devices []driver.Device, binaries [][]byte) (driver.Program, error) {
	cContextFromBinaries.add()
	ids, err := unwrapDevices(devices)
	if err != nil {
		return nil, err
	}
	return c.program(c.inner.NewProgramFromBinaries(ids, binaries))
}

func (c *context) Link(devices []driver.Device, programs []driver.Program, options string) (driver.Program, error) {
	cContextLink.add()
	ids, err := unwrapDevices(devices)
	if err != nil {
		return nil, err
	}
	inner := make([]driver.Program, len(programs))
	for i, p := range programs {
		w, ok := p.(*program)
		if !ok {
			return nil, foreign(driver.ResultInvalidProgram, p)
		}
		inner[i] = w.inner
	}
	return c.program(c.inner.Link(ids, inner, options))
}

func (c *context) program(p driver.Program, err error) (driver.Program, error) {
	if err != nil {
		return nil, err
	}
	return &program{a: c.a, inner: p}, nil
}

type queue struct {
	a     *adapter
	inner driver.Queue
}

func (q *queue) Native() uintptr { return q.inner.Native() }

func (q *queue) Release() error {
	cQueueRelease.add()
	return q.inner.Release()
}

func (q *queue) Flush() error {
	cQueueFlush.add()
	return q.inner.Flush()
}

func (q *queue) Finish() error {
	cQueueFinish.add()
	return q.inner.Finish()
}

func (q *queue) WriteBuffer(m driver.Mem, blocking bool, offset uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	cQueueWrite.add()
	im, iw, err := unwrapMemAndWait(m, wait)
	if err != nil {
		return nil, err
	}
	return wrapEvent(q.inner.WriteBuffer(im, blocking, offset, src, iw, wantEvent))
}

func (q *queue) ReadBuffer(m driver.Mem, blocking bool, offset uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	cQueueRead.add()
	im, iw, err := unwrapMemAndWait(m, wait)
	if err != nil {
		return nil, err
	}
	return wrapEvent(q.inner.ReadBuffer(im, blocking, offset, dst, iw, wantEvent))
}

func (q *queue) CopyBuffer(src, dst driver.Mem, srcOffset, dstOffset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	cQueueCopy.add()
	isrc, iw, err := unwrapMemAndWait(src, wait)
	if err != nil {
		return nil, err
	}
	idst, err := unwrapMem(dst)
	if err != nil {
		return nil, err
	}
	return wrapEvent(q.inner.CopyBuffer(isrc, idst, srcOffset, dstOffset, size, iw, wantEvent))
}

func (q *queue) FillBuffer(m driver.Mem, pattern []byte, offset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	cQueueFill.add()
	im, iw, err := unwrapMemAndWait(m, wait)
	if err != nil {
		return nil, err
	}
	return wrapEvent(q.inner.FillBuffer(im, pattern, offset, size, iw, wantEvent))
}

// Launch is the launch path of the front end's first launches, and of
// those a prepared launch could not make: with no wait list and no event
// it allocates nothing, as the contract of driver.Queue asks.
func (q *queue) Launch(k driver.Kernel, r driver.NDRange, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	cQueueLaunch.add()
	w, ok := k.(*kernel)
	if !ok {
		return nil, foreign(driver.ResultInvalidKernel, k)
	}
	iw, err := unwrapWait(wait)
	if err != nil {
		return nil, err
	}
	return wrapEvent(q.inner.Launch(w.inner, r, iw, wantEvent))
}

type mem struct {
	inner driver.Mem
}

func (m *mem) Native() uintptr { return m.inner.Native() }
func (m *mem) Size() uint64    { return m.inner.Size() }

func (m *mem) Release() error {
	cMemRelease.add()
	return m.inner.Release()
}

func unwrapMem(m driver.Mem) (driver.Mem, error) {
	if w, ok := m.(*mem); ok {
		return w.inner, nil
	}
	return nil, foreign(driver.ResultInvalidMemObject, m)
}

// unwrapWait unwraps a wait list; nil stays nil, so that a command without
// one allocates nothing.
func unwrapWait(wait []driver.Event) ([]driver.Event, error) {
	if len(wait) == 0 {
		return nil, nil
	}
	out := make([]driver.Event, len(wait))
	for i, e := range wait {
		w, ok := e.(*event)
		if !ok {
			return nil, foreign(driver.ResultInvalidEvent, e)
		}
		out[i] = w.inner
	}
	return out, nil
}

func unwrapMemAndWait(m driver.Mem, wait []driver.Event) (driver.Mem, []driver.Event, error) {
	im, err := unwrapMem(m)
	if err != nil {
		return nil, nil, err
	}
	iw, err := unwrapWait(wait)
	return im, iw, err
}

type program struct {
	a     *adapter
	inner driver.Program
}

func (p *program) Native() uintptr { return p.inner.Native() }

func (p *program) Release() error {
	cProgramRelease.add()
	return p.inner.Release()
}

func (p *program) Build(devices []driver.Device, options string) error {
	cProgramBuild.add()
	ids, err := unwrapDevices(devices)
	if err != nil {
		return err
	}
	return p.inner.Build(ids, options)
}

func (p *program) Compile(devices []driver.Device, options string) error {
	cProgramCompile.add()
	ids, err := unwrapDevices(devices)
	if err != nil {
		return err
	}
	return p.inner.Compile(ids, options)
}

func (p *program) BuildLog(dev driver.Device) (string, error) {
	cProgramBuildLog.add()
	id, err := unwrapDevice(dev)
	if err != nil {
		return "", err
	}
	return p.inner.BuildLog(id)
}

func (p *program) Binaries() ([][]byte, error) {
	cProgramBinaries.add()
	return p.inner.Binaries()
}

// BinarySizes passes on the inner program's driver.BinarySizer, which
// spares copying the binaries to learn their sizes.
func (p *program) BinarySizes() ([]uint64, error) {
	cProgramBinarySizes.add()
	if s, ok := p.inner.(driver.BinarySizer); ok {
		return s.BinarySizes()
	}
	bins, err := p.inner.Binaries()
	if err != nil {
		return nil, err
	}
	sizes := make([]uint64, len(bins))
	for i, b := range bins {
		sizes[i] = uint64(len(b))
	}
	return sizes, nil
}

func (p *program) Devices() ([]driver.Device, error) {
	cProgramDevices.add()
	ids, err := p.inner.Devices()
	if err != nil {
		return nil, err
	}
	return p.a.wrapDevices(ids)
}

func (p *program) KernelNames() ([]string, error) {
	cProgramKernelNames.add()
	return p.inner.KernelNames()
}

func (p *program) SetSpecConstant(id uint32, value []byte) error {
	cProgramSpecConst.add()
	return p.inner.SetSpecConstant(id, value)
}

func (p *program) NewKernel(name string) (driver.Kernel, error) {
	cProgramNewKernel.add()
	k, err := p.inner.NewKernel(name)
	if err != nil {
		return nil, err
	}
	return &kernel{inner: k}, nil
}

type kernel struct {
	inner driver.Kernel
}

func (k *kernel) Native() uintptr { return k.inner.Native() }

func (k *kernel) Release() error {
	cKernelRelease.add()
	return k.inner.Release()
}

func (k *kernel) SetArgValue(index uint32, value []byte) error {
	cKernelArgValue.add()
	return k.inner.SetArgValue(index, value)
}

func (k *kernel) SetArgMem(index uint32, m driver.Mem) error {
	cKernelArgMem.add()
	im, err := unwrapMem(m)
	if err != nil {
		return err
	}
	return k.inner.SetArgMem(index, im)
}

func (k *kernel) SetArgLocal(index uint32, size uint64) error {
	cKernelArgLocal.add()
	return k.inner.SetArgLocal(index, size)
}

func (k *kernel) Info(dev driver.Device) (driver.KernelInfo, error) {
	cKernelInfo.add()
	id, err := unwrapDevice(dev)
	if err != nil {
		return driver.KernelInfo{}, err
	}
	return k.inner.Info(id)
}

type event struct {
	inner driver.Event
}

// wrapEvent wraps the event of an enqueue; a command enqueued without one
// gives a nil driver.Event, which stays nil.
func wrapEvent(e driver.Event, err error) (driver.Event, error) {
	if err != nil || e == nil {
		return nil, err
	}
	return &event{inner: e}, nil
}

func (e *event) Native() uintptr { return e.inner.Native() }

func (e *event) Release() error {
	cEventRelease.add()
	return e.inner.Release()
}

func (e *event) Wait(ctx stdcontext.Context) error {
	cEventWait.add()
	return e.inner.Wait(ctx)
}

func (e *event) Status() (driver.EventStatus, error) {
	cEventStatus.add()
	return e.inner.Status()
}

func (e *event) Profiling() (driver.Profiling, error) {
	cEventProfiling.add()
	return e.inner.Profiling()
}
