package io.srdnic.cli.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.nbd.Nbd;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An NBD client over a unix socket, written from proto.md, for what the real tools never do: stop
 * reading replies, leave in the middle of a payload, send maximum-size writes on many connections
 * at once. Fixed newstyle, NBD_OPT_GO, simple replies.
 */
final class MisbehavingClient implements AutoCloseable {
    final SocketChannel channel;
    final DataInputStream in;

    private MisbehavingClient(SocketChannel channel) {
        this.channel = channel;
        this.in = new DataInputStream(Channels.newInputStream(channel));
    }

    /** Connects and negotiates export {@code name}; the connection is in transmission when this returns. */
    static MisbehavingClient open(Path socket, String name) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        c.connect(UnixDomainSocketAddress.of(socket));
        MisbehavingClient client = new MisbehavingClient(c);
        DataInputStream in = client.in;
        assertEquals(Nbd.NBDMAGIC, in.readLong());
        assertEquals(Nbd.IHAVEOPT, in.readLong());
        in.readUnsignedShort();
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer go = ByteBuffer.allocate(4 + 8 + 4 + 4 + 4 + n.length + 2)
            .putInt(Nbd.FLAG_C_FIXED_NEWSTYLE | Nbd.FLAG_C_NO_ZEROES)
            .putLong(Nbd.IHAVEOPT).putInt(Nbd.OPT_GO).putInt(4 + n.length + 2).putInt(n.length).put(n).putShort((short) 0);
        client.send(go.flip());
        while (true) {
            assertEquals(Nbd.OPTION_REPLY_MAGIC, in.readLong(), "option reply");
            in.readInt();
            int type = in.readInt();
            in.skipNBytes(in.readInt());
            if (type == Nbd.REP_ACK) {
                return client;
            }
            assertEquals(Nbd.REP_INFO, type, "reply to GO");
        }
    }

    /** A request header, to be sent with {@link #send}. */
    static ByteBuffer header(ByteBuffer into, int type, long handle, long offset, int length) {
        return into.putInt(Nbd.REQUEST_MAGIC).putShort((short) 0).putShort((short) type).putLong(handle).putLong(offset).putInt(length);
    }

    void send(ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    /** Reads a simple reply (and {@code dataLength} bytes of data when it succeeded); returns its error. */
    int reply(long expectedHandle, int dataLength) throws IOException {
        assertEquals(Nbd.SIMPLE_REPLY_MAGIC, in.readInt(), "simple reply magic");
        int error = in.readInt();
        assertEquals(expectedHandle, in.readLong(), "handle");
        if (error == 0) {
            in.skipNBytes(dataLength);
        }
        return error;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
