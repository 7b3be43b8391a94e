package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/rediscache"
)

// remoteTimeout bounds one urcache command on the remote tier.
const remoteTimeout = 10 * time.Minute

// runRemote runs cmd on the remote tier named by o.remote.
func runRemote(cmd string, o options, prune cache.PruneOptions, stdout, stderr io.Writer, present presentFunc) int {
	s, err := rediscache.OpenURL(o.remote)
	if err != nil {
		fmt.Fprintln(stderr, "urcache --remote:", err)
		return exitUsage
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), remoteTimeout)
	defer cancel()
	pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
	err = s.Client().Ping(pctx).Err()
	pcancel()
	if err != nil {
		fmt.Fprintf(stderr, "urcache --remote: %s: %v\n", s, err)
		return exitError
	}
	w := &writer{out: stdout, err: stderr, json: o.json, root: s.String()}
	keys, problems := cache.RemoteKeysFromEnv(nil)
	for _, p := range problems {
		fmt.Fprintln(stderr, "urcache --remote:", p)
	}
	switch cmd {
	case "stat":
		return w.remoteStat(ctx, s)
	case "ls":
		return w.remoteLs(ctx, s, keys)
	case "verify":
		return w.remoteVerify(ctx, s, keys, o.repair)
	case "prune":
		po := rediscache.PruneOptions{MaxSize: prune.MaxSize, OlderThan: prune.OlderThan}
		if o.stale {
			devs, loaded, err := present()
			if err != nil {
				fmt.Fprintln(stderr, "urcache prune --stale:", err)
				return exitError
			}
			if len(loaded) == 0 {
				fmt.Fprintln(stderr, "urcache prune --stale: no adapter loaded; no entry is judged stale")
			}
			f := staleFilter(devs, loaded)
			po.Remove = func(e cache.RemoteEntry) bool { return f(cache.EntryStat{Key: e.Key}) }
		}
		res, err := s.Prune(ctx, po)
		return w.remotePruned(res, err)
	case "clear":
		n, err := s.Clear(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "urcache clear --remote:", err)
			return exitError
		}
		if w.json {
			w.emit(struct {
				Removed int64 `json:"removed"`
			}{n})
		} else {
			fmt.Fprintf(stdout, "removed %d entries (and the leases and counters of prefix %q)\n", n, s.Prefix())
		}
		return exitOK
	}
	return exitUsage
}

func (w *writer) remoteStat(ctx context.Context, s *rediscache.Store) int {
	st, err := s.Stats(ctx)
	if err != nil {
		fmt.Fprintln(w.err, "urcache stat --remote:", err)
		return exitError
	}
	if w.json {
		w.emit(struct {
			Remote  string  `json:"remote"`
			Prefix  string  `json:"prefix"`
			Entries int64   `json:"entries"`
			Bytes   int64   `json:"bytes"`
			Leases  int64   `json:"leases"`
			Hits    int64   `json:"hits"`
			Misses  int64   `json:"misses"`
			HitRate float64 `json:"hit_rate"`
		}{s.String(), s.Prefix(), st.Entries, st.Bytes, st.Leases, st.Hits, st.Misses, st.HitRate()})
		return exitOK
	}
	tw := tabwriter.NewWriter(w.out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "remote:\t%s\n", s)
	fmt.Fprintf(tw, "prefix:\t%s\n", s.Prefix())
	fmt.Fprintf(tw, "entries:\t%d\n", st.Entries)
	fmt.Fprintf(tw, "size:\t%s (%d bytes)\n", human(st.Bytes), st.Bytes)
	fmt.Fprintf(tw, "build leases:\t%d\n", st.Leases)
	if st.Hits+st.Misses > 0 {
		fmt.Fprintf(tw, "lookups:\t%d hits, %d misses: hit rate %.1f%%\n", st.Hits, st.Misses, 100*st.HitRate())
	} else {
		fmt.Fprintf(tw, "lookups:\tnone counted\n")
	}
	tw.Flush()
	return exitOK
}

// remoteLs lists the entries as ls does, with the key each names as its
// signer (as keys see it: a trusted key's name, else untrusted).
func (w *writer) remoteLs(ctx context.Context, s *rediscache.Store, keys cache.RemoteKeys) int {
	var list []listed
	bad := 0
	now := time.Now()
	err := s.Scan(ctx, func(it rediscache.Item) error {
		e, err := s.Head(ctx, it.Name)
		var bv *rediscache.BadValueError
		switch {
		case errors.Is(err, rediscache.ErrNoEntry):
			return nil // removed since the scan
		case errors.As(err, &bv):
			bad++
			return nil
		case err != nil:
			return err
		}
		list = append(list, listed{cache.EntryStat{Path: it.Name, Key: e.Key, Info: e.Info, Size: it.Size, BinarySize: e.Binary,
			Created: e.Created, LastUse: now.Add(-it.Idle).Truncate(time.Second)}, keys.Describe(e.Signer)})
		return nil
	})
	if err != nil {
		fmt.Fprintln(w.err, "urcache ls --remote:", err)
		return exitError
	}
	// Most recently used first, as the local listing.
	slices.SortStableFunc(list, func(a, b listed) int { return b.LastUse.Compare(a.LastUse) })
	w.list(list, true)
	if bad > 0 {
		fmt.Fprintf(w.err, "urcache ls --remote: %d values are not valid entries (urcache --remote URL prune removes them)\n", bad)
	}
	return exitOK
}

// remoteVerify checks every value in full, its signature included, and
// counts the values of each signer. With trusted keys (or an explicit
// TrustUnsigned) a value no trusted key signed is a problem too, which
// --repair removes; without, signers are only counted.
func (w *writer) remoteVerify(ctx context.Context, s *rediscache.Store, keys cache.RemoteKeys, repair bool) int {
	var res cache.VerifyResult
	judged := keys.Signing != nil || len(keys.Trusted) > 0 || keys.Unsigned
	signers := map[string]int{}
	err := s.Scan(ctx, func(it rediscache.Item) error {
		v, err := s.Value(ctx, it.Name)
		if err != nil {
			return err
		}
		if v == nil {
			return nil // removed since the scan
		}
		res.Entries++
		signer, verr := cache.VerifyRemote(it.Name, v)
		if verr == nil {
			signers[keys.Describe(signer)]++
			if !judged || keys.Trusts(signer) {
				res.Good++
				return nil
			}
			verr = fmt.Errorf("%s: no trusted key signed it", keys.Describe(signer))
		}
		p := cache.Problem{Path: it.Name, Reason: verr.Error()}
		if repair {
			// Only the value read: one stored since is kept.
			if p.Removed, err = s.RemoveIf(ctx, it.Name, v); err != nil {
				return err
			}
		}
		res.Problems = append(res.Problems, p)
		return nil
	})
	if err != nil {
		fmt.Fprintln(w.err, "urcache verify --remote:", err)
		return exitError
	}
	if !judged && res.Entries > 0 {
		fmt.Fprintf(w.err, "urcache verify --remote: no trusted key (%s, %s): signatures checked, signers not judged\n", cache.EnvTrustedKeys, cache.EnvSigningKey)
	}
	return w.verified(res, repair, signers)
}

func (w *writer) remotePruned(res rediscache.PruneResult, err error) int {
	if err != nil {
		fmt.Fprintln(w.err, "urcache prune --remote:", err)
		return exitError
	}
	if w.json {
		w.emit(struct {
			Removed int64 `json:"removed"`
			Bad     int64 `json:"bad"`
			Freed   int64 `json:"freed"`
			Entries int64 `json:"entries"`
			Bytes   int64 `json:"bytes"`
		}{res.Removed, res.Bad, res.Freed, res.Entries, res.Bytes})
		return exitOK
	}
	fmt.Fprintf(w.out, "removed %d entries and %d bad values, freed %s; %d entries (%s) left\n",
		res.Removed, res.Bad, human(res.Freed), res.Entries, human(res.Bytes))
	return exitOK
}
