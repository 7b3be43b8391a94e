package testenv

import (
	"os"
	"testing"

	"github.com/gour-dev/gour/internal/redisserver"
)

// EnvRequireRedis set to 1 makes a test that needs redis-server fail,
// not skip, when the server cannot start.
const EnvRequireRedis = "GOUR_REQUIRE_REDIS"

// StartRedis starts a private redis-server (the one on PATH, with args
// added), stopped at the test's end. Without one the test skips, or
// fails under GOUR_REQUIRE_REDIS=1.
func StartRedis(t testing.TB, args ...string) *redisserver.Server {
	t.Helper()
	s, err := redisserver.Start("", t.TempDir(), args...)
	if err != nil {
		if os.Getenv(EnvRequireRedis) == "1" {
			t.Fatalf("redis-server: %v (%s=1)", err, EnvRequireRedis)
		}
		t.Skipf("redis-server cannot start: %v (%s=1 makes this a failure)", err, EnvRequireRedis)
	}
	t.Cleanup(s.Stop)
	return s
}
