package io.srdnic.srd.wire;

import static io.srdnic.srd.wire.FrameLayout.SRD_OFFSET;

import io.srdnic.pmd.Mbuf;

/**
 * The extended header (32 bytes, big-endian, like InfiniBand's AtomicETH with a reserved word that
 * keeps the operands 8-byte aligned) of ATOMIC_CMP_SWAP and ATOMIC_FETCH_ADD requests, after the
 * SRD header; the SRD payload length counts it and nothing follows it. The requester's token rides
 * in the SRD header's immediate field, as a READ's does, and the answer is a READ_RESPONSE of 8
 * bytes: the value the responder found before it acted.
 * <pre>
 *   0                                                               8
 *   +---------------------------------------------------------------+
 *   | remote address: the 64-bit word acted on (8-byte aligned)     |
 *   +-------------------------------+-------------------------------+
 *   8                              12                              16
 *   | rkey                          | reserved (0)                  |
 *   +-------------------------------+-------------------------------+
 *  16                                                              24
 *   | swap (CMP_SWAP: written if the word equals compare) or        |
 *   |  add (FETCH_ADD: added to the word)                           |
 *   +---------------------------------------------------------------+
 *  24                                                              32
 *   | compare (CMP_SWAP; 0 in FETCH_ADD, where nobody reads it)     |
 *   +---------------------------------------------------------------+
 * </pre>
 * The operands are numbers on the wire; at either end they are 64-bit words in the host's byte
 * order, as verbs has them.
 */
public final class AtomicHeader {
    public static final int LENGTH = 32;
    public static final int ADDRESS_OFFSET = SrdHeader.LENGTH;
    public static final int RKEY_OFFSET = SrdHeader.LENGTH + 8;
    public static final int RESERVED_OFFSET = SrdHeader.LENGTH + 12;
    public static final int SWAP_ADD_OFFSET = SrdHeader.LENGTH + 16;
    public static final int COMPARE_OFFSET = SrdHeader.LENGTH + 24;

    private AtomicHeader() {
    }

    public static long address(Mbuf m) {
        return m.getLongBE(SRD_OFFSET + ADDRESS_OFFSET);
    }

    public static int rkey(Mbuf m) {
        return m.getIntBE(SRD_OFFSET + RKEY_OFFSET);
    }

    public static long swapOrAdd(Mbuf m) {
        return m.getLongBE(SRD_OFFSET + SWAP_ADD_OFFSET);
    }

    public static long compare(Mbuf m) {
        return m.getLongBE(SRD_OFFSET + COMPARE_OFFSET);
    }

    public static void write(Mbuf m, long address, int rkey, long swapOrAdd, long compare) {
        m.putLongBE(SRD_OFFSET + ADDRESS_OFFSET, address);
        m.putIntBE(SRD_OFFSET + RKEY_OFFSET, rkey);
        m.putIntBE(SRD_OFFSET + RESERVED_OFFSET, 0);
        m.putLongBE(SRD_OFFSET + SWAP_ADD_OFFSET, swapOrAdd);
        m.putLongBE(SRD_OFFSET + COMPARE_OFFSET, compare);
    }
}
