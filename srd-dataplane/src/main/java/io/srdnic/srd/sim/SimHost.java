package io.srdnic.srd.sim;

import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.QpState;
import io.srdnic.srd.transport.SrdConfig;
import io.srdnic.srd.transport.SrdQp;
import io.srdnic.srd.transport.SrdTransport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * One simulated host: an SRD transport on its port and one QP that sends its quota of messages to
 * one destination and keeps receives posted for whoever sends to it. Each message carries its
 * sequence number as immediate data and in its first bytes, so the receiver can tell duplicates
 * and damage apart.
 */
final class SimHost {
    static final int NOT_COMPLETED = -1;
    private static final int SQ_DEPTH = 4096;
    private static final int RQ_DEPTH = 8192;
    private static final int SLOT_BITS = 16;

    final int index;
    final SrdTransport transport;
    final SrdQp qp;
    private final CompletionQueue sendCq = new CompletionQueue(1 << 16);
    private final CompletionQueue recvCq = new CompletionQueue(1 << 16);
    private final int size;
    private final int slotSize;
    private final MemorySegment sendBuffers;
    private final MemorySegment recvBuffers;
    private final int[] freeSlots = new int[SQ_DEPTH];
    private int freeSlotCount;
    private final CompletionQueue.CompletionSink onSend = this::onSendCompletion;
    private final CompletionQueue.CompletionSink onRecv = this::onReceiveCompletion;

    SimHost destination;
    SrdSimulation.Outcome outcome;
    long quota;
    private long nextSeq;
    private int ah;
    private long[] postTime = new long[0];
    private byte[] status = new byte[0];
    private long now;

    // Receiver side: which (sender, seq) arrived
    private BitSet[] seen = new BitSet[0];
    long deliveredCount;
    long duplicateDeliveries;
    long corruptDeliveries;

    SimHost(int index, PacketIo port, SrdConfig config, Scenario scenario, long seed, Arena arena) {
        this.index = index;
        SplittableRandom r = new SplittableRandom(seed);
        int epoch = r.nextInt() | 1;
        this.transport = new SrdTransport(port, config.copy().localIp(ip(index)), epoch, r.nextLong());
        this.size = scenario.size();
        if (size > transport.mtu()) {
            throw new IllegalArgumentException("--size " + size + " exceeds the SRD MTU " + transport.mtu());
        }
        this.slotSize = Math.max(8, size);
        this.sendBuffers = arena.allocate((long) slotSize * SQ_DEPTH, 64);
        this.recvBuffers = arena.allocate((long) slotSize * RQ_DEPTH, 64);
        this.qp = transport.createQp(SQ_DEPTH, RQ_DEPTH, sendCq, recvCq);
        qp.modify(QpState.INIT, SrdSimulation.QKEY);
        for (int i = 0; i < RQ_DEPTH; i++) {
            qp.postReceive(i, recvBuffers, (long) i * slotSize, slotSize);
        }
        qp.modify(QpState.RTR, 0);
        qp.modify(QpState.RTS, 0);
        for (int i = 0; i < SQ_DEPTH; i++) {
            freeSlots[freeSlotCount++] = i;
        }
    }

    static long mac(int host) {
        return 0x02_00_00_00_00_00L | (host + 1);
    }

    static int ip(int host) {
        return 0x0A00_0001 + host;
    }

    void startSending(SimHost to, long messages) {
        this.destination = to;
        this.quota = messages;
        this.postTime = new long[(int) messages];
        this.status = new byte[(int) messages];
        Arrays.fill(status, (byte) NOT_COMPLETED);
        this.ah = transport.createAddressHandle(mac(to.index), ip(to.index), transport.config().udpPort());
        to.expectFrom(index, messages);
    }

    void expectFrom(int sender, long messages) {
        if (seen.length <= sender) {
            seen = Arrays.copyOf(seen, sender + 1);
        }
        seen[sender] = new BitSet((int) messages);
    }

    boolean wasDelivered(int sender, long seq) {
        return seen.length > sender && seen[sender] != null && seen[sender].get((int) seq);
    }

    int status(long seq) {
        return status[(int) seq];
    }

    /** Posts what the send queue allows, runs the transport, reaps completions. */
    int step(long time) {
        this.now = time;
        int work = 0;
        while (destination != null && nextSeq < quota && freeSlotCount > 0) {
            int slot = freeSlots[--freeSlotCount];
            long seq = nextSeq;
            long at = (long) slot * slotSize;
            sendBuffers.set(ValueLayout.JAVA_LONG_UNALIGNED, at, seq);
            if (size > 8) {
                sendBuffers.set(ValueLayout.JAVA_BYTE, at + size - 1, (byte) (seq * 31 + index));
            }
            int rc = transport.postSend(qp, ah, destination.qp.qpn(), SrdSimulation.QKEY, (seq << SLOT_BITS) | slot,
                sendBuffers, at, size, true, (int) seq, true);
            if (rc != SrdTransport.POST_OK) {
                freeSlots[freeSlotCount++] = slot;
                break;
            }
            postTime[(int) seq] = time;
            outcome.onPost(time);
            nextSeq++;
            work++;
        }
        work += transport.doWork(time);
        work += sendCq.poll(onSend, Integer.MAX_VALUE);
        work += recvCq.poll(onRecv, Integer.MAX_VALUE);
        return work;
    }

    private void onSendCompletion(long wrId, int st, int opcode, int byteLength, boolean hasImm, int imm, int qpn, int srcQpn, int srcIp) {
        long seq = wrId >>> SLOT_BITS;
        freeSlots[freeSlotCount++] = (int) (wrId & ((1 << SLOT_BITS) - 1));
        if (status[(int) seq] != NOT_COMPLETED) {
            throw new IllegalStateException("message " + seq + " of host " + index + " completed twice");
        }
        status[(int) seq] = (byte) st;
        outcome.onCompletion(st, postTime[(int) seq], now);
    }

    private void onReceiveCompletion(long wrId, int st, int opcode, int byteLength, boolean hasImm, int imm, int qpn, int srcQpn, int srcIp) {
        int slot = (int) wrId;
        if (st == WcStatus.SUCCESS) {
            int sender = srcIp - 0x0A00_0001;
            long seq = Integer.toUnsignedLong(imm);
            long at = (long) slot * slotSize;
            boolean intact = hasImm && byteLength == size
                && (size < 8 || recvBuffers.get(ValueLayout.JAVA_LONG_UNALIGNED, at) == seq)
                && (size <= 8 || recvBuffers.get(ValueLayout.JAVA_BYTE, at + size - 1) == (byte) (seq * 31 + sender));
            BitSet from = sender >= 0 && sender < seen.length ? seen[sender] : null;
            if (!intact || from == null) {
                corruptDeliveries++;
            } else if (from.get((int) seq)) {
                duplicateDeliveries++;
            } else {
                from.set((int) seq);
                deliveredCount++;
            }
        }
        qp.postReceive(slot, recvBuffers, (long) slot * slotSize, slotSize);
    }
}
