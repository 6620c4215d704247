package io.srdnic.ffm;

import static io.srdnic.ffm.Structs.field;
import static io.srdnic.ffm.Structs.offset;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.StructLayout;

/** {@code struct rte_eth_xstat}: one extended statistic's id and value. */
public final class rte_eth_xstat {
    private rte_eth_xstat() {
    }

    public static final StructLayout LAYOUT = Structs.struct("rte_eth_xstat", 16,
        field(0, JAVA_LONG, "id"),
        field(8, JAVA_LONG, "value"));

    public static final long SIZE = LAYOUT.byteSize();
    public static final long ID_OFFSET = offset(LAYOUT, "id");
    public static final long VALUE_OFFSET = offset(LAYOUT, "value");

    /** {@code struct rte_eth_xstat_name}: a NUL-terminated name of RTE_ETH_XSTATS_NAME_SIZE bytes. */
    public static final long NAME_SIZE = 64;
}
