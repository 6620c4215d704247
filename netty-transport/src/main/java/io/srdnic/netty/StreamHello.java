package io.srdnic.netty;

/**
 * The private data each side's CM message carries (the REQ's and the REP's): which protocol this
 * is, how many receives the sender posted and how large they are (the peer's first credits and its
 * largest message), and the requester's port for the listener's {@code remoteAddress()}.
 * <pre>
 *  0  'S' 'N' version(1) 0
 *  4  receives (u16)   port (u16)
 *  8  receive size (u32)
 * </pre>
 */
final class StreamHello {
    static final int LENGTH = 12;
    static final int VERSION = 1;

    final int receives;
    final int receiveSize;
    final int port;

    private StreamHello(int receives, int receiveSize, int port) {
        this.receives = receives;
        this.receiveSize = receiveSize;
        this.port = port;
    }

    static byte[] encode(int receives, int receiveSize, int port) {
        byte[] b = new byte[LENGTH];
        b[0] = 'S';
        b[1] = 'N';
        b[2] = VERSION;
        b[4] = (byte) (receives >>> 8);
        b[5] = (byte) receives;
        b[6] = (byte) (port >>> 8);
        b[7] = (byte) port;
        for (int i = 0; i < 4; i++) {
            b[8 + i] = (byte) (receiveSize >>> (24 - 8 * i));
        }
        return b;
    }

    /** The hello in {@code data}, or an exception naming what is wrong (not a srdnic stream, an unknown version, no receives). */
    static StreamHello decode(byte[] data, int length) {
        if (length < LENGTH || data[0] != 'S' || data[1] != 'N') {
            throw new IllegalArgumentException("the peer is not a srdnic Netty channel: its CM private data has no stream hello ("
                + length + " bytes)");
        }
        if (data[2] != VERSION) {
            throw new IllegalArgumentException("the peer speaks stream version " + data[2] + ", this side " + VERSION);
        }
        int receives = (data[4] & 0xFF) << 8 | data[5] & 0xFF;
        int port = (data[6] & 0xFF) << 8 | data[7] & 0xFF;
        int size = 0;
        for (int i = 0; i < 4; i++) {
            size = size << 8 | data[8 + i] & 0xFF;
        }
        if (receives < 2 || size < 1) {
            throw new IllegalArgumentException("the peer posted " + receives + " receives of " + size + " bytes: a stream needs at least"
                + " 2 receives (one is kept for grants)");
        }
        return new StreamHello(receives, size, port);
    }
}
