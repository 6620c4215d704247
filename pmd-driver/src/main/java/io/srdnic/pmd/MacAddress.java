package io.srdnic.pmd;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** MAC addresses as a {@code long}: 48 bits, first octet most significant. */
public final class MacAddress {
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    private MacAddress() {
    }

    /** Reads six octets at {@code offset}. */
    public static long read(MemorySegment segment, long offset) {
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = (mac << 8) | Byte.toUnsignedLong(segment.get(ValueLayout.JAVA_BYTE, offset + i));
        }
        return mac;
    }

    /** Writes six octets at {@code offset}. */
    public static void write(MemorySegment segment, long offset, long mac) {
        for (int i = 5; i >= 0; i--) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) mac);
            mac >>>= 8;
        }
    }

    public static String format(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            if (sb.length() > 0) {
                sb.append(':');
            }
            sb.append(String.format("%02x", (mac >>> shift) & 0xFF));
        }
        return sb.toString();
    }

    public static long parse(String text) {
        String[] parts = text.split("[:-]");
        if (parts.length != 6) {
            throw new IllegalArgumentException("not a MAC address (six hex octets): " + text);
        }
        long mac = 0;
        for (String p : parts) {
            int octet = Integer.parseInt(p, 16);
            if (octet < 0 || octet > 255 || p.length() > 2) {
                throw new IllegalArgumentException("not a MAC address octet: " + p + " in " + text);
            }
            mac = (mac << 8) | octet;
        }
        return mac;
    }
}
