package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.StructLayout;

/** {@code struct rte_eth_conf} (rte_ethdev.h): receive/transmit modes and RSS; the rest stays zero. */
public final class rte_eth_conf {
    private rte_eth_conf() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_eth_conf", 2272,
        field(8, JAVA_INT, "rxmode_mq_mode"),
        field(12, JAVA_INT, "rxmode_mtu"),
        field(24, JAVA_LONG, "rxmode_offloads"),
        field(64, JAVA_INT, "txmode_mq_mode"),
        field(72, JAVA_LONG, "txmode_offloads"),
        field(128, ADDRESS, "rss_key"),
        field(136, JAVA_BYTE, "rss_key_len"),
        field(144, JAVA_LONG, "rss_hf"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long RXMODE_MQ_MODE_OFFSET = offset(LAYOUT, "rxmode_mq_mode");
    public static final long RXMODE_MTU_OFFSET = offset(LAYOUT, "rxmode_mtu");
    public static final long RXMODE_OFFLOADS_OFFSET = offset(LAYOUT, "rxmode_offloads");
    public static final long TXMODE_MQ_MODE_OFFSET = offset(LAYOUT, "txmode_mq_mode");
    public static final long TXMODE_OFFLOADS_OFFSET = offset(LAYOUT, "txmode_offloads");
    public static final long RSS_KEY_OFFSET = offset(LAYOUT, "rss_key");
    public static final long RSS_KEY_LEN_OFFSET = offset(LAYOUT, "rss_key_len");
    public static final long RSS_HF_OFFSET = offset(LAYOUT, "rss_hf");
}
