package io.srdnic.srd.api;

import io.srdnic.srd.wire.FrameLayout;
import io.srdnic.srd.wire.SrdAck;
import io.srdnic.srd.wire.SrdHeader;
import io.srdnic.srd.wire.SrdPort;
import java.util.List;

/**
 * Every knob of one SRD transport, with its default. Set fields with the fluent setters, then
 * {@link #conclude(int)} checks them against the port (as Aeron's Context does) before use.
 * Times are nanoseconds of whatever clock the caller passes to {@code doWork} (virtual on SimPort).
 */
public final class TransportConfig {
    /** The SRD MTU when the link carries it: 4096 bytes of payload in one frame. */
    public static final int DEFAULT_MTU = 4096;
    /** The smallest payload sent from registered memory without a copy, where the port allows it (docs/performance.md: measured). */
    public static final int DEFAULT_ZERO_COPY_MIN_BYTES = 2048;
    /** Headers in front of the payload: Ethernet + IPv4 + UDP + SRD. */
    public static final int FRAME_OVERHEAD = FrameLayout.L2_L4_LENGTH + SrdHeader.LENGTH;
    /**
     * The widest window: the PSNs one ACK can describe (its cumulative PSN and the 256 bits of
     * selective ack after it). A wider window would let RACK call received packets lost whenever
     * more than that many are in flight past one loss, and retransmit them en masse.
     */
    public static final int MAX_WINDOW = SrdAck.SACK_BITS;
    /** Bounds on the tables, so no configuration (or peer) can make one transport hold unbounded memory. */
    public static final int MAX_CONTEXTS = 65536;
    public static final int MAX_QPS = 65535;
    public static final int MAX_OUTSTANDING_REQUESTS = 1 << 20;
    public static final int MAX_BURST = 1024;
    /** Bounds on the retry budget, rtoMax and the packet lifetime: sums and products of them stay far from overflow. */
    public static final int MAX_RETRY_BUDGET = 1 << 16;
    public static final long MAX_TIME_NANOS = 3_600_000_000_000L;

    int mtu = DEFAULT_MTU;
    int udpPort = SrdPort.DEFAULT;
    boolean udpChecksum = true;
    boolean delayedAck = true;
    int ackEvery = 16;
    int localIp = 0x0A00_0001;
    int paths = 16;
    /**
     * Paths an RC QP sprays over: the responder's reorder buffer keeps delivery in order; 1 pins
     * each QP to one path. 0: {@link #paths}.
     */
    int rcPaths = 0;
    long rtoInitialNanos = 1_000_000;
    long rtoMinNanos = 50_000;
    long rtoMaxNanos = 20_000_000;
    long transportTimeoutNanos = 50_000_000;
    int retryBudget = 32;
    int window = MAX_WINDOW;
    int ccInitialWindow = 4;
    long ccTargetQueueingNanos = 15_000;
    double ccAdditiveIncrease = 1.0;
    double ccBeta = 0.8;
    double ccMaxDecrease = 0.5;
    long pathAvoidNanos = 1_000_000;
    long rnrBackoffNanos = 100_000;
    long idleContextNanos = 1_000_000_000L;
    long maxPacketLifetimeNanos = 100_000_000L;
    int maxContexts = 4096;
    int maxQps = 1024;
    int maxMemoryRegions = 1 << 16;
    int maxOutstandingRequests = 65536;
    int burst = 32;
    int rcHeldPackets = 1024;
    int zeroCopyMinBytes = DEFAULT_ZERO_COPY_MIN_BYTES;
    /** Whether zero-copy-min-bytes was given: unset, a sender that sums the UDP checksum in software copies. */
    boolean zeroCopyMinBytesSet;
    private boolean concluded;

    /** Largest payload of one message; clamped to what the link carries in one frame. */
    public TransportConfig mtu(int bytes) {
        this.mtu = bytes;
        return this;
    }

    /** UDP destination port that names SRD on the wire. */
    public TransportConfig udpPort(int port) {
        this.udpPort = port;
        return this;
    }

    /** Compute (and check) UDP checksums; false sends 0, "no checksum". */
    public TransportConfig udpChecksum(boolean on) {
        this.udpChecksum = on;
        return this;
    }

    /**
     * Build and send the ACKs a duty cycle owes at the start of the next cycle, right after the data
     * posted in between (a reply, the next request), instead of in the cycle that received: the
     * ACK's work then follows the reply rather than preceding it. The next cycle comes at once on a
     * dedicated thread; in INVOKER mode it comes with the application's next poll or post, so an
     * application that leaves its CQs alone for longer than the peer's RTO causes retransmissions
     * (harmless, counted): turn it off there.
     */
    public TransportConfig delayedAck(boolean on) {
        this.delayedAck = on;
        return this;
    }

    /**
     * The most data packets one SRD ACK answers (1..window): a context owes one ACK per duty cycle
     * for what it received, and sends it early once it covers this many, so a long RX burst still
     * clocks the sender's window along. 1 acknowledges every packet on its own.
     */
    public TransportConfig ackEvery(int packets) {
        this.ackEvery = packets;
        return this;
    }

    /** This device's IPv4 address (the remote's ACKs and the contexts key on it). */
    public TransportConfig localIp(int ip) {
        this.localIp = ip;
        return this;
    }

    /** Entropy values (paths) each context sprays over: 1..64. */
    public TransportConfig paths(int k) {
        this.paths = k;
        return this;
    }

    public TransportConfig rtoInitialNanos(long nanos) {
        this.rtoInitialNanos = nanos;
        return this;
    }

    public TransportConfig rtoMinNanos(long nanos) {
        this.rtoMinNanos = nanos;
        return this;
    }

    public TransportConfig rtoMaxNanos(long nanos) {
        this.rtoMaxNanos = nanos;
        return this;
    }

    /** No progress for this long raises REMOTE_UNRESPONSIVE (once per episode). */
    public TransportConfig transportTimeoutNanos(long nanos) {
        this.transportTimeoutNanos = nanos;
        return this;
    }

    /** Transmissions of one packet before its request completes with REMOTE_UNRESPONSIVE. */
    public TransportConfig retryBudget(int retries) {
        this.retryBudget = retries;
        return this;
    }

    /** Largest number of packets in flight per context (the responder's dedup window too): a power of two, 64..256. */
    public TransportConfig window(int packets) {
        this.window = packets;
        return this;
    }

    public TransportConfig ccInitialWindow(int packets) {
        this.ccInitialWindow = packets;
        return this;
    }

    /** Queueing delay above the path's base RTT that congestion control aims for. */
    public TransportConfig ccTargetQueueingNanos(long nanos) {
        this.ccTargetQueueingNanos = nanos;
        return this;
    }

    public TransportConfig pathAvoidNanos(long nanos) {
        this.pathAvoidNanos = nanos;
        return this;
    }

    public TransportConfig rnrBackoffNanos(long nanos) {
        this.rnrBackoffNanos = nanos;
        return this;
    }

    /**
     * A context with nothing outstanding or waiting and no traffic for this long is reclaimed (an
     * address handle does not pin it: the context comes back on the handle's next use). Reclaiming
     * forgets the receive window, so it must outlast every retransmission that could still fall
     * into it: at least {@link #retransmitLifetimeNanos()} + {@link #maxPacketLifetimeNanos(long)}, and
     * the same on every device of the fabric (a peer introduces itself afresh after half of it).
     */
    public TransportConfig idleContextNanos(long nanos) {
        this.idleContextNanos = nanos;
        return this;
    }

    /**
     * The longest a frame can spend between two transports' duty cycles, outside their RX rings
     * (switch queues, links): what a retransmission may still take to arrive after it left.
     */
    public TransportConfig maxPacketLifetimeNanos(long nanos) {
        this.maxPacketLifetimeNanos = nanos;
        return this;
    }

    /**
     * No packet is (re)transmitted later than this after its first transmission: {@code retryBudget}
     * transmissions, each at most {@code rtoMax} after the last. Past it the request completes
     * REMOTE_UNRESPONSIVE even if its budget is not spent (its thread was stalled), so a responder
     * that waited this long plus a packet's lifetime knows no copy of it can come again.
     */
    public long retransmitLifetimeNanos() {
        return retryBudget * rtoMaxNanos;
    }

    public TransportConfig maxContexts(int n) {
        this.maxContexts = n;
        return this;
    }

    public TransportConfig maxMemoryRegions(int n) {
        this.maxMemoryRegions = n;
        return this;
    }

    public TransportConfig maxQps(int n) {
        this.maxQps = n;
        return this;
    }

    public TransportConfig maxOutstandingRequests(int n) {
        this.maxOutstandingRequests = n;
        return this;
    }

    /** Frames per receive and transmit burst. */
    public TransportConfig burst(int frames) {
        this.burst = frames;
        return this;
    }

    /**
     * Packets the transport's RC and SRC responders may hold between them while a gap before them
     * fills (default 1024: ~4.3 MB at the 4 KiB MTU, made at the first early packet). Shared, so
     * reorder memory does not grow with the number of QPs; an early packet that finds none free is
     * dropped unacknowledged and sent again.
     */
    public TransportConfig rcHeldPackets(int packets) {
        this.rcHeldPackets = packets;
        return this;
    }

    public int rcHeldPackets() {
        return rcHeldPackets;
    }

    /** The knobs {@link #set} takes by name (the CLI's {@code --set KEY=VALUE}), with their units. */
    public static final List<String> KEYS = List.of("mtu", "udp-port", "udp-checksum", "delayed-ack", "ack-every", "paths", "rc-paths",
        "rto-initial-us", "rto-min-us", "rto-max-us", "transport-timeout-ms", "retry-budget", "window", "cc-initial-window",
        "cc-target-queueing-us", "cc-additive-increase", "cc-beta", "cc-max-decrease", "path-avoid-us", "rnr-backoff-us",
        "idle-context-ms", "max-packet-lifetime-ms", "max-contexts", "max-qps", "max-outstanding", "burst", "rc-held-packets",
        "zero-copy-min-bytes");

    /** Sets one knob by its name in {@link #KEYS}; throws with the list of names for an unknown one. */
    public TransportConfig set(String key, String value) {
        try {
            switch (key) {
                case "mtu" -> mtu = Integer.parseInt(value);
                case "udp-port" -> udpPort = Integer.parseInt(value);
                case "udp-checksum" -> udpChecksum = bool(key, value);
                case "delayed-ack" -> delayedAck = bool(key, value);
                case "ack-every" -> ackEvery = Integer.parseInt(value);
                case "paths" -> paths = Integer.parseInt(value);
                case "rc-paths" -> rcPaths = Integer.parseInt(value);
                case "rto-initial-us" -> rtoInitialNanos = micros(value);
                case "rto-min-us" -> rtoMinNanos = micros(value);
                case "rto-max-us" -> rtoMaxNanos = micros(value);
                case "transport-timeout-ms" -> transportTimeoutNanos = micros(value) * 1000;
                case "retry-budget" -> retryBudget = Integer.parseInt(value);
                case "window" -> window = Integer.parseInt(value);
                case "cc-initial-window" -> ccInitialWindow = Integer.parseInt(value);
                case "cc-target-queueing-us" -> ccTargetQueueingNanos = micros(value);
                case "cc-additive-increase" -> ccAdditiveIncrease = Double.parseDouble(value);
                case "cc-beta" -> ccBeta = Double.parseDouble(value);
                case "cc-max-decrease" -> ccMaxDecrease = Double.parseDouble(value);
                case "path-avoid-us" -> pathAvoidNanos = micros(value);
                case "rnr-backoff-us" -> rnrBackoffNanos = micros(value);
                case "idle-context-ms" -> idleContextNanos = micros(value) * 1000;
                case "max-packet-lifetime-ms" -> maxPacketLifetimeNanos = micros(value) * 1000;
                case "max-contexts" -> maxContexts = Integer.parseInt(value);
                case "max-qps" -> maxQps = Integer.parseInt(value);
                case "max-outstanding" -> maxOutstandingRequests = Integer.parseInt(value);
                case "burst" -> burst = Integer.parseInt(value);
                case "rc-held-packets" -> rcHeldPackets = Integer.parseInt(value);
                case "zero-copy-min-bytes" -> zeroCopyMinBytes(Integer.parseInt(value));
                default -> throw new IllegalArgumentException("unknown SRD setting '" + key + "': one of " + KEYS);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("SRD setting " + key + "=" + value + " is not a number");
        }
        return this;
    }

    private static boolean bool(String key, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("SRD setting " + key + "=" + value + " is not true or false");
        };
    }

    private static long micros(String value) {
        return Math.round(Double.parseDouble(value) * 1000);
    }

    /** An unconcluded copy, for another transport. */
    public TransportConfig copy() {
        TransportConfig c = new TransportConfig();
        c.mtu = mtu;
        c.udpPort = udpPort;
        c.udpChecksum = udpChecksum;
        c.delayedAck = delayedAck;
        c.ackEvery = ackEvery;
        c.localIp = localIp;
        c.paths = paths;
        c.rcPaths = rcPaths;
        c.rtoInitialNanos = rtoInitialNanos;
        c.rtoMinNanos = rtoMinNanos;
        c.rtoMaxNanos = rtoMaxNanos;
        c.transportTimeoutNanos = transportTimeoutNanos;
        c.retryBudget = retryBudget;
        c.window = window;
        c.ccInitialWindow = ccInitialWindow;
        c.ccTargetQueueingNanos = ccTargetQueueingNanos;
        c.ccAdditiveIncrease = ccAdditiveIncrease;
        c.ccBeta = ccBeta;
        c.ccMaxDecrease = ccMaxDecrease;
        c.pathAvoidNanos = pathAvoidNanos;
        c.rnrBackoffNanos = rnrBackoffNanos;
        c.idleContextNanos = idleContextNanos;
        c.maxPacketLifetimeNanos = maxPacketLifetimeNanos;
        c.maxContexts = maxContexts;
        c.maxQps = maxQps;
        c.maxMemoryRegions = maxMemoryRegions;
        c.maxOutstandingRequests = maxOutstandingRequests;
        c.burst = burst;
        c.rcHeldPackets = rcHeldPackets;
        c.zeroCopyMinBytes = zeroCopyMinBytes;
        c.zeroCopyMinBytesSet = zeroCopyMinBytesSet;
        return c;
    }

    /** Paths one RC QP sprays over (1: pinned). */
    public TransportConfig rcPaths(int count) {
        this.rcPaths = count;
        return this;
    }

    public int rcPaths() {
        return rcPaths == 0 ? paths : rcPaths;
    }

    public int mtu() {
        return mtu;
    }

    public int udpPort() {
        return udpPort;
    }

    public int paths() {
        return paths;
    }

    public int localIp() {
        return localIp;
    }

    public int window() {
        return window;
    }

    public long idleContextNanos() {
        return idleContextNanos;
    }

    public long rtoInitialNanos() {
        return rtoInitialNanos;
    }

    public long rtoMinNanos() {
        return rtoMinNanos;
    }

    /** Congestion control (the reliability engine's DelayWindow): initial window in packets. */
    public int ccInitialWindow() {
        return ccInitialWindow;
    }

    public double ccAdditiveIncrease() {
        return ccAdditiveIncrease;
    }

    public double ccBeta() {
        return ccBeta;
    }

    public double ccMaxDecrease() {
        return ccMaxDecrease;
    }

    public long ccTargetQueueingNanos() {
        return ccTargetQueueingNanos;
    }

    public long pathAvoidNanos() {
        return pathAvoidNanos;
    }

    public long rtoMaxNanos() {
        return rtoMaxNanos;
    }

    public long transportTimeoutNanos() {
        return transportTimeoutNanos;
    }

    public int retryBudget() {
        return retryBudget;
    }

    // Read by the transport, which lives in another package.
    public boolean udpChecksum() {
        return udpChecksum;
    }

    public boolean delayedAck() {
        return delayedAck;
    }

    public int ackEvery() {
        return ackEvery;
    }

    public long rnrBackoffNanos() {
        return rnrBackoffNanos;
    }

    public long maxPacketLifetimeNanos() {
        return maxPacketLifetimeNanos;
    }

    public int maxContexts() {
        return maxContexts;
    }

    public int maxQps() {
        return maxQps;
    }

    public int maxMemoryRegions() {
        return maxMemoryRegions;
    }

    public int maxOutstandingRequests() {
        return maxOutstandingRequests;
    }

    public int burst() {
        return burst;
    }

    /**
     * Packets carrying at least this many payload bytes are sent from the registered memory itself
     * (an external buffer behind the headers), not copied into the mbuf, where the port's driver
     * allows it; a value above the MTU turns it off. Given, it applies whatever the checksum; see
     * {@link #zeroCopyMinBytes(boolean)} for the default.
     */
    public TransportConfig zeroCopyMinBytes(int bytes) {
        this.zeroCopyMinBytes = bytes;
        this.zeroCopyMinBytesSet = true;
        return this;
    }

    public int zeroCopyMinBytes() {
        return zeroCopyMinBytes;
    }

    /**
     * The zero-copy threshold of a sender that does ({@code softwareChecksum}) or does not sum the UDP
     * checksum over the payload itself. Given, the value set; by default {@link #DEFAULT_ZERO_COPY_MIN_BYTES}
     * where the sender reads no payload byte (the port offloads the checksum, or it is off) and never
     * where it sums in software: reading the application's memory for the sum, then letting the driver
     * copy it, costs 11-21 % more CPU per packet on net_memif than copying it into the mbuf and summing
     * it there (docs/performance.md, "RC zero-copy transmit").
     */
    public int zeroCopyMinBytes(boolean softwareChecksum) {
        return zeroCopyMinBytesSet || !softwareChecksum ? zeroCopyMinBytes : Integer.MAX_VALUE;
    }

    /** Checks every value and fits the MTU to the link's largest frame; idempotent. */
    public TransportConfig conclude(int maxFrameLength) {
        if (concluded) {
            return this;
        }
        mtu = Math.min(mtu, maxFrameLength - FRAME_OVERHEAD);
        require(mtu >= 1, "the link's largest frame (" + maxFrameLength + ") cannot carry an SRD header");
        require(udpPort > 0 && udpPort < 65536, "udpPort must be 1..65535");
        require(paths >= 1 && paths <= 64, "paths must be 1..64");
        require(rcPaths >= 0 && rcPaths <= 64, "rc-paths must be 1..64 (1 pins each RC QP to one path), or 0 for paths");
        rcPaths = rcPaths == 0 ? paths : rcPaths;
        require(Integer.bitCount(window) == 1 && window >= 64 && window <= MAX_WINDOW,
            "window must be a power of two, 64.." + MAX_WINDOW + " (the PSNs one ACK's selective bitmap covers)");
        require(rtoMinNanos > 0 && rtoMinNanos <= rtoInitialNanos && rtoInitialNanos <= rtoMaxNanos
            && rtoMaxNanos <= MAX_TIME_NANOS, "need 0 < rtoMin <= rtoInitial <= rtoMax <= 1 h");
        require(retryBudget >= 1 && retryBudget <= MAX_RETRY_BUDGET, "retryBudget must be 1.." + MAX_RETRY_BUDGET);
        require(ackEvery >= 1 && ackEvery <= window, "ack-every must be 1..window");
        require(ccInitialWindow >= 1 && ccInitialWindow <= window, "ccInitialWindow must be 1..window");
        require(transportTimeoutNanos > 0 && pathAvoidNanos > 0 && rnrBackoffNanos > 0 && idleContextNanos > 0
            && maxPacketLifetimeNanos > 0 && maxPacketLifetimeNanos <= MAX_TIME_NANOS,
            "times must be positive (a packet's lifetime at most 1 h)");
        require(idleContextNanos >= retransmitLifetimeNanos() + maxPacketLifetimeNanos,
            "idle-context (" + idleContextNanos / 1_000_000 + " ms) must outlast every retransmission that could still reach a "
                + "reclaimed context: at least retry-budget x rto-max + max-packet-lifetime = " + retryBudget + " x "
                + rtoMaxNanos / 1000 + " us + " + maxPacketLifetimeNanos / 1000 + " us; raise idle-context-ms or lower "
                + "retry-budget or rto-max-us");
        require(maxContexts >= 1 && maxContexts <= MAX_CONTEXTS, "maxContexts must be 1.." + MAX_CONTEXTS);
        require(maxQps >= 1 && maxQps <= MAX_QPS, "maxQps must be 1.." + MAX_QPS);
        require(maxOutstandingRequests >= 1 && maxOutstandingRequests <= MAX_OUTSTANDING_REQUESTS,
            "maxOutstandingRequests must be 1.." + MAX_OUTSTANDING_REQUESTS);
        require(burst >= 1 && burst <= MAX_BURST, "burst must be 1.." + MAX_BURST);
        require(rcHeldPackets >= 1 && rcHeldPackets <= 1 << 20, "rc-held-packets must be 1..1048576");
        require(zeroCopyMinBytes >= 1, "zero-copy-min-bytes must be positive (larger than the MTU: never)");
        concluded = true;
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("TransportConfig: " + message);
        }
    }
}
