// SPDX-License-Identifier: GPL-2.0
/*
 * The module under random calls from several processes and threads at
 * once (make fuzz runs a million; make check a short run): every
 * descriptor the module hands out (the device, streams) and every mapping
 * (the enable page, the threads' rings, their growth, the streams' batch
 * buffers), while the callers close, unmap, remap, fork, exec and exit
 * under one another.
 *
 * A worker process runs FUZZ_THREADS threads, each with its own stream
 * and struct fuzz (ioctl_fuzz.h). Each thread, at random:
 *  - makes a random ioctl on the device or its stream;
 *  - maps the device or a stream at a random offset, size and
 *    protection, and later touches, scribbles on, mprotects, remaps,
 *    forks with, or unmaps what it mapped;
 *  - writes records into a ring it mapped itself (plausible ones, bent
 *    ones and garbage, control words included) and asks for a drain;
 *  - records events through the library (its own ring);
 *  - replaces a sibling's argument page with an inaccessible one for a
 *    moment (the sibling's call then finds its argument unmapped), or a
 *    sibling's stream descriptor with a device descriptor (a close under
 *    its calls);
 *  - forks a child that goes on fuzzing the descriptors it inherited,
 *    execs this program again, exits or is killed;
 *  - shuts its stream down and creates another.
 * Workers exit abruptly after a random share of calls, and the test kills
 * one now and then (SIGKILL, threads in the middle of calls); new ones
 * take their place until the calls are made.
 *
 * Every result is checked: an ioctl fails only with a sane errno
 * (fuzz_errno_ok()), a mapping only with EINVAL, EACCES, ENOMEM, EPERM,
 * ENODEV or ENOENT (a ring to grow that is gone), the enable page never
 * becomes writable, no process dies of a signal the test did not send.
 * Afterwards no process holds the module, the device works and all
 * {TRACE_SYS_MAX} streams can be created; the guest's kmemleak scan,
 * splat check and rmmod (init.sh) follow.
 *
 * How many calls: FUZZ_SHORT_CALLS within FUZZ_SHORT_SECONDS, unless a
 * file "fuzz-calls" beside this program holds "CALLS SECONDS [SEED]"
 * (make fuzz's). TRC_STRESS_SEED sets the seed too; the file wins.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "trc_common.h"
#include "stress_common.h"
#include "ioctl_fuzz.h"
#include "beside_program.h"

#define FUZZ_WORKERS		3
#define FUZZ_THREADS		3
#define FUZZ_SHORT_CALLS	30000
#define FUZZ_SHORT_SECONDS	10
#define FUZZ_MAPS		8	/* live mappings per thread */
#define FUZZ_EXEC_ENV		"POSIXTRACE_FUZZ_EXEC"

/* Shared by the test and all its workers (MAP_SHARED). */
struct fuzz_shared {
	atomic_ulong calls, target;
	atomic_bool stop;
	atomic_ulong ioctls, maps, mapped, touches, ring_records, drains,
		     events, unmapped_args, replaced_fds, forks, execs,
		     worker_exits, kills, renewed, interrupted, arg_faults;
	atomic_int failures;
	atomic_flag why_taken;
	char why[320];
};

static struct fuzz_shared *sh;

static void __attribute__((format(printf, 1, 2))) fuzz_fail(const char *fmt,
							    ...)
{
	va_list ap;

	atomic_fetch_add(&sh->failures, 1);
	if (atomic_flag_test_and_set(&sh->why_taken))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
}

/* ---- a fault in our own touch of a mapping --------------------------- */

/*
 * A thread touching a mapping a sibling may just have replaced, or past
 * what the module maps, may fault: it jumps back instead of dying.
 */
static __thread sigjmp_buf *touch_guard;

static void touch_fault(int sig, siginfo_t *si, void *uc)
{
	if (touch_guard)
		siglongjmp(*touch_guard, sig);
	fuzz_fail("signal %d at %p, code %d, ip %#llx", sig, si->si_addr,
		  si->si_code,
		  (unsigned long long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int catch_touch_faults(void)
{
	struct sigaction sa = {
		.sa_sigaction = touch_fault,
		.sa_flags = SA_SIGINFO | SA_NODEFER,
	};

	return sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL);
}

/* ---- one worker's threads -------------------------------------------- */

struct fuzz_map {
	unsigned char *p;
	size_t len;
	bool ring;		/* a ring of ours: its header is ctl */
	bool writable;
	uint64_t head;		/* where our next record goes */
};

struct fuzz_thread {
	struct fuzz f;
	pthread_t thr;
	trace_event_id_t id;
	struct fuzz_map maps[FUZZ_MAPS];
	char why[256];
};

static struct fuzz_thread threads[FUZZ_THREADS];

/* What posixtrace_dev_mmap() and the stream's mmap() document. */
static bool mmap_errno_ok(int e)
{
	return e == EINVAL || e == EACCES || e == ENOMEM || e == EPERM ||
	       e == ENODEV || e == ENOENT;
}

static struct fuzz_map *free_map(struct fuzz_thread *t)
{
	int i;

	for (i = 0; i < FUZZ_MAPS; i++)
		if (!t->maps[i].p)
			return &t->maps[i];
	/* All taken: unmap one. */
	i = rnd_below(&t->f.rng, FUZZ_MAPS);
	munmap(t->maps[i].p, t->maps[i].len);
	memset(&t->maps[i], 0, sizeof(t->maps[i]));
	return &t->maps[i];
}

/* Map the device or the stream somewhere; false if that went wrong. */
static bool map_something(struct fuzz_thread *t)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ,
		PROT_WRITE, PROT_READ | PROT_EXEC, PROT_NONE,
	};
	struct fuzz *f = &t->f;
	size_t page = f->page, data = page << rnd_below(&f->rng, 6);
	bool on_stream = !rnd_below(&f->rng, 4);
	int prot = prots[rnd_below(&f->rng, 6)];
	int flags = rnd_below(&f->rng, 8) ? MAP_SHARED : MAP_PRIVATE;
	struct fuzz_map *m;
	uint64_t off;
	size_t len;
	void *p;

	if (on_stream) {
		off = PICK(f, 0, 0, page, 1 << 20);
		len = PICK(f, 64 * 1024, page, 16 * page, 1, 1 << 20);
	} else {
		off = PICK(f, POSIXTRACE_RING_OFFSET,
			   POSIXTRACE_RING_GROW_OFFSET,
			   POSIXTRACE_ENABLE_PAGE_OFFSET, page,
			   POSIXTRACE_RING_OFFSET + page, 1ULL << 40);
		len = PICK(f, page + data, page, 2 * page, 1,
			   page + 3 * page, (size_t)64 << 20);
	}
	if (off >= (1ULL << 40) || len > ((size_t)64 << 20)) {
		off = 0;
		len = page;
	}
	atomic_fetch_add(&sh->maps, 1);
	p = mmap(NULL, len, prot, flags, on_stream ? f->sfd : f->dev,
		 (off_t)off);
	if (p == MAP_FAILED) {
		if (mmap_errno_ok(errno))
			return true;
		snprintf(t->why, sizeof(t->why),
			 "mmap(%zu, prot %#x, flags %#x, %s offset %#llx): errno %d",
			 len, prot, flags, on_stream ? "stream" : "device",
			 (unsigned long long)off, errno);
		return false;
	}
	atomic_fetch_add(&sh->mapped, 1);
	if (!on_stream && off == POSIXTRACE_ENABLE_PAGE_OFFSET &&
	    !mprotect(p, len, PROT_READ | PROT_WRITE)) {
		snprintf(t->why, sizeof(t->why),
			 "the enable page became writable");
		munmap(p, len);
		return false;
	}
	m = free_map(t);
	m->p = p;
	m->len = len;
	m->writable = prot & PROT_WRITE;
	m->ring = !on_stream && (off == POSIXTRACE_RING_OFFSET ||
				 off == POSIXTRACE_RING_GROW_OFFSET) &&
		  len > page;
	m->head = 0;
	return true;
}

/*
 * Write one record into a ring of ours at its head: mostly as the library
 * writes one (size, id, time, data; the commit word last, the produced
 * word after it), sometimes with a field bent, sometimes garbage. Then,
 * now and then, ask for a drain.
 */
static void ring_write(struct fuzz_thread *t, struct fuzz_map *m)
{
	struct fuzz *f = &t->f;
	volatile struct posixtrace_ring_ctl *ctl = (void *)m->p;
	struct posixtrace_ring_record rec;
	uint8_t *data = m->p + f->page;
	uint64_t size = m->len - f->page, mask, off, i;
	uint32_t len = PICK(f, 8, 0, 1, 64, 200, 4096, 65536);
	unsigned char buf[sizeof(rec) + 256];
	struct timespec now;

	if (!m->ring || !m->writable)
		return;
	/* The kernel says how big the data area is; trust it only so far. */
	if (ctl->data_size && ctl->data_size <= size &&
	    !(ctl->data_size & (ctl->data_size - 1)))
		size = ctl->data_size;
	else if (size & (size - 1))
		return;
	mask = size - 1;
	if (len > sizeof(buf) - sizeof(rec))
		len = PICK(f, (uint32_t)(sizeof(buf) - sizeof(rec)), len);
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&rec, 0, sizeof(rec));
	rec.size = (sizeof(rec) + (len < 256 ? len : 256) + 7) & ~7U;
	rec.event_id = PICK(f, t->id, t->id, POSIXTRACE_EVENT_UNNAMED_USER,
			    POSIXTRACE_EVENT_ID_MAX, 0, POSIXTRACE_EVENT_START,
			    rnd_next(&f->rng));
	rec.ts_sec = PICK(f, now.tv_sec, now.tv_sec + 100, 0, -1, INT64_MAX);
	rec.ts_nsec = PICK(f, now.tv_nsec, 999999999, 1000000000, UINT32_MAX);
	rec.data_len = len;
	rec.prog_address = rnd_next(&f->rng);
	rec.thread = rnd_next(&f->rng);
	if (!rnd_below(&f->rng, 8))
		rec.size = PICK(f, 0, 8, rec.size + 8, (uint32_t)size,
				(uint32_t)size + 8, UINT32_MAX);
	memcpy(buf, &rec, sizeof(rec));
	for (i = sizeof(rec); i < sizeof(buf); i++)
		buf[i] = (unsigned char)rnd_next(&f->rng);
	off = m->head & mask;
	for (i = sizeof(rec.commit); i < sizeof(rec) + 256 && i < size; i++)
		data[(off + i) & mask] = buf[i];
	switch (rnd_below(&f->rng, 10)) {
	case 0:
		/* Garbage anywhere, the control words included. */
		for (i = 0; i < 16; i++)
			m->p[rnd_below(&f->rng, (uint32_t)m->len)] =
				(unsigned char)rnd_next(&f->rng);
		break;
	case 1:
		/* A commit word that does not match the position. */
		__atomic_store_n((uint64_t *)(data + off), rnd_next(&f->rng),
				 __ATOMIC_RELEASE);
		break;
	default:
		__atomic_store_n((uint64_t *)(data + off), ~m->head,
				 __ATOMIC_RELEASE);
		m->head += rec.size >= sizeof(rec) && rec.size <= size ?
			   rec.size : 8;
	}
	__atomic_store_n((uint64_t *)&ctl->produced,
			 rnd_below(&f->rng, 8) ? m->head : rnd_next(&f->rng),
			 __ATOMIC_RELEASE);
	atomic_fetch_add(&sh->ring_records, 1);
	if (!rnd_below(&f->rng, 4)) {
		atomic_fetch_add(&sh->drains, 1);
		if (ioctl(f->dev, POSIXTRACE_IOC_RING_DRAIN, 0) &&
		    !fuzz_errno_ok(errno, false))
			fuzz_fail("RING_DRAIN after a hostile record: errno %d",
				  errno);
	}
}

/*
 * A few records into one ring of ours, if we have one (a thread's ring is
 * its own: the kernel drains it as this thread's).
 */
static void ring_burst(struct fuzz_thread *t)
{
	struct fuzz_map *m = NULL;
	sigjmp_buf jb;
	int i, n;

	for (i = 0; i < FUZZ_MAPS && !m; i++)
		if (t->maps[i].ring && t->maps[i].writable)
			m = &t->maps[i];
	if (!m) {
		/* Map one, as the library does: a ring of 4 KiB to 64 KiB. */
		struct fuzz_map *slot = free_map(t);
		size_t len = t->f.page + (t->f.page << rnd_below(&t->f.rng, 5));
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       t->f.dev, POSIXTRACE_RING_OFFSET);

		if (p == MAP_FAILED)
			return;
		atomic_fetch_add(&sh->mapped, 1);
		*slot = (struct fuzz_map){ .p = p, .len = len, .ring = true,
					   .writable = true };
		m = slot;
	}
	n = 1 + rnd_below(&t->f.rng, 16);
	if (sigsetjmp(jb, 1) == 0) {
		touch_guard = &jb;
		for (i = 0; i < n; i++)
			ring_write(t, m);
	}
	touch_guard = NULL;
}

/* Touch, scribble on, mprotect, remap, advise or unmap one mapping. */
static void map_work(struct fuzz_thread *t)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_WRITE,
	};
	struct fuzz *f = &t->f;
	struct fuzz_map *m = &t->maps[rnd_below(&f->rng, FUZZ_MAPS)];
	sigjmp_buf jb;
	void *p;
	size_t i;

	if (!m->p)
		return;
	switch (rnd_below(&f->rng, 12)) {
	case 0: case 1: case 2: case 3: case 4:
		atomic_fetch_add(&sh->touches, 1);
		if (sigsetjmp(jb, 1) == 0) {
			touch_guard = &jb;
			for (i = 0; i < 8; i++)
				(void)*(volatile unsigned char *)
					(m->p + rnd_below(&f->rng,
							  (uint32_t)m->len));
			ring_write(t, m);
		}
		touch_guard = NULL;
		break;
	case 5:
		i = rnd_below(&f->rng, 4);
		if (!mprotect(m->p, m->len, prots[i]))
			m->writable = prots[i] & PROT_WRITE;
		break;
	case 6:
		p = mremap(m->p, m->len, m->len * 2, MREMAP_MAYMOVE);
		if (p != MAP_FAILED) {
			m->p = p;
			m->len *= 2;
		}
		break;
	case 7:
		madvise(m->p, m->len, PICK(f, MADV_DONTNEED, MADV_DONTFORK,
					   MADV_DOFORK, MADV_WIPEONFORK,
					   MADV_KEEPONFORK));
		break;
	case 8:
		/* The first page only; the rest stays mapped. */
		if (m->len > f->page && !munmap(m->p, f->page)) {
			m->p += f->page;
			m->len -= f->page;
			m->ring = false;
		}
		break;
	default:
		munmap(m->p, m->len);
		memset(m, 0, sizeof(*m));
	}
}

/*
 * Replace a sibling's argument page with an inaccessible one, then give
 * it a fresh one: a call of the sibling's in between finds its argument
 * unmapped. MAP_FIXED replaces in one step, so the address is never free
 * for another mapping to take.
 */
static void unmap_sibling_arg(struct fuzz_thread *t)
{
	struct fuzz_thread *s = &threads[rnd_below(&t->f.rng, FUZZ_THREADS)];
	unsigned char *page = s->f.arg;

	if (s == t || !page)
		return;
	if (mmap(page, t->f.page, PROT_NONE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		return;
	atomic_fetch_add(&sh->unmapped_args, 1);
	usleep(rnd_below(&t->f.rng, 200));
	mmap(page, t->f.page, PROT_READ | PROT_WRITE,
	     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* A sibling's stream descriptor becomes a device descriptor: a close. */
static void replace_sibling_fd(struct fuzz_thread *t)
{
	struct fuzz_thread *s = &threads[rnd_below(&t->f.rng, FUZZ_THREADS)];
	int fd = s->f.sfd;

	if (fd >= 0 && dup3(t->f.dev, fd, O_CLOEXEC) == fd)
		atomic_fetch_add(&sh->replaced_fds, 1);
}

/* Our stream, new, if the one we had is shut down or replaced. */
static bool new_stream(struct fuzz_thread *t)
{
	struct fuzz *f = &t->f;
	static const uint64_t sizes[] = { 4096, 65536, 1 << 20 };
	int fd = raw_create(f->dev, 0, sizes[rnd_below(&f->rng, 3)], 1024,
			    rnd_below(&f->rng, 2) ? POSIXTRACE_LOOP :
						    POSIXTRACE_UNTIL_FULL);

	if (fd < 0) {
		/* Another process of ours may hold every stream now. */
		if (fd == -ENOSPC || fd == -ENOMEM || fd == -EAGAIN)
			return true;
		snprintf(t->why, sizeof(t->why), "no new stream: %d", fd);
		return false;
	}
	if (dup3(fd, f->sfd, O_CLOEXEC) < 0) {
		close(fd);
		return true;
	}
	close(fd);
	atomic_fetch_add(&sh->renewed, 1);
	/* A sibling may have replaced it again meanwhile: any result. */
	raw_control(f->sfd, POSIXTRACE_IOC_START);
	return true;
}

/* ---- children: fork, exec, exit, killed ------------------------------ */

/* A forked child, or an exec'd image: a few calls of its own, then exit. */
static int child_calls(struct fuzz *f, int n)
{
	char why[256] = "";
	int i;

	for (i = 0; i < n; i++) {
		bool on_stream = rnd_below(&f->rng, 2);

		if (!fuzz_one(f, on_stream ? f->sfd : f->dev, on_stream, why,
			      sizeof(why))) {
			fuzz_fail("child: %s", why);
			return 3;
		}
	}
	atomic_fetch_add(&sh->calls, n);
	atomic_fetch_add(&sh->ioctls, n);
	return 0;
}

static void fork_child(struct fuzz_thread *t)
{
	struct fuzz *f = &t->f;
	char shfd[32];
	int status, how = rnd_below(&f->rng, 4);
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return;
	if (pid == 0) {
		/* Gone with the thread that made it (a worker killed). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);	/* it went before the prctl() */
		f->rng ^= (uint64_t)getpid() << 32;
		fuzz_thread_timer(f);
		/* A sibling may have had it away at the fork: ours again. */
		mmap(f->arg, f->page, PROT_READ | PROT_WRITE,
		     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (how == 0) {
			/* This program again, its descriptors closed. */
			snprintf(shfd, sizeof(shfd), "%llu",
				 (unsigned long long)rnd_next(&f->rng));
			setenv(FUZZ_EXEC_ENV, shfd, 1);
			atomic_fetch_add(&sh->execs, 1);
			execl("/proc/self/exe", "fuzz_test", (char *)NULL);
			_exit(4);
		}
		_exit(child_calls(f, 20 + rnd_below(&f->rng, 200)));
	}
	atomic_fetch_add(&sh->forks, 1);
	if (how == 1) {
		usleep(rnd_below(&f->rng, 2000));
		kill(pid, SIGKILL);
	}
	if (waitpid(pid, &status, 0) != pid)
		return;
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		fuzz_fail("a child died of signal %d", WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) &&
		 WEXITSTATUS(status) != 3)
		fuzz_fail("a child exited %d", WEXITSTATUS(status));
}

/*
 * The exec'd image: sh is gone with the old image, so it only proves that
 * a new image may call the module at once; its failures are its exit
 * status.
 */
static void __attribute__((constructor)) exec_image(void)
{
	const char *seed = getenv(FUZZ_EXEC_ENV);
	char why[256] = "";
	struct fuzz f;
	int i, rc = 0;

	if (!seed)
		return;
	if (fuzz_catch_alarm() || fuzz_setup(&f, strtoull(seed, NULL, 0)))
		_exit(0);	/* no stream to be had now: nothing to test */
	f.crowded = true;
	for (i = 0; i < 100 && !rc; i++) {
		bool on_stream = rnd_below(&f.rng, 2);

		if (!fuzz_one(&f, on_stream ? f.sfd : f.dev, on_stream, why,
			      sizeof(why)))
			rc = 5;
	}
	_exit(rc);
}

/* ---- the worker -------------------------------------------------------- */

/*
 * fuzz_one() on the device or our stream. A sibling may take our argument
 * page away while we fill it in (unmap_sibling_arg()): that fault is
 * ours, not the module's, and ends the call before it is made.
 */
static bool guarded_fuzz_one(struct fuzz_thread *t, bool on_stream)
{
	struct fuzz *f = &t->f;
	sigjmp_buf jb;
	bool ok = true;

	if (sigsetjmp(jb, 1) == 0) {
		touch_guard = &jb;
		ok = fuzz_one(f, on_stream ? f->sfd : f->dev, on_stream,
			      t->why, sizeof(t->why));
	} else {
		atomic_fetch_add(&sh->arg_faults, 1);
	}
	touch_guard = NULL;
	return ok;
}

static void *fuzz_thread_main(void *arg)
{
	struct fuzz_thread *t = arg;
	struct fuzz *f = &t->f;
	unsigned char ev[512];
	uint32_t r;

	fuzz_thread_timer(f);
	while (!atomic_load(&sh->stop) &&
	       atomic_load(&sh->calls) < atomic_load(&sh->target)) {
		bool ok = true, on_stream;

		r = rnd_below(&f->rng, 1000);
		if (r < 650) {
			on_stream = rnd_below(&f->rng, 2);
			ok = guarded_fuzz_one(t, on_stream);
			atomic_fetch_add(&sh->ioctls, 1);
		} else if (r < 700) {
			ok = map_something(t);
		} else if (r < 780) {
			map_work(t);
		} else if (r < 850) {
			ring_burst(t);
		} else if (r < 900) {
			posix_trace_event(t->id, ev,
					  rnd_below(&f->rng, sizeof(ev)));
			atomic_fetch_add(&sh->events, 1);
		} else if (r < 930) {
			unmap_sibling_arg(t);
		} else if (r < 945) {
			replace_sibling_fd(t);
		} else if (r < 965) {
			ok = new_stream(t);
		} else if (r < 975) {
			fork_child(t);
		} else if (r == 999 && !rnd_below(&f->rng, 8)) {
			/* The whole worker, threads in mid-call. */
			atomic_fetch_add(&sh->worker_exits, 1);
			_exit(0);
		}
		atomic_fetch_add(&sh->calls, 1);
		if (!ok) {
			fuzz_fail("thread %d: %s", (int)(t - threads), t->why);
			break;
		}
	}
	atomic_fetch_add(&sh->interrupted, f->interrupted);
	return NULL;
}

static void __attribute__((noreturn)) worker(uint64_t seed)
{
	char name[64];
	int i, err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (catch_touch_faults() || fuzz_catch_alarm())
		_exit(6);
	for (i = 0; i < FUZZ_THREADS; i++) {
		struct fuzz_thread *t = &threads[i];

		err = fuzz_setup(&t->f, seed + i * 0x9e3779b97f4a7c15ULL);
		t->f.crowded = true;
		if (err) {
			/* The other workers may hold every stream. */
			if (err == ENOSPC || err == ENOMEM || err == EAGAIN)
				_exit(0);
			fuzz_fail("worker setup: error %d", err);
			_exit(7);
		}
		snprintf(name, sizeof(name), "fuzz.%d", i);
		if (posix_trace_eventid_open(name, &t->id))
			t->id = POSIX_TRACE_UNNAMED_USEREVENT;
	}
	for (i = 0; i < FUZZ_THREADS; i++)
		if (pthread_create(&threads[i].thr, NULL, fuzz_thread_main,
				   &threads[i]))
			_exit(8);
	for (i = 0; i < FUZZ_THREADS; i++)
		pthread_join(threads[i].thr, NULL);
	_exit(0);
}

/* ---- the test ------------------------------------------------------------ */

static void read_file_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Processes other than this one that hold the device or a stream open:
 * the orphans of killed workers finishing their calls. Logs each (pid,
 * name, state, where it waits) when log is set; returns how many.
 */
static int holders(struct __test_metadata *_metadata, bool log)
{
	char path[300], link[256], comm[64], stat[512], wchan[64];
	struct dirent *p, *fd;
	int n = 0;
	DIR *proc = opendir("/proc"), *fds;

	if (!proc)
		return 0;
	while ((p = readdir(proc))) {
		pid_t pid = atoi(p->d_name);
		bool holds = false;

		if (pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while (!holds && (fd = readdir(fds))) {
			ssize_t len;

			snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid,
				 fd->d_name);
			len = readlink(path, link, sizeof(link) - 1);
			if (len <= 0)
				continue;
			link[len] = '\0';
			holds = strstr(link, "posixtrace") != NULL;
		}
		closedir(fds);
		if (!holds)
			continue;
		n++;
		if (!log)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		read_file_line(path, comm, sizeof(comm));
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		read_file_line(path, stat, sizeof(stat));
		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		read_file_line(path, wchan, sizeof(wchan));
		TH_LOG("still held by %d (%s): %.60s, waits in %s", pid, comm,
		       stat, wchan);
	}
	closedir(proc);
	return n;
}


/*
 * "CALLS SECONDS [SEED]" from fuzz-calls beside this program, if it is
 * there (the seed replaces *seed).
 */
static void fuzz_budget(unsigned long *calls, unsigned int *seconds,
			uint64_t *seed)
{
	char seed_text[32], path[4096];
	FILE *f;

	*calls = FUZZ_SHORT_CALLS;
	*seconds = FUZZ_SHORT_SECONDS;
	if (!beside_program(path, sizeof(path), "fuzz-calls"))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	/* The seed as strtoull() reads it: decimal, or 0x... hexadecimal. */
	switch (fscanf(f, "%lu %u %31s", calls, seconds, seed_text)) {
	case 3:
		*seed = strtoull(seed_text, NULL, 0);
		/* fall through */
	case 2:
		break;
	default:
		*calls = FUZZ_SHORT_CALLS;
		*seconds = FUZZ_SHORT_SECONDS;
	}
	fclose(f);
}

FIXTURE(many) {
};

FIXTURE_SETUP(many)
{
}

FIXTURE_TEARDOWN(many)
{
}

static pid_t spawn(uint64_t seed)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(seed);
	return pid;
}

/*
 * Workers fuzz until the calls are made or the time is up; the test kills
 * one now and then and starts new ones. Then: no failure noted, no worker
 * dead of a signal the test did not send, and the device works.
 */
TEST_F_TIMEOUT(many, random_calls_from_processes_and_threads_that_come_and_go,
	       3600)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	pid_t pids[FUZZ_WORKERS], pid;
	unsigned long calls, spawned = 0;
	unsigned int seconds;
	uint64_t seed, end, next_kill;
	int i, status;

	SKIP_WITHOUT_DEVICE();
	seed = test_seed(_metadata, 0xf022f022ULL);
	fuzz_budget(&calls, &seconds, &seed);
	sh = shared(sizeof(*sh));
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	atomic_store(&sh->target, calls);
	TH_LOG("%lu calls at most, within %u s, %d workers of %d threads, seed %#llx",
	       calls, seconds, FUZZ_WORKERS, FUZZ_THREADS,
	       (unsigned long long)seed);

	end = deadline_ms(seconds * 1000);
	next_kill = deadline_ms(200);
	for (i = 0; i < FUZZ_WORKERS; i++) {
		pids[i] = spawn(rnd_next(&seed));
		ASSERT_LT(0, pids[i]);
		spawned++;
	}
	while (atomic_load(&sh->calls) < calls && before(end) &&
	       !atomic_load(&sh->failures)) {
		usleep(20000);
		if (!before(next_kill)) {
			kill(pids[rnd_below(&seed, FUZZ_WORKERS)], SIGKILL);
			atomic_fetch_add(&sh->kills, 1);
			next_kill = deadline_ms(100 + rnd_below(&seed, 400));
		}
		for (i = 0; i < FUZZ_WORKERS; i++) {
			pid = waitpid(pids[i], &status, WNOHANG);
			if (pid != pids[i])
				continue;
			if (WIFSIGNALED(status) &&
			    WTERMSIG(status) != SIGKILL)
				fuzz_fail("a worker died of signal %d",
					  WTERMSIG(status));
			else if (WIFEXITED(status) && WEXITSTATUS(status))
				fuzz_fail("a worker exited %d",
					  WEXITSTATUS(status));
			pids[i] = spawn(rnd_next(&seed));
			ASSERT_LT(0, pids[i]);
			spawned++;
		}
	}
	atomic_store(&sh->stop, true);
	for (i = 0; i < FUZZ_WORKERS; i++) {
		/* A thread may wait in a call no timer interrupts: kill. */
		end = deadline_ms(5000);
		while (waitpid(pids[i], &status, WNOHANG) == 0 && before(end))
			usleep(10000);
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
	}
	/* The workers' orphans end their few calls and exit. */
	end = deadline_ms(10000);
	while (holders(_metadata, false) && before(end))
		usleep(50000);
	EXPECT_EQ(0, holders(_metadata, true));

	TH_LOG("%lu calls: %lu ioctls (%lu interrupted), %lu mmaps (%lu worked), %lu touches, %lu ring records, %lu drains, %lu events",
	       atomic_load(&sh->calls), atomic_load(&sh->ioctls),
	       atomic_load(&sh->interrupted), atomic_load(&sh->maps),
	       atomic_load(&sh->mapped), atomic_load(&sh->touches),
	       atomic_load(&sh->ring_records), atomic_load(&sh->drains),
	       atomic_load(&sh->events));
	TH_LOG("%lu arguments unmapped under a call (%lu before it), %lu descriptors replaced, %lu streams renewed, %lu forks, %lu execs, %lu workers (%lu exited, %lu killed)",
	       atomic_load(&sh->unmapped_args), atomic_load(&sh->arg_faults),
	       atomic_load(&sh->replaced_fds), atomic_load(&sh->renewed),
	       atomic_load(&sh->forks), atomic_load(&sh->execs), spawned,
	       atomic_load(&sh->worker_exits), atomic_load(&sh->kills));
	EXPECT_EQ(0, atomic_load(&sh->failures)) {
		TH_LOG("%d failure(s); the first: %s",
		       atomic_load(&sh->failures), sh->why);
	}

	/* Still working, every stream released. */
	{
		int dev = open(DEVICE, O_RDWR | O_CLOEXEC);

		ASSERT_LE(0, dev);
		ASSERT_EQ(0, ioctl(dev, POSIXTRACE_IOC_VERSION, &ver));
		ASSERT_EQ(POSIXTRACE_ABI_MAJOR, ver.major);
		close(dev);
	}
	ASSERT_EQ(0, round_trip());
	/* A log's stream frees its place when its flush worker is done. */
	end = deadline_ms(5000);
	while (can_create_all(sys_max()) == EAGAIN && before(end))
		usleep(50000);
	ASSERT_EQ(0, can_create_all(sys_max()));
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
