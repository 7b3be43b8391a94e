// Package redisopt sets what gour's Redis clients need of go-redis: the
// remote cache tier's store and the collectives' rendezvous both have
// deadlines of their own, so a command is never retried, a dial is tried
// once, contexts' deadlines are honoured, and the connection handshake
// is RESP2 without identity or maintenance notifications (servers and
// ACL users that lack HELLO or CLIENT SETINFO still serve).
package redisopt

import (
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Strict returns a copy of opt with those settings, and a dial timeout
// of at most 2 s.
func Strict(opt *redis.Options) *redis.Options {
	o := *opt
	o.MaxRetries = -1
	o.DialerRetries = 1 // one dial: a refused connection fails at once
	o.ContextTimeoutEnabled = true
	o.DisableIdentity = true
	o.Protocol = 2
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if o.DialTimeout == 0 || o.DialTimeout > 2*time.Second {
		o.DialTimeout = 2 * time.Second
	}
	return &o
}
