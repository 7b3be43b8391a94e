package cache

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1048576": 1 << 20, " 42 ": 42, "42B": 42,
		"1K": 1 << 10, "1kb": 1 << 10, "1KiB": 1 << 10,
		"500M": 500 << 20, "2G": 2 << 30, "2 GiB": 2 << 30, "10g": 10 << 30,
		"1T": 1 << 40, "1.5G": 3 << 29, ".5K": 512,
		"9223372036854775807": 1<<63 - 1,
	}
	for s, want := range good {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	bad := []string{"", "G", "-1", "-1G", "1.5", "1.5B", "1X", "1e3", "1.2.3G", "8388608T", "9223372036854775808", "0x10"}
	for _, s := range bad {
		if n, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, n)
		} else if !strings.Contains(err.Error(), "size") {
			t.Errorf("ParseSize(%q): %v", s, err)
		}
	}
}

// Every size variable takes units; a malformed one names the variable.
func TestSizeSettings(t *testing.T) {
	s, err := Config{Getenv: env(EnvMaxSize, "10G", EnvMinImageSize, "1K", EnvMaxImageSize, "2M")}.resolve()
	if err != nil || s.maxSize != 10<<30 || s.minImage != 1<<10 || s.maxImage != 2<<20 {
		t.Fatalf("%+v %v", s, err)
	}
	for _, name := range []string{EnvMaxSize, EnvMinImageSize, EnvMaxImageSize} {
		_, err := Config{Getenv: env(name, "10 gigabytes")}.resolve()
		var se *SettingError
		if !errors.As(err, &se) || se.Name != name || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "K, M, G or T") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
