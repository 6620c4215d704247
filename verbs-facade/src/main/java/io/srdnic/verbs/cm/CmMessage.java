package io.srdnic.verbs.cm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A connection manager message (48 bytes plus private data, big-endian), the payload of a UD
 * datagram from one device's management QP to another's (QPN 1, Q_Key {@link #QKEY}). A flyweight:
 * {@link #wrap} it over a buffer once, read or write fields in place; nothing is copied or allocated.
 * <pre>
 *   0       1       2               4                               8
 *   +-------+-------+---------------+-------------------------------+
 *   |version| type  | private length| sender's communication id     |
 *   +-------+-------+---------------+-------------------------------+
 *   8                              12                              20
 *   | receiver's communication id   | service id (port space << 16  |
 *   |  (0 in a REQ)                 |  | port, as rdma_cm's)        |
 *   +-------+-----------------------+-------+-----------------------+
 *  20      21                      24      25                      28
 *   | trans.| QPN                   | 0     | starting PSN          |
 *   +-------+-------+-------+-------+-------+-----------------------+
 *  28      29      30      31      32              34              40
 *   | resp. | init. |retry  | path  | 0             | sender's MAC  |
 *   | res.  | depth |cnt|rnr| MTU   |               |               |
 *   +-------+-------+-------+-------+---------------+---------------+
 *  40                              44              46              48
 *   | sender's IPv4 address         | sender's SRD  | reject reason |
 *   |                               |  UDP port     |  (REJ; else 0)|
 *   +-------------------------------+---------------+---------------+
 *  48 private data, 0..the type's limit ({@link #privateDataLimit})
 * </pre>
 * Transport, QPN, PSN, resources, depth, retry counts and path MTU mean something in REQ and REP
 * only (zero in the others). The transport is the QP type the sender connects: {@link #TRANSPORT_RC},
 * or {@link #TRANSPORT_XRC} (an XRC_SEND requester, an XRC_RECV responder: SRC QPs). The retry byte holds the retry count in its high
 * nibble and the RNR retry count in
 * its low one, each 0..7; the path MTU is IBTA's code (1 = 256 … 5 = 4096).
 */
public final class CmMessage {
    public static final int VERSION = 1;
    public static final int HEADER_LENGTH = 48;
    /** InfiniBand's GSI Q_Key, taken by every management QP. */
    public static final int QKEY = 0x8001_0000;

    public static final int REQ = 1;
    public static final int REP = 2;
    public static final int RTU = 3;
    public static final int REJ = 4;
    public static final int DREQ = 5;
    public static final int DREP = 6;
    /** Message receipt acknowledgement: "your REQ arrived, the application has not answered yet; wait longer". */
    public static final int MRA = 7;

    /** The transport byte of a REQ/REP: RC QPs on both sides (IBTA's transport service type 0). */
    public static final int TRANSPORT_RC = 0;
    /** XRC: the requester's XRC_SEND QP connects to the responder's XRC_RECV QP (IBTA: service type 3, extended type XRC). */
    public static final int TRANSPORT_XRC = 1;

    /** IBTA's private data sizes for the CM messages (REQ 92, REP 196, RTU 224, REJ 148, DREQ 220, DREP 224, MRA 222). */
    private static final int[] PRIVATE_DATA_LIMIT = {0, 92, 196, 224, 148, 220, 224, 222};
    /** The largest message: an RTU or DREP with all its private data. */
    public static final int MAX_LENGTH = HEADER_LENGTH + 224;

    public static final int VERSION_OFFSET = 0;
    public static final int TYPE_OFFSET = 1;
    public static final int PRIVATE_LENGTH_OFFSET = 2;
    public static final int LOCAL_COMM_ID_OFFSET = 4;
    public static final int REMOTE_COMM_ID_OFFSET = 8;
    public static final int SERVICE_ID_OFFSET = 12;
    public static final int TRANSPORT_OFFSET = 20;
    public static final int QPN_OFFSET = 20;
    public static final int PSN_OFFSET = 24;
    public static final int RESPONDER_RESOURCES_OFFSET = 28;
    public static final int INITIATOR_DEPTH_OFFSET = 29;
    public static final int RETRY_OFFSET = 30;
    public static final int PATH_MTU_OFFSET = 31;
    public static final int MAC_OFFSET = 32;
    public static final int IP_OFFSET = 40;
    public static final int UDP_PORT_OFFSET = 44;
    public static final int REJECT_REASON_OFFSET = 46;
    public static final int PRIVATE_DATA_OFFSET = HEADER_LENGTH;

    /** What {@link #parse} answers for a message it refuses (each counted by the caller, none throws). */
    public static final int TRUNCATED = -1;
    public static final int WRONG_VERSION = -2;
    public static final int UNKNOWN_TYPE = -3;
    public static final int BAD_LENGTH = -4;
    public static final int NONZERO_RESERVED = -5;
    public static final int OUT_OF_RANGE = -6;
    private static final String[] ERROR_NAMES = {"", "truncated", "wrong version", "unknown type", "bad length", "nonzero reserved",
        "out of range"};

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment buffer;
    private long base;

    /** Points this flyweight at the message starting {@code offset} bytes into {@code segment}. */
    public CmMessage wrap(MemorySegment segment, long offset) {
        this.buffer = segment;
        this.base = offset;
        return this;
    }

    /** The most private data a message of {@code type} carries, or -1 for no such type. */
    public static int privateDataLimit(int type) {
        return type >= REQ && type <= MRA ? PRIVATE_DATA_LIMIT[type] : -1;
    }

    public static String typeName(int type) {
        return switch (type) {
            case REQ -> "REQ";
            case REP -> "REP";
            case RTU -> "RTU";
            case REJ -> "REJ";
            case DREQ -> "DREQ";
            case DREP -> "DREP";
            case MRA -> "MRA";
            default -> "type " + type;
        };
    }

    /** The name of a {@link #parse} error (a negative answer). */
    public static String errorName(int error) {
        return error < 0 && -error < ERROR_NAMES.length ? ERROR_NAMES[-error] : "error " + error;
    }

    /**
     * Checks the {@code length} bytes received at the wrapped offset against the table in
     * docs/wire-format.md and answers the message type, or a negative error: shorter than the header
     * or than its private data says (TRUNCATED), another version, a type not REQ..MRA, private
     * data over the type's limit or bytes past it (BAD_LENGTH), a reserved byte not zero, a zero
     * sender's communication id, a receiver's id in a REQ or none in another type, a retry count
     * over 7, a path MTU code outside 1..5 or a transport other than RC or XRC in REQ/REP (OUT_OF_RANGE). Reads nothing past {@code
     * length}.
     */
    public int parse(int length) {
        if (length < HEADER_LENGTH) {
            return TRUNCATED;
        }
        if (u8(VERSION_OFFSET) != VERSION) {
            return WRONG_VERSION;
        }
        int type = u8(TYPE_OFFSET);
        int limit = privateDataLimit(type);
        if (limit < 0) {
            return UNKNOWN_TYPE;
        }
        int privateLength = privateDataLength();
        if (privateLength > limit) {
            return BAD_LENGTH;
        }
        if (HEADER_LENGTH + privateLength > length) {
            return TRUNCATED;
        }
        if (HEADER_LENGTH + privateLength != length) {
            return BAD_LENGTH;
        }
        if (u8(PSN_OFFSET) != 0 || buffer.get(SHORT, base + MAC_OFFSET) != 0) {
            return NONZERO_RESERVED;
        }
        boolean connecting = type == REQ || type == REP;
        if (!connecting && (transport() != 0 || qpn() != 0 || startingPsn() != 0 || responderResources() != 0 || initiatorDepth() != 0
            || u8(RETRY_OFFSET) != 0 || u8(PATH_MTU_OFFSET) != 0)) {
            return NONZERO_RESERVED;
        }
        if (type != REJ && rejectReason() != 0) {
            return NONZERO_RESERVED;
        }
        if (localCommId() == 0 || (type == REQ) != (remoteCommId() == 0)) {
            return OUT_OF_RANGE;
        }
        if (retryCount() > 7 || rnrRetryCount() > 7) {
            return OUT_OF_RANGE;
        }
        if (connecting && (pathMtuCode() < 1 || pathMtuCode() > 5 || transport() > TRANSPORT_XRC)) {
            return OUT_OF_RANGE;
        }
        return type;
    }

    /**
     * Writes a whole header (the private data goes in with {@link #privateData(MemorySegment, long, int)}),
     * every reserved byte zero; answers the message's length. Fields a type does not use must be 0.
     */
    public int write(int type, int localCommId, int remoteCommId, long serviceId, int privateLength) {
        for (int i = 0; i < HEADER_LENGTH; i += Long.BYTES) { // no slice: nothing allocated per message
            buffer.set(LONG, base + i, 0L);
        }
        buffer.set(ValueLayout.JAVA_BYTE, base + VERSION_OFFSET, (byte) VERSION);
        buffer.set(ValueLayout.JAVA_BYTE, base + TYPE_OFFSET, (byte) type);
        buffer.set(SHORT, base + PRIVATE_LENGTH_OFFSET, (short) privateLength);
        buffer.set(INT, base + LOCAL_COMM_ID_OFFSET, localCommId);
        buffer.set(INT, base + REMOTE_COMM_ID_OFFSET, remoteCommId);
        buffer.set(LONG, base + SERVICE_ID_OFFSET, serviceId);
        return HEADER_LENGTH + privateLength;
    }

    /** REQ and REP: the sender's QP and what it asks for or grants. */
    public CmMessage connection(int qpn, int startingPsn, int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount,
                                int pathMtuCode) {
        buffer.set(INT, base + QPN_OFFSET, qpn & 0xFF_FFFF);
        buffer.set(INT, base + PSN_OFFSET, startingPsn & 0xFF_FFFF);
        buffer.set(ValueLayout.JAVA_BYTE, base + RESPONDER_RESOURCES_OFFSET, (byte) responderResources);
        buffer.set(ValueLayout.JAVA_BYTE, base + INITIATOR_DEPTH_OFFSET, (byte) initiatorDepth);
        buffer.set(ValueLayout.JAVA_BYTE, base + RETRY_OFFSET, (byte) (retryCount << 4 | rnrRetryCount));
        buffer.set(ValueLayout.JAVA_BYTE, base + PATH_MTU_OFFSET, (byte) pathMtuCode);
        return this;
    }

    /** Where the sender is: its MAC, IPv4 address and SRD UDP port (the receiver answers there). */
    public CmMessage sender(long mac, int ip, int udpPort) {
        buffer.set(SHORT, base + MAC_OFFSET, (short) 0);
        buffer.set(SHORT, base + MAC_OFFSET + 2, (short) (mac >>> 32));
        buffer.set(INT, base + MAC_OFFSET + 4, (int) mac);
        buffer.set(INT, base + IP_OFFSET, ip);
        buffer.set(SHORT, base + UDP_PORT_OFFSET, (short) udpPort);
        return this;
    }

    /** REQ and REP: the QP type the sender connects, {@link #TRANSPORT_RC} or {@link #TRANSPORT_XRC} (after {@link #connection}). */
    public CmMessage transport(int transport) {
        buffer.set(ValueLayout.JAVA_BYTE, base + TRANSPORT_OFFSET, (byte) transport);
        return this;
    }

    public CmMessage rejectReason(int reason) {
        buffer.set(SHORT, base + REJECT_REASON_OFFSET, (short) reason);
        return this;
    }

    /** Copies {@code length} bytes of private data from {@code from} at {@code offset} (length as given to write). */
    public CmMessage privateData(MemorySegment from, long offset, int length) {
        MemorySegment.copy(from, offset, buffer, base + PRIVATE_DATA_OFFSET, length);
        return this;
    }

    public int version() {
        return u8(VERSION_OFFSET);
    }

    public int type() {
        return u8(TYPE_OFFSET);
    }

    public int privateDataLength() {
        return Short.toUnsignedInt(buffer.get(SHORT, base + PRIVATE_LENGTH_OFFSET));
    }

    public int localCommId() {
        return buffer.get(INT, base + LOCAL_COMM_ID_OFFSET);
    }

    public int remoteCommId() {
        return buffer.get(INT, base + REMOTE_COMM_ID_OFFSET);
    }

    public long serviceId() {
        return buffer.get(LONG, base + SERVICE_ID_OFFSET);
    }

    public int transport() {
        return u8(TRANSPORT_OFFSET);
    }

    public int qpn() {
        return buffer.get(INT, base + QPN_OFFSET) & 0xFF_FFFF;
    }

    public int startingPsn() {
        return buffer.get(INT, base + PSN_OFFSET) & 0xFF_FFFF;
    }

    public int responderResources() {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    public int initiatorDepth() {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    public int retryCount() {
        return u8(RETRY_OFFSET) >>> 4;
    }

    public int rnrRetryCount() {
        return u8(RETRY_OFFSET) & 0xF;
    }

    public int pathMtuCode() {
        return u8(PATH_MTU_OFFSET);
    }

    public long mac() {
        return (long) Short.toUnsignedInt(buffer.get(SHORT, base + MAC_OFFSET + 2)) << 32
            | Integer.toUnsignedLong(buffer.get(INT, base + MAC_OFFSET + 4));
    }

    public int ip() {
        return buffer.get(INT, base + IP_OFFSET);
    }

    public int udpPort() {
        return Short.toUnsignedInt(buffer.get(SHORT, base + UDP_PORT_OFFSET));
    }

    public int rejectReason() {
        return Short.toUnsignedInt(buffer.get(SHORT, base + REJECT_REASON_OFFSET));
    }

    /** The segment and offset the private data starts at (read {@link #privateDataLength()} bytes). */
    public MemorySegment buffer() {
        return buffer;
    }

    public long privateDataOffset() {
        return base + PRIVATE_DATA_OFFSET;
    }

    /** IBTA's path MTU code for a size in bytes (256 → 1 … 4096 → 5), or 0 for no IBTA size. */
    public static int mtuCode(int bytes) {
        return switch (bytes) {
            case 256 -> 1;
            case 512 -> 2;
            case 1024 -> 3;
            case 2048 -> 4;
            case 4096 -> 5;
            default -> 0;
        };
    }

    /** The size in bytes of an IBTA path MTU code 1..5. */
    public static int mtuBytes(int code) {
        return 128 << code;
    }

    private int u8(int offset) {
        return Byte.toUnsignedInt(buffer.get(ValueLayout.JAVA_BYTE, base + offset));
    }
}
