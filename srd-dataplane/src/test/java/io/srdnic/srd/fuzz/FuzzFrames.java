package io.srdnic.srd.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.pmd.Mbuf;
import io.srdnic.pmd.MbufBatch;
import io.srdnic.pmd.sim.SimBufferPool;
import io.srdnic.srd.testing.FrameBytes;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.ParseError;
import io.srdnic.srd.wire.SrdParser;
import io.srdnic.srd.wire.SrdPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What the fuzz targets share: frames as byte arrays read and written at the offsets of
 * docs/wire-format.md, an Internet checksum and a reference parser of their own (so the codecs are
 * checked against an independent reading of the spec, not against themselves), and simulated mbufs
 * whose data room can be cut to the frame so that any read past its end throws.
 */
final class FuzzFrames extends FrameBytes {
    /** A shim path that does not exist: an accidental load of DPDK in a fuzz target fails loudly. */
    static final String NO_SHIM = "/nonexistent/srdnic-fuzz/libsrdnic_shim.so";

    static final int DATA_ROOM = SimBufferPool.DEFAULT_DATA_ROOM;
    static final int PORT = SrdPort.DEFAULT;
    static final int MTU = 4096;

    // Offsets in the frame (docs/wire-format.md), written out here rather than taken from the codecs.
    /**
     * The RDMA extended header of RDMA_WRITE, RDMA_WRITE_WITH_IMM and RDMA_READ, and
     * READ_RESPONSE's: after the 48 bytes, counted in the payload length.
     */
    static final int RDMA_HEADER = 24;
    static final int READ_RESPONSE_HEADER = 16;
    /** The atomic requests' extended header (ATOMIC_CMP_SWAP, ATOMIC_FETCH_ADD): address, rkey, reserved, swap or add, compare. */
    static final int ATOMIC_HEADER = 32;
    static final int MAX_DROPS = 16;
    static final int MAX_DROP_REASON = 6;
    static final int MAX_QPN = 0xFF_FFFF;

    private FuzzFrames() {
    }

    static void forbidNativeDpdk() {
        System.setProperty("srdnic.shim.path", NO_SHIM);
    }

    /**
     * One simulated mbuf for a target's whole run, never freed: the global arena lives as long as
     * the JVM (an automatic arena would free it once the pool, not referenced, is collected).
     */
    static Mbuf oneMbuf() {
        forbidNativeDpdk();
        Arena arena = Arena.global();
        SimBufferPool pool = new SimBufferPool(arena, 1, DATA_ROOM);
        MbufBatch batch = new MbufBatch(arena, 1);
        pool.allocate(batch, 1, 0);
        return new Mbuf().wrap(batch.address(0));
    }

    // ---- mbufs ------------------------------------------------------------------------------------

    /** Puts {@code length} bytes of {@code f} in the mbuf as its frame, and cuts the data room to exactly the frame. */
    static void load(Mbuf m, byte[] f, int length) {
        dataRoom(m, DATA_ROOM);
        m.frameLength(length);
        m.copyFrom(MemorySegment.ofArray(f), 0, 0, length);
        dataRoom(m, length);
    }

    /** Gives the mbuf back its whole data room and one segment. */
    static void restore(Mbuf m) {
        segments(m, 1);
        dataRoom(m, DATA_ROOM);
    }

    /**
     * A frame the codecs wrote (in {@code m}, its bytes {@code f}) parses to {@code expected} (a
     * type or an error code) by the parser and by the reference parser alike, checks back to its
     * SRD length, and carries the L2-L4 headers as documented, byte by byte and through the codec.
     */
    static void checkParsedFrame(Mbuf m, byte[] f, int length, int expected, long srcMac, long dstMac, int srcIp, int dstIp,
                                 int srcPort, int srdLength, boolean udpChecksum) {
        int parsed = SrdParser.parse(m, PORT, MTU);
        assertEquals(expected, parsed, () -> "parsed " + (parsed > 0 ? PacketType.name(parsed) : Ipv4UdpFrame.error(parsed)));
        assertEquals(expected, referenceParse(f, length, 1, PORT, MTU), "the reference parser agrees");
        assertEquals(srdLength, Ipv4UdpFrame.check(m, PORT));
        checkL2L4(f, length, srcMac, dstMac, srcIp, dstIp, srcPort, PORT, srdLength, udpChecksum);
        assertEquals(srcMac, Ipv4UdpFrame.sourceMac(m));
        assertEquals(srcIp, Ipv4UdpFrame.sourceIp(m));
        assertEquals(dstIp, Ipv4UdpFrame.destinationIp(m));
        assertEquals(srcPort, Ipv4UdpFrame.sourcePort(m));
    }

    static void checkL2L4(byte[] f, int length, long srcMac, long dstMac, int srcIp, int dstIp, int srcPort, int dstPort,
                          int srdLength, boolean udpChecksum) {
        assertEquals(dstMac, mac(f, 0), "destination MAC");
        assertEquals(srcMac, mac(f, 6), "source MAC");
        assertEquals(0x0800, u16(f, ETHERTYPE), "EtherType");
        assertEquals(0x45, u8(f, IP), "IPv4, IHL 5");
        assertEquals(0, u8(f, IP + 1), "DSCP/ECN");
        assertEquals(28 + srdLength, u16(f, IP_TOTAL_LENGTH), "IPv4 total length");
        assertEquals(0, u16(f, IP + 4), "identification");
        assertEquals(0x4000, u16(f, IP_FLAGS), "DF, no fragment");
        assertEquals(64, u8(f, IP_TTL), "TTL");
        assertEquals(17, u8(f, IP_PROTOCOL), "UDP");
        assertEquals(srcIp, s32(f, IP_SRC), "source address");
        assertEquals(dstIp, s32(f, IP_DST), "destination address");
        assertTrue(ipChecksumValid(f), "IPv4 header checksum verifies");
        assertEquals(srcPort, u16(f, UDP_SRC_PORT), "UDP source port");
        assertEquals(dstPort, u16(f, UDP_DST_PORT), "UDP destination port");
        assertEquals(8 + srdLength, u16(f, UDP_LENGTH), "UDP length");
        if (udpChecksum) {
            assertTrue(u16(f, UDP_CHECKSUM) != 0, "a computed UDP checksum is never sent as 0");
            assertTrue(udpChecksumValid(f, length), "UDP checksum verifies");
        } else {
            assertEquals(0, u16(f, UDP_CHECKSUM), "no UDP checksum");
        }
    }

    static String ipv4(int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }

    /** A frame in words: what the reference parser makes of it, and its SRD fields (hex) when it is SRD. */
    static String describe(byte[] f, int length) {
        int type = referenceParse(f, length, 1, PORT, MTU);
        if (type < 0) {
            return "rejected " + ParseError.VALUES[-type - 1] + " (" + length + " bytes)";
        }
        StringBuilder sb = new StringBuilder(switch (type) {
            case 1 -> "SEND";
            case 2 -> "SEND_WITH_IMM";
            case 3 -> "RDMA_WRITE";
            case 4 -> "RDMA_READ";
            case 5 -> "ACK";
            case 6 -> "PROBE";
            case 7 -> "PROBE_REPLY";
            case 8 -> "RDMA_WRITE_WITH_IMM";
            case 9 -> "READ_RESPONSE";
            case 10 -> "ATOMIC_CMP_SWAP";
            default -> "ATOMIC_FETCH_ADD";
        });
        sb.append(String.format(" %s -> %s (mac %012x, udp %d) srcCtx %08x dstCtx %08x epoch %08x", ipv4(s32(f, IP_SRC)),
                ipv4(s32(f, IP_DST)),
            mac(f, 6), u16(f, UDP_SRC_PORT), s32(f, SRD + 4), s32(f, SRD + 8), s32(f, SRD + 12)));
        if (type == 5) {
            sb.append(String.format(" cumPsn %08x echoedEpoch %08x trigger %08x ts %+d sack %016x %016x %016x %016x drops %d",
                s32(f, SRD + 16), s32(f, SRD + 20), s32(f, SRD + 24), s64(f, SRD + 32), s64(f, SRD + 40), s64(f, SRD + 48),
                s64(f, SRD + 56), s64(f, SRD + 64), u16(f, SRD + 2)));
            for (int i = 0; i < u16(f, SRD + 2); i++) {
                sb.append(String.format(" [%08x r%d]", s32(f, SRD + ACK_HEADER + 8 * i), u8(f, SRD + ACK_HEADER + 8 * i + 4)));
            }
        } else {
            sb.append(String.format(" flags %02x psn %08x sendBase %08x qpn %d -> %d qkey %08x payload %d", u8(f, SRD + 1),
                    s32(f, SRD + 16),
                s32(f, SRD + 20), s32(f, SRD + 24), s32(f, SRD + 28), s32(f, SRD + 32), u16(f, SRD + 2)));
            int at = SRD + SRD_HEADER;
            if (extendedHeaderLength(type) == RDMA_HEADER) {
                sb.append(String.format(" rdma address %016x rkey %08x length %d offset %d", s64(f, at), s32(f, at + 8), s32(f, at + 12),
                    s32(f, at + 16)));
            } else if (type == 9) {
                sb.append(String.format(" token %08x offset %d length %d status %d", s32(f, at), s32(f, at + 4), s32(f, at + 8),
                    u8(f, at + 12)));
            } else if (type == 10 || type == 11) {
                sb.append(String.format(" atomic address %016x rkey %08x swapOrAdd %016x compare %016x", s64(f, at), s32(f, at + 8),
                    s64(f, at + 16), s64(f, at + 24)));
            }
        }
        return sb.toString();
    }

    // ---- the reference parser: docs/wire-format.md, "Validation order and ParseError" ------------

    static int code(ParseError e) {
        return -(e.ordinal() + 1);
    }

    /** The extended header a data packet of {@code type} carries after the 48 bytes: the RDMA types', READ_RESPONSE's and the atomics'. */
    static int extendedHeaderLength(int type) {
        return switch (type) {
            case 3, 4, 8 -> RDMA_HEADER;
            case 9 -> READ_RESPONSE_HEADER;
            case 10, 11 -> ATOMIC_HEADER;
            default -> 0;
        };
    }

    /** What {@code Ipv4UdpFrame.check} must answer for this frame: the SRD length, or a negative ParseError code. */
    static int referenceCheck(byte[] f, int length, int segments, int port) {
        if (segments != 1) {
            return code(ParseError.CHAINED);
        }
        if (length < 42) {
            return code(ParseError.TRUNCATED);
        }
        if (u16(f, ETHERTYPE) != 0x0800 || u8(f, IP) != 0x45) {
            return code(ParseError.NOT_IPV4);
        }
        if ((u16(f, IP_FLAGS) & 0x3FFF) != 0) {
            return code(ParseError.FRAGMENT);
        }
        if (u8(f, IP_PROTOCOL) != 17 || u16(f, UDP_DST_PORT) != port) {
            return code(ParseError.NOT_SRD_PORT);
        }
        int total = u16(f, IP_TOTAL_LENGTH);
        int udpLength = u16(f, UDP_LENGTH);
        if (14 + total > length || udpLength != total - 20 || udpLength < 8) {
            return code(ParseError.BAD_LENGTH);
        }
        if (!ipChecksumValid(f)) {
            return code(ParseError.BAD_IP_CHECKSUM);
        }
        if (u16(f, UDP_CHECKSUM) != 0 && checksum(f, UDP, udpLength, pseudoHeader(f)) != 0) {
            return code(ParseError.BAD_UDP_CHECKSUM);
        }
        return udpLength - 8;
    }

    /** What {@code SrdParser.parse} must answer for this frame: the packet type, or a negative ParseError code. */
    static int referenceParse(byte[] f, int length, int segments, int port, int mtu) {
        int srdLength = referenceCheck(f, length, segments, port);
        if (srdLength < 0) {
            return srdLength;
        }
        if (srdLength < 1) {
            return code(ParseError.TRUNCATED);
        }
        if (u8(f, SRD) >>> 4 != 1) {
            return code(ParseError.WRONG_VERSION);
        }
        int type = u8(f, SRD) & 0xF;
        if ((type >= 1 && type <= 4) || (type >= 6 && type <= 11)) {
            if (srdLength < SRD_HEADER) {
                return code(ParseError.TRUNCATED);
            }
            int payload = u16(f, SRD + 2);
            if (payload > mtu) {
                return code(ParseError.OVERSIZED);
            }
            boolean probe = type == 6 || type == 7;
            if (payload != srdLength - SRD_HEADER || (probe && payload != 0) || payload < extendedHeaderLength(type)) {
                return code(ParseError.BAD_LENGTH);
            }
            if (Integer.compareUnsigned(s32(f, SRD + 24), MAX_QPN) > 0 || Integer.compareUnsigned(s32(f, SRD + 28), MAX_QPN) > 0) {
                return code(ParseError.OUT_OF_RANGE);
            }
            return type;
        }
        if (type == 5) {
            if (srdLength < ACK_HEADER) {
                return code(ParseError.TRUNCATED);
            }
            int drops = u16(f, SRD + 2);
            if (drops > MAX_DROPS) {
                return code(ParseError.OVERSIZED);
            }
            if (srdLength != ACK_HEADER + 8 * drops) {
                return code(ParseError.BAD_LENGTH);
            }
            for (int i = 0; i < drops; i++) {
                int reason = u8(f, SRD + ACK_HEADER + 8 * i + 4);
                if (reason < 1 || reason > MAX_DROP_REASON) {
                    return code(ParseError.OUT_OF_RANGE);
                }
            }
            return type;
        }
        return code(ParseError.UNKNOWN_TYPE);
    }
}
