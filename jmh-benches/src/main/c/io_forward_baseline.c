/*
 * C floor for the io-forwarding loop: what IoForward does, written the shortest way in C (inline
 * rte_eth_rx_burst/rte_eth_tx_burst, two streams, burst 32, 64 mbufs injected first), on the same
 * set-up as scripts/bench-vs-testpmd. testpmd's io mode does more per pass (a function pointer per
 * stream, burst statistics hooks, retry logic); this is the loop with nothing else.
 * Rate: frames received on both ports (rte_eth_stats) per second, once a second; the first sample
 * is warm-up; prints each sample and median_pps=.
 *
 *   gcc -O3 -o /tmp/io_forward_baseline jmh-benches/src/main/c/io_forward_baseline.c $(pkg-config --cflags --libs libdpdk) -Wl,--no-as-needed -lrte_net_ring
 *   /tmp/io_forward_baseline --no-huge -m 512 --no-pci --no-telemetry --no-shconf --file-prefix io-forward-baseline \
 *       --vdev net_ring0 --vdev net_ring1 -l 1 --log-level '*:error'
 */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define BURST 32
#define SAMPLES 6

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rx_packets(void)
{
	struct rte_eth_stats s;
	uint64_t total = 0;
	for (uint16_t p = 0; p < 2; p++)
		if (rte_eth_stats_get(p, &s) == 0)
			total += s.ipackets;
	return total;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0)
		return 1;
	char runtime_dir[PATH_MAX];
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	struct rte_mempool *mp = rte_pktmbuf_pool_create("iofwd_pool", 8192, 256, 0, 2176, 0);
	struct rte_eth_conf conf = {0};
	for (uint16_t p = 0; p < 2; p++) {
		if (mp == NULL || rte_eth_dev_configure(p, 1, 1, &conf) < 0 || rte_eth_rx_queue_setup(p, 0, 512, 0, NULL, mp) < 0
		    || rte_eth_tx_queue_setup(p, 0, 512, 0, NULL) < 0 || rte_eth_dev_start(p) < 0) {
			fprintf(stderr, "port %u set-up failed: pass --vdev net_ring0 --vdev net_ring1\n", p);
			return 1;
		}
	}
	/* --tx-first: each stream (rx p -> tx 1-p) sends one burst of 64-byte frames on its TX port. */
	for (uint16_t p = 0; p < 2; p++) {
		struct rte_mbuf *first[BURST];
		if (rte_pktmbuf_alloc_bulk(mp, first, BURST) != 0)
			return 1;
		for (int i = 0; i < BURST; i++) {
			memset(rte_pktmbuf_mtod(first[i], void *), 0, 64);
			first[i]->data_len = 64;
			first[i]->pkt_len = 64;
		}
		if (rte_eth_tx_burst(1 - p, 0, first, BURST) != BURST)
			return 1;
	}
	struct rte_mbuf *pkts[BURST];
	double pps[SAMPLES];
	for (int s = 0; s < SAMPLES; s++) {
		uint64_t before = rx_packets();
		double start = now(), end = start + 1.0;
		while (now() < end) {
			for (int k = 0; k < 1000; k++) {
				for (uint16_t rx = 0; rx < 2; rx++) {
					uint16_t n = rte_eth_rx_burst(rx, 0, pkts, BURST);
					if (n == 0)
						continue;
					uint16_t sent = rte_eth_tx_burst(1 - rx, 0, pkts, n);
					if (sent < n)
						rte_pktmbuf_free_bulk(pkts + sent, n - sent);
				}
			}
		}
		pps[s] = (rx_packets() - before) / (now() - start);
		printf("sample %d pps=%.0f%s\n", s + 1, pps[s], s == 0 ? " warm-up" : "");
	}
	qsort(pps + 1, SAMPLES - 1, sizeof(double), cmp);
	printf("median_pps=%.0f\n", pps[1 + (SAMPLES - 1) / 2]);
	for (uint16_t p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_mempool_free(mp);
	rte_eal_cleanup();
	rmdir(runtime_dir); /* empty with --no-shconf; EAL leaves it behind */
	return 0;
}
