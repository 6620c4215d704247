package io.srdnic.srd.fuzz;

import io.srdnic.pmd.ForwardingPacketIo;
import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import java.util.Arrays;

/**
 * Watches one host's real traffic (on the victim, below the injector, so forged frames are not
 * seen). On every host it tells the {@link Ledger} each PSN a legitimate message was sent under
 * (its payload starts with the message id). On the victim it also keeps, per peer, the live values
 * of the conversation — context ids, epochs, PSNs, send bases, timestamps — so forged frames can be
 * made close to what the victim expects and reach the transport's deep logic rather than its first
 * check. {@link #reset} forgets all of it, for the next input.
 */
final class Sniffer extends ForwardingPacketIo {
    /** Peers are hosts 1..PEERS; index 0 (the victim itself) is unused. */
    static final int PEERS = 2;

    private final int port;
    private final int mtu;
    private final int[] peerIps;
    private final boolean victim;
    private final Mbuf view = new Mbuf();
    private Ledger ledger;

    /** The victim's id of its context with the peer (source context of what it sends there). */
    final int[] victimContext = new int[PEERS + 1];
    /** The peer's id of its context with the victim. */
    final int[] peerContext = new int[PEERS + 1];
    final int[] peerEpoch = new int[PEERS + 1];
    /** Last PSN of a data packet the victim sent the peer, and the victim's send base then. */
    final int[] victimPsn = new int[PEERS + 1];
    final int[] victimSendBase = new int[PEERS + 1];
    final long[] victimTimestamp = new long[PEERS + 1];
    /** Last PSN of a data packet the peer sent the victim, and the peer's send base then. */
    final int[] peerPsn = new int[PEERS + 1];
    final int[] peerSendBase = new int[PEERS + 1];
    /** Last cumulative PSN the peer acknowledged to the victim. */
    final int[] peerCumulative = new int[PEERS + 1];
    /** The highest PSN (wrap-aware) of a data packet the victim sent the peer. */
    final int[] victimMaxPsn = new int[PEERS + 1];

    Sniffer(PacketIo inner, int port, int mtu, int[] peerIps, boolean victim) {
        super(inner);
        this.port = port;
        this.mtu = mtu;
        this.peerIps = peerIps;
        this.victim = victim;
    }

    /** Forgets everything seen so far; from now on, PSNs are told to {@code ledger}. */
    void reset(Ledger ledger) {
        this.ledger = ledger;
        for (int[] a : new int[][] {victimContext, peerContext, peerEpoch, victimPsn, victimSendBase, peerPsn, peerSendBase,
            peerCumulative, victimMaxPsn}) {
            Arrays.fill(a, 0);
        }
        Arrays.fill(victimTimestamp, 0);
    }

    private int peer(int ip) {
        for (int p = 1; p <= PEERS; p++) {
            if (peerIps[p] == ip) {
                return p;
            }
        }
        return 0;
    }

    @Override
    public int receive(MbufBatch batch) {
        int n = inner.receive(batch);
        if (!victim) {
            return n;
        }
        for (int i = 0; i < n; i++) {
            Mbuf m = view.wrap(batch.address(i));
            int type = SrdParser.parse(m, port, mtu);
            int p = type > 0 ? peer(Ipv4UdpFrame.sourceIp(m)) : 0;
            if (p == 0) {
                continue;
            }
            if (type == PacketType.ACK) {
                peerContext[p] = SrdAck.sourceContext(m);
                peerEpoch[p] = SrdAck.epoch(m);
                peerCumulative[p] = SrdAck.cumulativePsn(m);
            } else if (PacketType.isData(type)) {
                peerContext[p] = SrdHeader.sourceContext(m);
                peerEpoch[p] = SrdHeader.epoch(m);
                peerPsn[p] = SrdHeader.psn(m);
                peerSendBase[p] = SrdHeader.sendBase(m);
            }
        }
        return n;
    }

    @Override
    public int transmit(MbufBatch batch) {
        for (int i = 0; i < batch.count(); i++) {
            Mbuf m = view.wrap(batch.address(i));
            int type = SrdParser.parse(m, port, mtu);
            if (PacketType.isData(type) && SrdHeader.payloadLength(m) >= 8 && (SrdHeader.flags(m) & SrdHeader.FLAG_UNRELIABLE) == 0) {
                ledger.sentUnder(m.getLongBE(SrdHeader.PAYLOAD_OFFSET), SrdHeader.psn(m));
            }
            int p = victim && type > 0 ? peer(Ipv4UdpFrame.destinationIp(m)) : 0;
            if (p == 0) {
                continue;
            }
            if (type == PacketType.ACK) {
                victimContext[p] = SrdAck.sourceContext(m);
            } else if (PacketType.isData(type)) {
                victimContext[p] = SrdHeader.sourceContext(m);
                victimPsn[p] = SrdHeader.psn(m);
                if (SrdHeader.psn(m) - victimMaxPsn[p] > 0 || victimMaxPsn[p] == 0) {
                    victimMaxPsn[p] = SrdHeader.psn(m);
                }
                victimSendBase[p] = SrdHeader.sendBase(m);
                victimTimestamp[p] = SrdHeader.timestamp(m);
                if (SrdHeader.destinationContext(m) != 0) {
                    peerContext[p] = SrdHeader.destinationContext(m);
                }
            }
        }
        return inner.transmit(batch);
    }
}
