// Package redisrendezvous is a collectives.Rendezvous kept in a Redis
// server: the ranks of a communicator of several processes, on one
// machine or many, exchange NCCL's unique id (and the ring's addresses)
// through keys of one job, which expire.
//
//	rv, err := redisrendezvous.Open("redis://cache.internal:6379/0", "train-2026-11-27-a")
//	comm, err := collectives.Connect(ctx, rv, rank, nranks, queue)
//
// A key is Prefix + job + "/" + the name collectives gives it ("id",
// "ring/<id>/addr/3"). Publish writes with SET NX and a time to live, so
// that a job name reused while the keys of its last run live is an error
// (collectives.ErrRendezvous), never a rank joining the wrong run; Clear
// removes a job's keys. Wait polls GET, from 250 µs apart up to Poll
// apart, until its context ends (collectives.ErrTimeout on a deadline).
//
// It lives apart from package collectives so that programs that do not
// use it do not link go-redis.
package redisrendezvous
