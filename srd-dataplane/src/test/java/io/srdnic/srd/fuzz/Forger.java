package io.srdnic.srd.fuzz;

import static io.srdnic.srd.fuzz.FuzzWorld.VICTIM;
import static io.srdnic.srd.fuzz.ReceivePathFuzzTest.A;
import static io.srdnic.srd.fuzz.ReceivePathFuzzTest.B;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.SrdHeader;
import java.util.Arrays;

/**
 * Makes the attacker's frames from the fuzzer's input: mostly well-formed SRD — valid
 * Ethernet/IPv4/UDP with correct checksums, version 1 — whose every header field is the live value
 * of the conversation (sniffed from the real traffic), one close to it, or anything, as the input
 * says: types, context ids, epochs, PSNs, send base, QPNs, Q_Key, ACK cumulative PSN, SACK words,
 * drop entries, RDMA and READ_RESPONSE extended headers, source IP (the peers', 0.0.0.0,
 * strangers', floods of many) and MAC. Now and then another SRD version or a bad UDP checksum.
 * Live values make the frames reach the transport's deep logic rather than its first check.
 * <p>
 * What it reads from the input, and in what order, is what the committed inputs mean: change it and
 * the reproducers of past findings no longer replay their attacks.
 */
final class Forger {
    private static final int[] TYPES = {PacketType.SEND, PacketType.SEND, PacketType.SEND_WITH_IMM, PacketType.RDMA_WRITE,
        PacketType.RDMA_READ, PacketType.ACK, PacketType.ACK, PacketType.ACK, PacketType.PROBE, PacketType.PROBE_REPLY};

    /** The frame being made; up to an ACK with every drop entry, or an SRD header and the largest payload. */
    final byte[] frame = new byte[1600];
    private final HostileFabric f;
    private final FuzzedDataProvider data;
    private final Sniffer s;

    Forger(HostileFabric fabric, FuzzedDataProvider data) {
        this.f = fabric;
        this.data = data;
        this.s = fabric.world.victimSniffer;
    }

    /** The live value, one close to it, or anything, as the input says. */
    private int near(int live) {
        return switch (data.consumeInt(0, 7)) {
            case 0, 1, 2, 3 -> live;
            case 4, 5 -> live + data.consumeInt(-16, 16);
            case 6 -> live + data.consumeInt(-(1 << 20), 1 << 20);
            default -> data.consumeInt();
        };
    }

    private int epochNear(int live) {
        return switch (data.consumeInt(0, 7)) {
            case 0, 1, 2, 3, 4 -> live;
            case 5 -> live + 1;
            case 6 -> 0;
            default -> data.consumeInt();
        };
    }

    /**
     * Writes one forged frame into {@link #frame}; returns its length. {@code floodIndex} > 0
     * makes it one of a flood: the source address moves on with the index.
     */
    int forge(int floodIndex) {
        int who = data.consumeInt(0, 7);
        int peer = who <= 2 ? A : who <= 4 ? B : 1 + (who & 1);
        int srcIp = switch (who) {
            case 0, 1, 2, 3, 4 -> FuzzWorld.ip(peer);
            case 5 -> 0x0A00_0000 | data.consumeInt(4, 250);
            case 6 -> 0;
            default -> data.consumeInt();
        };
        if (floodIndex > 0 && (who >= 5 || data.consumeBoolean())) {
            srcIp += floodIndex;
        }
        long srcMac = switch (data.consumeInt(0, 5)) {
            case 0, 1, 2 -> FuzzWorld.mac(peer);
            case 3 -> FuzzWorld.mac(VICTIM);
            case 4 -> 0xFFFF_FFFF_FFFFL;
            default -> data.consumeLong() & 0xFFFF_FFFF_FFFFL;
        };
        long dstMac = data.consumeInt(0, 15) == 0 ? data.consumeLong() & 0xFFFF_FFFF_FFFFL : FuzzWorld.mac(VICTIM);
        int dstIp = data.consumeInt(0, 15) == 0 ? data.consumeInt() : FuzzWorld.ip(VICTIM);
        int srcPort = data.consumeInt(0, 7) == 0 ? data.consumeInt(0, 0xFFFF) : 49152 + data.consumeInt(0, 3);
        int type = data.pickValue(TYPES);
        Arrays.fill(frame, 0, FuzzFrames.SRD + FuzzFrames.ACK_HEADER + 8 * 17, (byte) 0);
        int srdLength;
        if (type == PacketType.ACK) {
            srdLength = ack(peer);
        } else {
            srdLength = dataOrProbe(type, peer);
        }
        FuzzFrames.l2l4(frame, srcMac, dstMac, srcIp, dstIp, srcPort, FuzzFrames.PORT, srdLength);
        int length = Math.max(60, FuzzFrames.SRD + srdLength);
        if (data.consumeInt(0, 31) == 0) {
            frame[FuzzFrames.SRD] = (byte) ((data.consumeInt(0, 15) << 4) | type);         // another SRD version
        }
        FuzzFrames.fixIpChecksum(frame);
        switch (data.consumeInt(0, 7)) {
            case 0 -> { }                                                                  // no UDP checksum
            case 1 -> FuzzFrames.put16(frame, FuzzFrames.UDP_CHECKSUM, data.consumeInt(1, 0xFFFF)); // a wrong one, mostly
            default -> FuzzFrames.fixUdpChecksum(frame, length);
        }
        return length;
    }

    private int dataOrProbe(int type, int peer) {
        int flags = switch (data.consumeInt(0, 7)) {
            case 0, 1, 2, 3 -> 0;
            case 4 -> SrdHeader.FLAG_RETRANSMISSION;
            case 5 -> SrdHeader.FLAG_UNRELIABLE;
            default -> data.consumeInt(0, 255);
        };
        byte[] payload = PacketType.isData(type) ? data.consumeBytes(data.consumeInt(0, Ledger.SLOT + 16)) : new byte[0];
        int srd = FuzzFrames.SRD;
        frame[srd] = (byte) (0x10 | type);
        frame[srd + 1] = (byte) flags;
        FuzzFrames.put32(frame, srd + 4, near(s.peerContext[peer]));
        FuzzFrames.put32(frame, srd + 8, near(s.victimContext[peer]));
        FuzzFrames.put32(frame, srd + 12, epochNear(s.peerEpoch[peer]));
        FuzzFrames.put32(frame, srd + 16, near(s.peerPsn[peer] + 1));
        FuzzFrames.put32(frame, srd + 20, near(s.peerSendBase[peer]));
        FuzzFrames.put32(frame, srd + 24, data.consumeInt(0, 3) != 0 ? f.qps[peer].qpn() : data.consumeInt(0, FuzzFrames.MAX_QPN));
        FuzzFrames.put32(frame, srd + 28, switch (data.consumeInt(0, 7)) {
            case 0, 1, 2, 3, 4 -> f.qps[VICTIM].qpn();
            case 5 -> f.victimUd.qpn();
            default -> data.consumeInt(0, FuzzFrames.MAX_QPN);
        });
        FuzzFrames.put32(frame, srd + 32, data.consumeInt(0, 7) != 0 ? HostileFabric.QKEY : data.consumeInt());
        FuzzFrames.put32(frame, srd + 36, data.consumeInt());
        FuzzFrames.put64(frame, srd + 40, f.now() + (data.consumeBoolean() ? 0 : data.consumeLong())); // relative: replays the same
        int extended = 0;
        int carried = payload.length;
        if (type == PacketType.RDMA_WRITE || type == PacketType.RDMA_READ) {
            extended = rdmaHeader(type, carried);
            carried = type == PacketType.RDMA_READ && extended > 0 && data.consumeInt(0, 7) != 0 ? 0 : carried; // a READ carries no data
        }
        FuzzFrames.put16(frame, srd + 2, extended + carried);
        System.arraycopy(payload, 0, frame, srd + FuzzFrames.SRD_HEADER + extended, carried);
        return FuzzFrames.SRD_HEADER + extended + carried;
    }

    /**
     * Gives an RDMA packet the extended header the parser requires, so that it reaches the
     * responder's RDMA checks: an RDMA_WRITE stays one or becomes the RDMA_WRITE_WITH_IMM that ends a
     * write, an RDMA_READ stays one or becomes a READ_RESPONSE; now and then it gets none (refused as
     * BAD_LENGTH, as every RDMA packet was before the headers existed). Returns the header's length.
     * These choices are read after all the older inputs read for a data packet, so that an input
     * with no bytes left for them makes a well-formed packet of the type it picked.
     */
    private int rdmaHeader(int type, int dataLength) {
        int at = FuzzFrames.SRD + FuzzFrames.SRD_HEADER;
        int variant = data.consumeInt(0, 7);
        if (variant == 7) {
            return 0;
        }
        if (variant == 6 && type == PacketType.RDMA_READ) {
            frame[FuzzFrames.SRD] = (byte) (0x10 | PacketType.READ_RESPONSE);
            FuzzFrames.put32(frame, at, data.consumeInt());                                            // token
            FuzzFrames.put32(frame, at + 4, data.consumeBoolean() ? 0 : data.consumeInt());           // offset in the read
            FuzzFrames.put32(frame, at + 8, data.consumeBoolean() ? dataLength : data.consumeInt());  // the read's length
            FuzzFrames.put32(frame, at + 12, (data.consumeInt(0, 7) == 0 ? data.consumeInt(0, 255) : 0) << 24); // status, reserved
            return FuzzFrames.READ_RESPONSE_HEADER;
        }
        if (variant == 6) {
            frame[FuzzFrames.SRD] = (byte) (0x10 | PacketType.RDMA_WRITE_WITH_IMM);
        }
        FuzzFrames.put64(frame, at, data.consumeBoolean() ? 0 : data.consumeLong());                 // remote address
        FuzzFrames.put32(frame, at + 8, data.consumeInt());                                           // rkey
        FuzzFrames.put32(frame, at + 12, data.consumeBoolean() ? dataLength : data.consumeInt());    // the request's length
        FuzzFrames.put32(frame, at + 16, data.consumeBoolean() ? 0 : data.consumeInt());             // this packet's offset in it
        FuzzFrames.put32(frame, at + 20, 0);
        return FuzzFrames.RDMA_HEADER;
    }

    private int ack(int peer) {
        int srd = FuzzFrames.SRD;
        int drops = data.consumeInt(0, 3) == 0 ? data.consumeInt(0, 16) : 0;
        frame[srd] = (byte) (0x10 | PacketType.ACK);
        FuzzFrames.put16(frame, srd + 2, drops);
        FuzzFrames.put32(frame, srd + 4, near(s.peerContext[peer]));
        FuzzFrames.put32(frame, srd + 8, near(s.victimContext[peer]));
        FuzzFrames.put32(frame, srd + 12, epochNear(s.peerEpoch[peer]));
        FuzzFrames.put32(frame, srd + 16, near(s.victimPsn[peer] + 1));
        FuzzFrames.put32(frame, srd + 20, epochNear(HostileFabric.epoch(VICTIM)));
        FuzzFrames.put32(frame, srd + 24, near(s.victimPsn[peer]));
        FuzzFrames.put64(frame, srd + 32, switch (data.consumeInt(0, 3)) {
            case 0, 1 -> s.victimTimestamp[peer];
            case 2 -> f.now() - data.consumeInt(0, 1_000_000);
            default -> f.now() + data.consumeLong();
        });
        for (int w = 0; w < 4; w++) {
            FuzzFrames.put64(frame, srd + 40 + 8 * w, switch (data.consumeInt(0, 3)) {
                case 0, 1 -> 0L;
                case 2 -> -1L;
                default -> data.consumeLong();
            });
        }
        for (int i = 0; i < drops; i++) {
            FuzzFrames.put32(frame, srd + FuzzFrames.ACK_HEADER + 8 * i,
                near(data.consumeBoolean() ? s.victimPsn[peer] : s.victimSendBase[peer]));
            frame[srd + FuzzFrames.ACK_HEADER + 8 * i + 4] = (byte) data.consumeInt(1, 4);
        }
        return FuzzFrames.ACK_HEADER + 8 * drops;
    }
}
