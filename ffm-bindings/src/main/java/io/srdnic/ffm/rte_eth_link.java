package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.StructLayout;

/**
 * {@code struct rte_eth_link} (rte_ethdev.h): speed in Mbps, then three one-bit fields packed
 * into a uint16 (duplex bit 0, autoneg bit 1, status bit 2).
 */
public final class rte_eth_link {
    private rte_eth_link() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_eth_link", 8,
        field(0, JAVA_INT, "link_speed"),
        field(4, JAVA_SHORT, "link_bits"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long LINK_SPEED_OFFSET = offset(LAYOUT, "link_speed");
    public static final long LINK_BITS_OFFSET = offset(LAYOUT, "link_bits");
    public static final int LINK_DUPLEX_BIT = 1;
    public static final int LINK_AUTONEG_BIT = 1 << 1;
    public static final int LINK_STATUS_BIT = 1 << 2;
}
