/*
 * Prints "name value" for every struct size, field offset and constant the Java bindings hard-code.
 * LayoutProbeTest compiles this against the installed headers and compares line by line.
 */
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#define SIZE(s) printf(#s ".SIZE %zu\n", sizeof(struct s))
#define OFF(s, jf, cf) printf(#s "." #jf " %zu\n", offsetof(struct s, cf))
#define CONST(c) printf(#c " %llu\n", (unsigned long long)(c))

static unsigned link_bit(int which)
{
	struct rte_eth_link l;
	uint16_t bits;
	memset(&l, 0, sizeof(l));
	if (which == 0) l.link_duplex = 1;
	if (which == 1) l.link_autoneg = 1;
	if (which == 2) l.link_status = 1;
	memcpy(&bits, (char *)&l + 4, sizeof(bits));
	return bits;
}

int main(void)
{
	SIZE(rte_mbuf);
	OFF(rte_mbuf, buf_addr, buf_addr);
	OFF(rte_mbuf, data_off, data_off);
	OFF(rte_mbuf, refcnt, refcnt);
	OFF(rte_mbuf, nb_segs, nb_segs);
	OFF(rte_mbuf, port, port);
	OFF(rte_mbuf, ol_flags, ol_flags);
	OFF(rte_mbuf, packet_type, packet_type);
	OFF(rte_mbuf, pkt_len, pkt_len);
	OFF(rte_mbuf, data_len, data_len);
	OFF(rte_mbuf, vlan_tci, vlan_tci);
	OFF(rte_mbuf, hash_rss, hash.rss);
	OFF(rte_mbuf, buf_len, buf_len);
	OFF(rte_mbuf, pool, pool);
	OFF(rte_mbuf, next, next);
	OFF(rte_mbuf, priv_size, priv_size);
	OFF(rte_mbuf, buf_iova, buf_iova);
	OFF(rte_mbuf, shinfo, shinfo);
	OFF(rte_mbuf, tx_offload, tx_offload);
	SIZE(rte_mbuf_ext_shared_info);
	OFF(rte_mbuf_ext_shared_info, free_cb, free_cb);
	OFF(rte_mbuf_ext_shared_info, fcb_opaque, fcb_opaque);
	OFF(rte_mbuf_ext_shared_info, refcnt, refcnt);
	CONST(RTE_MBUF_F_EXTERNAL);
	CONST(RTE_PKTMBUF_HEADROOM);
	CONST(RTE_MBUF_F_RX_RSS_HASH);
	CONST(RTE_MBUF_F_RX_IP_CKSUM_BAD);
	CONST(RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	CONST(RTE_MBUF_F_RX_L4_CKSUM_BAD);
	CONST(RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	CONST(RTE_MBUF_F_TX_IPV4);
	CONST(RTE_MBUF_F_TX_IP_CKSUM);
	CONST(RTE_MBUF_F_TX_UDP_CKSUM);

	SIZE(rte_eth_conf);
	OFF(rte_eth_conf, rxmode_mq_mode, rxmode.mq_mode);
	OFF(rte_eth_conf, rxmode_mtu, rxmode.mtu);
	OFF(rte_eth_conf, rxmode_offloads, rxmode.offloads);
	OFF(rte_eth_conf, txmode_mq_mode, txmode.mq_mode);
	OFF(rte_eth_conf, txmode_offloads, txmode.offloads);
	OFF(rte_eth_conf, rss_key, rx_adv_conf.rss_conf.rss_key);
	OFF(rte_eth_conf, rss_key_len, rx_adv_conf.rss_conf.rss_key_len);
	OFF(rte_eth_conf, rss_hf, rx_adv_conf.rss_conf.rss_hf);

	SIZE(rte_eth_dev_info);
	OFF(rte_eth_dev_info, driver_name, driver_name);
	OFF(rte_eth_dev_info, if_index, if_index);
	OFF(rte_eth_dev_info, min_mtu, min_mtu);
	OFF(rte_eth_dev_info, max_mtu, max_mtu);
	OFF(rte_eth_dev_info, min_rx_bufsize, min_rx_bufsize);
	OFF(rte_eth_dev_info, max_rx_pktlen, max_rx_pktlen);
	OFF(rte_eth_dev_info, max_rx_queues, max_rx_queues);
	OFF(rte_eth_dev_info, max_tx_queues, max_tx_queues);
	OFF(rte_eth_dev_info, rx_offload_capa, rx_offload_capa);
	OFF(rte_eth_dev_info, tx_offload_capa, tx_offload_capa);
	OFF(rte_eth_dev_info, reta_size, reta_size);
	OFF(rte_eth_dev_info, hash_key_size, hash_key_size);
	OFF(rte_eth_dev_info, flow_type_rss_offloads, flow_type_rss_offloads);
	OFF(rte_eth_dev_info, nb_rx_queues, nb_rx_queues);
	OFF(rte_eth_dev_info, nb_tx_queues, nb_tx_queues);

	SIZE(rte_eth_stats);
	OFF(rte_eth_stats, ipackets, ipackets);
	OFF(rte_eth_stats, opackets, opackets);
	OFF(rte_eth_stats, ibytes, ibytes);
	OFF(rte_eth_stats, obytes, obytes);
	OFF(rte_eth_stats, imissed, imissed);
	OFF(rte_eth_stats, ierrors, ierrors);
	OFF(rte_eth_stats, oerrors, oerrors);
	OFF(rte_eth_stats, rx_nombuf, rx_nombuf);

	SIZE(rte_eth_link);
	OFF(rte_eth_link, link_speed, link_speed);
	printf("rte_eth_link.link_bits 4\n"); /* bit-fields follow link_speed; checked bit by bit below */
	printf("RTE_ETH_LINK_DUPLEX_BIT %u\n", link_bit(0));
	printf("RTE_ETH_LINK_AUTONEG_BIT %u\n", link_bit(1));
	printf("RTE_ETH_LINK_STATUS_BIT %u\n", link_bit(2));

	SIZE(rte_eth_xstat);
	OFF(rte_eth_xstat, id, id);
	OFF(rte_eth_xstat, value, value);
	printf("rte_eth_xstat_name.SIZE %zu\n", sizeof(struct rte_eth_xstat_name));

	SIZE(rte_eth_fp_ops);
	OFF(rte_eth_fp_ops, rx_pkt_burst, rx_pkt_burst);
	OFF(rte_eth_fp_ops, rxq_data, rxq.data);
	OFF(rte_eth_fp_ops, tx_pkt_burst, tx_pkt_burst);
	OFF(rte_eth_fp_ops, txq_data, txq.data);

	CONST(RTE_MAX_ETHPORTS);
	CONST(RTE_ETH_NAME_MAX_LEN);
	CONST(RTE_ETH_MQ_RX_NONE);
	CONST(RTE_ETH_MQ_RX_RSS);
	CONST(RTE_ETH_RSS_IP);
	CONST(RTE_ETH_RSS_UDP);
	CONST(RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	CONST(RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
	CONST(RTE_ETHER_ADDR_LEN);
	CONST(RING_F_SP_ENQ);
	CONST(RING_F_SC_DEQ);
	return 0;
}
