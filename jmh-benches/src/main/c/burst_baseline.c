/*
 * C baseline for BurstPathBench: the same two calls made from C with the inline rte_eth_rx_burst /
 * rte_eth_tx_burst, on the same set-up (net_ring0 self-looping with 32 mbufs, net_ring1 empty).
 * What Java cannot beat; the gap is FFM's cost per downcall.
 *
 *   gcc -O3 -o /tmp/burst_baseline jmh-benches/src/main/c/burst_baseline.c $(pkg-config --cflags --libs libdpdk) -Wl,--no-as-needed -lrte_net_ring
 *   /tmp/burst_baseline --no-huge -m 512 --no-pci --no-telemetry --no-shconf --file-prefix burst-baseline \
 *       --vdev net_ring0 --vdev net_ring1 -l 1 --log-level '*:error'
 */
#include <stdio.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0)
		return 1;
	char runtime_dir[PATH_MAX];
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	struct rte_mempool *mp = rte_pktmbuf_pool_create("baseline", 8192, 256, 0, 2176, 0);
	struct rte_eth_conf conf = {0};
	for (uint16_t p = 0; p < 2; p++) {
		if (rte_eth_dev_configure(p, 1, 1, &conf) < 0 || rte_eth_rx_queue_setup(p, 0, 512, 0, NULL, mp) < 0
		    || rte_eth_tx_queue_setup(p, 0, 512, 0, NULL) < 0 || rte_eth_dev_start(p) < 0) {
			fprintf(stderr, "port %u set-up failed: pass --vdev net_ring0 --vdev net_ring1\n", p);
			return 1;
		}
	}
	struct rte_mbuf *pkts[32];
	if (mp == NULL || rte_pktmbuf_alloc_bulk(mp, pkts, 32) != 0)
		return 1;
	const long n = 20000000;
	volatile unsigned sink = 0;
	for (int rep = 0; rep < 5; rep++) {
		double t = now();
		for (long i = 0; i < n; i++)
			sink += rte_eth_rx_burst(1, 0, pkts, 32);
		double rx_empty = (now() - t) * 1e9 / n;
		t = now();
		for (long i = 0; i < n / 4; i++) {
			sink += rte_eth_tx_burst(0, 0, pkts, 32);
			sink += rte_eth_rx_burst(0, 0, pkts, 32);
		}
		double tx_rx32 = (now() - t) * 1e9 / (n / 4);
		printf("rxEmpty %.2f ns/op  txRx32 %.2f ns/op\n", rx_empty, tx_rx32);
	}
	rte_pktmbuf_free_bulk(pkts, 32);
	for (uint16_t p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_mempool_free(mp);
	rte_eal_cleanup();
	rmdir(runtime_dir); /* empty with --no-shconf; EAL leaves it behind */
	return 0;
}
