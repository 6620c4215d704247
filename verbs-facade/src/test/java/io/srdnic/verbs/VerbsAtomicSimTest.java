package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * RC atomics through the verbs API: SendWr.atomic on the simulated network under faults, the SGE
 * rules (8 bytes, LOCAL_WRITE), what rxe's post refuses (a misaligned word, inline data), SRD and UD
 * refusing them, and DEDICATED mode's post ring carrying the operands to the wire.
 */
class VerbsAtomicSimTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    private static final LinkConfig HOSTILE = LinkConfig.builder().lossProbability(0.05).duplicateProbability(0.05)
        .reorderProbability(0.05).build();

    private static VerbsPair rcPair(SimWorld w) {
        return new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)), QpType.RC, 1, 4096);
    }

    @Test
    void shouldRunAtomicsOnThePeersWordReturningItsOriginalValuesUnderFaults() {
        try (SimWorld w = new SimWorld(61, 16, HOSTILE); VerbsPair p = rcPair(w)) {
            int n = 200;
            MemorySegment word = p.arena.allocate(8, 8);
            MemoryRegion remote = p.sb.pd.registerMemory(word, Access.REMOTE_ATOMIC);
            MemorySegment results = p.arena.allocate(8L * (n + 1), 8);
            MemoryRegion local = p.sa.pd.registerMemory(results, Access.LOCAL_WRITE);
            SendWr add = new SendWr().opcode(SendWr.OP_ATOMIC_FETCH_ADD).atomic(word.address(), remote.rkey(), 3, 0).numSge(1);
            for (int i = 0; i < n; i++) {
                add.wrId(i).sge(0).set(local, 8L * i, 8);
                assertEquals(0, p.sa.qp.postSend(add), "post " + i);
            }
            SendWr swap = new SendWr().wrId(n).opcode(SendWr.OP_ATOMIC_CMP_SWAP).atomic(word.address(), remote.rkey(), 3L * n, -1)
                .numSge(1);
            swap.sge(0).set(local, 8L * n, 8);
            assertEquals(0, p.sa.qp.postSend(swap));
            WorkCompletion[] wcs = CompletionQueue.array(n + 1);
            assertEquals(n + 1, VerbsPair.await(p.sa.cq, wcs, n + 1));
            for (int i = 0; i < n; i++) {
                assertEquals(i, wcs[i].wrId());
                assertEquals(WcStatus.SUCCESS, wcs[i].status());
                assertEquals(WcOpcode.FETCH_ADD, wcs[i].opcode());
                assertEquals(8, wcs[i].byteLength());
                assertEquals(3L * i, results.get(ValueLayout.JAVA_LONG, 8L * i), "add " + i + " saw every add before it, once");
            }
            assertEquals(WcOpcode.COMP_SWAP, wcs[n].opcode());
            assertEquals(3L * n, results.get(ValueLayout.JAVA_LONG, 8L * n), "the swap found the sum, once each");
            assertEquals(-1, word.get(ValueLayout.JAVA_LONG, 0), "and swapped it");
            DeviceAttributes caps = p.a.queryDevice();
            assertEquals(DeviceAttributes.ATOMIC_GLOB, caps.atomicCap());
            assertEquals(QpAttributes.RD_ATOMIC_LIMIT, caps.maxQpRdAtom());
        }
    }

    @Test
    void shouldRefuseAtPostingWhatRxeRefuses() {
        try (SimWorld w = new SimWorld(62); VerbsPair p = rcPair(w)) {
            MemorySegment word = p.arena.allocate(16, 8);
            MemoryRegion remote = p.sb.pd.registerMemory(word, Access.REMOTE_ATOMIC);
            MemorySegment mem = p.arena.allocate(64, 8);
            MemoryRegion writable = p.sa.pd.registerMemory(mem, Access.LOCAL_WRITE);
            MemoryRegion readOnly = p.sa.pd.registerMemory(p.arena.allocate(64, 8), Access.REMOTE_READ);
            SendWr wr = new SendWr().opcode(SendWr.OP_ATOMIC_FETCH_ADD).atomic(word.address(), remote.rkey(), 1, 0).numSge(1);
            wr.wrId(1).sge(0).set(writable, 0, 16);
            assertEquals(0, p.sa.qp.postSend(wr));
            wr.wrId(2).sge(0).set(readOnly, 0, 8);
            assertEquals(0, p.sa.qp.postSend(wr));
            WorkCompletion[] wcs = CompletionQueue.array(2);
            assertEquals(2, VerbsPair.await(p.sa.cq, wcs, 2));
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, wcs[0].status(), "an atomic's SGE is 8 bytes");
            assertEquals(WcStatus.WR_FLUSH_ERROR, wcs[1].status(), "posted after a refused request: the QP is in ERROR (rxe's requester"
                + " met the bad WQE), so it is flushed; RcLocalErrorOrderTest has the read-only SGE's own LOCAL_PROTECTION_ERROR");
            wr.wrId(3).sge(0).set(writable, 0, 8);
            wr.atomic(word.address() + 4, remote.rkey(), 1, 0);
            VerbsException misaligned = assertThrows(VerbsException.class, () -> p.sa.qp.postSend(wr));
            assertTrue(misaligned.getMessage().contains("8-byte aligned"), misaligned.getMessage());
            wr.atomic(word.address(), remote.rkey(), 1, 0).flags(SendWr.SIGNALED | SendWr.INLINE);
            assertThrows(VerbsException.class, () -> p.sa.qp.postSend(wr));
            assertEquals(0, p.sa.qp.sendsOutstanding(), "nothing refused was posted");
            assertEquals(0, word.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(QpState.ERROR, p.sa.qp.query().state(), "a locally refused RC request puts the QP in ERROR, as in rxe");
        }
    }

    @Test
    void shouldRefuseAtomicsOnSrdOrUd() {
        for (QpType type : new QpType[] {QpType.SRD, QpType.UD}) {
            try (SimWorld w = new SimWorld(63); VerbsPair p = new VerbsPair(Context.open(Device.sim(w)), Context.open(Device.sim(w)),
                type, 1, 4096)) {
                MemoryRegion remote = p.sb.pd.registerMemory(p.arena.allocate(8, 8), Access.REMOTE_ATOMIC);
                SendWr wr = new SendWr().wrId(7).opcode(SendWr.OP_ATOMIC_CMP_SWAP).destination(p.sa.toPeer, p.sb.qp.qpNum(), VerbsPair.QKEY)
                    .atomic(remote.segment().address(), remote.rkey(), 0, 1).numSge(1);
                wr.sge(0).set(p.sa.mr, 0, 8);
                assertEquals(0, p.sa.qp.postSend(wr));
                WorkCompletion[] wcs = CompletionQueue.array(1);
                assertEquals(1, VerbsPair.await(p.sa.cq, wcs, 1));
                assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, wcs[0].status(), type + " takes no atomics");
            }
        }
    }

    /**
     * DEDICATED: the post ring hands the agent the atomic's operands; the frames it sends carry
     * them (nobody answers: nothing is delivered).
     */
    @Test
    void shouldCarryTheOperandsThroughThePostRingInDedicatedMode() throws InterruptedException {
        List<byte[]> sent = new CopyOnWriteArrayList<>();
        try (SimNetwork network = new SimNetwork(64); Context c = Context.open(Device.of("dedicated",
            new Recording(network.addHost(SimWorld.macOf(1)), sent), System::nanoTime), new ContextConfig()
                    .mode(ThreadingMode.DEDICATED))) {
            ProtectionDomain pd = c.allocPd();
            CompletionQueue cq = c.createCq(16);
            QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(8).maxRecvWr(1).build());
            AddressHandle ah = pd.createAddressHandle(SimWorld.macOf(2), SimWorld.ipOf(2), c.udpPort());
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
            qp.modify(new QpAttributes().state(QpState.RTR).addressHandle(ah.handle()).pathMtu(1024).destQpn(5).rqPsn(1)
                .maxDestRdAtomic(1).minRnrTimer(1));
            qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(1).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(2));
            MemoryRegion local = pd.registerMemory(Arena.ofAuto().allocate(16, 8), Access.LOCAL_WRITE);
            SendWr swap = new SendWr().wrId(1).opcode(SendWr.OP_ATOMIC_CMP_SWAP).atomic(0x7000_0008L, 0x1234, 0x1111_2222_3333_4444L,
                0x5555_6666_7777_8888L).numSge(1);
            swap.sge(0).set(local, 0, 8);
            SendWr add = new SendWr().wrId(2).opcode(SendWr.OP_ATOMIC_FETCH_ADD).atomic(0x7000_0010L, 0x1234, -9, 0).numSge(1);
            add.sge(0).set(local, 8, 8);
            assertEquals(0, qp.postSend(swap));
            assertEquals(0, qp.postSend(add));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (atomicFrames(sent) < 2 && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            ByteBuffer first = frame(sent, PacketType.ATOMIC_CMP_SWAP);
            int at = FrameLayout.SRD_OFFSET + SrdHeader.LENGTH;
            assertEquals(0x7000_0008L, first.getLong(at));
            assertEquals(0x1234, first.getInt(at + 8));
            assertEquals(0x5555_6666_7777_8888L, first.getLong(at + 16), "swap");
            assertEquals(0x1111_2222_3333_4444L, first.getLong(at + 24), "compare");
            ByteBuffer second = frame(sent, PacketType.ATOMIC_FETCH_ADD);
            assertEquals(0x7000_0010L, second.getLong(at));
            assertEquals(-9, second.getLong(at + 16), "add");
            assertEquals(AtomicHeader.LENGTH, second.getShort(FrameLayout.SRD_OFFSET + 2), "the payload is the header alone");
        }
    }

    private static int atomicFrames(List<byte[]> sent) {
        int n = 0;
        for (byte[] f : sent) {
            int type = f[FrameLayout.SRD_OFFSET] & 0x0F;
            n += type == PacketType.ATOMIC_CMP_SWAP || type == PacketType.ATOMIC_FETCH_ADD ? 1 : 0;
        }
        return n;
    }

    private static ByteBuffer frame(List<byte[]> sent, int type) {
        for (byte[] f : sent) {
            if ((f[FrameLayout.SRD_OFFSET] & 0x0F) == type) {
                return ByteBuffer.wrap(f); // big-endian, as the wire
            }
        }
        throw new AssertionError("no " + PacketType.name(type) + " frame among " + sent.size());
    }

    /** Keeps a copy of every frame the agent transmits. */
    private static final class Recording extends ForwardingPacketIo {
        private final List<byte[]> sent;

        Recording(PacketIo inner, List<byte[]> sent) {
            super(inner);
            this.sent = sent;
        }

        @Override
        public int transmit(MbufBatch batch) {
            for (int i = 0; i < batch.count(); i++) {
                var m = batch.get(i);
                byte[] f = new byte[m.dataLength()];
                for (int k = 0; k < f.length; k++) {
                    f[k] = m.getByte(k);
                }
                sent.add(f);
            }
            return inner.transmit(batch);
        }
    }
}
