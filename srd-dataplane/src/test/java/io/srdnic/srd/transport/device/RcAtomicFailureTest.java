package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.RcInternals;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * How an RC atomic is refused, as rxe refuses it: a remote address not 8-byte aligned at posting
 * (EINVAL: nothing posted) and, from a requester that sends one anyway, at the responder with
 * REMOTE_INVALID_REQUEST; what the QP's or the region's access flags do not allow, a bad rkey, a
 * region of another protection domain, a word outside the region or in read-only memory with REMOTE_ACCESS, checked
 * before the alignment. Each refusal fails both QPs and changes nothing in the responder's memory.
 */
class RcAtomicFailureTest {
    private static final long BEFORE = 0x1122_3344_5566_7788L;

    /**
     * One atomic against a word of b that {@code setUp} registers and aims at (it returns
     * {@code {address, rkey}}), sent around the requester's own alignment check when
     * {@code bypass}: the requester's completion, both QPs in ERROR, b's word unchanged.
     */
    private static void refused(String what, int status, boolean bypass, BiFunction<RcPair, MemorySegment, long[]> setUp) {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 46).connect()) {
            MemorySegment region = p.f.arena.allocate(64, 8);
            region.fill((byte) 0x77);
            region.set(ValueLayout.JAVA_LONG, 8, BEFORE);
            long[] target = setUp.apply(p, region);
            MemorySegment out = p.f.arena.allocate(16, 8);
            if (bypass) {
                postAroundTheAlignmentCheck(p, 1, out, target[0], (int) target[1]);
            } else {
                assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_FETCH_ADD, 1, out, 0, target[0],
                        (int) target[1], 1, 0), what);
            }
            assertEquals(TransportDevice.POST_OK, p.atomic(SendOpcode.ATOMIC_CMP_SWAP, 2, out, 8, region.address() + 8, 0, BEFORE, 0),
                    what);
            List<TestQp.Wc> wcs = p.sendCompletions(2, 100 * MS);
            assertEquals(status, wcs.get(0).status(), what);
            assertEquals(WcOpcode.FETCH_ADD, wcs.get(0).opcode(), what);
            assertEquals(WcStatus.WR_FLUSH_ERROR, wcs.get(1).status(), what);
            assertEquals(QpState.ERROR, p.qa.qp().state(), what);
            p.f.runFor(10 * MS);
            assertEquals(QpState.ERROR, p.qb.qp().state(), what + ": the responder's QP fails too, as rxe's does");
            assertEquals(BEFORE, region.get(ValueLayout.JAVA_LONG, 8), what + ": the word did not change");
            assertEquals(0x7777_7777_7777_7777L, region.get(ValueLayout.JAVA_LONG, 0), what + ": nor did its neighbour");
            assertEquals(0x7777_7777_7777_7777L, region.get(ValueLayout.JAVA_LONG, 16), what + ": nor did its neighbour");
            assertEquals(0, p.b.counters().atomicsExecuted, what);
        }
    }

    /** As a requester without rxe's check at posting would send it: straight onto a's send queue. */
    private static void postAroundTheAlignmentCheck(RcPair p, long wrId, MemorySegment out, long address, int rkey) {
        DeviceQp qp = p.qa.qp();
        qp.sqOutstanding++;
        WorkRequest wr = new WorkRequest();
        wr.wrId = wrId;
        wr.opcode = SendOpcode.ATOMIC_FETCH_ADD;
        wr.buffer = out;
        wr.remoteAddress = address;
        wr.rkey = rkey;
        wr.compareOrAdd = 1;
        wr.signaled = true;
        qp.rcRequester.postAtomic(wr, 0);
        p.a.rc.activate(qp.rcRequester);
    }

    private static int key(RcPair p, MemorySegment region, int pd, int access) {
        return p.b.regions().register(region, pd, access);
    }

    /** From a requester that is not srdnic's: a well-formed atomic runs, one with data after its header is an invalid request. */
    @Test
    void shouldNakAnAtomicCarryingDataAfterItsHeaderAsAnInvalidRequest() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 48).connect()) {
            MemorySegment w = p.f.arena.allocate(8, 8);
            int rkey = key(p, w, 0, MemoryRegions.REMOTE_ATOMIC);
            Attacker peer = new Attacker(p.f); // speaks as a's QP: its address, its QPN, the next PSN b expects
            int psn = RcInternals.expectedPsn(p.qb.qp());
            int flags = SrdHeader.FLAG_RC | SrdHeader.FLAG_FIRST | SrdHeader.FLAG_LAST;
            peer.atomic(1, flags, SimFabric.ip(0), SimFabric.mac(0), p.qa.qpn(), p.qb.qpn(), psn, PacketType.ATOMIC_FETCH_ADD, w.address(),
                rkey, 5, 0, 0);
            peer.settle();
            assertEquals(5, w.get(ValueLayout.JAVA_LONG, 0), "the forged frames are well made: this one ran");
            peer.atomic(1, flags, SimFabric.ip(0), SimFabric.mac(0), p.qa.qpn(), p.qb.qpn(), psn + 1, PacketType.ATOMIC_FETCH_ADD,
                w.address(), rkey, 5, 0, 8);
            peer.settle();
            assertEquals(5, w.get(ValueLayout.JAVA_LONG, 0), "data after the header: not run");
            assertEquals(1, p.b.counters().dropsSent[DropReason.REMOTE_INVALID_REQUEST]);
            assertEquals(1, p.b.counters().atomicsExecuted);
            assertEquals(QpState.ERROR, p.qb.qp().state(), "a class C error: the responder's QP fails");
        }
    }

    @Test
    void shouldRefuseAMisalignedAtomicAtPosting() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 47).connect()) {
            MemorySegment region = p.f.arena.allocate(64, 8);
            int rkey = key(p, region, 0, MemoryRegions.REMOTE_ATOMIC);
            MemorySegment out = p.f.arena.allocate(8, 8);
            for (int misalignment = 1; misalignment < 8; misalignment++) {
                assertEquals(TransportDevice.POST_INVALID,
                    p.atomic(SendOpcode.ATOMIC_CMP_SWAP, 1, out, 0, region.address() + misalignment, rkey, 0, 1), "+" + misalignment);
            }
            p.f.runFor(MS);
            assertEquals(List.of(), p.qa.sends(), "no completion: nothing was posted");
            assertEquals(0, p.qa.qp().sendsOutstanding());
            assertEquals(QpState.RTS, p.qa.qp().state());
            assertEquals(0, p.a.counters().txData);
        }
    }

    @Test
    void shouldNakAMisalignedAtomicThatReachesTheResponderAsAnInvalidRequest() {
        refused("misaligned", WcStatus.REMOTE_INVALID_REQUEST_ERROR, true,
            (p, r) -> new long[] {r.address() + 12, key(p, r, 0, MemoryRegions.REMOTE_ATOMIC)});
    }

    @Test
    void shouldRefuseWhatMemoryProtectionDoesNotAllowWithRemoteAccessError() {
        int remoteAccess = WcStatus.REMOTE_ACCESS_ERROR;
        refused("bad rkey", remoteAccess, false, (p, r) -> new long[] {r.address() + 8, key(p, r, 0, MemoryRegions.REMOTE_ATOMIC) ^ 0x55});
        refused("region without REMOTE_ATOMIC", remoteAccess, false,
            (p, r) -> new long[] {r.address() + 8, key(p, r, 0, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ)});
        refused("region of another PD", remoteAccess, false, (p, r) ->
                new long[] {r.address() + 8, key(p, r, 7, MemoryRegions.REMOTE_ATOMIC)});
        refused("word past the region's end", remoteAccess, false,
            (p, r) -> new long[] {r.address() + 8, key(p, r.asSlice(0, 12), 0, MemoryRegions.REMOTE_ATOMIC)});
        refused("memory registered read-only", remoteAccess, false,
            (p, r) -> new long[] {r.address() + 8, key(p, r.asReadOnly(), 0, MemoryRegions.REMOTE_ATOMIC)});
        refused("deregistered region", remoteAccess, false, (p, r) -> {
            int k = key(p, r, 0, MemoryRegions.REMOTE_ATOMIC);
            p.b.regions().deregister(k);
            return new long[] {r.address() + 8, k};
        });
        refused("QP without ACCESS_REMOTE_ATOMIC", remoteAccess, false, (p, r) -> {
            p.qb.qp().modify(new QpAttributes().accessFlags(QpAttributes.ACCESS_REMOTE_WRITE | QpAttributes.ACCESS_REMOTE_READ));
            return new long[] {r.address() + 8, key(p, r, 0, MemoryRegions.REMOTE_ATOMIC)};
        });
        refused("misaligned with a bad rkey: the rkey is checked first, as rxe does", remoteAccess, true,
            (p, r) -> new long[] {r.address() + 12, key(p, r, 0, MemoryRegions.REMOTE_ATOMIC) ^ 0x55});
    }
}
