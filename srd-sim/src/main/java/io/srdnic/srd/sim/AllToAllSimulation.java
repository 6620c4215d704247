package io.srdnic.srd.sim;

import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.sim.SimNetwork;
import io.srdnic.pmd.sim.SimPort;
import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.api.TransportConfig;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.srd.transport.device.SrqAttributes;
import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.device.TransportQpAttributes;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import io.srdnic.srd.transport.rc.SrcDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * {@code srdnic sim --all-to-all}: N simulated nodes with J jobs each, every job connected to every
 * job of every other node, the seeds' scaling claims on running code. Per node it reports the QPs,
 * the transport contexts (reliability engines: one per RC or SRC QP, one per remote node for SRD),
 * the transport state (the live Java heap after a full collection, plus direct native memory, once
 * every message has arrived, less the same before the first QP was made, over N: QPs, their engines
 * and reorder buffers, SRQs and receive rings, address handles, and the SRD contexts made on first
 * use), and the set-up time; then every
 * job sends one message to every job of every other node, each checked on arrival.
 * <ul>
 * <li>RC: one QP per pair of jobs: J × J × (N − 1) per node, (N·J)² in the cluster as N grows.</li>
 * <li>SRC (seed 001): one QP per job per remote node, paired with the remote job of the same index,
 * each job an SRQ with the well-known SRC SRQ number job + 1: J × (N − 1) per node, N²·J.</li>
 * <li>SRD (seed 000): one QP per job, an address handle and an implicit context per remote node.</li>
 * </ul>
 */
public final class AllToAllSimulation {
    /** The transports compared. */
    public enum Transport { RC, SRC, SRD }

    static final int QKEY = 0x5A5A;
    /** The RC and SRC QPs' path MTU; one message is one packet of at most this. */
    public static final int PATH_MTU = 1024;
    private static final long QUIESCE_NANOS = 2_000_000;

    private AllToAllSimulation() {
    }

    /** What one run measured; it passed if every message arrived once, intact, from whom it says. */
    public record Report(Transport transport, int nodes, int jobs, long qpsPerNode, long contextsPerNode, long stateBytesPerNode,
                         double setupMsPerNode, long messages, long delivered, long virtualTimeUs, List<String> failures) {
        public boolean passed() {
            return delivered == messages && failures.isEmpty();
        }
    }

    /** Runs {@code jobs} jobs on each of {@code links.hosts()} nodes over {@code transport}; {@code size} bytes per message (8..1024). */
    public static Report run(Scenario links, Transport transport, int jobs, int size, TransportConfig config) {
        return run(links, transport, jobs, size, config, port -> port);
    }

    /** As {@link #run(Scenario, Transport, int, int, TransportConfig)}, each host's port seen through {@code wrap} (a capture, say). */
    public static Report run(Scenario links, Transport transport, int jobs, int size, TransportConfig config, Function<SimPort,
            PacketIo> wrap) {
        int nodes = links.hosts();
        if (nodes < 2 || jobs < 1 || size < 8 || size > PATH_MTU) {
            throw new IllegalArgumentException("--all-to-all needs --nodes >= 2, --jobs >= 1 and --size 8.." + PATH_MTU);
        }
        long qps = switch (transport) {
            case RC -> (long) jobs * jobs * (nodes - 1);
            case SRC -> (long) jobs * (nodes - 1);
            case SRD -> jobs;
        };
        TransportConfig hostConfig = config.copy().paths(links.paths()).maxQps((int) Math.max(1024, qps + 16))
            .maxContexts(Math.max(64, 2 * nodes));
        int frameRoom = Math.max(256, hostConfig.mtu() + TransportConfig.FRAME_OVERHEAD);
        try (Arena arena = Arena.ofConfined();
             SimNetwork network = SrdSimulation.network(links, SrdSimulation.accessLink(links),
                     SrdSimulation.fabricPath(links), frameRoom)) {
            Cluster c = new Cluster(transport, nodes, jobs, size, arena);
            SplittableRandom seeds = new SplittableRandom(links.seed());
            for (int n = 0; n < nodes; n++) {
                c.hosts[n] = new TransportDevice(wrap.apply(network.addHost(SimHost.mac(n))), hostConfig.copy().localIp(SimHost.ip(n)),
                        seeds.nextInt() | 1,
                    seeds.nextLong());
            }
            try {
                c.setUp();
                return c.exchange(network, links.timeLimitNanos());
            } finally {
                for (TransportDevice t : c.hosts) {
                    t.close();
                }
            }
        }
    }

    /**
     * The live memory: the Java heap used after full collections (only what is still referenced
     * counts) plus the native memory reserved through the JVM's direct-memory accounting, where
     * an RC or SRC QP's reorder buffer keeps the packets it holds early.
     */
    static long liveHeap() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += pool.getName().equals("direct") ? pool.getMemoryUsed() : 0;
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() + direct;
    }

    /** One run: the nodes, their QPs and queues, and what every job has received. */
    private static final class Cluster {
        final Transport transport;
        final int nodes;
        final int jobs;
        final int size;
        final Arena arena;
        final TransportDevice[] hosts;
        /** The one work request every node posts with, refilled per post: posting allocates nothing. */
        private final WorkRequest wr = new WorkRequest();
        /** Per node: wall time of its set-up. */
        final long[] setupNanos;
        /** The live heap before the first QP, and the transport state measured after the exchange. */
        long heapBefore;
        long stateBytes;
        final long[] qpCount;
        /** Send QPs: [node][job][target index] where the target index names (remote node, remote job) or the remote node. */
        DeviceQp[][][] sendQp;
        /** Per node: one send CQ; per job: its receive CQ. */
        final CompletionQueue[] sendCqs;
        final CompletionQueue[][] recvCqs;
        /** Per node, per remote node: the address handle. */
        final int[][] ah;
        /** SRD: each job's QP number. */
        final int[][] srdQpn;
        /** What each receiving job got: [node][job][sender], sender = node × jobs + job. */
        final byte[][][] got;
        final List<String> failures = new ArrayList<>();
        final MemorySegment source;
        final MemorySegment[][] receiveBuffers;
        long delivered;
        long posted;
        long sendsDone;
        /** Per node: the next (job, target) to post, in one counter. */
        final long[] cursor;

        Cluster(Transport transport, int nodes, int jobs, int size, Arena arena) {
            this.transport = transport;
            this.nodes = nodes;
            this.jobs = jobs;
            this.size = size;
            this.arena = arena;
            hosts = new TransportDevice[nodes];
            setupNanos = new long[nodes];
            qpCount = new long[nodes];
            sendCqs = new CompletionQueue[nodes];
            recvCqs = new CompletionQueue[nodes][jobs];
            ah = new int[nodes][nodes];
            srdQpn = new int[nodes][jobs];
            got = new byte[nodes][jobs][nodes * jobs];
            cursor = new long[nodes];
            receiveBuffers = new MemorySegment[nodes][jobs];
            source = arena.allocate((long) nodes * jobs * size, 64);
            for (int s = 0; s < nodes * jobs; s++) {
                for (int i = 0; i < size; i++) {
                    source.set(ValueLayout.JAVA_BYTE, (long) s * size + i, pattern(s, i));
                }
            }
        }

        static byte pattern(int sender, int i) {
            return (byte) (sender * 131 + i * 7 + 1);
        }

        int incoming() {
            return (nodes - 1) * jobs;
        }

        int targetsPerJob() {
            return transport == Transport.SRD ? (nodes - 1) * jobs : transport == Transport.SRC ? nodes - 1 : (nodes - 1) * jobs;
        }

        void setUp() {
            int perNodeMessages = jobs * incoming();
            for (int n = 0; n < nodes; n++) {
                sendCqs[n] = new CompletionQueue(perNodeMessages + 16);
                for (int j = 0; j < jobs; j++) {
                    recvCqs[n][j] = new CompletionQueue(incoming() + 16);
                    receiveBuffers[n][j] = arena.allocate((long) incoming() * size, 64);
                }
            }
            sendQp = new DeviceQp[nodes][jobs][];
            heapBefore = liveHeap();
            // Each node's own objects first, timed and measured on their own; then the connections, which need peers' numbers.
            for (int n = 0; n < nodes; n++) {
                int node = n;
                measure(n, () -> createNode(node));
            }
            for (int n = 0; n < nodes; n++) {
                int node = n;
                measure(n, () -> connectNode(node));
            }
        }

        private void measure(int n, Runnable r) {
            long t0 = System.nanoTime();
            r.run();
            setupNanos[n] += System.nanoTime() - t0;
        }

        /** RC: J × J × (N − 1) QPs, each with its own receive queue of one; SRC: the domain, J SRQs, J × (N − 1) QPs; SRD: J QPs. */
        private void createNode(int n) {
            TransportDevice t = hosts[n];
            for (int m = 0; m < nodes; m++) {
                if (m != n) {
                    ah[n][m] = t.createAddressHandle(SimHost.mac(m), SimHost.ip(m), t.config().udpPort());
                }
            }
            SrcDomain domain = transport == Transport.SRC ? t.createSrcDomain() : null;
            for (int j = 0; j < jobs; j++) {
                DeviceQp[] out = new DeviceQp[targetsPerJob()];
                sendQp[n][j] = out;
                switch (transport) {
                    case RC -> {
                        for (int x = 0; x < out.length; x++) {
                            out[x] = t.createQp(new TransportQpAttributes(QpType.RC).pd(j + 1).sqDepth(2).sendCq(sendCqs[n])
                                .recvCq(recvCqs[n][j]));
                            out[x].modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
                            post(out[x].postReceive(x, receiveBuffers[n][j], (long) x * size, size), n);
                        }
                    }
                    case SRC -> {
                        var srq = t.createSrq(new SrqAttributes().maxWr(incoming()).pd(j + 1).srcDomain(domain).srcSrqNumber(j + 1)
                            .srcCq(recvCqs[n][j]));
                        for (int i = 0; i < incoming(); i++) {
                            post(srq.postReceive(i, receiveBuffers[n][j], (long) i * size, size), n);
                        }
                        for (int x = 0; x < out.length; x++) {
                            out[x] = t.createQp(new TransportQpAttributes(QpType.SRC).pd(j + 1).sqDepth(jobs + 1).srcDomain(domain)
                                .sendCq(sendCqs[n]));
                            out[x].modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0));
                        }
                    }
                    case SRD -> {
                        DeviceQp qp = t.createQp(new TransportQpAttributes(QpType.SRD).pd(j + 1).sqDepth(out.length + 1)
                            .rqDepth(incoming()).sendCq(sendCqs[n]).recvCq(recvCqs[n][j]));
                        qp.modify(QpState.INIT, QKEY);
                        for (int i = 0; i < incoming(); i++) {
                            post(qp.postReceive(i, receiveBuffers[n][j], (long) i * size, size), n);
                        }
                        qp.modify(QpState.RTR, 0);
                        qp.modify(QpState.RTS, 0);
                        qp.rnrRetry(7);
                        srdQpn[n][j] = qp.qpn();
                        Arrays.fill(out, qp);
                    }
                }
                qpCount[n] += transport == Transport.SRD ? 1 : out.length;
            }
        }

        private void post(boolean ok, int n) {
            if (!ok) {
                failures.add("node " + n + ": a receive did not fit its queue");
            }
        }

        /** The remote node and job target {@code x} of an RC job names, skipping the job's own node. */
        private int remoteNode(int n, int x, int perNode) {
            int m = x / perNode;
            return m >= n ? m + 1 : m;
        }

        private int targetIndex(int n, int m, int k) {
            int slot = m > n ? m - 1 : m;
            return transport == Transport.SRC ? slot : slot * jobs + k;
        }

        private void connectNode(int n) {
            if (transport == Transport.SRD) {
                return;
            }
            for (int j = 0; j < jobs; j++) {
                DeviceQp[] out = sendQp[n][j];
                for (int x = 0; x < out.length; x++) {
                    int m;
                    int k;
                    if (transport == Transport.RC) {
                        m = remoteNode(n, x, jobs);
                        k = x % jobs;
                    } else {
                        m = remoteNode(n, x, 1);
                        k = j; // SRC: paired with the remote job of the same index
                    }
                    DeviceQp peer = sendQp[m][k][targetIndex(m, n, j)];
                    int psnOut = psn(n, j, m, k);
                    int psnIn = psn(m, k, n, j);
                    out[x].modify(new QpAttributes().state(QpState.RTR).addressHandle(ah[n][m]).pathMtu(PATH_MTU).destQpn(peer.qpn())
                        .rqPsn(psnIn).maxDestRdAtomic(0).minRnrTimer(1));
                    out[x].modify(new QpAttributes().state(QpState.RTS).sqPsn(psnOut).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(0));
                }
            }
        }

        /** The first PSN job (n, j) sends to job (m, k): 24 bits, different per direction and pair. */
        private static int psn(int n, int j, int m, int k) {
            return (int) ((n * 7919L + j * 104729L + m * 31L + k) * 2654435761L & 0xFF_FFFFL);
        }

        Report exchange(SimNetwork network, long limitNanos) {
            long messages = (long) nodes * jobs * incoming();
            long start = network.clock().now();
            long limit = start + limitNanos;
            while (network.clock().now() < limit && !(sendsDone == messages && delivered == messages)) {
                long now = network.clock().now();
                int work = 0;
                for (int n = 0; n < nodes; n++) {
                    work += postSome(n) + hosts[n].doWork(now) + poll(n);
                }
                if (work == 0 && !advance(network, now, limit)) {
                    break;
                }
            }
            long end = network.clock().now();
            if (sendsDone < messages || delivered < messages) {
                failures.add(String.format(Locale.ROOT, "unfinished: %d of %d sends completed, %d delivered", sendsDone,
                        messages, delivered));
            }
            stateBytes = Math.max(0, liveHeap() - heapBefore);
            long contexts = 0;
            for (int n = 0; n < nodes; n++) {
                contexts += transport == Transport.SRD ? hosts[n].contextCount() : qpCount[n];
            }
            return new Report(transport, nodes, jobs, sum(qpCount) / nodes, contexts / nodes, stateBytes / nodes,
                sum(setupNanos) / 1e6 / nodes, messages, delivered, (end - start) / 1000, List.copyOf(failures));
        }

        private static long sum(long[] a) {
            long s = 0;
            for (long v : a) {
                s += v;
            }
            return s;
        }

        private boolean advance(SimNetwork network, long now, long limit) {
            long next = network.nextEventTime();
            for (TransportDevice t : hosts) {
                next = Math.min(next, t.nextDeadline());
            }
            if (next == Long.MAX_VALUE) {
                return false;
            }
            network.clock().advanceTo(Math.min(Math.max(next, now + 1), limit));
            return true;
        }

        /** Posts node {@code n}'s next messages, job after job, target after target, until one is refused for room. */
        private int postSome(int n) {
            int perJob = incoming();
            int done = 0;
            while (cursor[n] < (long) jobs * perJob && done < 256) {
                int j = (int) (cursor[n] / perJob);
                int x = (int) (cursor[n] % perJob); // which remote job: node slot × jobs + job
                int slot = x / jobs;
                int m = slot >= n ? slot + 1 : slot;
                int k = x % jobs;
                int sender = n * jobs + j;
                long at = (long) sender * size;
                long wrId = ((long) m << 32) | k;
                wr.clear().wrId(wrId).opcode(SendOpcode.SEND_WITH_IMM).buffer(source, at, size).immediate(sender).signaled(true);
                int rc = switch (transport) {
                    case RC -> hosts[n].post(sendQp[n][j][targetIndex(n, m, k)], wr);
                    case SRC -> hosts[n].post(sendQp[n][j][targetIndex(n, m, k)], wr.remoteSrqn(k + 1));
                    case SRD -> hosts[n].post(sendQp[n][j][0], wr.to(ah[n][m], srdQpn[m][k], QKEY));
                };
                if (rc != TransportDevice.POST_OK) {
                    break; // no room now: the next cycle tries again
                }
                cursor[n]++;
                posted++;
                done++;
            }
            return done;
        }

        private int poll(int n) {
            int work = sendCqs[n].poll((wr, st, op, len, imm, immv, qp, src, ip) -> {
                sendsDone++;
                if (st != WcStatus.SUCCESS) {
                    failures.add("node " + n + ": a send to node " + (wr >>> 32) + " job " + (int) wr + " completed " + WcStatus.name(st));
                }
            }, Integer.MAX_VALUE);
            for (int j = 0; j < jobs; j++) {
                int job = j;
                work += recvCqs[n][j].poll((wr, st, op, len, imm, immv, qp, src, ip) -> received(n, job, wr, st, len, immv),
                    Integer.MAX_VALUE);
            }
            return work;
        }

        private void received(int n, int j, long wr, int status, int length, int sender) {
            if (status != WcStatus.SUCCESS || length != size || sender < 0 || sender >= nodes * jobs || sender / jobs == n) {
                failures.add("node " + n + " job " + j + ": a receive completed " + WcStatus.name(status) + ", " + length
                        + " B from " + sender);
                return;
            }
            if (got[n][j][sender]++ != 0) {
                failures.add("node " + n + " job " + j + ": a second message from sender " + sender);
                return;
            }
            MemorySegment buffer = receiveBuffers[n][j];
            for (int i = 0; i < size; i++) {
                if (buffer.get(ValueLayout.JAVA_BYTE, wr * size + i) != pattern(sender, i)) {
                    failures.add("node " + n + " job " + j + ": the message from sender " + sender + " differs at byte " + i);
                    return;
                }
            }
            delivered++;
        }
    }
}
