package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzWorld.VICTIM;

import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The books of one input: every legitimate message posted and every PSN it went out under, every
 * send completion, every delivery, and every frame the attacker injected. From them the truthful
 * completion invariants are judged:
 * <ul>
 * <li>a send completes once, at the host that posted it;</li>
 * <li>a legitimate message is delivered at most once, only to the receive queue it was sent to,
 * intact (length, bytes, source address and QPN, immediate);</li>
 * <li>a delivery at the victim that is no legitimate message is one the attacker sent, delivered as
 * what it was: its source address (a usable one — never 0.0.0.0, multicast, loopback or the
 * victim's own), source QPN, destination QP, opcode, reliable or not, payload. A forged frame is
 * never delivered as if another host (the peer whose context it landed in) had sent it;</li>
 * <li>no false success: a send completed SUCCESS was delivered, once, to its receive queue —
 * unless a perfect forgery could have displaced it (see {@link #perfectData} and
 * {@link #perfectAck}); imperfect forgeries — another source address (0.0.0.0 included), a stale
 * or new epoch, a wrong context id, a send base beyond the window, ACKs of PSNs never sent — get
 * no such allowance.</li>
 * </ul>
 */
final class Ledger {
    static final int SLOT = 256;
    private static final long LEGIT_TAG = 0x4C45_4749_5400_0000L; // "LEGIT" in the id's high bytes
    private static final ValueLayout.OfLong ID = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** One legitimate message. */
    record Message(long id, int from, int to, int length, boolean withImmediate) {
    }

    /** A data frame the attacker injected, as the victim reads it. */
    record Forged(int srcIp, int srcQpn, int dstQpn, int type, boolean reliable, int immediate, byte[] payload) {
    }

    private final int window;
    final Map<Long, Message> posted = new HashMap<>();
    final Map<Long, Integer> sendStatus = new HashMap<>();
    private final Map<Long, Integer> deliveries = new HashMap<>();
    /** Every PSN each legitimate message went out under (a message refused for want of a receive goes again under a new one). */
    private final Map<Long, int[]> psns = new HashMap<>();
    private final List<Forged> forged = new ArrayList<>();
    /** Perfect forgeries of a peer's data packets: {peer, PSN, send base}. */
    private final List<int[]> perfectData = new ArrayList<>();
    /** Perfect forgeries of a peer's ACKs: {peer, cumulative PSN, highest PSN the victim had sent that peer}, SACK words. */
    private final List<int[]> perfectAcks = new ArrayList<>();
    private final List<long[]> perfectAckSacks = new ArrayList<>();
    final int[] completed = new int[FuzzWorld.HOSTS];
    final int[] postedBy = new int[FuzzWorld.HOSTS];
    private long nextId = 1;
    int forgedDeliveries;

    Ledger(int window) {
        this.window = window;
    }

    // ---- legitimate messages -----------------------------------------------------------------------

    /** A new message, its payload written at {@code offset} in {@code buffer}; booked by {@link #posted} once the transport took it. */
    Message message(int from, int to, int length, boolean withImmediate, MemorySegment buffer, long offset) {
        long id = LEGIT_TAG | nextId++;
        buffer.set(ID, offset, id);
        for (int i = 8; i < length; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, payloadByte(id, i));
        }
        return new Message(id, from, to, length, withImmediate);
    }

    void posted(Message m) {
        posted.put(m.id, m);
        postedBy[m.from]++;
    }

    private static byte payloadByte(long id, int i) {
        return (byte) ((id * 0x9E37_79B9L >>> (8 * (i & 7))) + i);
    }

    /** The legitimate message these bytes are, or null. */
    Message legitimate(MemorySegment buffer, long offset, int length) {
        if (length < 8) {
            return null;
        }
        long id = buffer.get(ID, offset);
        Message m = posted.get(id);
        if (m == null || m.length != length) {
            return null;
        }
        for (int i = 8; i < length; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, offset + i) != payloadByte(id, i)) {
                return null;
            }
        }
        return m;
    }

    /** A sender's port saw message {@code id} leave under {@code psn}. */
    void sentUnder(long id, int psn) {
        int[] known = psns.get(id);
        if (known == null) {
            psns.put(id, new int[] {psn});
            return;
        }
        for (int p : known) {
            if (p == psn) {
                return;                                     // a retransmission
            }
        }
        int[] more = Arrays.copyOf(known, known.length + 1);
        more[known.length] = psn;
        psns.put(id, more);
    }

    boolean allSendsCompleted() {
        return sendStatus.size() == posted.size();
    }

    // ---- what the attacker sent ------------------------------------------------------------------------

    /** Books an injected frame (forged or garbage) by what its bytes say, whatever they are. */
    void injected(byte[] frame, int length) {
        int srd = FuzzFrames.SRD;
        if (length < srd + FuzzFrames.SRD_HEADER || !PacketType.isData(frame[srd] & 0x0F)) {
            return;
        }
        int payload = Math.min(FuzzFrames.u16(frame, srd + 2), length - srd - FuzzFrames.SRD_HEADER);
        int at = srd + FuzzFrames.SRD_HEADER;
        forged.add(new Forged(FuzzFrames.s32(frame, FuzzFrames.IP_SRC), FuzzFrames.s32(frame, srd + 24),
            FuzzFrames.s32(frame, srd + 28), frame[srd] & 0x0F, (frame[srd + 1] & SrdHeader.FLAG_UNRELIABLE) == 0,
            FuzzFrames.s32(frame, srd + 36), Arrays.copyOfRange(frame, at, at + payload)));
    }

    /**
     * Notes a forged data packet indistinguishable from the peer's own: its address, its live
     * context id and epoch. Such a packet may take the place of the peer's packet of the same PSN,
     * or (its send base being the peer's to say) declare the peer's packets below it done, and no
     * transport without authentication can tell; the false-success check spares the messages it
     * could have displaced that way.
     */
    void perfectData(int peer, int psn, int sendBase) {
        perfectData.add(new int[] {peer, psn, sendBase});
    }

    /**
     * Notes a forged ACK the victim cannot tell from one of its peer's: the peer's address, the
     * victim's live context id and epoch echoed. Its own context id and epoch are not required to be
     * the peer's live ones: a peer that restarted answers with new ones, truthfully. Only the
     * claims such an ACK makes about PSNs the victim had sent by then are spared.
     */
    void perfectAck(int peer, int cumulative, long[] sack, int highestSent) {
        perfectAcks.add(new int[] {peer, cumulative, highestSent});
        perfectAckSacks.add(sack);
    }

    /** Whether a perfect forgery could have made message {@code m} look done without it being delivered. */
    private boolean displacedByPerfectForgery(Message m) {
        int[] sentUnder = psns.get(m.id);
        if (sentUnder != null) {
            for (int psn : sentUnder) {
                if (m.to == VICTIM ? displacedByData(m.from, psn) : displacedByAck(m.to, psn)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean displacedByData(int peer, int psn) {
        for (int[] d : perfectData) {
            int sinceBase = d[2] - psn;
            if (d[0] == peer && (d[1] == psn || (sinceBase > 0 && sinceBase <= window))) {
                return true;
            }
        }
        return false;
    }

    private boolean displacedByAck(int peer, int psn) {
        for (int i = 0; i < perfectAcks.size(); i++) {
            int[] a = perfectAcks.get(i);
            if (a[0] != peer || psn - a[2] > 0) {
                continue;                                   // another peer, or not sent yet
            }
            int cumulative = a[1];
            int covered = cumulative - psn;
            if (covered > 0 && covered <= window && cumulative - 1 - a[2] <= 0) {
                return true;                                // below the cumulative PSN, claiming nothing never sent
            }
            int bit = psn - cumulative - 1;
            if (bit >= 0 && bit < 256 && (perfectAckSacks.get(i)[bit >>> 6] >>> (bit & 63) & 1) != 0) {
                return true;
            }
        }
        return false;
    }

    // ---- completions -------------------------------------------------------------------------------------

    void sendCompleted(int host, long wrId, int status) {
        Message m = posted.get(wrId);
        if (m == null || m.from != host) {
            throw new Violation("host " + host + " completed a send nobody posted there: wr " + Long.toHexString(wrId) + " "
                + WcStatus.name(status));
        }
        Integer before = sendStatus.putIfAbsent(wrId, status);
        if (before != null) {
            throw new Violation("send " + Long.toHexString(wrId) + " completed twice: " + WcStatus.name(before) + ", then "
                + WcStatus.name(status));
        }
        completed[host]++;
    }

    /**
     * Books a successful receive completion at {@code host}'s QP {@code qpn} (an SRD QP, or the
     * victim's UD QP) whose bytes are at {@code offset} in {@code buffer}; returns the legitimate
     * message it was, or null for a forged one.
     */
    Message delivered(int host, int qpn, boolean reliable, MemorySegment buffer, long offset, int length, boolean imm, int immediate,
                      int srcQpn, int srcIp, int[] qpns) {
        Message m = legitimate(buffer, offset, length);
        if (m != null && reliable) {
            if (host == VICTIM && copiedByForgery(m)) {
                return m;                                   // the attacker sent these very bytes: proves nothing
            }
            if (m.to != host) {
                throw new Violation("message " + Long.toHexString(m.id) + " for host " + m.to + " was delivered at host " + host);
            }
            if (srcIp != FuzzWorld.ip(m.from) || srcQpn != qpns[m.from] || imm != m.withImmediate
                || (m.withImmediate && immediate != (int) m.id)) {
                throw new Violation("message " + Long.toHexString(m.id) + " delivered with a wrong source, QPN or immediate");
            }
            int n = deliveries.merge(m.id, 1, Integer::sum);
            if (n > 1) {
                throw new Violation("message " + Long.toHexString(m.id) + " from host " + m.from + " delivered " + n + " times at host "
                    + host + " (send status " + statusName(m.id) + ")");
            }
            return m;
        }
        if (host != VICTIM) {
            throw new Violation("honest host " + host + " received a message nobody sent it (" + length + " bytes from "
                + FuzzFrames.ipv4(srcIp) + ")");
        }
        if (!usableSource(srcIp)) {
            throw new Violation("the victim delivered a message from " + FuzzFrames.ipv4(srcIp) + ", which no host can send from");
        }
        MemorySegment bytes = buffer.asSlice(offset, length);
        for (Forged f : forged) {
            if (f.srcIp == srcIp && f.srcQpn == srcQpn && f.dstQpn == qpn && f.reliable == reliable && f.payload.length == length
                && isSend(f.type) && (f.type == PacketType.SEND_WITH_IMM) == imm && (!imm || f.immediate == immediate)
                && MemorySegment.mismatch(MemorySegment.ofArray(f.payload), 0, length, bytes, 0, length) == -1) {
                forgedDeliveries++;
                return null;
            }
        }
        throw new Violation("the victim's QP " + Integer.toHexString(qpn) + " delivered " + length + " bytes as a "
            + (imm ? "SEND_WITH_IMM" : "SEND") + " from " + FuzzFrames.ipv4(srcIp) + " QP " + Integer.toHexString(srcQpn)
            + ", which no frame sent as such (" + (reliable ? "reliable" : "UD") + ")");
    }

    private static boolean isSend(int type) {
        return type == PacketType.SEND || type == PacketType.SEND_WITH_IMM;
    }

    /** What a transport may take a packet from: not 0.0.0.0, multicast or reserved, loopback, nor the victim itself. */
    private static boolean usableSource(int ip) {
        int top = ip >>> 24;
        return ip != 0 && top < 224 && top != 127 && ip != FuzzWorld.ip(VICTIM);
    }

    private boolean copiedByForgery(Message m) {
        for (Forged f : forged) {
            if (f.payload.length == m.length && f.payload.length >= 8
                && m == legitimate(MemorySegment.ofArray(f.payload), 0, f.payload.length)) {
                return true;
            }
        }
        return false;
    }

    private String statusName(long id) {
        Integer s = sendStatus.get(id);
        return s == null ? "not completed" : WcStatus.name(s);
    }

    /** The truthful-completion check, once every send has completed and the network is quiet. */
    void checkNoFalseSuccess() {
        for (Message m : posted.values()) {
            Integer status = sendStatus.get(m.id);
            if (status == null) {
                throw new Violation("send " + Long.toHexString(m.id) + " from host " + m.from + " to host " + m.to
                    + " never completed, though the attack stopped long ago");
            }
            int delivered = deliveries.getOrDefault(m.id, 0);
            boolean excused = m.to == VICTIM && copiedByForgery(m) || delivered == 0 && displacedByPerfectForgery(m);
            if (status == WcStatus.SUCCESS && delivered != 1 && !excused) {
                throw new Violation("FALSE SUCCESS: send " + Long.toHexString(m.id) + " from host " + m.from + " to host " + m.to
                    + " completed SUCCESS but was delivered " + delivered + " times");
            }
        }
    }
}
