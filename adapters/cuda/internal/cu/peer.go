package cu

import "github.com/gour-dev/gour/internal/dl"

// P2PAttribute is a CUdevice_P2PAttribute.
type P2PAttribute int32

// Peer attributes (cuDeviceGetP2PAttribute).
const (
	P2PAttributePerformanceRank       P2PAttribute = 1 // CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK
	P2PAttributeAccessSupported       P2PAttribute = 2 // CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED
	P2PAttributeNativeAtomicSupported P2PAttribute = 3 // CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED
)

// HasPeerAccess reports whether the driver exports cuDeviceCanAccessPeer,
// cuCtxEnablePeerAccess and cuCtxDisablePeerAccess.
func (l *Lib) HasPeerAccess() bool {
	return l.deviceCanAccessPeer != 0 && l.ctxEnablePeerAccess != 0 && l.ctxDisablePeerAccess != 0
}

// HasMemcpyPeer reports whether the driver exports cuMemcpyPeerAsync.
func (l *Lib) HasMemcpyPeer() bool { return l.memcpyPeerAsync != 0 }

// DeviceCanAccessPeer calls cuDeviceCanAccessPeer: whether dev's contexts
// can map peer's memory. NotSupported where the driver lacks it.
func (l *Lib) DeviceCanAccessPeer(dev, peer Device) (bool, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(dev), uintptr(peer)}
	r, out, _ := call(f, l.deviceCanAccessPeer)
	return int32At(&out[0]) != 0, r
}

// DeviceGetP2PAttribute calls cuDeviceGetP2PAttribute for the pair src,
// dst. NotSupported where the driver lacks it.
func (l *Lib) DeviceGetP2PAttribute(attr P2PAttribute, src, dst Device) (int32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(attr), uintptr(src), uintptr(dst)}
	r, out, _ := call(f, l.deviceGetP2PAttribute)
	return int32At(&out[0]), r
}

// CtxEnablePeerAccess calls cuCtxEnablePeerAccess: the current context
// maps peer's memory. PeerAccessAlreadyEnabled when it already does.
func (l *Lib) CtxEnablePeerAccess(peer Context) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(peer), 0}
	r, _, _ := call(f, l.ctxEnablePeerAccess)
	return r
}

// CtxDisablePeerAccess calls cuCtxDisablePeerAccess.
// PeerAccessNotEnabled when the current context does not map peer's
// memory.
func (l *Lib) CtxDisablePeerAccess(peer Context) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(peer)}
	r, _, _ := call(f, l.ctxDisablePeerAccess)
	return r
}

// MemcpyPeerAsync calls cuMemcpyPeerAsync: n bytes from src, memory of
// srcCtx's device, to dst, memory of dstCtx's, in stream s; over the
// direct path where peer access is enabled, staged by the driver where
// not.
func (l *Lib) MemcpyPeerAsync(dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), uintptr(dstCtx), uintptr(src), uintptr(srcCtx), n, uintptr(s)}
	r, _, _ := call(f, l.memcpyPeerAsync)
	return r
}
