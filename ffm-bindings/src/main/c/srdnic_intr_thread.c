/*
 * Calls run on EAL's interrupt thread, so they cannot overlap a PMD's interrupt callbacks.
 *
 * net_memif (22.11) runs its control channel on EAL's interrupt thread: when the peer closes, it
 * calls memif_disconnect there, which frees the shared-memory regions and reads the queues' interrupt
 * handles. rte_eth_dev_stop (memif_dev_stop) calls the same memif_disconnect, and nothing but the
 * control channel's part of it is locked. A stop on an application thread while the peer is
 * closing frees each region twice (SIGSEGV in librte_eal, malloc_elem_free_list_insert).
 *
 * The interrupt thread also keeps, for every registered callback, a copy of its interrupt handle,
 * in DPDK memory when the driver asked for shared handles (memif does), and reads them all whenever
 * it wakes. memif never unregisters its server's listening socket, so one copy outlives the port;
 * once rte_eal_cleanup has unmapped DPDK memory, a thread still busy there reads unmapped memory
 * (SIGSEGV in rte_intr_fd_get).
 *
 * Interrupt callbacks run one at a time on that one thread: a call run there, as the callback of
 * an eventfd of ours, comes strictly before or after the driver's own callbacks.
 */
/* rte_intr_instance_alloc and the rte_intr_* accessors are still experimental in 22.11. */
#define ALLOW_EXPERIMENTAL_API
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>

struct intr_call {
	void (*fn)(struct intr_call *call);
	uint16_t port;
	int rc;
	int done;
};

/* One call in flight at a time; the interrupt thread takes it from pending. */
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;
static struct intr_call *pending;
/*
 * An eventfd whose callback runs the pending call. Registered on first use and never unregistered:
 * an unregistration wakes the interrupt thread to rebuild its wait list, reading every handle,
 * and rte_eal_cleanup must find it asleep. (rte_eal_alarm_set would do as a way in, but
 * rte_eal_cleanup unregisters the alarm callback once one was ever set: that wakes the thread
 * while DPDK memory goes away.) Its handle is private, in malloc'd memory that cleanup leaves be.
 */
static struct rte_intr_handle *wake;

static void on_wake(void *arg)
{
	struct rte_intr_handle *handle = arg;
	struct intr_call *call;
	uint64_t count;

	if (read(rte_intr_fd_get(handle), &count, sizeof(count)) < 0)
		return; /* nothing written: a spurious wake-up */
	call = __atomic_exchange_n(&pending, NULL, __ATOMIC_ACQ_REL);
	if (call != NULL) {
		call->fn(call);
		__atomic_store_n(&call->done, 1, __ATOMIC_RELEASE);
	}
}

/* Under calls_lock. */
static int register_wake(void)
{
	struct rte_intr_handle *handle;
	int fd;
	int rc;

	if (wake != NULL)
		return 0;
	handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (handle == NULL)
		return -ENOMEM;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		rte_intr_instance_free(handle);
		return rc;
	}
	rc = rte_intr_fd_set(handle, fd);
	if (rc == 0)
		rc = rte_intr_type_set(handle, RTE_INTR_HANDLE_EXT);
	if (rc == 0)
		rc = rte_intr_callback_register(handle, on_wake, handle);
	if (rc < 0) {
		close(fd);
		rte_intr_instance_free(handle);
		return rc;
	}
	wake = handle;
	return 0;
}

/* Under calls_lock: waits for the posted call; takes it back if the thread has not started it in time. */
static int await_call(struct intr_call *call, unsigned int timeout_ms)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 50 * 1000 };
	unsigned long waited_us = 0;
	int running = 0;

	while (!__atomic_load_n(&call->done, __ATOMIC_ACQUIRE)) {
		if (!running && waited_us >= timeout_ms * 1000UL) {
			if (__atomic_exchange_n(&pending, NULL, __ATOMIC_ACQ_REL) == call)
				return -ETIMEDOUT;
			running = 1; /* the thread has taken it: wait until it returns */
		}
		nanosleep(&pause, NULL);
		waited_us += 50;
	}
	return 0;
}

/* Runs call->fn on the interrupt thread and waits for it: 0, -ETIMEDOUT if the thread did not
 * start it within timeout_ms (then it never will), or the error of setting the wake-up up. */
static int call_on_intr_thread(struct intr_call *call, unsigned int timeout_ms)
{
	const uint64_t one = 1;
	int rc;

	if (rte_thread_is_intr()) {
		call->fn(call);
		return 0;
	}
	pthread_mutex_lock(&calls_lock);
	rc = register_wake();
	if (rc == 0) {
		__atomic_store_n(&pending, call, __ATOMIC_RELEASE);
		if (write(rte_intr_fd_get(wake), &one, sizeof(one)) < 0) {
			rc = -errno;
			__atomic_store_n(&pending, NULL, __ATOMIC_RELEASE);
		} else {
			rc = await_call(call, timeout_ms);
		}
	}
	pthread_mutex_unlock(&calls_lock);
	return rc;
}

static void stop_port(struct intr_call *call)
{
	call->rc = rte_eth_dev_stop(call->port);
}

static void nothing(struct intr_call *call)
{
	(void)call;
}

/*
 * rte_eth_dev_stop(port) run on EAL's interrupt thread; waits for it and returns its result.
 * Returns -ETIMEDOUT, and has not stopped the port, if the thread did not start it within
 * timeout_ms (a wedged interrupt thread, or a call made from that thread itself); the error of
 * setting the wake-up up.
 */
int srdnic_eth_dev_stop_on_intr_thread(uint16_t port, unsigned int timeout_ms)
{
	struct intr_call call = { .fn = stop_port, .port = port };
	int rc = call_on_intr_thread(&call, timeout_ms);

	return rc < 0 ? rc : call.rc;
}

/*
 * Returns once EAL's interrupt thread has done everything asked of it before this call, and sits
 * in epoll_wait: 0, or -ETIMEDOUT / the error of setting the wake-up up. Two calls in a row: a
 * callback (un)registered before the first makes the thread rebuild its wait list, reading every
 * handle, after the batch of events the first call came in at the latest, so before the second runs.
 */
int srdnic_intr_thread_barrier(unsigned int timeout_ms)
{
	for (int i = 0; i < 2; i++) {
		struct intr_call call = { .fn = nothing };
		int rc = call_on_intr_thread(&call, timeout_ms);

		if (rc < 0)
			return rc;
	}
	return 0;
}
