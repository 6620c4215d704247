/*
 * srdnic shim: exports DPDK's static-inline fast paths so Java can reach them through FFM.
 * Each function is one call per burst, never per packet; none blocks or calls back into Java,
 * which is what lets the Java side bind them with Linker.Option.critical(false).
 */
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

uint16_t srdnic_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(port, queue, pkts, n);
}

uint16_t srdnic_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(port, queue, pkts, n);
}

/* Sends a burst and frees what the queue did not take, so a full TX ring never leaks mbufs.
 * Returns the number sent; the caller counts n - sent as TX drops. */
uint16_t srdnic_tx_burst_or_free(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(port, queue, pkts, n);
	if (unlikely(sent < n))
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	return sent;
}

int srdnic_pktmbuf_alloc_bulk(struct rte_mempool *pool, struct rte_mbuf **mbufs, unsigned int n)
{
	return rte_pktmbuf_alloc_bulk(pool, mbufs, n);
}

void srdnic_pktmbuf_free_bulk(struct rte_mbuf **mbufs, unsigned int n)
{
	rte_pktmbuf_free_bulk(mbufs, n);
}

int srdnic_errno(void)
{
	return rte_errno;
}

unsigned int srdnic_lcore_id(void)
{
	return rte_lcore_id();
}
