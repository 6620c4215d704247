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

/* The free callback of an external buffer (rte_mbuf_ext_shared_info.free_cb): the transport
 * attaches a message's registered memory to an mbuf instead of copying it, and this runs when the
 * PMD frees the last mbuf that points at it. It calls nothing back in Java: it marks the word
 * fcb_opaque points at, which the transport polls once per duty cycle, and only then releases the
 * work request's hold on its memory. Release order: the PMD has finished reading the buffer before
 * the mark can be seen. */
void srdnic_extbuf_done(void *addr, void *opaque)
{
	(void)addr;
	__atomic_store_n((uint64_t *)opaque, 1, __ATOMIC_RELEASE);
}
