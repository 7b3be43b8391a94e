package cache

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/gour-dev/gour/cache/signing"
)

// A remote value is an entry's .src file then its .bin file, exactly as
// on disk, after a signature envelope when its writer signs:
//
//	offset  size  field
//	0       8     magic "\x89gsig\r\n\x1a"
//	8       32    the signer's ed25519 public key
//	40      64    the signature
//	104           the .src file, then the .bin file
//
// The signature covers sigDomain, the value's name in the store and a
// digest of the rest of the value (bodyDigest): the name binds it to its
// key, so a signed value moved under another name no longer verifies,
// and the digest keeps the signed message small whatever the binary's
// size. The binary
// stays last, so that Remote.Delete can still match a value by its end.
const (
	sigMagic    = "\x89gsig\r\n\x1a"
	sigDomain   = "gour.cache.v1.remote.signature\x00"
	sigHeadSize = len(sigMagic) + ed25519.PublicKeySize + ed25519.SignatureSize
)

// RemoteSignatureSize is the size of a signed remote value's envelope:
// the value without its first RemoteSignatureSize bytes is the same
// entry unsigned.
const RemoteSignatureSize = sigHeadSize

// remoteName is the name of k in the remote store: the hex SHA-256 of
// its four directory names, so the same on every machine.
func remoteName(h hashFunc, k Key) string {
	rel := leafRel(h, k)
	sum := sha256.Sum256([]byte("gour.cache.v1.remote\x00" + rel[0] + rel[1] + rel[2] + rel[3]))
	return hex.EncodeToString(sum[:])
}

// RemoteName returns the name an entry of k has in a remote store (the
// store adds its prefix).
func RemoteName(k Key) string { return remoteName(sha256Hash, k) }

// encodeRemote returns the remote value of an entry under name: its .src
// file then its .bin file, signed with signer when there is one.
func encodeRemote(name string, k Key, bin []byte, info Info, created time.Time, signer *signing.PrivateKey) []byte {
	var nonce [nonceSize]byte
	_, _ = rand.Read(nonce[:])
	binFile := encodeBin(nonce, bin)
	src := encodeSrc(&srcRecord{Nonce: nonce, Created: created, BinLen: uint64(len(bin)),
		BinCRC: binary.LittleEndian.Uint32(binFile[12:]), Key: k, Info: info})
	if signer == nil {
		return append(src, binFile...)
	}
	v := make([]byte, sigHeadSize, sigHeadSize+len(src)+len(binFile))
	copy(v, sigMagic)
	copy(v[len(sigMagic):], signer.Public().Key)
	v = append(append(v, src...), binFile...)
	copy(v[len(sigMagic)+ed25519.PublicKeySize:], signer.Sign(signedMessage(name, v[sigHeadSize:])))
	return v
}

func signedMessage(name string, body []byte) []byte {
	sum := bodyDigest(body)
	return append(append([]byte(sigDomain), name...), sum[:]...)
}

// digestChunk is the piece of a body bodyDigest hashes on one goroutine:
// docs/benchmarks.md, "The remote cache tier on the H100", gives what
// checking an entry costs with 256 KiB pieces.
const digestChunk = 64 << 10

// bodyDigest is the SHA-256 of the body's length and of the SHA-256s of
// its digestChunk pieces, the pieces hashed at once on up to GOMAXPROCS
// goroutines: checking a remote hit is on the path of a new process's
// first kernel, and a 1 MiB binary hashed in one piece took a third of a
// local disk hit.
func bodyDigest(body []byte) [sha256.Size]byte {
	n := (len(body) + digestChunk - 1) / digestChunk
	sums := make([]byte, 8+n*sha256.Size)
	binary.LittleEndian.PutUint64(sums, uint64(len(body)))
	workers := max(min(n, runtime.GOMAXPROCS(0)), 1)
	var wg sync.WaitGroup
	for w := range workers {
		hash := func() {
			for i := w; i < n; i += workers {
				sum := sha256.Sum256(body[i*digestChunk : min((i+1)*digestChunk, len(body))])
				copy(sums[8+i*sha256.Size:], sum[:])
			}
		}
		if w == workers-1 {
			hash() // the last share on this goroutine
			continue
		}
		wg.Go(hash)
	}
	wg.Wait()
	return sha256.Sum256(sums)
}

// unseal splits a remote value into its signer's public key (nil for an
// unsigned value), its signature and its body, without verifying.
func unseal(v []byte) (signer, sig, body []byte, err error) {
	if !bytes.HasPrefix(v, []byte(sigMagic)) {
		return nil, nil, v, nil
	}
	if len(v) < sigHeadSize {
		return nil, nil, nil, badf("signed remote value of %d bytes, shorter than its signature", len(v))
	}
	at := len(sigMagic)
	return v[at : at+ed25519.PublicKeySize], v[at+ed25519.PublicKeySize : sigHeadSize], v[sigHeadSize:], nil
}

// verifySignature reports whether sig is signer's signature of the body
// of the value under name.
func verifySignature(name string, signer, sig, body []byte) bool {
	return ed25519.Verify(ed25519.PublicKey(signer), signedMessage(name, body), sig)
}

// splitRemote splits a remote value's body into its .src and .bin files,
// by the .src header's payload length.
func splitRemote(v []byte) (src, bin []byte, err error) {
	if len(v) < headerSize {
		return nil, nil, badf("remote value of %d bytes, shorter than a header", len(v))
	}
	n := binary.LittleEndian.Uint64(v[16:])
	if n > maxSrcPayload || n > uint64(len(v)-headerSize) {
		return nil, nil, badf("remote value: record length %d, value holds %d", n, len(v)-headerSize)
	}
	return v[:headerSize+n], v[headerSize+n:], nil
}

// decodeRemote verifies a remote value's body as readSlot verifies an
// entry's files: both headers and checksums, the .bin tied to the .src,
// and, with k, the full key.
func decodeRemote(body []byte, k *Key) (*Entry, error) {
	srcB, binB, err := splitRemote(body)
	if err != nil {
		return nil, err
	}
	rec, err := decodeSrc(srcB)
	if err != nil {
		return nil, err
	}
	if k != nil && !rec.Key.Equal(*k) {
		return nil, badf("remote value of another key")
	}
	nonce, bin, crc, err := decodeBin(binB)
	switch {
	case err != nil:
		return nil, fmt.Errorf(".bin: %w", err)
	case nonce != rec.Nonce || crc != rec.BinCRC || uint64(len(bin)) != rec.BinLen:
		return nil, badf(".bin belongs to another .src")
	}
	return &Entry{Key: rec.Key, Info: rec.Info, Binary: bin, Created: rec.Created}, nil
}

// RemoteEntry describes a value of a remote store, for listings.
type RemoteEntry struct {
	Key     Key
	Info    Info
	Created time.Time
	Binary  int64 // the binary's length
	// Signer is the public key the value names as its signer, nil for
	// an unsigned value. DecodeRemoteHead does not check the signature:
	// VerifyRemote does.
	Signer ed25519.PublicKey
}

// DecodeRemoteHead decodes the head of a remote value — its signature
// envelope and record, RemoteHeadSize bytes suffice for most — without
// its binary, and checks that name is the key's (when name is not
// empty). need is above zero when head is too short: it is how many
// bytes are needed.
func DecodeRemoteHead(name string, head []byte) (e RemoteEntry, need int, err error) {
	if bytes.HasPrefix(head, []byte(sigMagic)) || len(head) < len(sigMagic) && bytes.HasPrefix([]byte(sigMagic), head) {
		if len(head) < sigHeadSize+headerSize {
			return e, sigHeadSize + headerSize, nil
		}
		e, need, err = DecodeRemoteHead(name, head[sigHeadSize:])
		if need > 0 {
			need += sigHeadSize
		}
		e.Signer = bytes.Clone(head[len(sigMagic) : len(sigMagic)+ed25519.PublicKeySize])
		return e, need, err
	}
	if len(head) < headerSize {
		return e, headerSize, nil
	}
	n := binary.LittleEndian.Uint64(head[16:])
	if n > maxSrcPayload {
		return e, 0, badf("record length %d", n)
	}
	if uint64(len(head)) < headerSize+n {
		return e, int(headerSize + n), nil
	}
	rec, err := decodeSrc(head[:headerSize+n])
	if err != nil {
		return e, 0, err
	}
	if name != "" && RemoteName(rec.Key) != name {
		return e, 0, badf("value under the name of another key")
	}
	return RemoteEntry{Key: rec.Key, Info: rec.Info, Created: rec.Created, Binary: int64(rec.BinLen)}, 0, nil
}

// RemoteHeadSize is enough bytes of a remote value for DecodeRemoteHead
// with all but huge keys.
const RemoteHeadSize = 16 << 10

// VerifyRemote checks a whole remote value under name, its signature
// included, and returns its signer's public key (nil for an unsigned
// value). Whether the signer is trusted is the caller's question.
func VerifyRemote(name string, v []byte) (signer ed25519.PublicKey, err error) {
	signer, sig, body, err := unseal(v)
	if err != nil {
		return nil, err
	}
	if signer != nil && !verifySignature(name, signer, sig, body) {
		return signer, badf("signature of %s does not verify", signing.Fingerprint(signer))
	}
	e, err := decodeRemote(body, nil)
	if err != nil {
		return signer, err
	}
	if RemoteName(e.Key) != name {
		return signer, badf("value under the name of another key")
	}
	return bytes.Clone(signer), nil
}
