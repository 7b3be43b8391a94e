// Package signing holds the keys of the remote cache tier's signed
// entries: ed25519 key pairs, their text form, and key files checked as
// the cache checks its root.
//
// A machine that stores to a shared remote tier signs each value with its
// private key; every machine accepts a remote value only when one of the
// public keys it trusts signed it (package cache). The text form of a key
// is Nix's: a name, a colon and the key in standard base64 — the 32 bytes
// of an ed25519 public key, or the 64 bytes of a private key:
//
//	fleet-2026:rTuVkz1c1nR3GqoE0k4xDbq0pF2bXoWmB0jVJ0bQm1I=
//
// The name labels the key in listings and logs; it is not secret, and
// only the key bytes are checked. Generate makes a pair; `urcache key
// new` writes one to files.
//
// Key files are refused unless they are safe to trust: a private key
// file must be a regular file of this user that no one else can read or
// write (mode 0600 or stricter); a public key file, one of this user or
// root that no one else can write. A refused file is a *KeyError that
// says why.
package signing
