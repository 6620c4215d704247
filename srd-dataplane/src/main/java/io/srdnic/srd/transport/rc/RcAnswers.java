package io.srdnic.srd.transport.rc;

import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.ReadResponseHeader;
import java.lang.foreign.MemorySegment;

/**
 * The answers an RC QP owes its peer's READs and atomics, a ring in the order the requests were
 * executed: each answer is one or more READ_RESPONSE packets the QP's {@link RcRequester} sends from
 * its own PSN space, ahead of its own requests, and its slot is free once all of them are
 * acknowledged. A full ring makes the responder leave the next READ or atomic unexecuted (the
 * requester sends it again). An atomic's answer is the value it found, taken when it ran: a lost
 * answer is sent again from here, never read from memory again, where the word may have moved on.
 * Its packets' owners, in the requester's engine, are {@code base + slot}. A READ's packet sent
 * from the memory itself (zero-copy) holds its slot until the driver frees it, as an
 * unacknowledged one does.
 */
final class RcAnswers {
    private final int slots;
    private final MemorySegment[] memory;
    private final long[] offset;
    private final int[] length;
    private final int[] token;
    private final int[] rkey;
    private final int[] segments;
    private final int[] next;
    private final int[] inFlight;
    /** An atomic's answer: the word's original value (its slot has no memory). */
    private final long[] value;
    /** Packets of an answer whose memory the driver still reads, and each slot's use count (a stale release names an older one). */
    private final int[] nicHolds;
    private final int[] generation;
    // [head, tail) owed; [toSend, tail) not all sent.
    private long head;
    private long tail;
    private long toSend;

    RcAnswers(int slots) {
        this.slots = slots;
        memory = new MemorySegment[slots];
        offset = new long[slots];
        length = new int[slots];
        token = new int[slots];
        rkey = new int[slots];
        segments = new int[slots];
        next = new int[slots];
        inFlight = new int[slots];
        value = new long[slots];
        nicHolds = new int[slots];
        generation = new int[slots];
    }

    boolean isFull() {
        return tail - head >= slots;
    }

    /** Whether every answer owed was acknowledged. */
    boolean isEmpty() {
        return head == tail;
    }

    boolean hasUnsent() {
        return toSend != tail;
    }

    /** Everything owed is dropped (the QP left service). */
    void clear() {
        for (int a = 0; a < slots; a++) {
            memory[a] = null;
            nicHolds[a] = 0;
        }
        head = tail = toSend = 0;
    }

    /**
     * Owes the READ {@code readToken} names {@code len} bytes at {@code off} of {@code mem} (region
     * {@code key}), in packets of {@code perPacket} bytes.
     */
    void addRead(int readToken, int key, MemorySegment mem, long off, int len, int perPacket) {
        int a = slot(tail++);
        token[a] = readToken;
        rkey[a] = key;
        memory[a] = mem;
        offset[a] = off;
        length[a] = len;
        segments[a] = Math.max(1, (int) ((len + (long) perPacket - 1) / perPacket));
        next[a] = 0;
        inFlight[a] = 0;
        nicHolds[a] = 0;
        generation[a]++;
    }

    /** Owes the atomic {@code atomicToken} names {@code original}, the value it found: one packet of 8 bytes. */
    void addAtomic(int atomicToken, long original) {
        int a = slot(tail++);
        token[a] = atomicToken;
        memory[a] = null;
        value[a] = original;
        length[a] = Long.BYTES;
        segments[a] = 1;
        next[a] = 0;
        inFlight[a] = 0;
        nicHolds[a] = 0;
        generation[a]++;
    }

    /** Gives the next answer packet not yet sent its PSN in {@code sender}. */
    void sendNext(ReliableSender sender, int base, long now, ReliableSender.Listener listener) {
        int a = slot(toSend);
        int seg = next[a]++;
        if (next[a] == segments[a]) {
            toSend++;
        }
        inFlight[a]++;
        sender.send(base + a, seg, now, listener);
    }

    boolean isLast(int a, int seg) {
        return seg == segments[a] - 1;
    }

    /**
     * Writes packet {@code seg} of answer {@code a} into {@code m} after the SRD header: the
     * READ_RESPONSE header (and an atomic's value); returns the data's length, a READ's data still
     * to be copied ({@link #copy}) or attached. A region deregistered meanwhile is refused (status
     * REMOTE_ACCESS), not sent; an atomic's answer is sent whatever became of its region: the atomic has run.
     */
    int write(Mbuf m, int a, int seg, int perPacket, MemoryRegions regions) {
        if (memory[a] == null) {
            ReadResponseHeader.write(m, token[a], 0, Long.BYTES, 0);
            m.putLongBE(ReadResponseHeader.DATA_OFFSET, value[a]); // a number on the wire; the requester stores it in host order
            return Long.BYTES;
        }
        long at = (long) seg * perPacket;
        boolean live = regions.isLive(rkey[a]);
        int data = live ? (int) Math.min(perPacket, length[a] - at) : 0;
        ReadResponseHeader.write(m, token[a], (int) at, length[a], live ? 0 : DropReason.REMOTE_ACCESS);
        return data;
    }

    /** Whether answer {@code a} is a READ's (its data comes from memory), not an atomic's. */
    boolean isRead(int a) {
        return memory[a] != null;
    }

    MemorySegment memory(int a) {
        return memory[a];
    }

    long offset(int a) {
        return offset[a];
    }

    /** Copies READ answer {@code a}'s {@code data} bytes at {@code from} of its memory after the header; {@code data}, or -1 if freed. */
    int copy(Mbuf m, int a, long from, int data) {
        try {
            m.copyFrom(memory[a], from, ReadResponseHeader.DATA_OFFSET, data);
        } catch (IllegalStateException closedMemory) {
            return -1;
        }
        return data;
    }

    /** The token a release of answer {@code a}'s memory names: its slot after {@code base}, and its use. */
    int holdToken(int a, int base) {
        return (generation[a] << RcSendQueue.TOKEN_SLOT_BITS) | (base + a);
    }

    /** A packet of answer {@code a} left from its memory: the slot stays until the driver frees it. */
    void held(int a) {
        nicHolds[a]++;
    }

    /** The driver freed a packet of the answer {@code token} names (nothing, if its slot was reused since). */
    void released(int a, int token, int base) {
        if (a < slots && holdToken(a, base) == token && nicHolds[a] > 0) {
            nicHolds[a]--;
            freeDone();
        }
    }

    /** A packet of answer {@code a} was acknowledged: answers wholly acknowledged free their slots, in order. */
    void acked(int a) {
        inFlight[a]--;
        freeDone();
    }

    /** Frees, in order, the slots of answers wholly acknowledged whose memory the driver no longer reads. */
    private void freeDone() {
        while (head != toSend && inFlight[slot(head)] == 0 && nicHolds[slot(head)] == 0) {
            memory[slot(head++)] = null;
        }
    }

    private int slot(long sequence) {
        return (int) (sequence % slots);
    }
}
