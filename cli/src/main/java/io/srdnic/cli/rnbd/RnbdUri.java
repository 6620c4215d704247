package io.srdnic.cli.rnbd;

import io.srdnic.rnbd.protocol.Rnbd;

/**
 * {@code rnbd://SERVER/PATH[?mode=ro|rw|migration]} as the text after {@code rnbd:}: the server's
 * IPv4 address on the links, the device's name on the server, the access wanted (default rw).
 */
record RnbdUri(int serverIp, String device, int accessMode) {
    static RnbdUri parse(String argument) {
        if (!argument.startsWith("//")) {
            throw new IllegalArgumentException("rnbd export: expected rnbd://SERVER/PATH, got rnbd:" + argument);
        }
        String rest = argument.substring(2);
        int mode = Rnbd.ACCESS_RW;
        int q = rest.indexOf('?');
        if (q >= 0) {
            String query = rest.substring(q + 1);
            rest = rest.substring(0, q);
            mode = switch (query) {
                case "mode=ro" -> Rnbd.ACCESS_RO;
                case "mode=rw" -> Rnbd.ACCESS_RW;
                case "mode=migration" -> Rnbd.ACCESS_MIGRATION;
                default -> throw new IllegalArgumentException("rnbd export: unknown query '" + query + "' (mode=ro|rw|migration)");
            };
        }
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw new IllegalArgumentException("rnbd export: expected rnbd://SERVER/PATH, got rnbd:" + argument);
        }
        return new RnbdUri(Ipv4.parse(rest.substring(0, slash)), rest.substring(slash + 1), mode);
    }
}
