package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.StructLayout;

/**
 * {@code struct rte_mbuf} (rte_mbuf_core.h): the fields the dataplane reads and writes.
 * Pure layout: using it loads no native library, which is what lets SimPort build mbuf-shaped
 * buffers without DPDK.
 * <pre>
 *   0 buf_addr      8 buf_iova     16 data_off  18 refcnt  20 nb_segs  22 port
 *  24 ol_flags     32 packet_type  36 pkt_len   40 data_len 42 vlan_tci 44 hash.rss
 *  54 buf_len      56 pool         64 next  ... 80 shinfo  88 priv_size ... 128 (end, then private area, headroom, data)
 * </pre>
 */
public final class rte_mbuf {
    private rte_mbuf() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_mbuf", 128,
        field(0, ADDRESS, "buf_addr"),
        field(8, JAVA_LONG, "buf_iova"),
        field(16, JAVA_SHORT, "data_off"),
        field(18, JAVA_SHORT, "refcnt"),
        field(20, JAVA_SHORT, "nb_segs"),
        field(22, JAVA_SHORT, "port"),
        field(24, JAVA_LONG, "ol_flags"),
        field(32, JAVA_INT, "packet_type"),
        field(36, JAVA_INT, "pkt_len"),
        field(40, JAVA_SHORT, "data_len"),
        field(42, JAVA_SHORT, "vlan_tci"),
        field(44, JAVA_INT, "hash_rss"),
        field(54, JAVA_SHORT, "buf_len"),
        field(56, ADDRESS, "pool"),
        field(64, ADDRESS, "next"),
        field(72, JAVA_LONG, "tx_offload"),
        field(80, ADDRESS, "shinfo"),
        field(88, JAVA_SHORT, "priv_size"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long BUF_ADDR_OFFSET = offset(LAYOUT, "buf_addr");
    public static final long DATA_OFF_OFFSET = offset(LAYOUT, "data_off");
    public static final long REFCNT_OFFSET = offset(LAYOUT, "refcnt");
    public static final long NB_SEGS_OFFSET = offset(LAYOUT, "nb_segs");
    public static final long PORT_OFFSET = offset(LAYOUT, "port");
    public static final long OL_FLAGS_OFFSET = offset(LAYOUT, "ol_flags");
    public static final long PACKET_TYPE_OFFSET = offset(LAYOUT, "packet_type");
    public static final long PKT_LEN_OFFSET = offset(LAYOUT, "pkt_len");
    public static final long DATA_LEN_OFFSET = offset(LAYOUT, "data_len");
    public static final long VLAN_TCI_OFFSET = offset(LAYOUT, "vlan_tci");
    public static final long HASH_RSS_OFFSET = offset(LAYOUT, "hash_rss");
    public static final long BUF_LEN_OFFSET = offset(LAYOUT, "buf_len");
    public static final long POOL_OFFSET = offset(LAYOUT, "pool");
    public static final long NEXT_OFFSET = offset(LAYOUT, "next");
    public static final long PRIV_SIZE_OFFSET = offset(LAYOUT, "priv_size");
    public static final long BUF_IOVA_OFFSET = offset(LAYOUT, "buf_iova");
    /** The header lengths a TX offload needs: l2_len (7 bits), l3_len (9 bits), then l4_len, tso_segsz, ... */
    public static final long TX_OFFLOAD_OFFSET = offset(LAYOUT, "tx_offload");
    /** An external buffer's {@code struct rte_mbuf_ext_shared_info *} (meaningful with {@link #RTE_MBUF_F_EXTERNAL}). */
    public static final long SHINFO_OFFSET = offset(LAYOUT, "shinfo");

    /**
     * {@code struct rte_mbuf_ext_shared_info}: {@code free_cb(buf_addr, fcb_opaque)} runs when the
     * last mbuf attached to the external buffer is freed, {@code refcnt} counting those mbufs.
     */
    public static final long EXT_SHARED_INFO_SIZE = 24;
    public static final long EXT_FREE_CB_OFFSET = 0;
    public static final long EXT_FCB_OPAQUE_OFFSET = 8;
    public static final long EXT_REFCNT_OFFSET = 16;

    /** RTE_PKTMBUF_HEADROOM as Debian builds DPDK 22.11. */
    public static final int RTE_PKTMBUF_HEADROOM = 128;

    // ol_flags bits (rte_mbuf_core.h)
    public static final long RTE_MBUF_F_RX_RSS_HASH = 1L << 1;
    public static final long RTE_MBUF_F_RX_IP_CKSUM_BAD = 1L << 4;
    public static final long RTE_MBUF_F_RX_IP_CKSUM_GOOD = 1L << 7;
    public static final long RTE_MBUF_F_RX_L4_CKSUM_BAD = 1L << 3;
    public static final long RTE_MBUF_F_RX_L4_CKSUM_GOOD = 1L << 8;
    public static final long RTE_MBUF_F_TX_IPV4 = 1L << 55;
    public static final long RTE_MBUF_F_TX_IP_CKSUM = 1L << 54;
    public static final long RTE_MBUF_F_TX_UDP_CKSUM = 3L << 52;
    /** The mbuf's data is an external buffer (rte_pktmbuf_attach_extbuf), released through its shinfo. */
    public static final long RTE_MBUF_F_EXTERNAL = 1L << 61;
}
