// Package urkey makes the device part of a persistent-cache key from a
// ur.Device. It is the one place both the program manager (when it
// stores a binary) and urcache (when prune --stale compares stored
// devices with the devices present) take it from, so that the two always
// agree. Package cache itself does not import ur.
package urkey
