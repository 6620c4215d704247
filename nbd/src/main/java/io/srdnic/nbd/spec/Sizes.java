package io.srdnic.nbd.spec;

import java.util.Locale;

/** Byte counts as people write them: 4096, 512K, 64M, 1G, 2T (binary multiples; KiB/MiB... also). */
public final class Sizes {
    private Sizes() {
    }

    public static long parse(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        if (t.endsWith("IB")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        int shift = 0;
        if (!t.isEmpty()) {
            shift = switch (t.charAt(t.length() - 1)) {
                case 'K' -> 10;
                case 'M' -> 20;
                case 'G' -> 30;
                case 'T' -> 40;
                default -> 0;
            };
        }
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        long value;
        try {
            value = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 1048576, 64M, 1G)");
        }
        if (value < 0 || value > Long.MAX_VALUE >> shift) {
            throw new IllegalArgumentException("size out of range: '" + text + "'");
        }
        return value << shift;
    }
}
