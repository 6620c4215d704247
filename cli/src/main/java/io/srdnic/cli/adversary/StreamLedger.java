package io.srdnic.cli.adversary;

import io.srdnic.srd.api.WcStatus;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * One side's record of the verified stream: how each of its sends completed (by sequence number)
 * and which of the peer's messages it received intact, how many of them more than once, and what
 * else arrived. The two sides swap theirs at the end, so each direction's sender can be held to
 * what its receiver saw. Sends and receives are recorded by the side's polling thread.
 */
public final class StreamLedger {
    /** Per sequence number: 0 not completed, else 1 + the WcStatus it completed with. */
    private byte[] completions = new byte[1 << 16];
    private long sent;
    private long doubleCompletions;
    private long[] delivered = new long[1 << 10];
    private long deliveredCount;
    private long duplicated;
    private final long[] corrupted = new long[StreamPayload.Defect.values().length];
    private final long[] receiveErrors = new long[WcStatus.COUNT + 1];

    public void posted(long sequence) {
        sent = Math.max(sent, sequence + 1);
        if (sequence >= completions.length) {
            completions = Arrays.copyOf(completions, (int) Math.min(Integer.MAX_VALUE - 8,
                    Math.max(sequence + 1, 2L * completions.length)));
        }
    }

    public void completed(long sequence, int status) {
        if (sequence < 0 || sequence >= sent) {
            doubleCompletions++; // a completion for a send never posted: counted with the doubles
            return;
        }
        int i = (int) sequence;
        if (completions[i] != 0) {
            doubleCompletions++;
            return;
        }
        completions[i] = (byte) (1 + Math.min(status, WcStatus.COUNT));
    }

    public void received(long sequence) {
        if (sequence >= (long) delivered.length * 64) {
            if (sequence >= (1L << 36)) {
                corrupted[StreamPayload.Defect.NEVER_SENT.ordinal()]++;
                return;
            }
            delivered = Arrays.copyOf(delivered, (int) Math.max((sequence >>> 6) + 1, 2L * delivered.length));
        }
        long bit = 1L << (sequence & 63);
        int w = (int) (sequence >>> 6);
        if ((delivered[w] & bit) != 0) {
            duplicated++;
        } else {
            delivered[w] |= bit;
            deliveredCount++;
        }
    }

    public void corrupted(StreamPayload.Defect defect) {
        corrupted[defect.ordinal()]++;
    }

    public void receiveError(int status) {
        receiveErrors[Math.min(Math.max(status, 0), WcStatus.COUNT)]++;
    }

    public long sent() {
        return sent;
    }

    /** Sends with a completion so far. */
    public long completedCount() {
        long n = 0;
        for (int i = 0; i < sent; i++) {
            if (completions[i] != 0) {
                n++;
            }
        }
        return n;
    }

    public long deliveredCount() {
        return deliveredCount;
    }

    // ---------------------------------------------------------------- the swap

    /** This side's record as one side-channel line's fields (compressed bitmaps in base64). */
    public String line() {
        ByteBuffer bits = ByteBuffer.allocate(delivered.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        bits.asLongBuffer().put(delivered);
        StringBuilder sb = new StringBuilder();
        sb.append("sent=").append(sent).append(" double_completions=").append(doubleCompletions).append(" duplicated=").append(duplicated);
        for (StreamPayload.Defect d : StreamPayload.Defect.values()) {
            sb.append(" corrupted_").append(d.name().toLowerCase()).append('=').append(corrupted[d.ordinal()]);
        }
        for (int s = 0; s <= WcStatus.COUNT; s++) {
            if (receiveErrors[s] != 0) {
                sb.append(" recv_error_").append(s).append('=').append(receiveErrors[s]);
            }
        }
        sb.append(" completions=").append(pack(Arrays.copyOf(completions, (int) sent)));
        sb.append(" delivered=").append(pack(bits.array()));
        return sb.toString();
    }

    /** The ledger a {@link #line()} describes. */
    public static StreamLedger parse(String line) {
        StreamLedger l = new StreamLedger();
        for (String kv : line.trim().split("\\s+")) {
            String[] p = kv.split("=", 2);
            if (p.length != 2) {
                continue;
            }
            String k = p[0];
            switch (k) {
                case "sent" -> l.sent = Long.parseLong(p[1]);
                case "double_completions" -> l.doubleCompletions = Long.parseLong(p[1]);
                case "duplicated" -> l.duplicated = Long.parseLong(p[1]);
                case "completions" -> l.completions = unpack(p[1]);
                case "delivered" -> {
                    ByteBuffer b = ByteBuffer.wrap(unpack(p[1])).order(ByteOrder.LITTLE_ENDIAN);
                    l.delivered = new long[b.remaining() / 8];
                    b.asLongBuffer().get(l.delivered);
                    l.deliveredCount = Arrays.stream(l.delivered).map(Long::bitCount).sum();
                }
                default -> {
                    if (k.startsWith("corrupted_")) {
                        l.corrupted[StreamPayload.Defect.valueOf(k.substring(10).toUpperCase()).ordinal()] = Long.parseLong(p[1]);
                    } else if (k.startsWith("recv_error_")) {
                        l.receiveErrors[Integer.parseInt(k.substring(11))] = Long.parseLong(p[1]);
                    }
                }
            }
        }
        if (l.completions.length < l.sent) {
            l.completions = Arrays.copyOf(l.completions, (int) l.sent);
        }
        return l;
    }

    private static String pack(byte[] raw) {
        Deflater d = new Deflater(Deflater.BEST_SPEED);
        d.setInput(raw);
        d.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        while (!d.finished()) {
            out.write(buf, 0, d.deflate(buf));
        }
        d.end();
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    private static byte[] unpack(String text) {
        Inflater inf = new Inflater();
        inf.setInput(Base64.getDecoder().decode(text));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        try {
            while (!inf.finished()) {
                int n = inf.inflate(buf);
                if (n == 0 && (inf.needsInput() || inf.needsDictionary())) {
                    break;
                }
                out.write(buf, 0, n);
            }
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("bad ledger bitmap: " + e.getMessage(), e);
        } finally {
            inf.end();
        }
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- judging one direction

    /**
     * One direction of the stream: {@code sender}'s sends judged against what {@code receiver} received.
     * lost: a send completed SUCCESS without an intact delivery (that is also a false success), or
     * never completed; a send that completed with an error is not lost, whatever happened to it
     * (an honest error), but counted by status.
     */
    public static Direction judge(StreamLedger sender, StreamLedger receiver) {
        long falseSuccess = 0;
        long uncompleted = 0;
        long errorButDelivered = 0;
        long delivered = 0;
        long[] byStatus = new long[WcStatus.COUNT + 1];
        for (long seq = 0; seq < sender.sent; seq++) {
            boolean d = receiver.isDelivered(seq);
            if (d) {
                delivered++;
            }
            int c = sender.completions[(int) seq];
            if (c == 0) {
                uncompleted++;
                continue;
            }
            int status = c - 1;
            byStatus[status]++;
            if (status == WcStatus.SUCCESS && !d) {
                falseSuccess++;
            } else if (status != WcStatus.SUCCESS && d) {
                errorButDelivered++;
            }
        }
        long neverSent = receiver.deliveredCount - delivered;
        long corrupted = neverSent;
        for (long c : receiver.corrupted) {
            corrupted += c;
        }
        Map<StreamPayload.Defect, Long> defects = new EnumMap<>(StreamPayload.Defect.class);
        for (StreamPayload.Defect d : StreamPayload.Defect.values()) {
            long n = receiver.corrupted[d.ordinal()] + (d == StreamPayload.Defect.NEVER_SENT ? neverSent : 0);
            if (n != 0) {
                defects.put(d, n);
            }
        }
        return new Direction(sender.sent, delivered, falseSuccess + uncompleted, uncompleted, receiver.duplicated, corrupted,
            falseSuccess, errorButDelivered, sender.doubleCompletions, byStatus, defects, receiver.receiveErrors.clone());
    }

    private boolean isDelivered(long seq) {
        int w = (int) (seq >>> 6);
        return w < delivered.length && (delivered[w] & (1L << (seq & 63))) != 0;
    }

    /** The verdict on one direction of the stream. */
    public record Direction(long sent, long delivered, long lost, long uncompleted, long duplicated, long corrupted,
                            long falseSuccess, long errorButDelivered, long doubleCompletions, long[] completionsByStatus,
                            Map<StreamPayload.Defect, Long> defects, long[] receiveErrorsByStatus) {

        /** Messages the stream got wrong: lost (false successes among them), duplicated, corrupted. */
        public long violations() {
            return lost + duplicated + corrupted;
        }
    }
}
