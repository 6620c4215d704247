package io.srdnic.pmd.sim;

import io.srdnic.pmd.MacAddress;
import io.srdnic.pmd.Mbuf;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.Objects;

/**
 * A seeded, deterministic network of simulated hosts, in virtual time.
 * <pre>
 *  host A ──uplink──►┐                        ┌──downlink──► host B RX ring
 *                    ├─► fabric path 0..K-1 ──┤
 *  host C ──uplink──►┘   (PathSelector picks) └──downlink──► host D RX ring
 * </pre>
 * Every host has one full-duplex access link (an uplink and a downlink, each a {@link SimLink}) to
 * a fabric of K parallel paths; each path is one queue shared by all frames routed over it. A frame
 * is forwarded by destination MAC (broadcast to every other host), crosses the sender's uplink, the
 * path its {@link PathSelector} picks, and the receiver's downlink, then lands in the receiver's RX
 * ring. Each crossing applies that link's {@link LinkConfig}: rate, queue limit, delay, jitter,
 * loss, duplication, reordering and corruption. A blackholed path drops every frame routed onto it
 * or still on it. A host may also stall ({@link HostStalls}: its thread stops for a while, on a
 * seeded schedule the network keeps and the driver honours, see {@link #stallEnd}).
 * <p>
 * Frames in flight wait in an {@link EventHeap} keyed by (arrival time, sequence). Nothing happens
 * until {@link #deliverDue()} (called by every {@link SimPort#receive}) processes the events due by
 * {@link SimClock#now()}; a driver with idle hosts jumps the clock to {@link #nextEventTime()}.
 * Per-frame state lives in arrays indexed by buffer, so the data path allocates nothing; errors on
 * it are counted {@link SimEvent}s. The same seed, configuration and inputs give the same run.
 * <p>
 * Single-threaded: the network, its clock and all its ports are driven by one thread.
 * {@link #close()} frees the buffers; no mbuf of this network may be touched after it.
 */
public final class SimNetwork implements AutoCloseable {
    /** Trace value for "no host" (an unknown destination). */
    public static final int NO_HOST = -1;
    /** Trace value for the destination of a broadcast before it fans out. */
    public static final int BROADCAST_HOST = -2;
    /** Trace value for "no path chosen yet". */
    public static final int NO_PATH = -1;

    // Where a frame is when its event fires.
    private static final byte AT_FABRIC_INGRESS = 1;
    private static final byte AT_FABRIC_EGRESS = 2;
    private static final byte AT_HOST = 3;

    // Stable link identities: a link's random stream depends on the seed and on these only.
    private static final int UPLINK = 1;
    private static final int DOWNLINK = 2;
    private static final int PATH = 3;
    private static final int STALLS = 4;

    private final long seed;
    private final Config config;
    private final Arena arena = Arena.ofShared();
    private final SimClock clock = new SimClock();
    private final SimBufferPool pool;
    private final EventHeap events;
    private final SimLink[] paths;
    private final boolean[] blackholed;
    /** Hosts whose access link is cut: every frame from or to them is dropped (a link taken down). */
    private boolean[] hostBlackholed = new boolean[0];
    private final PathSelector pathSelector;
    private final Mbuf view = new Mbuf();
    private final byte[] frameStage;
    private final int[] frameFrom;
    private final int[] frameTo;
    private final int[] framePath;
    private SimPort[] ports = new SimPort[0];
    private long[] macs = new long[0];
    private TraceListener traceListener;
    /** Each host's stalls ({@link Config#hostStalls}), by host id. */
    private StallSchedule[] stalls = new StallSchedule[0];

    public SimNetwork(long seed, Config config) {
        this.seed = seed;
        this.config = Objects.requireNonNull(config, "config");
        this.pool = new SimBufferPool(arena, config.poolSize(), config.dataRoom());
        this.events = new EventHeap(config.poolSize());
        this.paths = new SimLink[config.pathCount()];
        for (int p = 0; p < paths.length; p++) {
            paths[p] = new SimLink(config.fabricPath(), linkSeed(PATH, p));
        }
        this.blackholed = new boolean[config.pathCount()];
        this.pathSelector = config.pathSelector();
        this.frameStage = new byte[config.poolSize()];
        this.frameFrom = new int[config.poolSize()];
        this.frameTo = new int[config.poolSize()];
        this.framePath = new int[config.poolSize()];
    }

    /** A network with the default {@link Config}. */
    public SimNetwork(long seed) {
        this(seed, Config.builder().build());
    }

    /** Adds a host with the configured access link; returns its port. Set-up only. */
    public SimPort addHost(long macAddress) {
        return addHost(macAddress, config.accessLink());
    }

    /** Adds a host whose access link (both directions) behaves as {@code accessLink}; returns its port. */
    public SimPort addHost(long macAddress, LinkConfig accessLink) {
        Objects.requireNonNull(accessLink, "accessLink");
        if (macAddress == MacAddress.BROADCAST || (macAddress >>> 48) != 0) {
            throw new IllegalArgumentException("not a unicast MAC address: 0x" + Long.toHexString(macAddress));
        }
        if (hostOf(macAddress) != NO_HOST) {
            throw new IllegalArgumentException("a host already has MAC " + MacAddress.format(macAddress));
        }
        int id = ports.length;
        if (id > 0xFFFF) {
            throw new IllegalStateException("at most 65536 hosts: the mbuf port field is 16 bits");
        }
        SimPort port = new SimPort(this, pool, id, macAddress,
            new SimLink(accessLink, linkSeed(UPLINK, id)), new SimLink(accessLink, linkSeed(DOWNLINK, id)),
            config.rxRingCapacity());
        ports = Arrays.copyOf(ports, id + 1);
        ports[id] = port;
        macs = Arrays.copyOf(macs, id + 1);
        macs[id] = macAddress;
        hostBlackholed = Arrays.copyOf(hostBlackholed, id + 1);
        stalls = Arrays.copyOf(stalls, id + 1);
        stalls[id] = new StallSchedule(config.hostStalls(), linkSeed(STALLS, id));
        return port;
    }

    public SimPort port(int hostId) {
        return ports[hostId];
    }

    public int hostCount() {
        return ports.length;
    }

    public SimClock clock() {
        return clock;
    }

    /** The buffers every port of this network allocates from: {@code pool().inUse()} finds leaks. */
    public SimBufferPool pool() {
        return pool;
    }

    public long seed() {
        return seed;
    }

    public Config config() {
        return config;
    }

    public int pathCount() {
        return paths.length;
    }

    /** Kills ({@code true}) or revives a fabric path; frames on it or routed to it while dead are dropped. */
    public void blackhole(int path, boolean dead) {
        Objects.checkIndex(path, paths.length);
        blackholed[path] = dead;
    }

    /**
     * Cuts ({@code true}) or restores host {@code hostId}'s access link: while cut, every frame it
     * sends or that is on its way to it is dropped, as when a cable is pulled. A host with one
     * device per link (multipath over separate links) loses exactly one link this way.
     */
    public void blackholeHost(int hostId, boolean dead) {
        Objects.checkIndex(hostId, ports.length);
        hostBlackholed[hostId] = dead;
    }

    public boolean isBlackholed(int path) {
        return blackholed[Objects.checkIndex(path, paths.length)];
    }

    /**
     * When host {@code hostId}'s current stall ends ({@link Config#hostStalls}: its thread stopped,
     * it neither sends nor reads), or {@code now} when it is running. A driver runs a host's duty
     * cycle only when this is {@code now}. {@code now} must not go back between calls.
     */
    public long stallEnd(int hostId, long now) {
        return stalls[Objects.checkIndex(hostId, stalls.length)].stallEnd(now);
    }

    /** Sets (or with null removes) the listener told of every event. */
    public void trace(TraceListener listener) {
        traceListener = listener;
    }

    /** Arrival time of the next frame event, or {@link Long#MAX_VALUE} when nothing is in flight. */
    public long nextEventTime() {
        return events.peekTime();
    }

    /** Frames in flight (not in an RX ring, not owned by an application). */
    public int inFlight() {
        return events.size();
    }

    /** Processes every frame event due by the clock's current time, in order; returns how many. */
    public int deliverDue() {
        long now = clock.now();
        int processed = 0;
        while (!events.isEmpty() && events.peekTime() <= now) {
            long time = events.peekTime();
            int frame = events.poll();
            byte stage = frameStage[frame];
            if (stage == AT_FABRIC_INGRESS) {
                atFabricIngress(frame, time);
            } else if (stage == AT_FABRIC_EGRESS) {
                atFabricEgress(frame, time);
            } else {
                atHost(frame, time);
            }
            processed++;
        }
        return processed;
    }

    /** The deepest queue any link (uplink, downlink or fabric path) has held, in bytes. */
    public long maxQueueBytes() {
        long max = 0;
        for (SimLink path : paths) {
            max = Math.max(max, path.maxQueueBytes());
        }
        for (SimPort port : ports) {
            max = Math.max(max, Math.max(port.uplink.maxQueueBytes(), port.downlink.maxQueueBytes()));
        }
        return max;
    }

    /** The counters of every port summed (allocates: for reports and tests). */
    public SimCounters totals() {
        SimCounters total = new SimCounters();
        for (SimPort port : ports) {
            port.counters.addTo(total);
        }
        return total;
    }

    @Override
    public void close() {
        arena.close();
    }

    // ---- data path ------------------------------------------------------------------------------

    /** Takes one frame from {@code port}'s transmit; false when it was refused (malformed, uplink full). */
    boolean send(SimPort port, long address) {
        int frame = pool.take(address);
        long now = clock.now();
        int from = port.id();
        Mbuf mbuf = view.wrap(address);
        int length = mbuf.dataLength();
        if (!wellFormed(mbuf, length)) {
            drop(port.counters, now, SimEvent.DROPPED_MALFORMED, frame, from, NO_HOST, NO_PATH, length);
            return false;
        }
        int to = hostOf(destinationMac(mbuf));
        if (hostBlackholed[from]) {
            drop(port.counters, now, SimEvent.DROPPED_BLACKHOLE, frame, from, to, NO_PATH, length);
            return true;
        }
        long arrival = port.uplink.offer(now, length);
        if (arrival == SimLink.QUEUE_FULL) {
            drop(port.counters, now, SimEvent.DROPPED_QUEUE_FULL, frame, from, to, NO_PATH, length);
            return false;
        }
        emit(port.counters, now, SimEvent.SENT, from, to, NO_PATH, length);
        if (to == NO_HOST) {
            drop(port.counters, now, SimEvent.DROPPED_UNKNOWN_DESTINATION, frame, from, to, NO_PATH, length);
            return true;
        }
        frameFrom[frame] = from;
        frameTo[frame] = to;
        framePath[frame] = NO_PATH;
        crossed(frame, port.uplink, arrival, AT_FABRIC_INGRESS, now, length);
        return true;
    }

    void poolExhausted(SimPort port) {
        emit(port.counters, clock.now(), SimEvent.DROPPED_POOL_EXHAUSTED, port.id(), NO_HOST, NO_PATH, 0);
    }

    private boolean wellFormed(Mbuf mbuf, int length) {
        return length >= SimLink.ETHERNET_HEADER_LENGTH
            && length <= pool.dataRoom()
            && mbuf.segmentCount() == 1
            && mbuf.packetLength() == length
            && mbuf.dataOffset() + length <= mbuf.bufferLength();
    }

    private static long destinationMac(Mbuf mbuf) {
        return (Short.toUnsignedLong(mbuf.getShortBE(0)) << 32) | Integer.toUnsignedLong(mbuf.getIntBE(2));
    }

    /** Host id owning {@code mac}, {@link #BROADCAST_HOST}, or {@link #NO_HOST}; a scan, as hosts are few. */
    private int hostOf(long mac) {
        if (mac == MacAddress.BROADCAST) {
            return BROADCAST_HOST;
        }
        for (int i = 0; i < macs.length; i++) {
            if (macs[i] == mac) {
                return i;
            }
        }
        return NO_HOST;
    }

    private void atFabricIngress(int frame, long time) {
        if (frameTo[frame] == BROADCAST_HOST) {
            flood(frame, time);
        } else {
            route(frame, time);
        }
    }

    /** Sends a copy to every other host; the original goes last, so every copy is made from it intact. */
    private void flood(int frame, long time) {
        int from = frameFrom[frame];
        int last = ports.length - 1 == from ? ports.length - 2 : ports.length - 1;
        if (last < 0) {
            drop(ports[from].counters, time, SimEvent.DROPPED_UNKNOWN_DESTINATION, frame, from, NO_HOST, NO_PATH,
                pool.dataLength(frame));
            return;
        }
        for (int host = 0; host < last; host++) {
            if (host == from) {
                continue;
            }
            int copy = pool.copy(frame, from);
            if (copy < 0) {
                emit(ports[from].counters, time, SimEvent.DROPPED_POOL_EXHAUSTED, from, host, NO_PATH, pool.dataLength(frame));
                continue;
            }
            frameFrom[copy] = from;
            frameTo[copy] = host;
            route(copy, time);
        }
        frameTo[frame] = last;
        route(frame, time);
    }

    private void route(int frame, long time) {
        int path = Math.floorMod(pathSelector.selectPath(view.wrap(pool.address(frame)), paths.length), paths.length);
        framePath[frame] = path;
        if (blackholed[path]) {
            drop(ports[frameFrom[frame]].counters, time, SimEvent.DROPPED_BLACKHOLE, frame, frameFrom[frame], frameTo[frame],
                path, pool.dataLength(frame));
            return;
        }
        forward(frame, paths[path], time, AT_FABRIC_EGRESS);
    }

    private void atFabricEgress(int frame, long time) {
        if (blackholed[framePath[frame]]) {
            drop(ports[frameFrom[frame]].counters, time, SimEvent.DROPPED_BLACKHOLE, frame, frameFrom[frame], frameTo[frame],
                framePath[frame], pool.dataLength(frame));
            return;
        }
        forward(frame, ports[frameTo[frame]].downlink, time, AT_HOST);
    }

    private void atHost(int frame, long time) {
        SimPort receiver = ports[frameTo[frame]];
        int length = pool.dataLength(frame);
        if (hostBlackholed[receiver.id()]) {
            drop(ports[frameFrom[frame]].counters, time, SimEvent.DROPPED_BLACKHOLE, frame, frameFrom[frame], receiver.id(),
                framePath[frame], length);
            return;
        }
        if (!receiver.rxOffer(frame)) {
            drop(receiver.counters, time, SimEvent.DROPPED_RX_RING_FULL, frame, frameFrom[frame], receiver.id(),
                framePath[frame], length);
            return;
        }
        pool.stampReceived(frame, receiver.id());
        emit(receiver.counters, time, SimEvent.DELIVERED, frameFrom[frame], receiver.id(), framePath[frame], length);
    }

    /** Offers the frame to the next link and, if its queue takes it, schedules it at the far end. */
    private void forward(int frame, SimLink link, long time, byte nextStage) {
        int length = pool.dataLength(frame);
        long arrival = link.offer(time, length);
        if (arrival == SimLink.QUEUE_FULL) {
            drop(ports[frameFrom[frame]].counters, time, SimEvent.DROPPED_QUEUE_FULL, frame, frameFrom[frame], frameTo[frame],
                framePath[frame], length);
            return;
        }
        crossed(frame, link, arrival, nextStage, time, length);
    }

    /** Applies what {@code link} decided for a frame it serialized: loss, corruption, reordering, a duplicate. */
    private void crossed(int frame, SimLink link, long arrival, byte nextStage, long time, int length) {
        int from = frameFrom[frame];
        int to = frameTo[frame];
        int path = framePath[frame];
        SimCounters counters = ports[from].counters;
        if (arrival == SimLink.LOST) {
            drop(counters, time, SimEvent.DROPPED_LOSS, frame, from, to, path, length);
            return;
        }
        if (link.corruptBit() >= 0) {
            pool.flipBit(frame, link.corruptBit());
            emit(counters, time, SimEvent.CORRUPTED, from, to, path, length);
        }
        if (link.reordered()) {
            emit(counters, time, SimEvent.REORDERED, from, to, path, length);
        }
        frameStage[frame] = nextStage;
        events.add(frame, arrival);
        if (link.duplicated()) {
            int copy = pool.copy(frame, from);
            if (copy < 0) {
                emit(counters, time, SimEvent.DROPPED_POOL_EXHAUSTED, from, to, path, length);
                return;
            }
            frameFrom[copy] = from;
            frameTo[copy] = to;
            framePath[copy] = path;
            frameStage[copy] = nextStage;
            events.add(copy, arrival);
            emit(counters, time, SimEvent.DUPLICATED, from, to, path, length);
        }
    }

    private void drop(SimCounters counters, long time, SimEvent event, int frame, int from, int to, int path, int length) {
        pool.release(frame);
        emit(counters, time, event, from, to, path, length);
    }

    private void emit(SimCounters counters, long time, SimEvent event, int from, int to, int path, int length) {
        counters.increment(event);
        TraceListener listener = traceListener;
        if (listener != null) {
            listener.onEvent(time, event, from, to, path, length);
        }
    }

    /** Each link's random stream: a SplitMix64 mix of the network seed and the link's stable identity. */
    private long linkSeed(int kind, int index) {
        return mix64(seed ^ mix64(((long) kind << 32) | index));
    }

    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return "SimNetwork[seed=" + seed + ", hosts=" + ports.length + ", paths=" + paths.length
            + ", inFlight=" + events.size() + ", " + pool + "]";
    }

    /**
     * How a {@link SimNetwork} is built. Defaults: access links and fabric paths
     * {@link LinkConfig#DEFAULT}, 1 path, 4096 buffers of {@link SimBufferPool#DEFAULT_DATA_ROOM},
     * RX rings of 1024, paths picked by {@link PathSelector#UDP_SOURCE_PORT}, no host stalls.
     */
    public record Config(
        LinkConfig accessLink,
        LinkConfig fabricPath,
        int pathCount,
        int poolSize,
        int dataRoom,
        int rxRingCapacity,
        PathSelector pathSelector,
        HostStalls hostStalls) {

        public static final int DEFAULT_PATH_COUNT = 1;
        public static final int DEFAULT_POOL_SIZE = 4096;
        public static final int DEFAULT_RX_RING_CAPACITY = 1024;

        public Config {
            Objects.requireNonNull(accessLink, "accessLink");
            Objects.requireNonNull(fabricPath, "fabricPath");
            Objects.requireNonNull(pathSelector, "pathSelector");
            Objects.requireNonNull(hostStalls, "hostStalls");
            if (pathCount <= 0) {
                throw new IllegalArgumentException("pathCount must be positive, was " + pathCount);
            }
            if (poolSize <= 0) {
                throw new IllegalArgumentException("poolSize must be positive, was " + poolSize);
            }
            if (rxRingCapacity <= 0) {
                throw new IllegalArgumentException("rxRingCapacity must be positive, was " + rxRingCapacity);
            }
        }

        public static Builder builder() {
            return new Builder();
        }

        /** Builds a {@link Config}; every setting starts at its default. */
        public static final class Builder {
            private LinkConfig accessLink = LinkConfig.DEFAULT;
            private LinkConfig fabricPath = LinkConfig.DEFAULT;
            private int pathCount = DEFAULT_PATH_COUNT;
            private int poolSize = DEFAULT_POOL_SIZE;
            private int dataRoom = SimBufferPool.DEFAULT_DATA_ROOM;
            private int rxRingCapacity = DEFAULT_RX_RING_CAPACITY;
            private PathSelector pathSelector = PathSelector.UDP_SOURCE_PORT;
            private HostStalls hostStalls = HostStalls.NONE;

            private Builder() {
            }

            /** Both directions of every host's link to the fabric (unless given per host). */
            public Builder accessLink(LinkConfig value) {
                accessLink = value;
                return this;
            }

            /** Every fabric path (one queue each, shared by all frames routed over it). */
            public Builder fabricPath(LinkConfig value) {
                fabricPath = value;
                return this;
            }

            public Builder pathCount(int value) {
                pathCount = value;
                return this;
            }

            /** Buffers shared by all ports: what they hold, plus what is in flight and in RX rings. */
            public Builder poolSize(int value) {
                poolSize = value;
                return this;
            }

            /** Data bytes per buffer: every port's {@code maxFrameLength()}. */
            public Builder dataRoom(int value) {
                dataRoom = value;
                return this;
            }

            public Builder rxRingCapacity(int value) {
                rxRingCapacity = value;
                return this;
            }

            public Builder pathSelector(PathSelector value) {
                pathSelector = value;
                return this;
            }

            /** Every host's thread stops now and then, on its own seeded schedule (see {@link HostStalls}). */
            public Builder hostStalls(HostStalls value) {
                hostStalls = value;
                return this;
            }

            public Config build() {
                return new Config(accessLink, fabricPath, pathCount, poolSize, dataRoom, rxRingCapacity, pathSelector, hostStalls);
            }
        }
    }
}
