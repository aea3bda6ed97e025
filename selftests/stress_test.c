// SPDX-License-Identifier: GPL-2.0
/*
 * Stress with exact accounting (issue 32): producer processes and their
 * threads, several streams on each process with every policy, live
 * readers, a log, kernel events and inheritance, while a controller
 * starts, stops, clears, filters, flushes, shuts down and recreates
 * streams at random and a killer SIGKILLs whole families of producers.
 * Every stream accounts, exactly, for every event it had to take: read
 * (live, or from its log) + counted lost + cleared == emitted; no record
 * is returned twice, torn, out of order within a thread, from a process
 * the stream does not trace, or made while the stream did not record.
 *
 * The test process is the controller (it creates every stream and reads
 * them). It runs FAMILIES families; each is a producer process P (its own
 * process group) with PTHREADS producer threads and a main thread that
 * also forks children (at most MAX_CHILDREN alive), each of which records,
 * may exec this program again and record on (the constructor
 * exec_child()), and exits. Each P is traced by five streams the
 * controller created with P's /proc/PID/mem as proof (the roles):
 *
 *  loop	LOOP, small, P only: losses by overwriting; read live with
 *		the raw ABI, OVERFLOW and RESUME at each gap; START, STOP and
 *		FILTER recorded (the controller knows how many it caused).
 *  until_full	UNTIL_FULL, P only, read live by a reader that falls
 *		behind: stops when full and restarts.
 *  flush_log	FLUSH with a log (APPEND or UNTIL_FULL), P only: its log is
 *		read back at the end, raw (every block, so that the events a
 *		clear made the log forget still count as written) and through
 *		posix_trace_open(), which must show exactly what follows the
 *		last clear.
 *  kernel	LOOP, inherited, kernel events of the proc class (fork,
 *		exec, exit): the forks of P, the execs of its children, the
 *		exits of every thread, killed or not, are emitted events too;
 *		A filtered out for good (kernel events are what it is for).
 *  inherited	UNTIL_FULL, inherited: P and the children it forks from the
 *		stream's creation on (and what they exec).
 * Outside the loop stream, the system events the controller causes
 * (START, STOP, FILTER, FLUSH_START, FLUSH_STOP) are filtered out at
 * creation: an UNTIL_FULL or FLUSH stream makes some of its own (a restart
 * when emptied, a FILTER that did not fit), which nobody could count. The
 * producers' events are of two types, A and B; filter changes add and
 * take B out.
 *
 * The epoch protocol. Each family has an epoch in shared memory, even
 * while the state of every stream tracing it is stable, odd while the
 * controller changes one (the other families go on meanwhile). Each of
 * its threads reads it before each call (an event, a fork, an exec, an
 * exit) and makes the call only in an even epoch; in an odd one it
 * acknowledges the epoch and waits. Before any change the controller
 * makes the epoch odd and waits until every live thread of the family has
 * acknowledged it: every call begun before has returned, none is under
 * way, every exiting child is reaped. So every event was made in a
 * stable epoch whose state the controller knows: it had to be taken
 * (read, lost or cleared) by every stream that then recorded its type
 * from its process, and by no other. Each thread counts its completed
 * calls in shared memory; at each change the controller adds what each
 * thread did since the last one to the streams that recorded it. Each
 * event carries its thread's slot, its number in the thread, its epoch
 * and type, its length and a checksum, and its data is a pattern of all
 * these: a torn, truncated or misplaced record shows. One reader thread
 * per family reads its four live streams in turn, skipping each now and
 * then so that it fills or is overwritten.
 *
 * What is exact, and what is bounded:
 *  - A SIGKILL in the middle of calls ("wild" kills) leaves each thread's
 *    call in flight undecided: taken or not. Such a call is counted apart
 *    (uncertain): read + lost + cleared - emitted must lie between the
 *    uncertain events that were read (a user event is recognised by its
 *    slot and number) and all of them. "Quiet" kills, in an odd epoch
 *    when no call is under way, and every other change, are exact. At
 *    the end every family is killed, quietly unless a call (an exec)
 *    keeps it from being quiet within a second.
 *  - A clear discards what the stream holds, uncounted. The controller
 *    clears with its producers quiet and its reader held. A "drained"
 *    clear reads the stream empty first, and the clear must then discard
 *    nothing (exact). A "discarding" clear discards what STATUS's
 *    counters say the stream held (recorded - read - lost, lost only for
 *    LOOP, less what earlier clears discarded), checked against
 *    bytes_used (nothing iff empty, within the record sizes): exact
 *    given the counters, but an event dropped from storage uncounted
 *    just before such a clear would look cleared; only a count from the
 *    module of what a clear discards would tell the two apart. The
 *    kernel stream, whose kernel events can be lost without ever being
 *    recorded (a full per-CPU buffer), is cleared drained only. The log
 *    stream is flushed, then cleared: its stream holds nothing then,
 *    and what its log forgets is still in the file, before a CLEAR
 *    block.
 *
 * How long: SHORT_SECONDS (make check), or "SECONDS [SEED]" from the file
 * "stress-seconds" beside this program; TRC_STRESS_SEED sets the seed too
 * (the file wins). Every loop is bounded by a count and by time; a call
 * that does not return within HANG_MS is reported with the thread's
 * kernel stack.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "trc_common.h"
#include "trl_common.h"
#include "stress_common.h"
#include "beside_program.h"

#define FAMILIES	3
#define PTHREADS	2	/* producer threads of P, beside its main */
#define MAX_CHILDREN	2	/* live children of a family */
#define FORK_ONE_IN	40	/* of P's main thread's calls */
#define CHILD_EVENTS	300	/* at most, per image of a child */
#define MAXSLOTS	65536	/* threads and children, over the run */
#define SLOTS_KEPT	4096	/* of them, for new families only */
#define MAX_TRANS	4096	/* state changes of a stream */
#define MAX_LOG_CLEARS	256
#define EXITS_NOTED	256	/* of a stream, to name those missing */
#define DATA_MAX	200	/* the longest user event */
#define RBUF		65536
#define HANG_MS		10000
#define SHORT_SECONDS	4
#define EXEC_ENV	"POSIXTRACE_STRESS_EXEC"
#define SECONDS_FILE	"stress-seconds"
#define OPS_MAX		100000000ULL	/* calls of one thread, at most */

enum role { R_LOOP, R_UNTIL, R_LOG, R_KERNEL, R_INHERIT, ROLES };

static const char *const role_names[ROLES] = {
	"loop", "until_full", "flush_log", "kernel", "inherited",
};

/* ---- shared memory: the epoch, the families, the threads' slots ------ */

enum slot_kind { K_PRODUCER = 1, K_MAIN, K_CHILD };
enum slot_state { S_FREE, S_PENDING, S_ALIVE, S_EXITING, S_DEAD };
enum op_kind { OP_NONE, OP_EVENT, OP_FORK, OP_EXEC, OP_EXIT };

/*
 * A thread of P, or a child (whose images share it). Counters are
 * bumped when a call returns, before @done: the controller reads them
 * once the thread has acknowledged an odd epoch, or is dead.
 */
struct slot {
	_Atomic uint32_t state;
	_Atomic uint32_t seen;		/* the last epoch acknowledged */
	_Atomic uint32_t started;	/* a child ran */
	uint32_t kind, fam, gen;
	uint32_t birth_epoch;		/* a child's: its fork's epoch */
	_Atomic int32_t pid, tid;
	_Atomic uint64_t attempted, done;
	/* The call under way (attempted != done), set before attempted. */
	uint32_t op_kind, op_type, op_seq, op_epoch;
	uint64_t op_before;		/* its counter before it */
	_Atomic uint64_t ev[2], forks, execs, exits;
	uint32_t next_seq;		/* of its user events */
};

struct family_shm {
	_Atomic uint32_t epoch;		/* a futex: its threads wait on it */
	_Atomic uint32_t gen;
	_Atomic uint32_t main_slot;
	_Atomic int32_t pid;
	_Atomic uint32_t ready, go;
	uint32_t ids[2];		/* event types A and B */
};

struct shm {
	_Atomic uint32_t acks;		/* a futex: the controller waits */
	_Atomic uint32_t ctl_waits;
	_Atomic uint32_t stop;
	_Atomic uint32_t next_slot;
	_Atomic uint32_t errors;
	atomic_flag why_taken;
	char why[320];
	_Atomic uint64_t forks, execs;
	struct family_shm fam[FAMILIES];
	struct slot slots[MAXSLOTS];
};

static struct shm *sh;
static int shm_fd = -1;

/* Shared between processes: not FUTEX_PRIVATE. */
static void futex_wait_ms(_Atomic uint32_t *word, uint32_t val,
			  unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* Errors of producers (any process): the first one is kept. */
static void __attribute__((format(printf, 1, 2))) prod_err(const char *fmt,
							   ...)
{
	va_list ap;

	atomic_fetch_add(&sh->errors, 1);
	if (atomic_flag_test_and_set(&sh->why_taken))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
}

/* ---- event data ------------------------------------------------------ */

#define PL_MAGIC	0x5354524eU

/* What a user event's data begins with; a pattern of it follows. */
struct payload {
	uint32_t magic;
	uint32_t slot;
	uint32_t seq;
	uint32_t epoch;
	uint16_t len;		/* of the whole data */
	uint16_t type;
	uint32_t sum;
};

static uint32_t pl_sum(const struct payload *p)
{
	uint32_t h = 2166136261u;

	h = (h ^ p->slot) * 16777619u;
	h = (h ^ p->seq) * 16777619u;
	h = (h ^ p->epoch) * 16777619u;
	h = (h ^ ((uint32_t)p->len << 16 | p->type)) * 16777619u;
	return h;
}

static unsigned char pl_byte(const struct payload *p, size_t i)
{
	return (unsigned char)(p->slot * 131 + p->seq * 7 + i * 13 +
			       (p->seq >> 8) + p->epoch);
}

static void pl_fill(unsigned char *buf, uint32_t slot, uint32_t seq,
		    uint32_t epoch, uint16_t len, uint16_t type)
{
	struct payload p = {
		.magic = PL_MAGIC, .slot = slot, .seq = seq, .epoch = epoch,
		.len = len, .type = type,
	};
	size_t i;

	p.sum = pl_sum(&p);
	memcpy(buf, &p, sizeof(p));
	for (i = sizeof(p); i < len; i++)
		buf[i] = pl_byte(&p, i);
}

/* ---- the producers' side ----------------------------------------------- */

static uint32_t slot_index(const struct slot *s)
{
	return (uint32_t)(s - sh->slots);
}

/* A new slot, set up but for its state; NULL when none is left. */
static struct slot *slot_alloc(uint32_t kind, uint32_t fam, uint32_t gen,
			       uint32_t epoch)
{
	uint32_t idx = atomic_fetch_add(&sh->next_slot, 1);
	struct slot *s;

	if (idx >= MAXSLOTS ||
	    (kind == K_CHILD && idx >= MAXSLOTS - SLOTS_KEPT))
		return NULL;
	s = &sh->slots[idx];
	s->kind = kind;
	s->fam = fam;
	s->gen = gen;
	s->birth_epoch = epoch;
	atomic_store(&s->seen, epoch);
	return s;
}

/*
 * The stable epoch to make the next call in: while the epoch is odd, or
 * the family not yet let go, acknowledge it and wait for the next one.
 * UINT32_MAX: stop. @reap, if set, is called meanwhile, every
 * millisecond (the main thread reaps its children).
 */
static uint32_t stable_epoch(struct slot *s, struct family_shm *f,
			     void (*reap)(void *), void *arg)
{
	uint32_t e;

	for (;;) {
		if (atomic_load(&sh->stop))
			return UINT32_MAX;
		e = atomic_load_explicit(&f->epoch, memory_order_acquire);
		if (!(e & 1) && atomic_load(&f->go))
			return e;
		if (atomic_load_explicit(&s->seen, memory_order_relaxed) != e) {
			atomic_store_explicit(&s->seen, e,
					      memory_order_release);
			atomic_fetch_add(&sh->acks, 1);
			if (atomic_load(&sh->ctl_waits))
				futex_wake_all(&sh->acks);
		}
		if (reap)
			reap(arg);
		futex_wait_ms(&f->epoch, e, reap ? 1 : 50);
	}
}

static void op_begin(struct slot *s, uint32_t kind, uint32_t type,
		     uint32_t seq, uint32_t epoch, uint64_t before)
{
	s->op_kind = kind;
	s->op_type = type;
	s->op_seq = seq;
	s->op_epoch = epoch;
	s->op_before = before;
	atomic_fetch_add_explicit(&s->attempted, 1, memory_order_release);
}

static void op_end(struct slot *s, uint32_t epoch)
{
	atomic_fetch_add_explicit(&s->done, 1, memory_order_release);
	atomic_store_explicit(&s->seen, epoch, memory_order_release);
}

/* Now and then, a pause: the readers and the controller run too. */
static void pace(uint64_t *rng)
{
	if (!rnd_below(rng, 8))
		usleep(rnd_below(rng, 2000));
}

/* One user event of type A or B, of a random length. */
static void make_event(struct slot *s, struct family_shm *f,
		       uint32_t epoch, uint64_t *rng)
{
	unsigned char buf[DATA_MAX];
	uint16_t type = rnd_below(rng, 2);
	uint16_t len = sizeof(struct payload) +
		       rnd_below(rng, DATA_MAX - sizeof(struct payload) + 1);
	uint32_t seq = s->next_seq;

	pl_fill(buf, slot_index(s), seq, epoch, len, type);
	op_begin(s, OP_EVENT, type, seq, epoch, atomic_load(&s->ev[type]));
	posix_trace_event(f->ids[type], buf, len);
	s->next_seq = seq + 1;
	atomic_fetch_add(&s->ev[type], 1);
	op_end(s, epoch);
}

static void *producer_thread(void *arg)
{
	struct slot *s = arg;
	struct family_shm *f = &sh->fam[s->fam];
	uint64_t rng = 0x9d0c0de5ULL * (slot_index(s) + 1), n;
	uint32_t e;

	atomic_store(&s->tid, gettid());
	for (n = 0; n < OPS_MAX; n++) {
		e = stable_epoch(s, f, NULL, NULL);
		if (e == UINT32_MAX)
			break;
		make_event(s, f, e, &rng);
		pace(&rng);
	}
	return NULL;
}

/* Open A and B in this process; false (and an error) if they differ. */
static bool open_types(uint32_t ids[2], const struct family_shm *check)
{
	trace_event_id_t a, b;

	if (posix_trace_eventid_open("stress.a", &a) ||
	    posix_trace_eventid_open("stress.b", &b)) {
		prod_err("pid %d: eventid_open failed", getpid());
		return false;
	}
	if (check && (a != check->ids[0] || b != check->ids[1])) {
		prod_err("pid %d: A and B are %u and %u, the family's %u and %u",
			 getpid(), a, b, check->ids[0], check->ids[1]);
		return false;
	}
	if (ids) {
		ids[0] = a;
		ids[1] = b;
	}
	return true;
}

/*
 * A child: some events, perhaps an exec of this program (which goes on
 * here, from exec_child()), then its exit, a call like the others.
 */
static void __attribute__((noreturn)) child_run(struct slot *s, bool execd,
						char *const *argv,
						char *const *envp)
{
	struct family_shm *f = &sh->fam[s->fam];
	uint64_t rng = 0xc411dULL * (slot_index(s) + 1) + execd;
	uint32_t e, i, n = 1 + rnd_below(&rng, CHILD_EVENTS);

	atomic_store(&s->pid, getpid());
	atomic_store(&s->tid, getpid());
	atomic_store(&s->started, 1);
	for (i = 0; i < n; i++) {
		e = stable_epoch(s, f, NULL, NULL);
		if (e == UINT32_MAX)
			_exit(0);
		make_event(s, f, e, &rng);
		pace(&rng);
	}
	e = stable_epoch(s, f, NULL, NULL);
	if (e == UINT32_MAX)
		_exit(0);
	/* An exec is slow (a dynamic link): one child in four. */
	if (!execd && argv && !rnd_below(&rng, 4)) {
		op_begin(s, OP_EXEC, 0, 0, e, atomic_load(&s->execs));
		execve("/proc/self/exe", argv, envp);
		prod_err("exec: errno %d", errno);
		_exit(3);
	}
	op_begin(s, OP_EXIT, 0, 0, e, atomic_load(&s->exits));
	atomic_store(&s->state, S_EXITING);
	_exit(0);
}

/*
 * The exec'd image of a child: "FD:SLOT" in the environment. The exec is
 * done once this image runs: counted, then the child goes on.
 */
static void __attribute__((constructor)) exec_child(void)
{
	const char *env = getenv(EXEC_ENV);
	unsigned int idx;
	struct slot *s;
	int fd;

	if (!env)
		return;
	if (sscanf(env, "%d:%u", &fd, &idx) != 2 || idx >= MAXSLOTS)
		_exit(4);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  0);
	if (sh == MAP_FAILED)
		_exit(5);
	s = &sh->slots[idx];
	if (!open_types(NULL, &sh->fam[s->fam]))
		_exit(6);
	atomic_fetch_add(&s->execs, 1);
	atomic_fetch_add(&sh->execs, 1);
	op_end(s, s->op_epoch);
	child_run(s, true, NULL, NULL);
}

/* P's main thread: its children, by pid. */
struct kids {
	pid_t pid[MAX_CHILDREN];
	struct slot *slot[MAX_CHILDREN];
	int n;
};

/* Reap the children that exited: their exits are done. */
static void reap_kids(void *arg)
{
	struct kids *k = arg;
	struct slot *s;
	pid_t pid;
	int st, i;

	while (k->n && (pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < k->n && k->pid[i] != pid; i++)
			;
		if (i == k->n) {
			prod_err("P reaped %d, no child of its own", pid);
			continue;
		}
		s = k->slot[i];
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			prod_err("child %d (slot %u) ended with status %#x",
				 pid, slot_index(s), st);
		atomic_fetch_add(&s->exits, 1);
		atomic_store(&s->done, atomic_load(&s->attempted));
		atomic_store(&s->state, S_DEAD);
		k->n--;
		k->pid[i] = k->pid[k->n];
		k->slot[i] = k->slot[k->n];
	}
}

/* Fork a child: a call of P's main thread (slot @s) in epoch @e. */
static void fork_child(struct slot *s, uint32_t e, struct kids *k)
{
	char env[64], lib[512], *argv[] = { "stress_test", NULL };
	char *envp[] = { env, lib, NULL };
	const char *path = getenv("LD_LIBRARY_PATH");
	uint32_t expected = S_PENDING;
	struct slot *c;
	pid_t pid;

	c = slot_alloc(K_CHILD, s->fam, s->gen, e);
	if (!c)
		return;
	atomic_store(&c->state, S_PENDING);
	snprintf(env, sizeof(env), EXEC_ENV "=%d:%u", shm_fd, slot_index(c));
	/* Where libposixtrace-k is, if it is not where ld.so looks. */
	snprintf(lib, sizeof(lib), "LD_LIBRARY_PATH=%s", path ? path : "");
	op_begin(s, OP_FORK, 0, slot_index(c), e, atomic_load(&s->forks));
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/*
		 * Ahead of the producers (as root): a quiet point waits
		 * for its exec and its exit.
		 */
		setpriority(PRIO_PROCESS, 0, 0);
		child_run(c, false, argv, envp);
	}
	if (pid < 0) {
		prod_err("fork: errno %d", errno);
		atomic_store(&c->state, S_DEAD);
	} else {
		atomic_store(&c->pid, pid);
		atomic_compare_exchange_strong(&c->state, &expected, S_ALIVE);
		k->pid[k->n] = pid;
		k->slot[k->n++] = c;
		atomic_fetch_add(&s->forks, 1);
		atomic_fetch_add(&sh->forks, 1);
	}
	op_end(s, e);
}

/* P: its slots, its threads, then its main thread's calls. */
static void __attribute__((noreturn)) family_main(uint32_t fam, uint32_t gen,
						  uint64_t seed)
{
	struct family_shm *f = &sh->fam[fam];
	struct slot *main_slot, *ps[PTHREADS];
	pthread_t thr[PTHREADS];
	struct kids kids = { 0 };
	uint64_t rng = seed, n;
	uint32_t e;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setpgid(0, 0);
	/* Behind the readers, the controller and the children. */
	setpriority(PRIO_PROCESS, 0, 5);
	/* Not the controller's streams, device or logs: only the memory. */
	close_range(3, shm_fd - 1, 0);
	close_range(shm_fd + 1, ~0U, 0);
	if (!open_types(f->ids, NULL))
		_exit(2);
	main_slot = slot_alloc(K_MAIN, fam, gen, 0);
	for (i = 0; i < PTHREADS; i++)
		ps[i] = slot_alloc(K_PRODUCER, fam, gen, 0);
	if (!main_slot || !ps[PTHREADS - 1]) {
		prod_err("no slot for a new family");
		_exit(2);
	}
	atomic_store(&f->main_slot, slot_index(main_slot));
	atomic_store(&main_slot->pid, getpid());
	atomic_store(&main_slot->tid, gettid());
	atomic_store(&main_slot->state, S_ALIVE);
	for (i = 0; i < PTHREADS; i++) {
		atomic_store(&ps[i]->pid, getpid());
		atomic_store(&ps[i]->state, S_ALIVE);
		if (pthread_create(&thr[i], NULL, producer_thread, ps[i])) {
			prod_err("pthread_create failed");
			_exit(2);
		}
	}
	atomic_store(&f->ready, 1);
	for (n = 0; n < OPS_MAX; n++) {
		e = stable_epoch(main_slot, f, reap_kids, &kids);
		if (e == UINT32_MAX)
			break;
		reap_kids(&kids);
		if (kids.n < MAX_CHILDREN && !rnd_below(&rng, FORK_ONE_IN))
			fork_child(main_slot, e, &kids);
		else
			make_event(main_slot, f, e, &rng);
		pace(&rng);
	}
	_exit(0);
}

/* ---- the controller: streams ------------------------------------------ */

struct trans {
	uint32_t epoch;
	uint8_t running, filter_b;
};

struct unc_event {
	uint32_t slot, seq;
};

/* One stream, from its creation to its shutdown. */
struct inst {
	int id, fam, role;
	uint32_t gen, ids[2];
	pid_t pid;			/* P */
	int fd, log_fd;
	uint32_t policy, log_policy, inheritance, kernel;
	uint64_t stream_size, max_data, log_size;
	bool sys_filtered;
	bool filter_a;			/* for good: the kernel stream's */
	uint32_t create_epoch;
	bool running, filter_b;		/* now */
	_Atomic uint32_t ntrans;
	struct trans trans[MAX_TRANS];
	/* What it had to take: user, system and kernel events. */
	uint64_t user_on, sys_pred, kern_pred[3];
	/* Calls in flight at a SIGKILL, and which of them are events. */
	uint64_t unc_total;
	struct unc_event *unc;
	size_t nunc, capunc;
	/* What its readers found. */
	uint64_t read_real, read_user, read_sys, read_kern[3], gaps;
	uint64_t full_stops;		/* the log's STOP "auto" 2 */
	int64_t last_seq, last_ts;
	uint32_t marker_seq;
	int marker_state;		/* 1 after OVERFLOW, 2 after RESUME */
	/* Clears. */
	uint64_t cleared;
	size_t log_clear_at[MAX_LOG_CLEARS];
	unsigned int nlog_clears;
	/* The threads whose exits it had to record, and those it read. */
	int32_t exit_due[EXITS_NOTED], exit_read[EXITS_NOTED];
	unsigned int nexit_due, nexit_read;
};

/* A family's stream of a role, as its reader (one per family) sees it. */
struct reader {
	pthread_t thr;
	pthread_mutex_t lock;
	struct inst *inst;
	uint64_t rng;
};

struct base {
	uint64_t ev[2], forks, execs, exits;
};

struct lastseq {
	int inst;
	int64_t last;
};

struct role_stats {
	uint64_t instances, emitted, read, lost, cleared, unc, unc_read;
};

static struct ctl {
	int dev;
	uint64_t rng;
	uint32_t gens;
	int next_inst;
	struct inst *inst[FAMILIES][ROLES];
	struct reader rd[FAMILIES][ROLES];
	atomic_bool readers_stop;
	/* The slots the controller follows. */
	uint32_t scanned;
	uint32_t *live, *pending;
	size_t nlive, npending;
	struct base *base;			/* [MAXSLOTS] */
	struct lastseq (*last)[ROLES];		/* [MAXSLOTS] */
	/* What happened. */
	struct role_stats rs[ROLES];
	unsigned long toggles, filters, clears, clears_discarding,
		      log_clears, flushes, recreated, kills_wild, kills_quiet,
		      inflight, streams, exit_streams, exits_missing;
	uint64_t quiesce_ns, quiesce_max_ns, quiesces;
	unsigned long slow_calls;
} ctl;

/* Errors of the controller's threads; the first ones are kept. */
#define ERRS_KEPT	12
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int err_count;
static char err_text[ERRS_KEPT][400];

static void __attribute__((format(printf, 1, 2))) note_err(const char *fmt,
							   ...)
{
	va_list ap;

	pthread_mutex_lock(&err_lock);
	if (err_count < ERRS_KEPT) {
		va_start(ap, fmt);
		vsnprintf(err_text[err_count], sizeof(err_text[0]), fmt, ap);
		va_end(ap);
	}
	err_count++;
	pthread_mutex_unlock(&err_lock);
}

/* An error, counted, whose text the first ones already say. */
static void note_err_again(void)
{
	pthread_mutex_lock(&err_lock);
	err_count++;
	pthread_mutex_unlock(&err_lock);
}

static uint32_t epoch_now(int fam)
{
	return atomic_load(&sh->fam[fam].epoch);
}

/* The family's first stable epoch from now on. */
static uint32_t next_stable(int fam)
{
	return (epoch_now(fam) + 1) & ~1U;
}

/* Record its state from @epoch on. */
static void inst_trans(struct inst *I, uint32_t epoch)
{
	uint32_t n = atomic_load(&I->ntrans);

	if (n == MAX_TRANS) {
		note_err("stream %d: more than %d changes", I->id, MAX_TRANS);
		return;
	}
	I->trans[n] = (struct trans){ epoch, I->running, I->filter_b };
	atomic_store_explicit(&I->ntrans, n + 1, memory_order_release);
}

/* Did it record events of @type made in @epoch? */
static bool inst_on(struct inst *I, uint32_t epoch, uint32_t type)
{
	uint32_t lo = 0, hi = atomic_load_explicit(&I->ntrans,
						   memory_order_acquire);
	const struct trans *t;

	if (!hi || epoch < I->trans[0].epoch)
		return false;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (I->trans[mid].epoch <= epoch)
			lo = mid;
		else
			hi = mid;
	}
	t = &I->trans[lo];
	return t->running && !(type == 1 && t->filter_b) &&
	       !(type == 0 && I->filter_a);
}

/* Does it trace the process of slot @s? */
static bool inst_traces(const struct inst *I, const struct slot *s)
{
	if (s->gen != I->gen)
		return false;
	if (s->kind != K_CHILD)
		return true;
	return I->inheritance == POSIXTRACE_INHERITED &&
	       s->birth_epoch >= I->create_epoch;
}

static int set_filter(struct inst *I, uint32_t how, bool with_b)
{
	struct posixtrace_eventset set = { 0 };
	struct posixtrace_filter f = {
		.size = sizeof(f), .how = how, .set = (uintptr_t)&set,
	};
	static const uint32_t sys[] = {
		POSIXTRACE_EVENT_START, POSIXTRACE_EVENT_STOP,
		POSIXTRACE_EVENT_FILTER, POSIXTRACE_EVENT_FLUSH_START,
		POSIXTRACE_EVENT_FLUSH_STOP,
	};
	unsigned int i;

	if (with_b)
		set.bits[I->ids[1] / 64] |= 1ULL << (I->ids[1] % 64);
	if (how == POSIXTRACE_SET_EVENTSET && I->filter_a)
		set.bits[I->ids[0] / 64] |= 1ULL << (I->ids[0] % 64);
	if (how == POSIXTRACE_SET_EVENTSET && I->sys_filtered)
		for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
			set.bits[0] |= 1ULL << sys[i];
	return ioctl(I->fd, POSIXTRACE_IOC_SET_FILTER, &f) ? errno : 0;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd_below(&ctl.rng, n)];
}

/* The attributes of a new stream of @role, at random where it may be. */
static void inst_attr(struct inst *I, struct posixtrace_attr *a)
{
	static const uint64_t datas[] = { 64, 96, 160, 256 };
	static const uint64_t small[] = { 4096, 8192, 16384, 32768 };
	static const uint64_t mid[] = { 16384, 32768, 65536, 131072 };
	static const uint64_t logs[] = { 32768, 131072, 524288 };

	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "stress-%d-%s", I->fam,
		 role_names[I->role]);
	I->max_data = pick(datas, 4);
	I->policy = POSIXTRACE_UNTIL_FULL;
	I->inheritance = POSIXTRACE_CLOSE_FOR_CHILD;
	I->log_policy = POSIXTRACE_LOOP;
	I->log_size = 0;
	I->kernel = 0;
	I->sys_filtered = true;
	switch (I->role) {
	case R_LOOP:
		I->policy = POSIXTRACE_LOOP;
		I->sys_filtered = false;
		I->stream_size = pick(small, 4);
		break;
	case R_UNTIL:
		I->stream_size = pick(small, 4);
		break;
	case R_LOG:
		I->policy = POSIXTRACE_FLUSH;
		I->stream_size = pick(mid, 4);
		I->log_policy = rnd_below(&ctl.rng, 2) ? POSIXTRACE_APPEND :
							POSIXTRACE_UNTIL_FULL;
		I->log_size = pick(logs, 3);
		break;
	case R_KERNEL:
		I->policy = POSIXTRACE_LOOP;
		I->sys_filtered = false;
		I->inheritance = POSIXTRACE_INHERITED;
		I->kernel = POSIXTRACE_KERNEL_PROC;
		/* A is filtered out: kernel events are most of what it has. */
		I->filter_a = true;
		I->stream_size = pick(mid, 4);
		break;
	default:
		I->inheritance = POSIXTRACE_INHERITED;
		I->stream_size = pick(mid, 4);
		break;
	}
	a->stream_size = I->stream_size;
	a->max_data_size = I->max_data;
	a->stream_full_policy = I->policy;
	a->log_full_policy = I->log_policy;
	a->log_size = I->log_size;
	a->inheritance = I->inheritance;
	a->kernel_events = I->kernel;
}

static int tmp_log_cloexec(void)
{
	char path[] = "/tmp/stress-logXXXXXX";
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd >= 0)
		unlink(path);
	return fd;
}

/*
 * A new stream of @role on family @fam's P, its filter and state at
 * random, recording from the next stable epoch; NULL on error.
 */
static struct inst *inst_create(int fam, int role)
{
	struct family_shm *f = &sh->fam[fam];
	struct posixtrace_attr a;
	struct posixtrace_create c = {
		.size = sizeof(c), .flags = POSIXTRACE_CREATE_MEM_FD,
		.log_fd = -1, .attr = (uintptr_t)&a,
	};
	char path[64];
	struct inst *I = calloc(1, sizeof(*I));
	int mem, ret;

	if (!I) {
		note_err("no memory");
		return NULL;
	}
	I->id = ++ctl.next_inst;
	I->fam = fam;
	I->role = role;
	I->gen = atomic_load(&f->gen);
	I->ids[0] = f->ids[0];
	I->ids[1] = f->ids[1];
	I->pid = atomic_load(&f->pid);
	I->log_fd = -1;
	I->last_seq = -1;
	I->last_ts = INT64_MIN;
	inst_attr(I, &a);
	a.size = sizeof(a);
	c.pid = I->pid;
	if (role == R_LOG) {
		I->log_fd = tmp_log_cloexec();
		c.log_fd = I->log_fd;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", I->pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	c.mem_fd = mem;
	I->fd = mem < 0 ? -1 : ioctl(ctl.dev, POSIXTRACE_IOC_CREATE, &c);
	ret = errno;
	if (mem >= 0)
		close(mem);
	if (I->fd < 0) {
		note_err("create %s stream on %d: errno %d", role_names[role],
			 I->pid, ret);
		if (I->log_fd >= 0)
			close(I->log_fd);
		free(I);
		return NULL;
	}
	I->filter_b = role == R_KERNEL ? rnd_below(&ctl.rng, 4) != 0 :
				       rnd_below(&ctl.rng, 3) == 0;
	ret = set_filter(I, POSIXTRACE_SET_EVENTSET, I->filter_b);
	if (ret)
		note_err("stream %d: first filter: errno %d", I->id, ret);
	I->running = rnd_below(&ctl.rng, 4) != 0;
	if (I->running) {
		ret = raw_control(I->fd, POSIXTRACE_IOC_START);
		if (ret)
			note_err("stream %d: START: errno %d", I->id, ret);
		if (!I->sys_filtered)
			I->sys_pred++;
	}
	I->create_epoch = next_stable(fam);
	inst_trans(I, I->create_epoch);
	ctl.streams++;
	ctl.rs[role].instances++;
	return I;
}

/* ---- the controller: what readers read -------------------------------- */

static int64_t rec_ts(const struct posixtrace_record *rec)
{
	return rec->ts_sec * 1000000000LL + rec->ts_nsec;
}

static bool rec_sane(const struct posixtrace_record *rec, size_t left)
{
	return left >= sizeof(*rec) && rec->size >= sizeof(*rec) &&
	       rec->size <= left && rec->header_size == sizeof(*rec) &&
	       rec->size == sizeof(*rec) + ROUND8(rec->data_len);
}

#define INST_ERR(I, fmt, ...)						\
	note_err("stream %d (%s, family %d): " fmt, (I)->id,		\
		 role_names[(I)->role], (I)->fam, ##__VA_ARGS__)

/* One of the producers' events: every check that it is theirs, whole. */
static void account_user(struct inst *I, const struct posixtrace_record *rec,
			 const unsigned char *data)
{
	struct lastseq *last;
	struct payload p;
	struct slot *s;
	uint32_t want_len, i;

	if (rec->data_len < sizeof(p)) {
		INST_ERR(I, "event seq %llu of %u bytes",
			 (unsigned long long)rec->seq, rec->data_len);
		return;
	}
	memcpy(&p, data, sizeof(p));
	if (p.magic != PL_MAGIC || p.sum != pl_sum(&p) || p.type > 1 ||
	    p.slot >= MAXSLOTS || p.len < sizeof(p) || p.len > DATA_MAX) {
		INST_ERR(I, "torn header in event seq %llu",
			 (unsigned long long)rec->seq);
		return;
	}
	want_len = p.len < I->max_data ? p.len : I->max_data;
	if (rec->data_len != want_len ||
	    rec->truncation != (p.len > I->max_data ?
				POSIXTRACE_TRUNCATED_RECORD :
				POSIXTRACE_NOT_TRUNCATED)) {
		INST_ERR(I, "slot %u event %u: %u bytes of %u, truncation %u",
			 p.slot, p.seq, rec->data_len, p.len, rec->truncation);
		return;
	}
	for (i = sizeof(p); i < want_len; i++) {
		if (data[i] != pl_byte(&p, i)) {
			INST_ERR(I, "slot %u event %u: torn at byte %u",
				 p.slot, p.seq, i);
			return;
		}
	}
	s = &sh->slots[p.slot];
	if (s->fam != (uint32_t)I->fam || rec->event_id != I->ids[p.type])
		INST_ERR(I, "slot %u event %u: family %u, type %u",
			 p.slot, p.seq, s->fam, rec->event_id);
	if (!inst_traces(I, s))
		INST_ERR(I, "slot %u event %u: a process it does not trace",
			 p.slot, p.seq);
	if (rec->pid != atomic_load(&s->pid) ||
	    rec->tid != atomic_load(&s->tid))
		INST_ERR(I, "slot %u event %u: pid %d tid %d, not %d %d",
			 p.slot, p.seq, rec->pid, rec->tid,
			 atomic_load(&s->pid), atomic_load(&s->tid));
	if (!inst_on(I, p.epoch, p.type))
		INST_ERR(I, "slot %u event %u: made in epoch %u, while off",
			 p.slot, p.seq, p.epoch);
	last = &ctl.last[p.slot][I->role];
	if (last->inst == I->id && (int64_t)p.seq <= last->last)
		INST_ERR(I, "slot %u: event %u after %lld (twice, or out of order)",
			 p.slot, p.seq, (long long)last->last);
	last->inst = I->id;
	last->last = p.seq;
	I->read_user++;
}

/* A kernel event: of the proc class, about a process of the family. */
static void account_kernel(struct inst *I, const struct posixtrace_record *rec,
			   const unsigned char *data)
{
	uint8_t thread;

	if (!I->kernel) {
		INST_ERR(I, "kernel event %u", rec->event_id);
		return;
	}
	I->read_kern[rec->event_id - POSIXTRACE_EVENT_PROC_FORK]++;
	if (rec->event_id == POSIXTRACE_EVENT_PROC_EXIT &&
	    I->nexit_read < EXITS_NOTED)
		I->exit_read[I->nexit_read++] = rec->tid;
	if (rec->event_id == POSIXTRACE_EVENT_PROC_FORK) {
		/* pid:s32,tid:s32,flags:u64,thread:u8 */
		thread = rec->data_len >= 17 ? data[16] : 0xff;
		if (rec->pid != I->pid || thread != 0)
			INST_ERR(I, "fork by %d (thread %u), not P %d",
				 rec->pid, thread, I->pid);
	} else if (rec->pid <= 0) {
		INST_ERR(I, "kernel event %u of pid %d", rec->event_id,
			 rec->pid);
	}
}

static void account_system(struct inst *I, const struct posixtrace_record *rec,
			   const unsigned char *data)
{
	int32_t v = -1;

	if (rec->data_len >= sizeof(v))
		memcpy(&v, data, sizeof(v));
	switch (rec->event_id) {
	case POSIXTRACE_EVENT_STOP:
		/* A full UNTIL_FULL log's last record: not an event. */
		if (I->role == R_LOG && v == 2) {
			I->full_stops++;
			I->read_real--;
			return;
		}
		if (v != 0)
			INST_ERR(I, "STOP auto %d", v);
		/* fall through */
	case POSIXTRACE_EVENT_START:
	case POSIXTRACE_EVENT_FILTER:
		if (I->sys_filtered)
			INST_ERR(I, "system event %u, filtered out",
				 rec->event_id);
		I->read_sys++;
		break;
	default:
		INST_ERR(I, "system event %u (data %d)", rec->event_id, v);
	}
}

/* One record taken from the stream (or its log), in order. */
static void account_record(struct inst *I, const struct posixtrace_record *rec)
{
	const unsigned char *data = (const unsigned char *)rec +
				    rec->header_size;

	if (I->last_seq >= 0 && (int64_t)rec->seq <= I->last_seq) {
		INST_ERR(I, "seq %llu after %lld",
			 (unsigned long long)rec->seq,
			 (long long)I->last_seq);
		return;
	}
	if (I->marker_state == 2 && rec->seq != I->marker_seq)
		INST_ERR(I, "seq %llu after RESUME for %u",
			 (unsigned long long)rec->seq, I->marker_seq);
	if (I->marker_state && rec->seq == (uint64_t)(I->last_seq + 1))
		INST_ERR(I, "OVERFLOW and RESUME before seq %llu: no gap",
			 (unsigned long long)rec->seq);
	if (I->marker_state == 1)
		INST_ERR(I, "OVERFLOW without RESUME");
	I->marker_state = 0;
	if (rec_ts(rec) < I->last_ts)
		INST_ERR(I, "seq %llu: time goes back",
			 (unsigned long long)rec->seq);
	I->last_ts = rec_ts(rec);
	I->gaps += rec->seq - (uint64_t)(I->last_seq + 1);
	I->last_seq = rec->seq;
	I->read_real++;
	if (rec->event_id == I->ids[0] || rec->event_id == I->ids[1])
		account_user(I, rec, data);
	else if (rec->event_id >= POSIXTRACE_EVENT_PROC_FORK &&
		 rec->event_id <= POSIXTRACE_EVENT_PROC_EXIT)
		account_kernel(I, rec, data);
	else
		account_system(I, rec, data);
}

/* A batch GETNEXT returned. */
static void account_batch(struct inst *I, const unsigned char *buf,
			  uint32_t bytes, uint32_t count)
{
	const struct posixtrace_record *rec;
	uint32_t off = 0, n = 0;

	while (off < bytes) {
		rec = (const void *)(buf + off);
		if (!rec_sane(rec, bytes - off)) {
			INST_ERR(I, "a bad record at %u of %u", off, bytes);
			return;
		}
		n++;
		if (rec->event_id == POSIXTRACE_EVENT_OVERFLOW ||
		    rec->event_id == POSIXTRACE_EVENT_RESUME) {
			bool overflow = rec->event_id ==
					POSIXTRACE_EVENT_OVERFLOW;

			if (I->policy != POSIXTRACE_LOOP ||
			    I->marker_state != (overflow ? 0 : 1) ||
			    (!overflow && rec->seq != I->marker_seq))
				INST_ERR(I, "%s out of place",
					 overflow ? "OVERFLOW" : "RESUME");
			I->marker_state = overflow ? 1 : 2;
			I->marker_seq = rec->seq;
		} else {
			account_record(I, rec);
		}
		off += rec->size;
	}
	if (n != count)
		INST_ERR(I, "a batch of %u records said %u", n, count);
}

/* Read until empty (the producers quiet, the reader held): false on error. */
static bool inst_drain(struct inst *I, unsigned char *buf)
{
	uint32_t count, bytes;
	uint64_t end = deadline_ms(HANG_MS);
	int ret, i;

	for (i = 0; i < 1000000 && before(end); i++) {
		ret = raw_getnext(I->fd, buf, RBUF,
				  POSIXTRACE_GETNEXT_NONBLOCK, NULL, &count,
				  &bytes);
		if (ret) {
			INST_ERR(I, "drain: GETNEXT errno %d", ret);
			return false;
		}
		if (!count)
			return true;
		account_batch(I, buf, bytes, count);
	}
	INST_ERR(I, "not drained within %d ms", HANG_MS);
	return false;
}

/* Read one live stream of the family once, if it has one: how many. */
static uint32_t read_once(struct reader *r, uint64_t *rng, unsigned char *buf)
{
	uint32_t count = 0, bytes, size, flags;
	struct timespec abstime;
	struct inst *I;
	int ret;

	pthread_mutex_lock(&r->lock);
	I = r->inst;
	if (I) {
		size = rnd_below(rng, 4) ? RBUF :
		       POSIXTRACE_GETNEXT_MIN_BUF(I->max_data) +
		       rnd_below(rng, 2048);
		flags = rnd_below(rng, 8) ? POSIXTRACE_GETNEXT_NONBLOCK :
					    POSIXTRACE_GETNEXT_TIMED;
		abstime = realtime_in(2000);
		ret = raw_getnext(I->fd, buf, size, flags, &abstime, &count,
				  &bytes);
		if (!ret && count)
			account_batch(I, buf, bytes, count);
		else if (ret && ret != ETIMEDOUT)
			INST_ERR(I, "GETNEXT flags %u: errno %d", flags, ret);
	}
	pthread_mutex_unlock(&r->lock);
	return count;
}

/*
 * A family's reader: its live streams in turn, each skipped now and then
 * so that it fills (UNTIL_FULL) or is overwritten (LOOP).
 */
static void *reader_main(void *arg)
{
	static const int live[] = { R_LOOP, R_UNTIL, R_KERNEL, R_INHERIT };
	struct reader *rd = arg;
	unsigned char *buf = aligned_alloc(8, RBUF);
	uint64_t rng = rd->rng;
	uint32_t got;
	int i;

	if (!buf) {
		note_err("no memory");
		return NULL;
	}
	while (!atomic_load(&ctl.readers_stop)) {
		got = 0;
		for (i = 0; i < 4; i++) {
			if (!rnd_below(&rng, 3))
				continue;
			got += read_once(&rd[live[i]], &rng, buf);
		}
		if (!got)
			usleep(1000 + rnd_below(&rng, 2000));
	}
	free(buf);
	return NULL;
}

/* ---- the controller: the slots and the epoch ---------------------------- */

/* Follow the slots made since the last look. */
static void scan_slots(void)
{
	uint32_t top = atomic_load(&sh->next_slot), idx, st;
	size_t i;

	if (top > MAXSLOTS)
		top = MAXSLOTS;
	for (; ctl.scanned < top; ctl.scanned++)
		ctl.pending[ctl.npending++] = ctl.scanned;
	/* A slot set up but not yet published stays pending. */
	for (i = 0; i < ctl.npending;) {
		idx = ctl.pending[i];
		st = atomic_load(&sh->slots[idx].state);
		if (st == S_FREE) {
			i++;
			continue;
		}
		ctl.live[ctl.nlive++] = idx;
		ctl.pending[i] = ctl.pending[--ctl.npending];
	}
}

/* Add what slot @idx's thread did since the last look to its streams. */
static void attribute(uint32_t idx)
{
	struct slot *s = &sh->slots[idx];
	struct base *b = &ctl.base[idx], now;
	struct inst *I;
	int r, t;

	now.ev[0] = atomic_load(&s->ev[0]);
	now.ev[1] = atomic_load(&s->ev[1]);
	now.forks = atomic_load(&s->forks);
	now.execs = atomic_load(&s->execs);
	now.exits = atomic_load(&s->exits);
	for (r = 0; r < ROLES; r++) {
		I = ctl.inst[s->fam][r];
		if (!I || !I->running || !inst_traces(I, s))
			continue;
		for (t = 0; t < 2; t++)
			if (!(t == 1 && I->filter_b) &&
			    !(t == 0 && I->filter_a))
				I->user_on += now.ev[t] - b->ev[t];
		if (I->kernel) {
			I->kern_pred[0] += now.forks - b->forks;
			I->kern_pred[1] += now.execs - b->execs;
			I->kern_pred[2] += now.exits - b->exits;
			if (now.exits != b->exits &&
			    I->nexit_due < EXITS_NOTED)
				I->exit_due[I->nexit_due++] = s->pid;
		}
	}
	*b = now;
}

/* Attribute every followed slot of @fam; forget those that are dead. */
static void attribute_all(int fam)
{
	size_t i;

	for (i = 0; i < ctl.nlive;) {
		if (sh->slots[ctl.live[i]].fam != (uint32_t)fam) {
			i++;
			continue;
		}
		attribute(ctl.live[i]);
		if (atomic_load(&sh->slots[ctl.live[i]].state) == S_DEAD)
			ctl.live[i] = ctl.live[--ctl.nlive];
		else
			i++;
	}
}

/* Say where a thread that does not come back waits, from /proc. */
static void show_stuck(struct __test_metadata *_metadata, uint32_t idx)
{
	struct slot *s = &sh->slots[idx];
	char path[96], buf[2048];
	ssize_t n;
	int fd;

	TH_LOG("slot %u: kind %u, state %u, pid %d tid %d, op %u, attempted %llu done %llu",
	       idx, s->kind, atomic_load(&s->state), atomic_load(&s->pid),
	       atomic_load(&s->tid), s->op_kind,
	       (unsigned long long)atomic_load(&s->attempted),
	       (unsigned long long)atomic_load(&s->done));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack",
		 atomic_load(&s->pid), atomic_load(&s->tid));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		TH_LOG("its kernel stack:\n%s", buf);
	}
}

/*
 * Make family @fam's epoch odd and wait until none of its calls is under
 * way: every live thread has acknowledged it, no fork is half done, every
 * exiting child is reaped. Then attribute what its threads did. The other
 * families go on. False if a call hangs.
 */
static bool quiesce_within(struct __test_metadata *_metadata, int fam,
			   unsigned int ms)
{
	uint32_t e = epoch_now(fam), idx = 0, st;
	uint64_t t0 = now_ns(), end = deadline_ms(ms);
	uint64_t slow = deadline_ms(1000);
	bool all;
	size_t i;

	/* Odd already: quiesce_begin() made it so. */
	if (!(e & 1))
		atomic_store(&sh->fam[fam].epoch, ++e);
	atomic_store(&sh->ctl_waits, 1);
	for (;;) {
		uint32_t acks = atomic_load(&sh->acks);

		scan_slots();
		all = true;
		for (i = 0; all && i < ctl.nlive; i++) {
			idx = ctl.live[i];
			if (sh->slots[idx].fam != (uint32_t)fam)
				continue;
			st = atomic_load(&sh->slots[idx].state);
			if (st == S_PENDING || st == S_EXITING ||
			    (st == S_ALIVE &&
			     atomic_load_explicit(&sh->slots[idx].seen,
						  memory_order_acquire) != e))
				all = false;
		}
		if (all) {
			/* Nothing new meanwhile (a fork's child). */
			if (atomic_load(&sh->next_slot) <= ctl.scanned ||
			    ctl.scanned == MAXSLOTS)
				break;
			continue;
		}
		if (slow && !before(slow) && ms == HANG_MS) {
			/* Not an error: where the time goes, three times. */
			if (ctl.slow_calls++ < 3) {
				TH_LOG("family %d: a call outlasts 1 s", fam);
				show_stuck(_metadata, idx);
			}
			slow = 0;
		}
		if (!before(end)) {
			atomic_store(&sh->ctl_waits, 0);
			if (ms < HANG_MS)
				return false;
			note_err("a call did not return within %d ms",
				 HANG_MS);
			show_stuck(_metadata, idx);
			return false;
		}
		futex_wait_ms(&sh->acks, acks, 1);
	}
	atomic_store(&sh->ctl_waits, 0);
	attribute_all(fam);
	t0 = now_ns() - t0;
	ctl.quiesce_ns += t0;
	ctl.quiesces++;
	if (t0 > ctl.quiesce_max_ns)
		ctl.quiesce_max_ns = t0;
	return true;
}

/* Stop every family's calls at once (the end). */
static void quiesce_begin_all(void)
{
	int fam;

	for (fam = 0; fam < FAMILIES; fam++)
		if (!(epoch_now(fam) & 1))
			atomic_store(&sh->fam[fam].epoch, epoch_now(fam) + 1);
}

static bool quiesce(struct __test_metadata *_metadata, int fam)
{
	return quiesce_within(_metadata, fam, HANG_MS);
}

static void resume(int fam)
{
	atomic_store(&sh->fam[fam].epoch, epoch_now(fam) + 1);
	futex_wake_all(&sh->fam[fam].epoch);
}

/* ---- the controller: finishing a stream -------------------------------- */

/* The uncertain events it read: each is the last of its slot it read. */
static uint64_t unc_read(struct inst *I)
{
	struct lastseq *last;
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < I->nunc; i++) {
		last = &ctl.last[I->unc[i].slot][I->role];
		if (last->inst == I->id && last->last == I->unc[i].seq)
			n++;
	}
	return n;
}

/* Name the threads whose exits it had to record and did not have. */
static void exits_missing(struct inst *I)
{
	char list[256];
	size_t len = 0;
	unsigned int i, j;

	list[0] = '\0';
	for (i = 0; i < I->nexit_due && len < sizeof(list) - 16; i++) {
		for (j = 0; j < I->nexit_read &&
		     I->exit_read[j] != I->exit_due[i]; j++)
			;
		if (j == I->nexit_read)
			len += snprintf(list + len, sizeof(list) - len, " %d",
					I->exit_due[i]);
	}
	ctl.exits_missing += I->kern_pred[2] - I->read_kern[2];
	/* The first few say which; the others are counted. */
	if (ctl.exit_streams++ < 3)
		INST_ERR(I, "%llu exits of %llu, none lost; no exit of thread(s)%s",
			 (unsigned long long)I->read_kern[2],
			 (unsigned long long)I->kern_pred[2], list);
	else
		note_err_again();
}

/*
 * The accounting of a finished stream: what it had to take against what
 * was read, counted lost and cleared; @lost includes a log's discarded.
 */
static void inst_check(struct inst *I, uint64_t lost)
{
	uint64_t pred = I->user_on + I->sys_pred + I->kern_pred[0] +
			I->kern_pred[1] + I->kern_pred[2];
	uint64_t obs = I->read_real + lost + I->cleared;
	uint64_t ur = unc_read(I);
	struct role_stats *rs = &ctl.rs[I->role];
	bool exact = !lost && !I->cleared && !I->unc_total;
	bool kinds = I->read_user == I->user_on &&
		     I->read_sys == I->sys_pred &&
		     I->read_kern[0] == I->kern_pred[0] &&
		     I->read_kern[1] == I->kern_pred[1];

	if (exact && kinds && I->read_kern[2] < I->kern_pred[2]) {
		/* Nothing lost, only exits short: say whose. */
		exits_missing(I);
	} else if (obs < pred + ur || obs > pred + I->unc_total) {
		INST_ERR(I, "read %llu (user %llu, system %llu, kernel %llu/%llu/%llu) + lost %llu + cleared %llu = %llu, emitted %llu (user %llu, system %llu, kernel %llu/%llu/%llu), uncertain %llu (%llu read)",
			 (unsigned long long)I->read_real,
			 (unsigned long long)I->read_user,
			 (unsigned long long)I->read_sys,
			 (unsigned long long)I->read_kern[0],
			 (unsigned long long)I->read_kern[1],
			 (unsigned long long)I->read_kern[2],
			 (unsigned long long)lost,
			 (unsigned long long)I->cleared,
			 (unsigned long long)obs, (unsigned long long)pred,
			 (unsigned long long)I->user_on,
			 (unsigned long long)I->sys_pred,
			 (unsigned long long)I->kern_pred[0],
			 (unsigned long long)I->kern_pred[1],
			 (unsigned long long)I->kern_pred[2],
			 (unsigned long long)I->unc_total,
			 (unsigned long long)ur);
	} else if (exact && (!kinds || I->read_kern[2] != I->kern_pred[2])) {
		/* Nothing lost or cleared: each kind exactly. */
		INST_ERR(I, "read user %llu system %llu kernel %llu/%llu/%llu, emitted %llu, %llu, %llu/%llu/%llu",
			 (unsigned long long)I->read_user,
			 (unsigned long long)I->read_sys,
			 (unsigned long long)I->read_kern[0],
			 (unsigned long long)I->read_kern[1],
			 (unsigned long long)I->read_kern[2],
			 (unsigned long long)I->user_on,
			 (unsigned long long)I->sys_pred,
			 (unsigned long long)I->kern_pred[0],
			 (unsigned long long)I->kern_pred[1],
			 (unsigned long long)I->kern_pred[2]);
	}
	rs->emitted += pred;
	rs->read += I->read_real;
	rs->lost += lost;
	rs->cleared += I->cleared;
	rs->unc += I->unc_total;
	rs->unc_read += ur;
}

/*
 * A live stream's end: read it empty, check STATUS against what was read,
 * the gaps in its sequence against what it lost and cleared, then the
 * accounting; shut it down.
 */
static void finish_live(struct inst *I, unsigned char *buf)
{
	struct posixtrace_status st;
	uint64_t total, trailing;

	inst_drain(I, buf);
	if (raw_status(I->fd, &st)) {
		INST_ERR(I, "STATUS failed");
		return;
	}
	if (st.bytes_used)
		INST_ERR(I, "%llu bytes left after a drain",
			 (unsigned long long)st.bytes_used);
	if (st.events_read != I->read_real + I->full_stops)
		INST_ERR(I, "events_read %llu, %llu read",
			 (unsigned long long)st.events_read,
			 (unsigned long long)I->read_real);
	/*
	 * Every event the stream took has a number: stored ones (LOOP's
	 * overwritten too) and, outside LOOP, lost ones. Those not read
	 * were lost or cleared. Kernel events lost from a full per-CPU
	 * buffer take numbers without being recorded: not for that stream.
	 */
	if (!I->kernel) {
		total = st.events_recorded +
			(I->policy == POSIXTRACE_LOOP ? 0 : st.events_lost);
		trailing = total - (uint64_t)(I->last_seq + 1);
		if (total < (uint64_t)(I->last_seq + 1) ||
		    I->gaps + trailing != st.events_lost + I->cleared)
			INST_ERR(I, "numbers: %llu gaps + %llu after the last read, lost %llu, cleared %llu",
				 (unsigned long long)I->gaps,
				 (unsigned long long)trailing,
				 (unsigned long long)st.events_lost,
				 (unsigned long long)I->cleared);
	}
	inst_check(I, st.events_lost);
}

/* ---- the log ------------------------------------------------------------ */

struct rawlog {
	unsigned char *file;
	size_t size;
	const struct posixtrace_record **rec;
	size_t n, cap;
	size_t clear_at[MAX_LOG_CLEARS + 8];
	unsigned int nclears;
	struct posixtrace_log_end end;
	bool has_end;
};

static void rawlog_free(struct rawlog *rl)
{
	free(rl->file);
	free(rl->rec);
	memset(rl, 0, sizeof(*rl));
}

static bool rawlog_add(struct rawlog *rl, const struct posixtrace_record *r)
{
	const struct posixtrace_record **p;

	if (rl->n == rl->cap) {
		rl->cap = rl->cap ? 2 * rl->cap : 1024;
		p = realloc(rl->rec, rl->cap * sizeof(*p));
		if (!p)
			return false;
		rl->rec = p;
	}
	rl->rec[rl->n++] = r;
	return true;
}

/* The entries of an EVENTS block at @off; false if it does not parse. */
static bool rawlog_events(struct rawlog *rl, size_t off, size_t bsize)
{
	const struct posixtrace_log_events *ev = (const void *)(rl->file + off);
	const struct posixtrace_record *r;
	size_t pos = off + sizeof(*ev), end;

	if (bsize < sizeof(*ev) || ev->used > bsize - sizeof(*ev))
		return false;
	end = pos + ev->used;
	while (pos < end) {
		r = (const void *)(rl->file + pos);
		if (end - pos < sizeof(*r) || r->size < sizeof(*r) ||
		    r->size > end - pos || r->size % 8)
			return false;
		if (r->event_id != POSIXTRACE_LOG_DEFINE &&
		    (!rec_sane(r, end - pos) || !rawlog_add(rl, r)))
			return false;
		pos += r->size;
	}
	return true;
}

/*
 * Every event the sequential log in @fd holds, the CLEAR blocks included
 * (how many events precede each), and its END. False if it does not parse.
 */
static bool rawlog_read(int fd, struct rawlog *rl)
{
	const struct posixtrace_log_header *h;
	const struct posixtrace_log_block *b;
	struct stat stt;
	size_t off;

	memset(rl, 0, sizeof(*rl));
	if (fstat(fd, &stt) || stt.st_size < (off_t)sizeof(*h))
		return false;
	rl->size = stt.st_size;
	rl->file = aligned_alloc(8, ROUND8(rl->size));
	if (!rl->file || pread(fd, rl->file, rl->size, 0) != (ssize_t)rl->size)
		return false;
	h = (const void *)rl->file;
	if (memcmp(h->magic, POSIXTRACE_LOG_MAGIC, POSIXTRACE_LOG_MAGIC_LEN) ||
	    h->layout != POSIXTRACE_LOG_SEQUENTIAL || h->header_size % 8 ||
	    h->header_size > rl->size)
		return false;
	for (off = h->header_size; off + sizeof(*b) <= rl->size;
	     off += b->size) {
		b = (const void *)(rl->file + off);
		if (b->size < sizeof(*b) || b->size % 8 ||
		    b->size > rl->size - off)
			return false;
		switch (b->type) {
		case POSIXTRACE_LOG_BLOCK_EVENTS:
			if (!rawlog_events(rl, off, b->size))
				return false;
			break;
		case POSIXTRACE_LOG_BLOCK_CLEAR:
			if (rl->nclears < MAX_LOG_CLEARS + 8)
				rl->clear_at[rl->nclears++] = rl->n;
			break;
		case POSIXTRACE_LOG_BLOCK_END:
			if (b->size < sizeof(rl->end))
				return false;
			memcpy(&rl->end, b, sizeof(rl->end));
			rl->has_end = true;
			break;
		}
	}
	return off == rl->size;
}

/*
 * What posix_trace_open() reads of the log must be exactly what follows
 * the last clear the controller made.
 */
static void log_library_check(struct inst *I, const struct rawlog *rl)
{
	size_t from = I->nlog_clears ? I->log_clear_at[I->nlog_clears - 1] : 0;
	const struct posixtrace_record *r;
	struct logbuf lb;
	size_t k;
	int ret;

	ret = read_log(I->log_fd, &lb);
	if (ret) {
		INST_ERR(I, "posix_trace_open and read: error %d", ret);
		free_log(&lb);
		return;
	}
	if ((size_t)lb.n != rl->n - from) {
		INST_ERR(I, "the library reads %d events, the log holds %zu after the last clear (of %zu)",
			 lb.n, rl->n - from, rl->n);
		free_log(&lb);
		return;
	}
	for (k = 0; k < (size_t)lb.n; k++) {
		r = rl->rec[from + k];
		if (lb.ev[k].info.posix_event_id != r->event_id ||
		    lb.ev[k].seq != r->seq || lb.ev[k].len != r->data_len ||
		    memcmp(lb.ev[k].data, (const unsigned char *)r +
			   r->header_size, r->data_len)) {
			INST_ERR(I, "the library's event %zu is not the log's seq %llu",
				 k, (unsigned long long)r->seq);
			break;
		}
	}
	free_log(&lb);
}

/* Each clear the controller made shows as a CLEAR block, and no other. */
static void log_clears_check(struct inst *I, const struct rawlog *rl)
{
	unsigned int i, j;

	for (i = 0; i < rl->nclears; i++) {
		for (j = 0; j < I->nlog_clears &&
		     I->log_clear_at[j] != rl->clear_at[i]; j++)
			;
		if (j == I->nlog_clears)
			INST_ERR(I, "a CLEAR block after %zu events: no clear there",
				 rl->clear_at[i]);
	}
	for (j = 0; j < I->nlog_clears; j++) {
		/* Clears with nothing written after them may share one. */
		if (I->log_clear_at[j] == rl->n)
			continue;
		for (i = 0; i < rl->nclears &&
		     rl->clear_at[i] != I->log_clear_at[j]; i++)
			;
		if (i == rl->nclears)
			INST_ERR(I, "clear %u (after %zu events): no CLEAR block",
				 j, I->log_clear_at[j]);
	}
}

/*
 * The log stream's end (the producers quiet): STATUS, shutdown (which
 * flushes and closes the log), then every event of the log file.
 */
static void finish_log(struct inst *I)
{
	struct posixtrace_status st;
	struct rawlog rl;
	size_t k;
	int ret;

	ret = raw_status(I->fd, &st);
	if (ret)
		INST_ERR(I, "STATUS: errno %d", ret);
	if (st.flush_error)
		INST_ERR(I, "flush error %d", st.flush_error);
	ret = raw_control(I->fd, POSIXTRACE_IOC_SHUTDOWN);
	if (ret)
		INST_ERR(I, "SHUTDOWN: errno %d", ret);
	close(I->fd);
	I->fd = -1;
	if (!rawlog_read(I->log_fd, &rl) || !rl.has_end) {
		INST_ERR(I, "the log does not parse (%zu bytes), or has no END",
			 rl.size);
		rawlog_free(&rl);
		return;
	}
	for (k = 0; k < rl.n; k++)
		account_record(I, rl.rec[k]);
	if (rl.end.events_lost != st.events_lost)
		INST_ERR(I, "END says %llu lost, STATUS %llu",
			 (unsigned long long)rl.end.events_lost,
			 (unsigned long long)st.events_lost);
	/* A full log's STOP "auto" 2 is written: it counts. */
	if (rl.end.events_flushed != rl.n)
		INST_ERR(I, "END says %llu flushed, the log holds %zu records (%llu full-log STOPs)",
			 (unsigned long long)rl.end.events_flushed, rl.n,
			 (unsigned long long)I->full_stops);
	log_clears_check(I, &rl);
	log_library_check(I, &rl);
	inst_check(I, rl.end.events_lost + rl.end.events_discarded);
	rawlog_free(&rl);
}

/*
 * Finish the stream of family @fam and @role (the producers quiet, or
 * dead): check it, shut it down, forget it.
 */
static void finish(int fam, int role, unsigned char *buf)
{
	struct reader *r = &ctl.rd[fam][role];
	struct inst *I = ctl.inst[fam][role];

	if (!I)
		return;
	pthread_mutex_lock(&r->lock);
	if (role == R_LOG) {
		finish_log(I);
	} else {
		finish_live(I, buf);
		if (raw_control(I->fd, POSIXTRACE_IOC_SHUTDOWN))
			INST_ERR(I, "SHUTDOWN failed");
		close(I->fd);
	}
	r->inst = NULL;
	pthread_mutex_unlock(&r->lock);
	if (I->log_fd >= 0)
		close(I->log_fd);
	ctl.inst[fam][role] = NULL;
	free(I->unc);
	free(I);
}

static void start(int fam, int role)
{
	struct reader *r = &ctl.rd[fam][role];
	struct inst *I = inst_create(fam, role);

	ctl.inst[fam][role] = I;
	if (role == R_LOG)
		return;
	pthread_mutex_lock(&r->lock);
	r->inst = I;
	pthread_mutex_unlock(&r->lock);
}

/* ---- the controller: families ------------------------------------------ */

/* Fork family @fam's P; spawn_streams() does the rest. */
static bool spawn_process(int fam, uint64_t seed)
{
	struct family_shm *f = &sh->fam[fam];
	uint32_t gen = ++ctl.gens;
	pid_t pid;

	atomic_store(&f->ready, 0);
	atomic_store(&f->go, 0);
	atomic_store(&f->gen, gen);
	pid = fork();
	if (pid < 0) {
		note_err("fork: errno %d", errno);
		return false;
	}
	if (pid == 0)
		family_main(fam, gen, seed);
	setpgid(pid, pid);
	atomic_store(&f->pid, pid);
	return true;
}

/* Once family @fam's P is ready: its streams; then let it go. */
static bool spawn_streams(int fam)
{
	struct family_shm *f = &sh->fam[fam];
	uint64_t end = deadline_ms(HANG_MS);
	pid_t pid = atomic_load(&f->pid);
	int role;

	while (!atomic_load(&f->ready) && before(end))
		usleep(1000);
	if (!atomic_load(&f->ready)) {
		note_err("family %d (pid %d) did not start", fam, pid);
		return false;
	}
	for (role = 0; role < ROLES; role++)
		start(fam, role);
	atomic_store(&f->go, 1);
	futex_wake_all(&f->epoch);
	return true;
}

static bool spawn_family(int fam, uint64_t seed)
{
	return spawn_process(fam, seed) && spawn_streams(fam);
}

/* Reap the processes of group @pgid (orphans come to us): false if slow. */
static bool reap_group(pid_t pgid)
{
	uint64_t end = deadline_ms(HANG_MS);
	int st, i;
	pid_t p;

	for (;;) {
		while ((p = waitpid(-1, &st, WNOHANG | __WALL)) > 0)
			for (i = 0; i < FAMILIES; i++)
				if (p == atomic_load(&sh->fam[i].pid) &&
				    p != pgid)
					note_err("family %d's P died: %#x", i,
						 st);
		if (kill(-pgid, 0) && errno == ESRCH)
			return true;
		if (!before(end))
			return false;
		usleep(1000);
	}
}

/* An uncertain event of slot @idx for the streams that recorded it. */
static void uncertain(struct slot *s, uint32_t idx, int kind, uint32_t type,
		      uint32_t seq)
{
	struct unc_event *u;
	struct inst *I;
	int r;

	ctl.inflight++;
	for (r = 0; r < ROLES; r++) {
		I = ctl.inst[s->fam][r];
		if (!I || !I->running || !inst_traces(I, s))
			continue;
		if (kind == OP_EVENT) {
			if ((type == 1 && I->filter_b) ||
			    (type == 0 && I->filter_a))
				continue;
			if (I->nunc == I->capunc) {
				I->capunc = I->capunc ? 2 * I->capunc : 16;
				u = realloc(I->unc, I->capunc * sizeof(*u));
				if (!u) {
					note_err("no memory");
					return;
				}
				I->unc = u;
			}
			I->unc[I->nunc++] = (struct unc_event){ idx, seq };
		} else if (!I->kernel) {
			continue;
		}
		I->unc_total++;
	}
}

/*
 * A certain kernel EXIT of slot @s, at its kill. A child killed before it
 * ran never said its tid: its parent's fork said its pid, the same.
 */
static void killed_exit(struct slot *s)
{
	int32_t tid = atomic_load(&s->tid);
	struct inst *I;
	int r;

	if (!tid && s->kind == K_CHILD)
		tid = atomic_load(&s->pid);

	for (r = 0; r < ROLES; r++) {
		I = ctl.inst[s->fam][r];
		if (I && I->running && I->kernel && inst_traces(I, s)) {
			I->kern_pred[2]++;
			if (I->nexit_due < EXITS_NOTED)
				I->exit_due[I->nexit_due++] = tid;
		}
	}
}

/*
 * After a SIGKILL: slot @idx's thread is dead. Its calls that returned are
 * attributed; its exit is an event, unless it was a child never forked;
 * its call in flight, if any, went either way.
 */
static void killed_slot(uint32_t idx)
{
	struct slot *s = &sh->slots[idx], *m;
	uint32_t st = atomic_load(&s->state);
	bool inflight = atomic_load(&s->attempted) != atomic_load(&s->done);

	attribute(idx);
	if (st == S_DEAD)
		return;
	if (s->kind == K_CHILD && st == S_PENDING &&
	    !atomic_load(&s->started)) {
		/* Forked or not: its parent's fork call says. */
		m = &sh->slots[atomic_load(&sh->fam[s->fam].main_slot)];
		if (m->gen != s->gen || m->kind != K_MAIN)
			note_err("no main slot for child slot %u", idx);
		else if (m->op_kind == OP_FORK && m->op_seq == idx &&
			 atomic_load(&m->attempted) !=
			 atomic_load(&m->done) &&
			 atomic_load(&m->forks) == m->op_before)
			uncertain(s, idx, OP_EXIT, 0, 0);
		else if (m->op_kind == OP_FORK && m->op_seq == idx &&
			 atomic_load(&m->forks) != m->op_before)
			killed_exit(s);
	} else if (!atomic_load(&s->exits)) {
		killed_exit(s);
	}
	if (!inflight)
		return;
	switch (s->op_kind) {
	case OP_EVENT:
		if (atomic_load(&s->ev[s->op_type]) == s->op_before)
			uncertain(s, idx, OP_EVENT, s->op_type, s->op_seq);
		break;
	case OP_FORK:
		if (atomic_load(&s->forks) == s->op_before)
			uncertain(s, idx, OP_FORK, 0, 0);
		break;
	case OP_EXEC:
		if (atomic_load(&s->execs) == s->op_before)
			uncertain(s, idx, OP_EXEC, 0, 0);
		break;
	}
}

/*
 * SIGKILL family @fam, every process of it at once; account for what its
 * threads did and were doing, finish its streams, and (@respawn) start it
 * again. @quiet: in an odd epoch, when no call is under way.
 */
static bool kill_family(int fam, bool quiet, bool respawn, uint64_t seed,
			unsigned char *buf)
{
	struct family_shm *f = &sh->fam[fam];
	pid_t pid = atomic_load(&f->pid);
	uint32_t gen = atomic_load(&f->gen), idx;
	size_t i;
	int role;

	if (killpg(pid, SIGKILL))
		note_err("killpg %d: errno %d", pid, errno);
	if (!reap_group(pid)) {
		note_err("family %d (pid %d) not reaped within %d ms", fam,
			 pid, HANG_MS);
		return false;
	}
	atomic_store(&f->pid, 0);
	scan_slots();
	for (i = 0; i < ctl.nlive;) {
		idx = ctl.live[i];
		if (sh->slots[idx].gen != gen) {
			i++;
			continue;
		}
		killed_slot(idx);
		atomic_store(&sh->slots[idx].state, S_DEAD);
		ctl.live[i] = ctl.live[--ctl.nlive];
	}
	for (role = 0; role < ROLES; role++)
		finish(fam, role, buf);
	if (quiet)
		ctl.kills_quiet++;
	else
		ctl.kills_wild++;
	return !respawn || spawn_family(fam, seed);
}

/* ---- the controller: changes ------------------------------------------ */

/*
 * Is a fork, an exec or a child's exit of family @fam under way? Its
 * quiet point would wait for it (an exec, a dynamic link under
 * emulation, takes long): better change another family's streams.
 */
static int family_busy(int fam)
{
	int busy = 0;
	struct slot *s;
	uint32_t st;
	size_t i;

	scan_slots();
	for (i = 0; i < ctl.nlive; i++) {
		s = &sh->slots[ctl.live[i]];
		if (s->fam != (uint32_t)fam)
			continue;
		st = atomic_load(&s->state);
		if (atomic_load(&s->attempted) != atomic_load(&s->done) &&
		    s->op_kind == OP_EXEC)
			return 2;
		if (st == S_PENDING || st == S_EXITING ||
		    (atomic_load(&s->attempted) != atomic_load(&s->done) &&
		     s->op_kind == OP_FORK))
			busy = 1;
	}
	return busy;
}

/*
 * A family at random, not busy if one is not; -1 if all are. One time in
 * eight, one busy with a fork or an exit: a quiet point that waits for
 * it. Never one in the middle of an exec, which takes seconds under
 * emulation with a debug kernel.
 */
static int any_family(void)
{
	int fam = rnd_below(&ctl.rng, FAMILIES), i, busy;
	bool any = !rnd_below(&ctl.rng, 8);

	for (i = 0; i < FAMILIES; i++, fam = (fam + 1) % FAMILIES) {
		busy = family_busy(fam);
		if (!busy || (any && busy == 1))
			return fam;
	}
	return -1;
}

/* A stream at random, of a family not busy; NULL if none. */
static struct inst *any_inst(int *fam, int *role)
{
	*fam = any_family();
	if (*fam < 0)
		return NULL;
	*role = rnd_below(&ctl.rng, ROLES);
	return ctl.inst[*fam][*role];
}

/* Start or stop it (quiet). */
static void toggle(struct inst *I)
{
	int ret = raw_control(I->fd, I->running ? POSIXTRACE_IOC_STOP :
						  POSIXTRACE_IOC_START);

	if (ret) {
		INST_ERR(I, "%s: errno %d", I->running ? "STOP" : "START",
			 ret);
		return;
	}
	I->running = !I->running;
	if (!I->sys_filtered)
		I->sys_pred++;
	inst_trans(I, epoch_now(I->fam) + 1);
	ctl.toggles++;
}

/* Filter B out, or back in (quiet): by ADD or SUB, or the whole set. */
static void filter(struct inst *I)
{
	bool whole = rnd_below(&ctl.rng, 3) == 0;
	int ret;

	if (whole)
		ret = set_filter(I, POSIXTRACE_SET_EVENTSET, !I->filter_b);
	else
		ret = set_filter(I, I->filter_b ? POSIXTRACE_SUB_EVENTSET :
						  POSIXTRACE_ADD_EVENTSET, true);
	if (ret) {
		INST_ERR(I, "SET_FILTER: errno %d", ret);
		return;
	}
	I->filter_b = !I->filter_b;
	if (I->running && !I->sys_filtered)
		I->sys_pred++;
	inst_trans(I, epoch_now(I->fam) + 1);
	ctl.filters++;
}

/* Clear a live stream (quiet, its reader held): drained, or discarding. */
static void clear_live(struct inst *I, unsigned char *buf)
{
	bool drained = I->kernel || rnd_below(&ctl.rng, 2);
	struct posixtrace_status a, b;
	uint64_t held = 0, rmax;

	if (drained && !inst_drain(I, buf))
		return;
	if (raw_status(I->fd, &a)) {
		INST_ERR(I, "STATUS failed");
		return;
	}
	if (!drained) {
		held = a.events_recorded - a.events_read - I->cleared -
		       (I->policy == POSIXTRACE_LOOP ? a.events_lost : 0);
		/* A FILTER, or its longest user event, is the largest. */
		rmax = sizeof(struct posixtrace_record) +
		       (I->max_data > 2 * sizeof(struct posixtrace_eventset) ?
			ROUND8(I->max_data) :
			2 * sizeof(struct posixtrace_eventset));
		/* A STOP is the smallest: 72 bytes. */
		if (!held != !a.bytes_used ||
		    a.bytes_used < held * (sizeof(struct posixtrace_record) + 8) ||
		    a.bytes_used > held * rmax)
			INST_ERR(I, "holds %llu bytes: not %llu events",
				 (unsigned long long)a.bytes_used,
				 (unsigned long long)held);
	} else if (a.bytes_used) {
		INST_ERR(I, "%llu bytes left after a drain",
			 (unsigned long long)a.bytes_used);
	}
	if (raw_control(I->fd, POSIXTRACE_IOC_CLEAR)) {
		INST_ERR(I, "CLEAR failed");
		return;
	}
	if (raw_status(I->fd, &b) || b.bytes_used ||
	    b.events_recorded != a.events_recorded ||
	    b.events_lost != a.events_lost || b.events_read != a.events_read)
		INST_ERR(I, "after CLEAR: %llu bytes, counters %llu/%llu/%llu were %llu/%llu/%llu",
			 (unsigned long long)b.bytes_used,
			 (unsigned long long)b.events_recorded,
			 (unsigned long long)b.events_lost,
			 (unsigned long long)b.events_read,
			 (unsigned long long)a.events_recorded,
			 (unsigned long long)a.events_lost,
			 (unsigned long long)a.events_read);
	I->cleared += held;
	ctl.clears++;
	if (!drained)
		ctl.clears_discarding++;
}

/* Wait until its flush is done; false if it is not within HANG_MS. */
static bool flushed(struct inst *I, struct posixtrace_status *st)
{
	uint64_t end = deadline_ms(HANG_MS);

	do {
		if (raw_status(I->fd, st))
			return false;
		if (st->flush_error)
			INST_ERR(I, "flush error %d", st->flush_error);
		if (st->flush_status == POSIXTRACE_NOT_FLUSHING)
			return true;
		usleep(1000);
	} while (before(end));
	return false;
}

/*
 * Clear the log stream (quiet): flush it all to the log first, so that
 * the stream holds nothing; the log forgets what it holds, and the
 * controller notes how many events the file has then.
 */
static void clear_log(struct inst *I)
{
	struct posixtrace_status st;
	struct rawlog rl;

	if (I->nlog_clears == MAX_LOG_CLEARS)
		return;
	if (raw_control(I->fd, POSIXTRACE_IOC_FLUSH) || !flushed(I, &st)) {
		INST_ERR(I, "flush before clear failed");
		return;
	}
	if (st.bytes_used)
		INST_ERR(I, "%llu bytes left after a flush",
			 (unsigned long long)st.bytes_used);
	if (!rawlog_read(I->log_fd, &rl)) {
		INST_ERR(I, "the log does not parse before a clear");
		rawlog_free(&rl);
		return;
	}
	I->log_clear_at[I->nlog_clears++] = rl.n;
	rawlog_free(&rl);
	if (raw_control(I->fd, POSIXTRACE_IOC_CLEAR))
		INST_ERR(I, "CLEAR failed");
	ctl.log_clears++;
}

enum action {
	A_TOGGLE, A_FILTER, A_CLEAR, A_FLUSH, A_RECREATE, A_KILL_WILD,
	A_KILL_QUIET, A_IDLE, A_NR
};

static const unsigned int weights[A_NR] = { 30, 24, 10, 8, 6, 3, 3, 16 };

static enum action pick_action(void)
{
	unsigned int total = 0, x, i;

	for (i = 0; i < A_NR; i++)
		total += weights[i];
	x = rnd_below(&ctl.rng, total);
	for (i = 0; x >= weights[i]; i++)
		x -= weights[i];
	return i;
}

/* One change at random; false if something hung. */
static bool step(struct __test_metadata *_metadata, unsigned char *buf)
{
	enum action a = pick_action();
	struct inst *I = NULL;
	int fam, role;
	bool ok = true;

	switch (a) {
	case A_FLUSH:
		I = ctl.inst[rnd_below(&ctl.rng, FAMILIES)][R_LOG];
		if (I && raw_control(I->fd, POSIXTRACE_IOC_FLUSH))
			INST_ERR(I, "FLUSH failed");
		ctl.flushes += !!I;
		return true;
	case A_KILL_WILD:
		fam = rnd_below(&ctl.rng, FAMILIES);
		return kill_family(fam, false, true, rnd_next(&ctl.rng), buf);
	case A_KILL_QUIET:
		fam = any_family();
		if (fam < 0)
			return true;
		break;
	case A_IDLE:
		return true;
	default:
		I = any_inst(&fam, &role);
		if (!I)
			return true;
		break;
	}
	/*
	 * A clear holds the stream's reader first, for a moment: it then
	 * has something to discard.
	 */
	if (a == A_CLEAR && role != R_LOG) {
		pthread_mutex_lock(&ctl.rd[fam][role].lock);
		usleep(rnd_below(&ctl.rng, 20000));
	}
	/* Only the family whose stream changes need be quiet. */
	if (!quiesce(_metadata, fam)) {
		if (a == A_CLEAR && role != R_LOG)
			pthread_mutex_unlock(&ctl.rd[fam][role].lock);
		return false;
	}
	switch (a) {
	case A_TOGGLE:
		toggle(I);
		break;
	case A_FILTER:
		filter(I);
		break;
	case A_CLEAR:
		if (role == R_LOG) {
			clear_log(I);
		} else {
			clear_live(I, buf);
			pthread_mutex_unlock(&ctl.rd[fam][role].lock);
		}
		break;
	case A_RECREATE:
		finish(fam, role, buf);
		start(fam, role);
		ctl.recreated++;
		break;
	default:
		ok = kill_family(fam, true, true, rnd_next(&ctl.rng), buf);
		break;
	}
	resume(fam);
	return ok;
}

/* ---- the test ----------------------------------------------------------- */

/* "SECONDS [SEED]" from the file beside this program, if it is there. */
static void stress_budget(unsigned int *seconds, uint64_t *seed)
{
	char path[4096], seed_text[32];
	FILE *f;

	*seconds = SHORT_SECONDS;
	if (!beside_program(path, sizeof(path), SECONDS_FILE))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	switch (fscanf(f, "%u %31s", seconds, seed_text)) {
	case 2:
		*seed = strtoull(seed_text, NULL, 0);
		/* fall through */
	case 1:
		break;
	default:
		*seconds = SHORT_SECONDS;
	}
	fclose(f);
}

FIXTURE(stress) {
};

FIXTURE_SETUP(stress)
{
}

/* Whatever happened, no producer outlives the test. */
FIXTURE_TEARDOWN(stress)
{
	int i;
	pid_t pid;

	if (!sh)
		return;
	atomic_store(&sh->stop, 1);
	for (i = 0; i < FAMILIES; i++) {
		pid = atomic_load(&sh->fam[i].pid);
		if (pid > 0)
			killpg(pid, SIGKILL);
	}
	atomic_store(&ctl.readers_stop, true);
}

static void summary(unsigned int seconds, uint64_t seed)
{
	char line[1024];
	size_t len;
	int r;

	len = snprintf(line, sizeof(line),
		       "stress: %u s, seed %#llx, %lu streams; emitted/read/lost/cleared:",
		       seconds, (unsigned long long)seed, ctl.streams);
	for (r = 0; r < ROLES && len < sizeof(line); r++)
		len += snprintf(line + len, sizeof(line) - len,
				" %s %llu/%llu/%llu/%llu", role_names[r],
				(unsigned long long)ctl.rs[r].emitted,
				(unsigned long long)ctl.rs[r].read,
				(unsigned long long)ctl.rs[r].lost,
				(unsigned long long)ctl.rs[r].cleared);
	ksft_print_msg("%s\n", line);
	ksft_print_msg("stress: kills %lu (%lu in calls, %lu calls in flight), forks %llu, execs %llu, clears %lu (%lu discarding, %lu of a log), toggles %lu, filters %lu, flushes %lu, recreated %lu\n",
		       ctl.kills_wild + ctl.kills_quiet, ctl.kills_wild,
		       ctl.inflight,
		       (unsigned long long)atomic_load(&sh->forks),
		       (unsigned long long)atomic_load(&sh->execs),
		       ctl.clears + ctl.log_clears, ctl.clears_discarding,
		       ctl.log_clears, ctl.toggles, ctl.filters, ctl.flushes,
		       ctl.recreated);
	if (ctl.exit_streams)
		ksft_print_msg("stress: %lu kernel streams without the exits of %lu threads, none counted lost\n",
			       ctl.exit_streams, ctl.exits_missing);
	for (r = 0; r < ROLES; r++)
		if (ctl.rs[r].unc)
			ksft_print_msg("stress: %s: %llu uncertain events (in flight at a kill), %llu of them read\n",
				       role_names[r],
				       (unsigned long long)ctl.rs[r].unc,
				       (unsigned long long)ctl.rs[r].unc_read);
}

static bool setup_shared(void)
{
	int fd = memfd_create("stress", 0), fam;

	if (fd < 0 || ftruncate(fd, sizeof(*sh)))
		return false;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  0);
	if (sh == MAP_FAILED) {
		sh = NULL;
		return false;
	}
	shm_fd = fd;
	for (fam = 0; fam < FAMILIES; fam++)
		atomic_store(&sh->fam[fam].epoch, 1);
	ctl.live = calloc(MAXSLOTS, sizeof(*ctl.live));
	ctl.pending = calloc(MAXSLOTS, sizeof(*ctl.pending));
	ctl.base = calloc(MAXSLOTS, sizeof(*ctl.base));
	ctl.last = calloc(MAXSLOTS, sizeof(*ctl.last));
	return ctl.live && ctl.pending && ctl.base && ctl.last;
}

/*
 * Families of producers record into streams of every policy while the
 * controller changes the streams and kills the families at random; every
 * stream accounts exactly for every event it had to take.
 */
TEST_F_TIMEOUT(stress, every_stream_accounts_for_every_event, 3600)
{
	unsigned char *buf = aligned_alloc(8, RBUF);
	unsigned int seconds, steps = 0;
	uint64_t seed, end, t0 = now_ns(), t1, t2;
	int fam, role;
	bool ok = true;

	SKIP_WITHOUT_DEVICE();
	seed = test_seed(_metadata, 0x57e55ULL);
	stress_budget(&seconds, &seed);
	TH_LOG("%u s, seed %#llx (\"SECONDS [SEED]\" in %s beside the program)",
	       seconds, (unsigned long long)seed, SECONDS_FILE);
	ASSERT_NE(NULL, buf);
	ASSERT_TRUE(setup_shared());
	ctl.rng = seed;
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ctl.dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctl.dev);
	for (fam = 0; fam < FAMILIES; fam++) {
		for (role = 0; role < ROLES; role++) {
			struct reader *r = &ctl.rd[fam][role];

			pthread_mutex_init(&r->lock, NULL);
			r->rng = rnd_next(&ctl.rng);
		}
		ASSERT_EQ(0, pthread_create(&ctl.rd[fam][0].thr, NULL,
					    reader_main, ctl.rd[fam]));
	}
	/* Epoch 1: the families start, their streams are made. */
	for (fam = 0; fam < FAMILIES; fam++)
		ASSERT_TRUE(spawn_process(fam, rnd_next(&ctl.rng)));
	for (fam = 0; fam < FAMILIES; fam++) {
		ASSERT_TRUE(spawn_streams(fam));
		resume(fam);
	}

	t1 = now_ns();
	end = deadline_ms(seconds * 1000);
	/* Errors of the accounting do not stop it: each stream is apart. */
	while (ok && before(end) && steps < 10000000 && err_count < 1000 &&
	       !atomic_load(&sh->errors)) {
		ok = step(_metadata, buf);
		steps++;
		usleep(rnd_below(&ctl.rng, 3000));
	}
	/*
	 * The end: every family killed, quietly unless a call (an exec, for
	 * seconds under a debug kernel) keeps it from being quiet within a
	 * second; every stream finished.
	 */
	t2 = now_ns();
	quiesce_begin_all();
	for (fam = 0; ok && fam < FAMILIES; fam++)
		ok = kill_family(fam, quiesce_within(_metadata, fam, 1000),
				 false, 0, buf);
	atomic_store(&ctl.readers_stop, true);
	for (fam = 0; fam < FAMILIES; fam++)
		pthread_join(ctl.rd[fam][0].thr, NULL);
	summary(seconds, seed);
	TH_LOG("start %llu ms, run %llu ms, end %llu ms",
	       (unsigned long long)((t1 - t0) / NS_PER_MS),
	       (unsigned long long)((t2 - t1) / NS_PER_MS),
	       (unsigned long long)((now_ns() - t2) / NS_PER_MS));
	TH_LOG("%u steps, %llu quiet points, %llu ms quiet in all, %llu ms at most, %lu over 1 s",
	       steps, (unsigned long long)ctl.quiesces,
	       (unsigned long long)(ctl.quiesce_ns / NS_PER_MS),
	       (unsigned long long)(ctl.quiesce_max_ns / NS_PER_MS),
	       ctl.slow_calls);
	EXPECT_TRUE(ok);
	EXPECT_EQ(0, atomic_load(&sh->errors)) {
		TH_LOG("producers: %u error(s); the first: %s",
		       atomic_load(&sh->errors), sh->why);
	}
	EXPECT_EQ(0, err_count) {
		TH_LOG("%d error(s); the first ones:", err_count);
		for (fam = 0; fam < err_count && fam < ERRS_KEPT; fam++)
			TH_LOG("  %s", err_text[fam]);
	}
	/* The module still works. */
	EXPECT_EQ(0, round_trip());
	free(buf);
}

TEST_HARNESS_MAIN
