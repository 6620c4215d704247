package io.srdnic.srd.transport.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.port.MemoryRegions;
import io.srdnic.srd.transport.rc.RcInternals;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * RC's receive path under attack from the one sender a connection admits: frames claiming to be
 * from the peer QP (its address and QPN: the fuzzer knows them, as an on-path attacker would), of
 * every data type, with fuzzed flags, PSNs around the expected one, receive sequence numbers, RDMA,
 * READ_RESPONSE and atomic headers aimed at and around the responder's region, and payloads.
 * Such a forger can inject into the connection (as on InfiniBand, nothing authenticates a packet
 * that names the right address, QPN and PSN), so what is checked is that the transport stays within
 * its bounds whatever arrives: no exception leaves it, no byte outside the registered region
 * changes, no receive completes longer than its buffer, and afterwards a real 8 KiB SEND completes
 * (SUCCESS, or an error with the QP in ERROR) — nothing hangs.
 */
class RcReceiveFuzzTest {
    private static final int[] TYPES = {PacketType.SEND, PacketType.SEND_WITH_IMM, PacketType.RDMA_WRITE, PacketType.RDMA_READ,
        PacketType.RDMA_WRITE_WITH_IMM, PacketType.READ_RESPONSE, PacketType.ATOMIC_CMP_SWAP, PacketType.ATOMIC_FETCH_ADD};

    @FuzzTest(maxDuration = "6s")
    void forgedPeerFramesNeverBreakTheConnection(FuzzedDataProvider data) {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 51).connect(); Arena arena = Arena.ofConfined()) {
            MemorySegment memory = p.f.arena.allocate(3 * 4096, 64); // a guard page either side of the region
            memory.fill((byte) 0x3C);
            MemorySegment region = memory.asSlice(4096, 4096);
            int rkey = p.b.regions().register(region, 0, MemoryRegions.REMOTE_WRITE | MemoryRegions.REMOTE_READ
                | MemoryRegions.REMOTE_ATOMIC);
            byte[] guards = guards(memory);
            p.receives(4, 8192);
            SimPort attacker = p.f.network.addHost(0x02_00_00_00_0B_ADL);
            MbufBatch batch = new MbufBatch(arena, 1);
            Mbuf m = new Mbuf();
            int frames = data.consumeInt(1, 24);
            for (int i = 0; i < frames && data.remainingBytes() > 0; i++) {
                batch.clear();
                if (attacker.allocate(batch, 1) != 1) {
                    break;
                }
                m.wrap(batch.address(0));
                int length = forge(m, data, p, region.address(), rkey);
                Ipv4UdpFrame.write(m, SimFabric.mac(0), SimFabric.mac(1), SimFabric.ip(0), SimFabric.ip(1),
                    SrdPort.ENTROPY_BASE + data.consumeInt(0, 15), SrdPort.DEFAULT, length, true);
                attacker.transmit(batch);
                p.f.runFor(data.consumeLong(0, 200_000));
            }
            p.f.runFor(1_000_000);
            assertArrayEquals(guards, guards(memory), "nothing outside the registered region changed");
            MemorySegment tx = p.random(8192, 52);
            int posted = p.post(SendOpcode.SEND, 99, tx, 0, 8192, 0, 0, 0);
            if (p.qa.qp().state() != QpState.RTS) {
                assertEquals(TransportDevice.POST_OK, posted, "in ERROR a post is taken and flushed");
                assertEquals(WcStatus.WR_FLUSH_ERROR, p.qa.sends().get(0).status());
                return;
            }
            assertEquals(TransportDevice.POST_OK, posted);
            List<TestQp.Wc> wcs = p.sendCompletions(1, 2_000 * RcPair.MS);
            if (wcs.get(0).status() != WcStatus.SUCCESS) {
                assertEquals(QpState.ERROR, p.qa.qp().state(), "an error completion leaves the QP in ERROR: " + wcs);
            }
            p.f.runFor(1_000_000);
            for (TestQp.Wc r : p.qb.receives()) {
                assertTrue(r.byteLength() <= 8192, "a receive completed longer than its buffer: " + r);
            }
        }
    }

    private static byte[] guards(MemorySegment memory) {
        byte[] out = new byte[2 * 4096];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, 0, out, 0, 4096);
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, 2 * 4096, out, 4096, 4096);
        return out;
    }

    /** Writes a forged RC packet from a's QP into {@code m}; returns its SRD length. */
    private static int forge(Mbuf m, FuzzedDataProvider data, RcPair p, long regionAddress, int rkey) {
        int type = data.pickValue(TYPES);
        int flags = SrdHeader.FLAG_RC | (data.consumeBoolean() ? SrdHeader.FLAG_FIRST : 0)
                | (data.consumeBoolean() ? SrdHeader.FLAG_LAST : 0);
        int psn = RcInternals.expectedPsn(p.qb.qp()) + data.consumeInt(-4, 300);
        int ext = PacketType.extendedHeaderLength(type);
        long address = regionAddress + data.consumeLong(-64, 4160);
        int key = data.consumeBoolean() ? rkey : data.consumeInt();
        if (type == PacketType.READ_RESPONSE) {
            ReadResponseHeader.write(m, data.consumeInt(), data.consumeInt(-8, 9000), data.consumeInt(-8, 9000), data.consumeInt(0, 6));
        } else if (type == PacketType.ATOMIC_CMP_SWAP || type == PacketType.ATOMIC_FETCH_ADD) {
            AtomicHeader.write(m, address, key, data.consumeLong(), data.consumeLong());
        } else if (ext > 0) {
            RdmaHeader.write(m, address, key, data.consumeInt(-8, 9000), data.consumeInt(-8, 9000));
        }
        int payload = data.consumeInt(0, Math.min(2048, p.b.mtu() - ext));
        for (int i = 0; i < payload; i++) {
            m.putByte(SrdHeader.PAYLOAD_OFFSET + ext + i, data.consumeByte());
        }
        SrdHeader.write(m, type, flags, ext + payload, 0, 0, 0, psn, psn, p.qa.qpn(), p.qb.qpn(), data.consumeInt(-1, 6),
            data.consumeInt(), 0);
        return SrdHeader.LENGTH + ext + payload;
    }
}
