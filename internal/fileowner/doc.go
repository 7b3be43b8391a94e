// Package fileowner tells who owns a file, for the checks that refuse
// files others could have written: the persistent cache's root (package
// cache) and the remote tier's key files (package cache/signing).
package fileowner
