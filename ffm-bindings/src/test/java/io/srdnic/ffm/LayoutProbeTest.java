package io.srdnic.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles src/test/c/layout_probe.c against the installed DPDK headers and fails if any size,
 * offset or constant the Java bindings use differs from what the C compiler says.
 */
class LayoutProbeTest {

    static Map<String, Long> javaSide() {
        Map<String, Long> m = new TreeMap<>();
        m.put("rte_mbuf.SIZE", rte_mbuf.SIZE);
        m.put("rte_mbuf.buf_addr", rte_mbuf.BUF_ADDR_OFFSET);
        m.put("rte_mbuf.data_off", rte_mbuf.DATA_OFF_OFFSET);
        m.put("rte_mbuf.refcnt", rte_mbuf.REFCNT_OFFSET);
        m.put("rte_mbuf.nb_segs", rte_mbuf.NB_SEGS_OFFSET);
        m.put("rte_mbuf.port", rte_mbuf.PORT_OFFSET);
        m.put("rte_mbuf.ol_flags", rte_mbuf.OL_FLAGS_OFFSET);
        m.put("rte_mbuf.packet_type", rte_mbuf.PACKET_TYPE_OFFSET);
        m.put("rte_mbuf.pkt_len", rte_mbuf.PKT_LEN_OFFSET);
        m.put("rte_mbuf.data_len", rte_mbuf.DATA_LEN_OFFSET);
        m.put("rte_mbuf.vlan_tci", rte_mbuf.VLAN_TCI_OFFSET);
        m.put("rte_mbuf.hash_rss", rte_mbuf.HASH_RSS_OFFSET);
        m.put("rte_mbuf.buf_len", rte_mbuf.BUF_LEN_OFFSET);
        m.put("rte_mbuf.pool", rte_mbuf.POOL_OFFSET);
        m.put("rte_mbuf.next", rte_mbuf.NEXT_OFFSET);
        m.put("rte_mbuf.priv_size", rte_mbuf.PRIV_SIZE_OFFSET);
        m.put("rte_mbuf.buf_iova", rte_mbuf.BUF_IOVA_OFFSET);
        m.put("rte_mbuf.shinfo", rte_mbuf.SHINFO_OFFSET);
        m.put("rte_mbuf.tx_offload", rte_mbuf.TX_OFFLOAD_OFFSET);
        m.put("rte_mbuf_ext_shared_info.SIZE", rte_mbuf.EXT_SHARED_INFO_SIZE);
        m.put("rte_mbuf_ext_shared_info.free_cb", rte_mbuf.EXT_FREE_CB_OFFSET);
        m.put("rte_mbuf_ext_shared_info.fcb_opaque", rte_mbuf.EXT_FCB_OPAQUE_OFFSET);
        m.put("rte_mbuf_ext_shared_info.refcnt", rte_mbuf.EXT_REFCNT_OFFSET);
        m.put("RTE_MBUF_F_EXTERNAL", rte_mbuf.RTE_MBUF_F_EXTERNAL);
        m.put("RTE_PKTMBUF_HEADROOM", (long) rte_mbuf.RTE_PKTMBUF_HEADROOM);
        m.put("RTE_MBUF_F_RX_RSS_HASH", rte_mbuf.RTE_MBUF_F_RX_RSS_HASH);
        m.put("RTE_MBUF_F_RX_IP_CKSUM_BAD", rte_mbuf.RTE_MBUF_F_RX_IP_CKSUM_BAD);
        m.put("RTE_MBUF_F_RX_IP_CKSUM_GOOD", rte_mbuf.RTE_MBUF_F_RX_IP_CKSUM_GOOD);
        m.put("RTE_MBUF_F_RX_L4_CKSUM_BAD", rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_BAD);
        m.put("RTE_MBUF_F_RX_L4_CKSUM_GOOD", rte_mbuf.RTE_MBUF_F_RX_L4_CKSUM_GOOD);
        m.put("RTE_MBUF_F_TX_IPV4", rte_mbuf.RTE_MBUF_F_TX_IPV4);
        m.put("RTE_MBUF_F_TX_IP_CKSUM", rte_mbuf.RTE_MBUF_F_TX_IP_CKSUM);
        m.put("RTE_MBUF_F_TX_UDP_CKSUM", rte_mbuf.RTE_MBUF_F_TX_UDP_CKSUM);

        m.put("rte_eth_conf.SIZE", rte_eth_conf.SIZE);
        m.put("rte_eth_conf.rxmode_mq_mode", rte_eth_conf.RXMODE_MQ_MODE_OFFSET);
        m.put("rte_eth_conf.rxmode_mtu", rte_eth_conf.RXMODE_MTU_OFFSET);
        m.put("rte_eth_conf.rxmode_offloads", rte_eth_conf.RXMODE_OFFLOADS_OFFSET);
        m.put("rte_eth_conf.txmode_mq_mode", rte_eth_conf.TXMODE_MQ_MODE_OFFSET);
        m.put("rte_eth_conf.txmode_offloads", rte_eth_conf.TXMODE_OFFLOADS_OFFSET);
        m.put("rte_eth_conf.rss_key", rte_eth_conf.RSS_KEY_OFFSET);
        m.put("rte_eth_conf.rss_key_len", rte_eth_conf.RSS_KEY_LEN_OFFSET);
        m.put("rte_eth_conf.rss_hf", rte_eth_conf.RSS_HF_OFFSET);

        m.put("rte_eth_dev_info.SIZE", rte_eth_dev_info.SIZE);
        m.put("rte_eth_dev_info.driver_name", rte_eth_dev_info.DRIVER_NAME_OFFSET);
        m.put("rte_eth_dev_info.if_index", rte_eth_dev_info.IF_INDEX_OFFSET);
        m.put("rte_eth_dev_info.min_mtu", rte_eth_dev_info.MIN_MTU_OFFSET);
        m.put("rte_eth_dev_info.max_mtu", rte_eth_dev_info.MAX_MTU_OFFSET);
        m.put("rte_eth_dev_info.min_rx_bufsize", rte_eth_dev_info.MIN_RX_BUFSIZE_OFFSET);
        m.put("rte_eth_dev_info.max_rx_pktlen", rte_eth_dev_info.MAX_RX_PKTLEN_OFFSET);
        m.put("rte_eth_dev_info.max_rx_queues", rte_eth_dev_info.MAX_RX_QUEUES_OFFSET);
        m.put("rte_eth_dev_info.max_tx_queues", rte_eth_dev_info.MAX_TX_QUEUES_OFFSET);
        m.put("rte_eth_dev_info.rx_offload_capa", rte_eth_dev_info.RX_OFFLOAD_CAPA_OFFSET);
        m.put("rte_eth_dev_info.tx_offload_capa", rte_eth_dev_info.TX_OFFLOAD_CAPA_OFFSET);
        m.put("rte_eth_dev_info.reta_size", rte_eth_dev_info.RETA_SIZE_OFFSET);
        m.put("rte_eth_dev_info.hash_key_size", rte_eth_dev_info.HASH_KEY_SIZE_OFFSET);
        m.put("rte_eth_dev_info.flow_type_rss_offloads", rte_eth_dev_info.FLOW_TYPE_RSS_OFFLOADS_OFFSET);
        m.put("rte_eth_dev_info.nb_rx_queues", rte_eth_dev_info.NB_RX_QUEUES_OFFSET);
        m.put("rte_eth_dev_info.nb_tx_queues", rte_eth_dev_info.NB_TX_QUEUES_OFFSET);

        m.put("rte_eth_stats.SIZE", rte_eth_stats.SIZE);
        m.put("rte_eth_stats.ipackets", rte_eth_stats.IPACKETS_OFFSET);
        m.put("rte_eth_stats.opackets", rte_eth_stats.OPACKETS_OFFSET);
        m.put("rte_eth_stats.ibytes", rte_eth_stats.IBYTES_OFFSET);
        m.put("rte_eth_stats.obytes", rte_eth_stats.OBYTES_OFFSET);
        m.put("rte_eth_stats.imissed", rte_eth_stats.IMISSED_OFFSET);
        m.put("rte_eth_stats.ierrors", rte_eth_stats.IERRORS_OFFSET);
        m.put("rte_eth_stats.oerrors", rte_eth_stats.OERRORS_OFFSET);
        m.put("rte_eth_stats.rx_nombuf", rte_eth_stats.RX_NOMBUF_OFFSET);

        m.put("rte_eth_link.SIZE", rte_eth_link.SIZE);
        m.put("rte_eth_link.link_speed", rte_eth_link.LINK_SPEED_OFFSET);
        m.put("rte_eth_link.link_bits", rte_eth_link.LINK_BITS_OFFSET);
        m.put("RTE_ETH_LINK_DUPLEX_BIT", (long) rte_eth_link.LINK_DUPLEX_BIT);
        m.put("RTE_ETH_LINK_AUTONEG_BIT", (long) rte_eth_link.LINK_AUTONEG_BIT);
        m.put("RTE_ETH_LINK_STATUS_BIT", (long) rte_eth_link.LINK_STATUS_BIT);

        m.put("rte_eth_xstat.SIZE", rte_eth_xstat.SIZE);
        m.put("rte_eth_xstat.id", rte_eth_xstat.ID_OFFSET);
        m.put("rte_eth_xstat.value", rte_eth_xstat.VALUE_OFFSET);
        m.put("rte_eth_xstat_name.SIZE", rte_eth_xstat.NAME_SIZE);

        m.put("rte_eth_fp_ops.SIZE", rte_eth_fp_ops.SIZE);
        m.put("rte_eth_fp_ops.rx_pkt_burst", rte_eth_fp_ops.RX_PKT_BURST_OFFSET);
        m.put("rte_eth_fp_ops.rxq_data", rte_eth_fp_ops.RXQ_DATA_OFFSET);
        m.put("rte_eth_fp_ops.tx_pkt_burst", rte_eth_fp_ops.TX_PKT_BURST_OFFSET);
        m.put("rte_eth_fp_ops.txq_data", rte_eth_fp_ops.TXQ_DATA_OFFSET);

        m.put("RTE_MAX_ETHPORTS", (long) rte_ethdev_h.RTE_MAX_ETHPORTS);
        m.put("RTE_ETH_NAME_MAX_LEN", (long) rte_ethdev_h.RTE_ETH_NAME_MAX_LEN);
        m.put("RTE_ETH_MQ_RX_NONE", (long) rte_ethdev_h.RTE_ETH_MQ_RX_NONE);
        m.put("RTE_ETH_MQ_RX_RSS", (long) rte_ethdev_h.RTE_ETH_MQ_RX_RSS);
        m.put("RTE_ETH_RSS_IP", rte_ethdev_h.RTE_ETH_RSS_IP);
        m.put("RTE_ETH_RSS_UDP", rte_ethdev_h.RTE_ETH_RSS_UDP);
        m.put("RTE_ETH_TX_OFFLOAD_UDP_CKSUM", rte_ethdev_h.RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
        m.put("RTE_ETH_RX_OFFLOAD_UDP_CKSUM", rte_ethdev_h.RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
        m.put("RTE_ETHER_ADDR_LEN", (long) rte_ethdev_h.RTE_ETHER_ADDR_LEN);
        m.put("RING_F_SP_ENQ", (long) rte_ring_h.RING_F_SP_ENQ);
        m.put("RING_F_SC_DEQ", (long) rte_ring_h.RING_F_SC_DEQ);
        return m;
    }

    static Map<String, Long> cSide(Path work) throws IOException, InterruptedException {
        Path exe = work.resolve("layout_probe");
        String cflags = run(List.of("pkg-config", "--cflags", "libdpdk")).trim();
        List<String> gcc = new ArrayList<>(List.of("gcc", "-o", exe.toString(), "src/test/c/layout_probe.c"));
        gcc.addAll(List.of(cflags.split("\\s+")));
        run(gcc);
        Map<String, Long> m = new TreeMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            String[] kv = line.trim().split(" ");
            m.put(kv[0], Long.parseUnsignedLong(kv[1]));
        }
        return m;
    }

    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + rc + ":\n" + out);
        }
        return out;
    }

    @Test
    void shouldMatchEveryLayoutValueOfTheInstalledHeaders(@TempDir Path work) throws Exception {
        Map<String, Long> c = cSide(work);
        Map<String, Long> java = javaSide();
        assertTrue(c.size() > 80, "probe printed too little: " + c);
        assertEquals(c.keySet(), java.keySet(), "the probe and the Java bindings must list the same names");
        List<String> mismatches = new ArrayList<>();
        c.forEach((name, value) -> {
            if (!value.equals(java.get(name))) {
                mismatches.add(name + ": C " + value + ", Java " + java.get(name));
            }
        });
        assertEquals(List.of(), mismatches);
    }

    @Test
    void shouldPadStructLayoutsToTheirCSize() {
        assertEquals(128, rte_mbuf.LAYOUT.byteSize());
        assertEquals(2272, rte_eth_conf.LAYOUT.byteSize());
        assertEquals(376, rte_eth_dev_info.LAYOUT.byteSize());
    }
}
