package io.srdnic.cli;

import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.Mbuf;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.wire.AtomicHeader;
import io.srdnic.srd.wire.DropReason;
import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.Ipv4UdpFrame;
import io.srdnic.srd.wire.PacketType;
import io.srdnic.srd.wire.RdmaHeader;
import io.srdnic.srd.wire.ReadResponseHeader;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import io.srdnic.verbs.cm.CmMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The srdnic dissector's fields, as the project's own codecs ({@link SrdHeader}, {@link RdmaHeader},
 * {@link ReadResponseHeader}, {@link AtomicHeader}, {@link SrdAck}) read them from a frame, RC's meanings where FLAG_RC is set, and
 * tshark's printing of them brought to the same form: text as is, every number
 * as an unsigned decimal string, booleans as 0/1, bytes as lowercase hex, repeated fields as a
 * list in wire order, a field a packet does not have as an empty list.
 */
final class DissectorFields {
    /** Between repeated values of one field in tshark's output ({@code -E aggregator}). */
    static final String AGGREGATOR = "|";

    static final List<String> COMMON = List.of("srdnic.version", "srdnic.type", "srdnic.flags", "srdnic.flags.retransmission",
        "srdnic.flags.unreliable", "srdnic.flags.rc", "srdnic.flags.first", "srdnic.flags.last", "srdnic.flags.held",
        "srdnic.flags.src", "srdnic.flags.duplicate", "srdnic.src_context", "srdnic.dst_context", "srdnic.src.srq_number", "srdnic.epoch",
        "srdnic.entropy");
    static final List<String> DATA = List.of("srdnic.payload_length", "srdnic.psn", "srdnic.send_base", "srdnic.src_qpn",
        "srdnic.dst_qpn", "srdnic.qkey", "srdnic.immediate", "srdnic.timestamp", "srdnic.payload", "srdnic.probe.path");
    static final List<String> RDMA = List.of("srdnic.rdma.address", "srdnic.rdma.rkey", "srdnic.rdma.length", "srdnic.rdma.offset",
        "srdnic.rdma.reserved", "srdnic.rdma.read_token");
    static final List<String> READ_RESPONSE = List.of("srdnic.read_response.token", "srdnic.read_response.offset",
        "srdnic.read_response.length", "srdnic.read_response.status", "srdnic.read_response.reserved");
    /** RC data packets: the FLAG_FIRST/FLAG_LAST pair by name, and the Q_Key field's RC meaning. */
    static final List<String> RC = List.of("srdnic.rc.segment", "srdnic.rc.recv_seq");
    static final List<String> ATOMIC = List.of("srdnic.atomic.address", "srdnic.atomic.rkey", "srdnic.atomic.reserved",
        "srdnic.atomic.swap_add", "srdnic.atomic.compare", "srdnic.atomic.original", "srdnic.atomic.request_in");
    static final List<String> ACK = List.of("srdnic.ack.drop_count", "srdnic.ack.cumulative_psn", "srdnic.ack.echoed_epoch",
        "srdnic.ack.trigger_psn", "srdnic.ack.duplicate_psn", "srdnic.ack.echoed_timestamp", "srdnic.ack.sack",
        "srdnic.ack.sacked_psn", "srdnic.ack.sack_count", "srdnic.ack.drop.psn", "srdnic.ack.drop.reason",
        "srdnic.ack.drop.detail", "srdnic.ack.drop.rnr_timer", "srdnic.ack.drop.reserved");
    /** A connection manager message: the data of a UD SEND to the management QP (QPN 1, the GSI Q_Key). */
    static final List<String> CM = List.of("srdnic.cm.version", "srdnic.cm.type", "srdnic.cm.private_length", "srdnic.cm.local_comm_id",
        "srdnic.cm.remote_comm_id", "srdnic.cm.service_id", "srdnic.cm.transport", "srdnic.cm.qpn", "srdnic.cm.psn",
        "srdnic.cm.responder_resources", "srdnic.cm.initiator_depth", "srdnic.cm.retry_count", "srdnic.cm.rnr_retry_count",
        "srdnic.cm.path_mtu", "srdnic.cm.mac", "srdnic.cm.ip", "srdnic.cm.udp_port", "srdnic.cm.reject_reason", "srdnic.cm.private_data");
    /** Every field of the dissector that carries a value, in the order the test asks tshark for them. */
    static final List<String> ALL = concat(COMMON, DATA, RC, RDMA, READ_RESPONSE, ATOMIC, ACK, CM);
    /** The fields tshark prints as text. */
    static final List<String> TEXT = List.of("srdnic.rc.segment", "srdnic.cm.mac", "srdnic.cm.ip");
    /** Bytes, printed by tshark as hex. */
    static final List<String> BYTES = List.of("srdnic.payload", "srdnic.cm.private_data");

    /** Whether the data packet in {@code m} carries a connection manager message. */
    static boolean isCm(Mbuf m, int type) {
        return type == PacketType.SEND && (SrdHeader.flags(m) & SrdHeader.FLAG_UNRELIABLE) != 0
            && SrdHeader.destinationQpn(m) == TransportDevice.MANAGEMENT_QPN && SrdHeader.qkey(m) == CmMessage.QKEY
            && SrdHeader.payloadLength(m) >= CmMessage.HEADER_LENGTH;
    }

    /** The CM message of a frame {@link #isCm} accepts, as the codec reads it. */
    static CmMessage cm(Mbuf m) {
        return new CmMessage().wrap(m.data(), SrdHeader.PAYLOAD_OFFSET);
    }

    private static void putCm(Map<String, List<String>> f, Mbuf m) {
        CmMessage cm = cm(m);
        put(f, "srdnic.cm.version", cm.version());
        put(f, "srdnic.cm.type", cm.type());
        put(f, "srdnic.cm.private_length", cm.privateDataLength());
        put(f, "srdnic.cm.local_comm_id", cm.localCommId());
        put(f, "srdnic.cm.remote_comm_id", cm.remoteCommId());
        f.get("srdnic.cm.service_id").add(Long.toUnsignedString(cm.serviceId()));
        put(f, "srdnic.cm.transport", cm.transport());
        put(f, "srdnic.cm.qpn", cm.qpn());
        put(f, "srdnic.cm.psn", cm.startingPsn());
        put(f, "srdnic.cm.responder_resources", cm.responderResources());
        put(f, "srdnic.cm.initiator_depth", cm.initiatorDepth());
        put(f, "srdnic.cm.retry_count", cm.retryCount());
        put(f, "srdnic.cm.rnr_retry_count", cm.rnrRetryCount());
        put(f, "srdnic.cm.path_mtu", cm.pathMtuCode());
        f.get("srdnic.cm.mac").add(MacAddress.format(cm.mac()));
        int ip = cm.ip();
        f.get("srdnic.cm.ip").add((ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF));
        put(f, "srdnic.cm.udp_port", cm.udpPort());
        put(f, "srdnic.cm.reject_reason", cm.rejectReason());
        if (cm.privateDataLength() > 0) {
            byte[] bytes = new byte[cm.privateDataLength()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = m.getByte(SrdHeader.PAYLOAD_OFFSET + CmMessage.HEADER_LENGTH + i);
            }
            f.get("srdnic.cm.private_data").add(HexFormat.of().formatHex(bytes));
        }
    }

    private DissectorFields() {
    }

    /**
     * Whether the packet of {@code type} is an SRC request: an RC data packet with FLAG_SRC (its
     * SRQ number where the destination context is).
     */
    static boolean isSrc(Mbuf m, int type) {
        return isRc(m) && PacketType.isData(type) && (SrdHeader.flags(m) & SrdHeader.FLAG_SRC) != 0;
    }

    /** Whether the packet is RC's: FLAG_RC set, and not a UD datagram (FLAG_UNRELIABLE wins, as in the dissector). */
    static boolean isRc(Mbuf m) {
        int flags = SrdHeader.flags(m);
        return (flags & SrdHeader.FLAG_RC) != 0 && (flags & SrdHeader.FLAG_UNRELIABLE) == 0;
    }

    /** An RC data packet's place in its message, from FLAG_FIRST and FLAG_LAST. */
    static String segment(Mbuf m) {
        int flags = SrdHeader.flags(m);
        boolean first = (flags & SrdHeader.FLAG_FIRST) != 0;
        boolean last = (flags & SrdHeader.FLAG_LAST) != 0;
        return first ? (last ? "ONLY" : "FIRST") : (last ? "LAST" : "MIDDLE");
    }

    /**
     * The READs and atomics seen so far, by who sent them and their token, so that a READ_RESPONSE
     * can be told to answer an atomic (its 8 bytes then are the word's original value): the
     * dissector does the same, frame by frame.
     */
    static final class Requests {
        private final Map<String, long[]> last = new HashMap<>(); // key -> {frame, atomic ? 1 : 0}

        private static String key(int requesterIp, int responderIp, int requesterQpn, int token) {
            return requesterIp + ">" + responderIp + ":" + requesterQpn + ":" + token;
        }

        /** The frame of the atomic this READ_RESPONSE answers, or -1 (no request seen, or the token's last request was a READ). */
        long atomicAnswered(Mbuf m) {
            long[] request = last.get(key(Ipv4UdpFrame.destinationIp(m), Ipv4UdpFrame.sourceIp(m), SrdHeader.destinationQpn(m),
                ReadResponseHeader.token(m)));
            return request != null && request[1] == 1 ? request[0] : -1;
        }

        void note(Mbuf m, int type, long frame) {
            if (type == PacketType.RDMA_READ || type == PacketType.ATOMIC_CMP_SWAP || type == PacketType.ATOMIC_FETCH_ADD) {
                last.put(key(Ipv4UdpFrame.sourceIp(m), Ipv4UdpFrame.destinationIp(m), SrdHeader.sourceQpn(m), SrdHeader.immediate(m)),
                    new long[] {frame, type == PacketType.RDMA_READ ? 0 : 1});
            }
        }
    }

    /**
     * What the dissector must show for the SRD frame in {@code m}, frame number {@code frame},
     * which SrdParser accepted as {@code type}; {@code requests} holds the READs and atomics of
     * the frames before it and learns this one's.
     */
    static Map<String, List<String>> expected(Mbuf m, int type, Requests requests, long frame) {
        Map<String, List<String>> f = new LinkedHashMap<>();
        for (String name : ALL) {
            f.put(name, new ArrayList<>());
        }
        int flags = SrdHeader.flags(m);
        put(f, "srdnic.version", SrdHeader.version(m));
        put(f, "srdnic.type", type);
        put(f, "srdnic.flags", flags);
        put(f, "srdnic.flags.retransmission", flags & SrdHeader.FLAG_RETRANSMISSION);
        put(f, "srdnic.flags.unreliable", (flags & SrdHeader.FLAG_UNRELIABLE) >>> 1);
        put(f, "srdnic.flags.rc", (flags & SrdHeader.FLAG_RC) >>> 2);
        put(f, "srdnic.flags.first", (flags & SrdHeader.FLAG_FIRST) >>> 3);
        put(f, "srdnic.flags.last", (flags & SrdHeader.FLAG_LAST) >>> 4);
        put(f, "srdnic.flags.held", (flags & SrdHeader.FLAG_HELD) >>> 5);
        put(f, "srdnic.flags.src", (flags & SrdHeader.FLAG_SRC) >>> 6);
        put(f, "srdnic.flags.duplicate", (flags & SrdHeader.FLAG_DUPLICATE) >>> 7);
        boolean rc = isRc(m);
        if (rc && type == PacketType.ACK) {
            // An RC ACK names QPs where SRD's names contexts: the responder's, then the requester's.
            put(f, "srdnic.src_qpn", SrdAck.sourceContext(m));
            put(f, "srdnic.dst_qpn", SrdAck.destinationContext(m));
        } else if (isSrc(m, type)) {
            put(f, "srdnic.src_context", SrdHeader.sourceContext(m));
            put(f, "srdnic.src.srq_number", SrdHeader.srqNumber(m));
        } else {
            put(f, "srdnic.src_context", SrdHeader.sourceContext(m));
            put(f, "srdnic.dst_context", SrdHeader.destinationContext(m));
        }
        put(f, "srdnic.epoch", SrdHeader.epoch(m));
        int entropy = SrdPort.entropy(Ipv4UdpFrame.sourcePort(m));
        if (entropy >= 0) {
            put(f, "srdnic.entropy", entropy);
        }
        if (type == PacketType.ACK) {
            int cumulative = SrdAck.cumulativePsn(m);
            put(f, "srdnic.ack.drop_count", SrdAck.dropCount(m));
            put(f, "srdnic.ack.cumulative_psn", cumulative);
            put(f, "srdnic.ack.echoed_epoch", SrdAck.echoedEpoch(m));
            put(f, "srdnic.ack.trigger_psn", SrdAck.triggerPsn(m));
            put(f, "srdnic.ack.duplicate_psn", SrdAck.duplicatePsn(m));
            f.get("srdnic.ack.echoed_timestamp").add(Long.toUnsignedString(SrdAck.echoedTimestamp(m)));
            int sacked = 0;
            for (int w = 0; w < SrdAck.SACK_WORDS; w++) {
                long word = SrdAck.sackWord(m, w);
                f.get("srdnic.ack.sack").add(Long.toUnsignedString(word));
                for (int i = 0; i < 64; i++) {
                    if (((word >>> i) & 1) != 0) {
                        put(f, "srdnic.ack.sacked_psn", cumulative + 1 + 64 * w + i);
                        sacked++;
                    }
                }
            }
            put(f, "srdnic.ack.sack_count", sacked);
            for (int i = 0; i < SrdAck.dropCount(m); i++) {
                put(f, "srdnic.ack.drop.psn", SrdAck.dropPsn(m, i));
                put(f, "srdnic.ack.drop.reason", SrdAck.dropReason(m, i));
                put(f, "srdnic.ack.drop.detail", SrdAck.dropDetail(m, i));
                if (rc && SrdAck.dropReason(m, i) == DropReason.RNR) {
                    put(f, "srdnic.ack.drop.rnr_timer", SrdAck.dropDetail(m, i));
                }
                put(f, "srdnic.ack.drop.reserved",
                    m.getShortBE(FrameLayout.SRD_OFFSET + SrdAck.DROPS_OFFSET + i * SrdAck.DROP_ENTRY_LENGTH + 6) & 0xFFFF);
            }
        } else {
            int payload = SrdHeader.payloadLength(m);
            put(f, "srdnic.payload_length", payload);
            put(f, "srdnic.psn", SrdHeader.psn(m));
            put(f, "srdnic.send_base", SrdHeader.sendBase(m));
            put(f, "srdnic.src_qpn", SrdHeader.sourceQpn(m));
            put(f, "srdnic.dst_qpn", SrdHeader.destinationQpn(m));
            if (rc && PacketType.isData(type)) {
                f.get("srdnic.rc.segment").add(segment(m));
                put(f, "srdnic.rc.recv_seq", SrdHeader.qkey(m));
            } else {
                put(f, "srdnic.qkey", SrdHeader.qkey(m));
            }
            put(f, "srdnic.immediate", SrdHeader.immediate(m));
            f.get("srdnic.timestamp").add(Long.toUnsignedString(SrdHeader.timestamp(m)));
            int extended = PacketType.extendedHeaderLength(type);
            if (extended == RdmaHeader.LENGTH) {
                f.get("srdnic.rdma.address").add(Long.toUnsignedString(RdmaHeader.address(m)));
                put(f, "srdnic.rdma.rkey", RdmaHeader.rkey(m));
                put(f, "srdnic.rdma.length", RdmaHeader.dmaLength(m));
                put(f, "srdnic.rdma.offset", RdmaHeader.segmentOffset(m));
                put(f, "srdnic.rdma.reserved", m.getIntBE(FrameLayout.SRD_OFFSET + RdmaHeader.RESERVED_OFFSET));
            }
            if (extended == AtomicHeader.LENGTH) {
                f.get("srdnic.atomic.address").add(Long.toUnsignedString(AtomicHeader.address(m)));
                put(f, "srdnic.atomic.rkey", AtomicHeader.rkey(m));
                put(f, "srdnic.atomic.reserved", m.getIntBE(FrameLayout.SRD_OFFSET + AtomicHeader.RESERVED_OFFSET));
                f.get("srdnic.atomic.swap_add").add(Long.toUnsignedString(AtomicHeader.swapOrAdd(m)));
                f.get("srdnic.atomic.compare").add(Long.toUnsignedString(AtomicHeader.compare(m)));
            }
            if (type == PacketType.RDMA_READ || extended == AtomicHeader.LENGTH) {
                put(f, "srdnic.rdma.read_token", SrdHeader.immediate(m));
            }
            if (type == PacketType.READ_RESPONSE) {
                put(f, "srdnic.read_response.token", ReadResponseHeader.token(m));
                put(f, "srdnic.read_response.offset", ReadResponseHeader.readOffset(m));
                put(f, "srdnic.read_response.length", ReadResponseHeader.readLength(m));
                put(f, "srdnic.read_response.status", ReadResponseHeader.status(m));
                put(f, "srdnic.read_response.reserved", m.getIntBE(FrameLayout.SRD_OFFSET + ReadResponseHeader.STATUS_OFFSET) & 0xFF_FFFF);
                long atomic = requests.atomicAnswered(m);
                if (atomic > 0 && payload == ReadResponseHeader.LENGTH + 8) {
                    f.get("srdnic.atomic.original").add(Long.toUnsignedString(m.getLongBE(ReadResponseHeader.DATA_OFFSET)));
                    f.get("srdnic.atomic.request_in").add(Long.toString(atomic));
                }
            }
            requests.note(m, type, frame);
            // The data: what follows the extended header, if the type has one.
            if (payload > extended) {
                byte[] bytes = new byte[payload - extended];
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i] = m.getByte(SrdHeader.PAYLOAD_OFFSET + extended + i);
                }
                f.get("srdnic.payload").add(HexFormat.of().formatHex(bytes));
            }
            if (type == PacketType.PROBE || type == PacketType.PROBE_REPLY) {
                put(f, "srdnic.probe.path", SrdHeader.psn(m));
            }
            if (isCm(m, type)) {
                putCm(f, m);
            }
        }
        return f;
    }

    /** tshark's value of {@code field} ({@code -T fields}) in the form {@link #expected} gives. */
    static List<String> normalize(String field, String printed) {
        List<String> values = new ArrayList<>();
        if (printed.isEmpty()) {
            return values;
        }
        for (String v : printed.split(Pattern.quote(AGGREGATOR), -1)) {
            if (TEXT.contains(field)) {
                values.add(v);
            } else if (BYTES.contains(field)) {
                values.add(v.replace(":", "").toLowerCase(Locale.ROOT));
            } else if (v.equals("True") || v.equals("False")) {
                values.add(v.equals("True") ? "1" : "0");
            } else if (v.startsWith("0x")) {
                values.add(Long.toUnsignedString(Long.parseUnsignedLong(v.substring(2), 16)));
            } else {
                values.add(Long.toUnsignedString(Long.parseUnsignedLong(v)));
            }
        }
        return values;
    }

    private static void put(Map<String, List<String>> f, String name, int value) {
        f.get(name).add(Integer.toUnsignedString(value));
    }

    @SafeVarargs
    private static List<String> concat(List<String>... lists) {
        List<String> all = new ArrayList<>();
        for (List<String> l : lists) {
            all.addAll(l);
        }
        return List.copyOf(all);
    }
}
