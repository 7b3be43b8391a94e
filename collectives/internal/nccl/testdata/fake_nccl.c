/* A stand-in for libnccl.so.2: each entry point records its arguments as
 * text (fake_last), so that the binding's calls are checked on a machine
 * without NCCL. */
#include <stdio.h>
#include <stddef.h>
#include <string.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct {
	size_t size;
	unsigned int magic, version;
	int blocking;
} config;

static char last[512];
const char *fake_last(void) { return last; }

int ncclGetVersion(int *v) { *v = 22703; snprintf(last, sizeof last, "GetVersion"); return 0; }
int ncclGetUniqueId(ncclUniqueId *id) {
	for (int i = 0; i < 128; i++) id->internal[i] = (char)i;
	snprintf(last, sizeof last, "GetUniqueId");
	return 0;
}
int ncclCommInitAll(void **comms, int n, const int *devs) {
	for (int i = 0; i < n; i++) comms[i] = (void *)(size_t)(0x1000 + devs[i]);
	snprintf(last, sizeof last, "CommInitAll %d %d %d", n, devs[0], devs[n - 1]);
	return 0;
}
/* Communicators' states, as NCCL keeps them: a non-blocking one is
 * InProgress (7) after its initialisation or a split of it starts, until
 * the second poll of ncclCommGetAsyncError, which gives the result. */
enum { ncomms = 64 };
static struct {
	void *comm;
	int blocking, polls, result;
	void **split_out; /* a split under way: where NCCL writes the child */
	void *child;
} comms[ncomms];

static int slot(void *comm) {
	for (int i = 0; i < ncomms; i++)
		if (comms[i].comm == comm) return i;
	for (int i = 0; i < ncomms; i++)
		if (comms[i].comm == NULL) { comms[i].comm = comm; return i; }
	return 0;
}

int ncclCommInitRankScalable(void **comm, int nranks, int rank, int nid, ncclUniqueId *ids, config *cfg) {
	*comm = (void *)(size_t)(0x2000 + rank);
	int i = slot(*comm);
	comms[i].blocking = cfg->blocking;
	comms[i].polls = cfg->blocking ? 0 : 2;
	comms[i].result = 0;
	comms[i].split_out = NULL;
	snprintf(last, sizeof last, "CommInitRankScalable %d %d %d %d %d size=%zu magic=%#x version=%u blocking=%d", nranks, rank, nid,
		ids[0].internal[1], ids[0].internal[127], cfg->size, cfg->magic, cfg->version, cfg->blocking);
	return cfg->blocking ? 0 : 7;
}

/* ncclCommSplit as NCCL 2.18 to 2.28 have it: *out is NULL on return; for
 * a non-blocking parent the split runs on and the result is ncclSuccess
 * (the group's ncclInProgress is dropped), the parent's state InProgress
 * until a later poll, when the child is written. Key 99 makes the split
 * fail with ncclRemoteError (6), leaving a failed child. */
int ncclCommSplit(void *comm, int color, int key, void **out, config *cfg) {
	int i = slot(comm);
	void *child = (char *)comm + 0x100;
	*out = NULL;
	snprintf(last, sizeof last, "CommSplit %p %d %d blocking=%d", comm, color, key, cfg->blocking);
	if (comms[i].polls > 0) return 5; /* the parent is not ready: ncclCommEnsureReady's refusal */
	if (comms[i].blocking) {
		if (key == 99) return 6;
		*out = child;
		return 0;
	}
	comms[i].polls = 2;
	comms[i].result = key == 99 ? 6 : 0;
	comms[i].split_out = out;
	comms[i].child = child;
	return 0;
}
int ncclCommDestroy(void *comm) { snprintf(last, sizeof last, "CommDestroy %p", comm); return 0; }
int ncclCommAbort(void *comm) {
	int i = slot(comm);
	if (comms[i].split_out) { *comms[i].split_out = comms[i].child; comms[i].split_out = NULL; }
	comms[i].comm = NULL;
	snprintf(last, sizeof last, "CommAbort %p", comm);
	return 0;
}
/* The function's result is ncclSuccess for a valid communicator; the
 * state goes through asyncError. */
int ncclCommGetAsyncError(void *comm, int *state) {
	snprintf(last, sizeof last, "CommGetAsyncError %p", comm);
	if (comm == NULL) return 4;
	int i = slot(comm);
	if (comms[i].polls > 0 && --comms[i].polls > 0) { *state = 7; return 0; }
	if (comms[i].split_out) { *comms[i].split_out = comms[i].child; comms[i].split_out = NULL; }
	*state = comms[i].result;
	return 0;
}
const char *ncclGetErrorString(int r) { static char s[64]; snprintf(s, sizeof s, "stand-in error %d", r); return s; }
const char *ncclGetLastError(void *comm) { (void)comm; return "stand-in last error"; }
int ncclAllReduce(const void *s, void *r, size_t n, int dt, int op, void *comm, void *stream) {
	snprintf(last, sizeof last, "AllReduce %p %p %zu %d %d %p %p", s, r, n, dt, op, comm, stream);
	return 0;
}
int ncclBroadcast(const void *s, void *r, size_t n, int dt, int root, void *comm, void *stream) {
	snprintf(last, sizeof last, "Broadcast %p %p %zu %d %d %p %p", s, r, n, dt, root, comm, stream);
	return 0;
}
int ncclReduce(const void *s, void *r, size_t n, int dt, int op, int root, void *comm, void *stream) {
	snprintf(last, sizeof last, "Reduce %p %p %zu %d %d %d %p %p", s, r, n, dt, op, root, comm, stream);
	return 0;
}
int ncclAllGather(const void *s, void *r, size_t n, int dt, void *comm, void *stream) {
	snprintf(last, sizeof last, "AllGather %p %p %zu %d %p %p", s, r, n, dt, comm, stream);
	return 0;
}
int ncclReduceScatter(const void *s, void *r, size_t n, int dt, int op, void *comm, void *stream) {
	snprintf(last, sizeof last, "ReduceScatter %p %p %zu %d %d %p %p", s, r, n, dt, op, comm, stream);
	return 5;
}
int ncclSend(const void *b, size_t n, int dt, int peer, void *comm, void *stream) {
	snprintf(last, sizeof last, "Send %p %zu %d %d %p %p", b, n, dt, peer, comm, stream);
	return 0;
}
int ncclRecv(void *b, size_t n, int dt, int peer, void *comm, void *stream) {
	snprintf(last, sizeof last, "Recv %p %zu %d %d %p %p", b, n, dt, peer, comm, stream);
	return 0;
}
int ncclGroupStart(void) { snprintf(last, sizeof last, "GroupStart"); return 0; }
int ncclGroupEnd(void) { snprintf(last, sizeof last, "GroupEnd"); return 0; }

/* A context setter for Ctx: records its argument, fails for 0xbad. */
int fake_set_current(void *ctx) { snprintf(last, sizeof last, "set %p;", ctx); return ctx == (void *)0xbad ? 201 : 0; }
