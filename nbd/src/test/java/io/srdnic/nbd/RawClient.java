package io.srdnic.nbd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * An NBD client written from proto.md for the tests, byte by byte, with no checks of its own:
 * the tests decide what is right.
 */
final class RawClient implements AutoCloseable {
    record OptionReply(int option, int type, byte[] data) {
        String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /** A simple reply, or one structured chunk (flags, type and payload; error from an error chunk). */
    record Reply(boolean structured, int flags, int type, long handle, int error, byte[] payload) {
    }

    final SocketChannel channel;
    final DataInputStream in;
    final DataOutputStream out;
    int handshakeFlags;

    RawClient(SocketAddress address) throws IOException {
        channel = address instanceof UnixDomainSocketAddress ? SocketChannel.open(StandardProtocolFamily.UNIX) : SocketChannel.open();
        channel.connect(address);
        in = new DataInputStream(Channels.newInputStream(channel));
        out = new DataOutputStream(Channels.newOutputStream(channel));
    }

    /** Reads the greeting and checks its magics; remembers the handshake flags. */
    RawClient greeting() throws IOException {
        assertEquals(Nbd.NBDMAGIC, in.readLong(), "NBDMAGIC");
        assertEquals(Nbd.IHAVEOPT, in.readLong(), "IHAVEOPT");
        handshakeFlags = in.readUnsignedShort();
        return this;
    }

    RawClient clientFlags(int flags) throws IOException {
        out.writeInt(flags);
        out.flush();
        return this;
    }

    /** Greeting and fixed-newstyle client flags with no-zeroes. */
    static RawClient connect(SocketAddress address) throws IOException {
        return new RawClient(address).greeting().clientFlags(Nbd.FLAG_C_FIXED_NEWSTYLE | Nbd.FLAG_C_NO_ZEROES);
    }

    void option(int option, byte[] data) throws IOException {
        out.writeLong(Nbd.IHAVEOPT);
        out.writeInt(option);
        out.writeInt(data.length);
        out.write(data);
        out.flush();
    }

    OptionReply optionReply() throws IOException {
        assertEquals(Nbd.OPTION_REPLY_MAGIC, in.readLong(), "option reply magic");
        int option = in.readInt();
        int type = in.readInt();
        byte[] data = new byte[in.readInt()];
        in.readFully(data);
        return new OptionReply(option, type, data);
    }

    /** NBD_OPT_INFO / NBD_OPT_GO data: name, count, info types. */
    static byte[] infoData(String name, int... infos) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + n.length + 2 + 2 * infos.length).putInt(n.length).put(n).putShort((short) infos.length);
        for (int i : infos) {
            b.putShort((short) i);
        }
        return b.array();
    }

    /** NBD_OPT_STRUCTURED_REPLY (if asked) then NBD_OPT_GO, replies read up to the ACK; returns the transmission flags. */
    int go(String name, boolean structured) throws IOException {
        if (structured) {
            option(Nbd.OPT_STRUCTURED_REPLY, new byte[0]);
            assertEquals(Nbd.REP_ACK, optionReply().type());
        }
        option(Nbd.OPT_GO, infoData(name));
        int flags = -1;
        while (true) {
            OptionReply r = optionReply();
            if (r.type() == Nbd.REP_ACK) {
                return flags;
            }
            assertEquals(Nbd.REP_INFO, r.type(), () -> "reply to GO: " + Integer.toHexString(r.type()) + " " + r.text());
            ByteBuffer d = ByteBuffer.wrap(r.data());
            if (d.getShort() == Nbd.INFO_EXPORT) {
                d.getLong();
                flags = d.getShort() & 0xFFFF;
            }
        }
    }

    void request(int flags, int type, long handle, long offset, long length, byte[] payload) throws IOException {
        out.writeInt(Nbd.REQUEST_MAGIC);
        out.writeShort(flags);
        out.writeShort(type);
        out.writeLong(handle);
        out.writeLong(offset);
        out.writeInt((int) length);
        if (payload != null) {
            out.write(payload);
        }
        out.flush();
    }

    /** Reads one reply: a simple reply with {@code dataLength} bytes of data if it succeeded, or one structured chunk. */
    Reply reply(int dataLength) throws IOException {
        int magic = in.readInt();
        if (magic == Nbd.SIMPLE_REPLY_MAGIC) {
            int error = in.readInt();
            long handle = in.readLong();
            byte[] data = new byte[error == 0 ? dataLength : 0];
            in.readFully(data);
            return new Reply(false, 0, 0, handle, error, data);
        }
        assertEquals(Nbd.STRUCTURED_REPLY_MAGIC, magic, "reply magic");
        int flags = in.readUnsignedShort();
        int type = in.readUnsignedShort();
        long handle = in.readLong();
        byte[] payload = new byte[in.readInt()];
        in.readFully(payload);
        int error = (type & 0x8000) != 0 ? ByteBuffer.wrap(payload).getInt() : 0;
        return new Reply(true, flags, type, handle, error, payload);
    }

    /** True if the server has closed the connection (the next read sees the end of the stream). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (EOFException e) {
            return true;
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
