package io.srdnic.srd.transport.device;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.PacketIo;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.counters.SrdCounters;
import io.srdnic.srd.transport.port.CycleClock;
import io.srdnic.srd.transport.rc.RcConnections;
import io.srdnic.srd.transport.srd.PathProbes;
import io.srdnic.srd.transport.srd.SrdAckIntake;
import io.srdnic.srd.transport.srd.SrdResponder;
import io.srdnic.srd.transport.ud.UdDatagrams;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdParser;
import java.lang.foreign.Arena;

/**
 * The receive half of a duty cycle and nothing else: reads a burst from the device, parses each
 * frame, checks it is addressed to this device from a possible peer (each refusal counted), and
 * routes it: RC and SRC packets to {@link RcConnections}, SRD ACKs to {@link SrdAckIntake},
 * probes to {@link PathProbes}, SRD data to {@link SrdResponder}, UD datagrams to
 * {@link UdDatagrams}.
 */
final class PacketDispatcher {
    private final PacketIo io;
    private final MbufBatch rxBatch;
    private final int udpPort;
    private final int mtu;
    private final int localIp;
    private final SrdCounters counters;
    private final RcConnections rc;
    private final SrdAckIntake ackIntake;
    private final PathProbes probes;
    private final SrdResponder responder;
    private final UdDatagrams datagrams;
    private final CycleClock clock;

    PacketDispatcher(PacketIo io, Arena arena, TransportConfig config, SrdCounters counters, RcConnections rc, SrdAckIntake ackIntake,
                     PathProbes probes, SrdResponder responder, UdDatagrams datagrams, CycleClock clock) {
        this.io = io;
        this.rxBatch = new MbufBatch(arena, config.burst());
        this.udpPort = config.udpPort();
        this.mtu = config.mtu();
        this.localIp = config.localIp();
        this.counters = counters;
        this.rc = rc;
        this.ackIntake = ackIntake;
        this.probes = probes;
        this.responder = responder;
        this.datagrams = datagrams;
        this.clock = clock;
    }

    /**
     * Whether a packet from {@code ip} can be from a peer of a device at {@code localIp}: not
     * 0.0.0.0, broadcast, multicast or reserved (224/3), loopback, nor the device's own address (a
     * reflected or spoofed frame).
     */
    static boolean isUsableSource(int ip, int localIp) {
        int top = ip >>> 24;
        return ip != 0 && top < 224 && top != 127 && ip != localIp;
    }

    /** Reads one burst and hands each frame on; returns the frames read. */
    int receive(long now) {
        // The last burst's mbufs go back now rather than right after it was handled: that cycle's
        // messages reached their CQ without waiting for the free.
        if (!rxBatch.isEmpty()) {
            io.free(rxBatch);
        }
        int n = io.receive(rxBatch);
        if (n < rxBatch.capacity()) {
            clock.drained(now);
        }
        for (int i = 0; i < n; i++) {
            Mbuf m = rxBatch.get(i);
            int type = SrdParser.parse(m, udpPort, mtu);
            if (type < 0) {
                counters.parseErrors[Ipv4UdpFrame.error(type).ordinal()]++;
                continue;
            }
            if (Ipv4UdpFrame.destinationIp(m) != localIp) {
                counters.notForUs++;
                continue;
            }
            if (!isUsableSource(Ipv4UdpFrame.sourceIp(m), localIp)) {
                counters.badSource++;
                continue;
            }
            int flags = SrdHeader.flags(m); // read once: RC's flag, then the unreliable one
            if ((flags & SrdHeader.FLAG_RC) != 0) {
                rc.onPacket(m, type, now);
                continue;
            }
            switch (type) {
                case PacketType.ACK -> ackIntake.onAck(m, now);
                case PacketType.PROBE -> probes.onProbe(m);
                case PacketType.PROBE_REPLY -> probes.onProbeReply(m);
                default -> {
                    if ((flags & SrdHeader.FLAG_UNRELIABLE) != 0) {
                        datagrams.onDatagram(m, type);
                    } else {
                        responder.onData(m, type, now);
                    }
                }
            }
        }
        responder.endOfBurst();
        return n;
    }

    /** Gives the last burst's mbufs back (the transport is closing). */
    void close() {
        io.free(rxBatch);
    }
}
