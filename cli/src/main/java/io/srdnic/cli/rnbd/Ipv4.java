package io.srdnic.cli.rnbd;

/** Dotted IPv4 text to the int the verbs facade takes, and back. */
final class Ipv4 {
    private Ipv4() {
    }

    static int parse(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address: " + text);
        }
        int ip = 0;
        for (String p : parts) {
            int v;
            try {
                v = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not an IPv4 address: " + text);
            }
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException("not an IPv4 address: " + text);
            }
            ip = ip << 8 | v;
        }
        return ip;
    }
}
