package io.srdnic.nbd.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.block.Errno;
import io.srdnic.block.local.MemoryBlockDevice;
import io.srdnic.nbd.Export;
import io.srdnic.nbd.Exports;
import io.srdnic.nbd.Nbd;
import io.srdnic.nbd.NbdConnection;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The server's option and request parsers, through a whole connection over bytes in memory:
 * <ul>
 * <li>any bytes, raw or after a valid handshake: no exception escapes and the connection ends
 * (closed) when the bytes do;</li>
 * <li>either way, through a channel that may read and write only a few bytes per call;</li>
 * <li>a client that follows the protocol with fuzzed options (some malformed) and fuzzed requests
 * (types, flags, offsets and lengths around the edges of a small export): every option gets its
 * replies, every request but DISC exactly one reply, in order (the memory device completes at once),
 * with its handle, the error a reference written from proto.md's "Error values" expects, and the
 * bytes a shadow copy of the export holds.</li>
 * </ul>
 */
class NbdConnectionFuzzTest {
    private static final int MAX_PAYLOAD = 32 << 20;
    private static final long[] SIZES = {0, 1, 4096, 200_000};

    @FuzzTest(maxDuration = "6s")
    void answersLikeTheSpec(FuzzedDataProvider data) {
        long size = SIZES[data.consumeInt(0, SIZES.length - 1)];
        int mode = data.consumeInt(0, 3);
        int maxRead = data.consumeBoolean() ? Integer.MAX_VALUE : data.consumeInt(1, 5000);
        int maxWrite = data.consumeBoolean() ? Integer.MAX_VALUE : data.consumeInt(1, 5000);
        if (mode == 0) {
            serve(size, data.consumeRemainingAsBytes(), maxRead, maxWrite);
        } else if (mode == 1) {
            Client c = new Client();
            c.handshake(false, "rw");
            c.raw(data.consumeRemainingAsBytes());
            serve(size, c.bytes(), maxRead, maxWrite);
        } else {
            conversation(size, data, maxRead, maxWrite);
        }
    }

    private static Exports exports(long size) {
        return new Exports(List.of(new Export("rw", new MemoryBlockDevice(size, false)),
            new Export("ro", new MemoryBlockDevice(size, true))));
    }

    private static MemoryChannel serve(long size, byte[] input, int maxRead, int maxWrite) {
        MemoryChannel channel = new MemoryChannel(input, maxRead, maxWrite);
        new NbdConnection(channel, exports(size)).run();
        assertFalse(channel.isOpen(), "the connection is closed when the client's bytes end");
        return channel;
    }

    /** One request as sent, and what the reference expects of it. */
    record Sent(int type, int flags, long handle, long offset, long length, int error, byte[] expected) {
    }

    private static void conversation(long size, FuzzedDataProvider data, int maxRead, int maxWrite) {
        boolean readOnly = data.consumeBoolean();
        Client c = new Client();
        List<Integer> options = new ArrayList<>();
        boolean structured = false;
        int count = data.consumeInt(0, 4);
        for (int i = 0; i < count; i++) {
            int kind = data.consumeInt(0, 5);
            switch (kind) {
                case 0 -> c.option(Nbd.OPT_LIST, data.consumeBoolean() ? new byte[0] : data.consumeBytes(8));
                case 1 -> {
                    byte[] d = data.consumeBoolean() ? new byte[0] : data.consumeBytes(4);
                    structured |= d.length == 0;
                    c.option(Nbd.OPT_STRUCTURED_REPLY, d);
                }
                case 2 -> c.option(Nbd.OPT_INFO, data.consumeBytes(data.consumeInt(0, 40)));
                case 3 -> c.option(Nbd.OPT_GO, data.consumeBoolean() ? Client.info("nope") : data.consumeBytes(data.consumeInt(0, 5)));
                // 9, 10: meta contexts (BlockStatusTest)
                default -> c.option(data.consumeInt(11, 100), data.consumeBytes(data.consumeInt(0, 64)));
            }
            options.add(kind);
        }
        c.option(Nbd.OPT_GO, Client.info(readOnly ? "ro" : "rw"));
        byte[] shadow = new byte[(int) size];
        List<Sent> sent = new ArrayList<>();
        int requests = data.consumeInt(0, 24);
        boolean disconnected = false;
        for (int i = 0; i < requests && !disconnected; i++) {
            int type = data.consumeInt(0, 9) < 9 ? data.pickValue(new int[] {0, 1, 3, 4, 6, 0, 1}) : data.consumeInt(0, 0xFFFF);
            int flags = data.consumeInt(0, 3) == 0 ? data.consumeInt(0, 0xFFFF) : data.pickValue(new int[] {0, 0, Nbd.CMD_FLAG_FUA,
                Nbd.CMD_FLAG_NO_HOLE, Nbd.CMD_FLAG_DF});
            long offset = edge(data, size);
            long length = data.consumeInt(0, 5) == 0 ? edge(data, size) & 0xFFFF_FFFFL : data.consumeInt(0, 70_000);
            if (type == Nbd.CMD_FLUSH && data.consumeBoolean()) {
                offset = 0;
                length = 0;
            }
            if (type == Nbd.CMD_DISC) {
                c.request(flags, type, i, offset, length, null);
                disconnected = true;
                continue;
            }
            byte[] payload = null;
            if (type == Nbd.CMD_WRITE) {
                if (length > 70_000) {
                    length = data.consumeInt(0, 70_000); // the payload must follow: keep it affordable
                }
                payload = data.consumeBytes((int) length);
                payload = Arrays.copyOf(payload, (int) length);
            }
            int error = reference(type, flags, offset, length, size, readOnly, structured);
            byte[] expected = null;
            if (error == 0) {
                expected = apply(shadow, type, flags, (int) offset, (int) length, payload);
            }
            c.request(flags, type, 0x1000 + i, offset, length, payload);
            sent.add(new Sent(type, flags, 0x1000 + i, offset, length, error, expected));
        }
        ByteBuffer out = serve(size, c.bytes(), maxRead, maxWrite).output();
        Replies replies = new Replies(out);
        replies.handshake(options, readOnly, structured, size);
        for (Sent s : sent) {
            replies.reply(s, structured);
        }
        assertFalse(out.hasRemaining(), "nothing after the last reply");
    }

    /** Offsets and lengths near the edges that matter: 0, the size, 2^31, 2^32, 2^63, -1. */
    private static long edge(FuzzedDataProvider data, long size) {
        return switch (data.consumeInt(0, 7)) {
            case 0 -> 0;
            case 1 -> size + data.consumeInt(-2, 2);
            case 2 -> (1L << 31) + data.consumeInt(-1, 1);
            case 3 -> (1L << 32) + data.consumeInt(-1, 1);
            case 4 -> Long.MIN_VALUE + data.consumeInt(0, 1);
            case 5 -> -1L - data.consumeInt(0, 4096);
            case 6 -> data.consumeLong();
            default -> data.consumeLong(0, Math.max(0, size));
        };
    }

    /** proto.md's "Error values" and request types, written out on their own (not the server's code). */
    static int reference(int type, int flags, long offset, long length, long size, boolean readOnly, boolean structured) {
        boolean known = type == Nbd.CMD_READ || type == Nbd.CMD_WRITE || type == Nbd.CMD_FLUSH || type == Nbd.CMD_TRIM
            || type == Nbd.CMD_WRITE_ZEROES;
        if (!known) {
            return Errno.EINVAL; // unknown command
        }
        int rest = flags & ~Nbd.CMD_FLAG_FUA; // FUA is valid on every command once SEND_FUA is advertised
        if (type == Nbd.CMD_WRITE_ZEROES) {
            rest &= ~(Nbd.CMD_FLAG_NO_HOLE | Nbd.CMD_FLAG_FAST_ZERO); // the memory device offers fast zero
        }
        if (type == Nbd.CMD_READ && structured) {
            rest &= ~Nbd.CMD_FLAG_DF;
        }
        if (rest != 0) {
            return Errno.EINVAL; // a flag not documented for the command
        }
        if (readOnly && type != Nbd.CMD_READ && type != Nbd.CMD_FLUSH) {
            return Errno.EPERM;
        }
        if (type == Nbd.CMD_FLUSH) {
            return offset == 0 && length == 0 ? 0 : Errno.EINVAL;
        }
        if (length == 0 || type != Nbd.CMD_TRIM && type != Nbd.CMD_WRITE_ZEROES && length > MAX_PAYLOAD) {
            return Errno.EINVAL;
        }
        BigInteger end = new BigInteger(Long.toUnsignedString(offset)).add(BigInteger.valueOf(length));
        if (end.compareTo(BigInteger.valueOf(size)) > 0) {
            return type == Nbd.CMD_WRITE || type == Nbd.CMD_WRITE_ZEROES ? Errno.ENOSPC : Errno.EINVAL;
        }
        return 0;
    }

    /** Applies a request to the shadow; returns what a read must return. The memory device's trim zeroes. */
    private static byte[] apply(byte[] shadow, int type, int flags, int offset, int length, byte[] payload) {
        switch (type) {
            case Nbd.CMD_READ -> {
                return Arrays.copyOfRange(shadow, offset, offset + length);
            }
            case Nbd.CMD_WRITE -> System.arraycopy(payload, 0, shadow, offset, length);
            case Nbd.CMD_TRIM, Nbd.CMD_WRITE_ZEROES -> Arrays.fill(shadow, offset, offset + length, (byte) 0);
            default -> { }
        }
        return null;
    }

    /** Writes what a client sends. */
    static final class Client {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        void handshake(boolean structured, String export) {
            try {
                out.writeInt(Nbd.FLAG_C_FIXED_NEWSTYLE | Nbd.FLAG_C_NO_ZEROES);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (structured) {
                option(Nbd.OPT_STRUCTURED_REPLY, new byte[0]);
            }
            option(Nbd.OPT_GO, info(export));
        }

        void option(int option, byte[] data) {
            try {
                if (bytes.size() == 0) {
                    out.writeInt(Nbd.FLAG_C_FIXED_NEWSTYLE | Nbd.FLAG_C_NO_ZEROES);
                }
                out.writeLong(Nbd.IHAVEOPT);
                out.writeInt(option);
                out.writeInt(data.length);
                out.write(data);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void request(int flags, int type, long handle, long offset, long length, byte[] payload) {
            try {
                out.writeInt(Nbd.REQUEST_MAGIC);
                out.writeShort(flags);
                out.writeShort(type);
                out.writeLong(handle);
                out.writeLong(offset);
                out.writeInt((int) length);
                if (payload != null) {
                    out.write(payload);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void raw(byte[] b) {
            bytes.write(b, 0, b.length);
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }

        static byte[] info(String name) {
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(6 + n.length).putInt(n.length).put(n).putShort((short) 0).array();
        }
    }

    /** Reads the server's side of a conversation and checks it. */
    static final class Replies {
        private final ByteBuffer in;

        Replies(ByteBuffer in) {
            this.in = in;
        }

        void handshake(List<Integer> options, boolean readOnly, boolean structured, long size) {
            assertEquals(Nbd.NBDMAGIC, in.getLong());
            assertEquals(Nbd.IHAVEOPT, in.getLong());
            assertEquals(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES, in.getShort());
            for (int kind : options) {
                int type;
                do {
                    type = optionReply();
                } while (type == Nbd.REP_SERVER || type == Nbd.REP_INFO);
                if (kind == 3) {
                    assertTrue(type < 0, "GO of a malformed or unknown export is refused");
                }
                if (kind >= 4) {
                    assertEquals(Nbd.REP_ERR_UNSUP, type);
                }
            }
            boolean sawExport = false;
            int type;
            while ((type = optionReply()) == Nbd.REP_INFO) {
                sawExport |= lastInfoWasExport(readOnly, structured, size);
            }
            assertEquals(Nbd.REP_ACK, type, "GO succeeds");
            assertTrue(sawExport, "GO sends NBD_INFO_EXPORT");
        }

        private byte[] lastData;

        private int optionReply() {
            assertEquals(Nbd.OPTION_REPLY_MAGIC, in.getLong());
            in.getInt();
            int type = in.getInt();
            lastData = new byte[in.getInt()];
            in.get(lastData);
            return type;
        }

        private boolean lastInfoWasExport(boolean readOnly, boolean structured, long size) {
            ByteBuffer d = ByteBuffer.wrap(lastData);
            if (d.getShort() != Nbd.INFO_EXPORT) {
                return false;
            }
            assertEquals(size, d.getLong());
            int flags = d.getShort() & 0xFFFF;
            assertEquals(readOnly, (flags & Nbd.FLAG_READ_ONLY) != 0);
            assertEquals(structured, (flags & Nbd.FLAG_SEND_DF) != 0);
            return true;
        }

        void reply(Sent s, boolean structured) {
            int magic = in.getInt();
            if (s.type() == Nbd.CMD_READ && structured) {
                assertEquals(Nbd.STRUCTURED_REPLY_MAGIC, magic, "structured replies answer reads with chunks");
                assertEquals(Nbd.REPLY_FLAG_DONE, in.getShort());
                int type = in.getShort() & 0xFFFF;
                assertEquals(s.handle(), in.getLong());
                int length = in.getInt();
                if (s.error() != 0) {
                    assertEquals(Nbd.REPLY_TYPE_ERROR, type);
                    assertEquals(6, length);
                    assertEquals(s.error(), in.getInt());
                    assertEquals(0, in.getShort());
                } else {
                    assertEquals(Nbd.REPLY_TYPE_OFFSET_DATA, type);
                    assertEquals(8 + s.length(), length);
                    assertEquals(s.offset(), in.getLong());
                    byte[] got = new byte[(int) s.length()];
                    in.get(got);
                    assertArrayEquals(s.expected(), got);
                }
                return;
            }
            assertEquals(Nbd.SIMPLE_REPLY_MAGIC, magic);
            assertEquals(s.error(), in.getInt(), () -> "error for " + s);
            assertEquals(s.handle(), in.getLong());
            if (s.type() == Nbd.CMD_READ && s.error() == 0) {
                byte[] got = new byte[(int) s.length()];
                in.get(got);
                assertArrayEquals(s.expected(), got);
            }
        }
    }
}
