package io.srdnic.srd.transport.device;

import static io.srdnic.srd.transport.device.RcPair.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.sim.LinkConfig;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.engine.ReliableSender;
import io.srdnic.srd.transport.rc.RcInternals;
import io.srdnic.srd.wire.DropReason;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A connection admits its peer QP only: RC packets and ACKs forged by another host, from another
 * QP, or naming PSNs never sent change nothing; RC packets to a QP of another type, and SRD packets
 * to an RC QP, are refused.
 */
class RcHostileFrameTest {

    @Test
    void shouldDropRcPacketsFromAnyoneButThePeerQp() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 41).connect()) {
            p.receives(4, 256);
            Attacker x = new Attacker(p.f);
            int expected = RcInternals.expectedPsn(p.qb.qp());
            x.rcSend(1, 0x0A00_0063, p.qa.qpn(), p.qb.qpn(), expected, 0, 8); // the peer's QPN, another host
            x.rcSend(1, SimFabric.ip(0), p.qa.qpn() ^ 1, p.qb.qpn(), expected, 0, 8); // the peer's host, another QP
            x.settle();
            assertEquals(2, p.b.counters().rcForeign);
            assertEquals(List.of(), p.qb.receives(), "nothing delivered");
            assertEquals(expected, RcInternals.expectedPsn(p.qb.qp()), "the connection's PSN did not move");
            MemorySegment tx = p.random(64, 41);
            assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, 1, tx, 0, 64, 0, 0, 0));
            assertEquals(WcStatus.SUCCESS, p.sendCompletions(1, 10 * MS).get(0).status(), "the real peer still gets through");
            assertEquals(1, p.qb.receives().size());
        }
    }

    @Test
    void shouldIgnoreForgedRcAcksAndNaks() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 42).connect()) {
            p.f.network.blackhole(0, true); // a's packets go nowhere: only the forgeries answer
            MemorySegment tx = p.random(64, 42);
            for (int i = 0; i < 3; i++) {
                assertEquals(TransportDevice.POST_OK, p.post(SendOpcode.SEND, i, tx, 0, 64, 0, 0, 0));
            }
            p.f.runFor(20_000);
            p.f.network.blackhole(0, false);
            ReliableSender s = RcInternals.sender(p.qa.qp());
            Attacker x = new Attacker(p.f);
            x.rcAck(0, 0x0A00_0063, p.qb.qpn(), p.qa.qpn(), s.nextPsn); // from another host
            x.rcAck(0, SimFabric.ip(1), p.qb.qpn() ^ 1, p.qa.qpn(), s.nextPsn); // from another QP
            x.rcAck(0, SimFabric.ip(1), p.qb.qpn(), p.qa.qpn(), s.nextPsn + 5); // PSNs never sent
            x.rcAck(0, 0x0A00_0063, p.qb.qpn(), p.qa.qpn(), s.sendBase, s.sendBase, DropReason.REMOTE_ACCESS); // a fatal NAK, forged
            p.f.runFor(20_000);
            assertEquals(List.of(), p.qa.sends(), "nothing completed on a forged ACK");
            assertEquals(QpState.RTS, p.qa.qp().state(), "nor did a forged NAK fail the QP");
            assertEquals(3, p.a.counters().staleAcks);
            assertEquals(1, p.a.counters().acksRefused);
            p.receives(3, 256);
            assertEquals(3, p.sendCompletions(3, 100 * MS).stream().filter(w -> w.status() == WcStatus.SUCCESS).count());
        }
    }

    @Test
    void shouldRefusePacketsOfAnotherQpType() {
        try (RcPair p = new RcPair(LinkConfig.DEFAULT, 43).connect()) {
            TestQp srd = p.f.qp(p.b, 4, 256);
            Attacker x = new Attacker(p.f);
            x.rcSend(1, SimFabric.ip(0), p.qa.qpn(), srd.qpn(), 0, 0, 8);
            x.data(1, SimFabric.ip(0), SimFabric.mac(0), 77, 0, 0x4242, 1, 1, p.qb.qpn(), SimFabric.QKEY, 8);
            x.settle();
            assertEquals(1, p.b.counters().rcRefused, "an RC packet to an SRD QP");
            assertTrue(p.b.counters().dropsSent[DropReason.BAD_DEST_QP] >= 1, "an SRD packet to an RC QP is a drop indication");
            assertEquals(List.of(), srd.receives());
            assertEquals(List.of(), p.qb.receives());
        }
    }
}
