package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.StructLayout;

/** {@code struct rte_eth_stats} (rte_ethdev.h): the port totals; per-queue arrays are not read. */
public final class rte_eth_stats {
    private rte_eth_stats() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_eth_stats", 704,
        field(0, JAVA_LONG, "ipackets"),
        field(8, JAVA_LONG, "opackets"),
        field(16, JAVA_LONG, "ibytes"),
        field(24, JAVA_LONG, "obytes"),
        field(32, JAVA_LONG, "imissed"),
        field(40, JAVA_LONG, "ierrors"),
        field(48, JAVA_LONG, "oerrors"),
        field(56, JAVA_LONG, "rx_nombuf"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long IPACKETS_OFFSET = offset(LAYOUT, "ipackets");
    public static final long OPACKETS_OFFSET = offset(LAYOUT, "opackets");
    public static final long IBYTES_OFFSET = offset(LAYOUT, "ibytes");
    public static final long OBYTES_OFFSET = offset(LAYOUT, "obytes");
    public static final long IMISSED_OFFSET = offset(LAYOUT, "imissed");
    public static final long IERRORS_OFFSET = offset(LAYOUT, "ierrors");
    public static final long OERRORS_OFFSET = offset(LAYOUT, "oerrors");
    public static final long RX_NOMBUF_OFFSET = offset(LAYOUT, "rx_nombuf");
}
