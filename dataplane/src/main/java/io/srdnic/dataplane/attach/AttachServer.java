package io.srdnic.dataplane.attach;

import io.srdnic.srd.api.AsyncEventQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.EmbeddedObjects;
import io.srdnic.verbs.VerbsException;
import io.srdnic.verbs.attach.SharedLayout;
import io.srdnic.verbs.attach.ShmRing;
import io.srdnic.verbs.attach.control.AllocPdRequest;
import io.srdnic.verbs.attach.control.AsyncEventMessage;
import io.srdnic.verbs.attach.control.CloseRequest;
import io.srdnic.verbs.attach.control.CmEventMessage;
import io.srdnic.verbs.attach.control.CmRequest;
import io.srdnic.verbs.attach.control.ControlCodec;
import io.srdnic.verbs.attach.control.ControlMessage;
import io.srdnic.verbs.attach.control.CreateAhRequest;
import io.srdnic.verbs.attach.control.CreateCqRequest;
import io.srdnic.verbs.attach.control.CreateQpRequest;
import io.srdnic.verbs.attach.control.CreateSrqRequest;
import io.srdnic.verbs.attach.control.DestroyRequest;
import io.srdnic.verbs.attach.control.ErrorReply;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.ModifyQpRequest;
import io.srdnic.verbs.attach.control.OpenReply;
import io.srdnic.verbs.attach.control.OpenRequest;
import io.srdnic.verbs.attach.control.OpenXrcdRequest;
import io.srdnic.verbs.attach.control.ProtocolException;
import io.srdnic.verbs.attach.control.QueryQpRequest;
import io.srdnic.verbs.attach.control.RegisterMrRequest;
import io.srdnic.verbs.attach.control.SrqRequest;
import io.srdnic.verbs.cm.ConnectionManager;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The attach side of {@code srdnic dataplane}: serves clients over {@code DIR/control.sock} and
 * their shared files, on the embedded contexts (one per port) the dataplane opened. One thread runs
 * everything — the transports, every client's rings, and (every {@link #CONTROL_INTERVAL_NANOS})
 * the control socket through one non-blocking {@code poll} ({@link UnixListener}) — so the
 * transport is touched by one thread and a post costs no syscall on either side. A client whose
 * socket closes is reclaimed; one that sends a malformed message or breaks a ring index is counted,
 * told, and dropped; the dataplane stays up. Who may connect, and how many at once, is the
 * {@link AttachPolicy}: the peer's uid and gid from SO_PEERCRED against numeric allow lists, limits
 * on connections in total and per uid, and a deadline to send OPEN.
 */
public final class AttachServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AttachServer.class.getName());
    public static final String SOCKET = SharedLayout.CONTROL_SOCKET;
    static final long CONTROL_INTERVAL_NANOS = 50_000;
    private static final String CLOSED_CONTEXT = "closed its context";

    private final Path socketPath;
    private final List<Context> ports;
    /** Each port's connection manager, owner of its management QP: served to every client, run here always. */
    private final List<ConnectionManager> cms = new ArrayList<>();
    private final AttachPolicy policy;
    private final Path shmDir;
    private final UnixListener server;
    private final List<Connection> connections = new ArrayList<>();
    /** Open connections per peer uid, for {@link AttachPolicy#maxConnectionsPerUid}. */
    private final Map<Integer, Integer> connectionsByUid = new HashMap<>();
    /** The connections' descriptors in {@link #connections}' order, for the poll, and the connections polled. */
    private int[] pollSet = new int[16];
    private Connection[] polled = new Connection[16];
    private static final long REFUSAL_LOG_INTERVAL_NANOS = 1_000_000_000L;
    /** Refusals since the last logged one, and when that was (see logRefusal). */
    private long refusalsNotLogged;
    private long lastRefusalLogNanos;
    private boolean refusalsLogged;
    /** The one buffer every refused connection's ERROR is written from (a refusal allocates no direct memory). */
    private final ByteBuffer refusalOut = ByteBuffer.allocateDirect(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
    private long connectionsRefused;
    private long openTimeouts;
    private long nextClient;
    /** Between one client id and the next: the number of servers in the process, each numbering its own residue. */
    private final long clientIdStep;
    private long lastControl;
    private long clientsAttached;
    private long clientsRefused;
    private long clientsReclaimed;
    private long clientsClosed;
    private long objectsReclaimed;
    private long malformedMessages;
    private long ringCorruptions;
    /** Work requests refused for clients that have left (those still here are summed from their sessions). */
    private long refusedByDeparted;
    private long clientsFenced;
    /** Requests refused at a client's own quota, and at the total over all clients (QuotaRefused). */
    private long quotaRefusals;
    private long totalQuotaRefusals;
    /** The client whose CM pump fails (a test's stand-in for a CM fault no client request reaches); -1: none. */
    private long cmFaultClient = -1;
    /** What each client may make; {@link ClientQuota#DEFAULTS} unless {@link #quota(ClientQuota)} says otherwise. */
    private ClientQuota quota = ClientQuota.DEFAULTS;
    /** What all clients may hold together (shared with the other lcores' servers); derived from the machine unless set. */
    private TotalQuota totals = TotalQuota.ofThisMachine();
    /** The live counters file of the attach side, or null. */
    private AttachCounters published;
    /** Who holds what ({@code srdnic dataplane res}), written beside the counters file; or null. */
    private ResFile res;
    private int lcore;

    /** One client's socket, its half-read frames, and its session. */
    private static final class Connection {
        final int fd;
        final ClientSession session;
        /** "uid U pid P", as the kernel said at connect. */
        final String peer;
        final int uid;
        final int peerPid;
        /** When it connected: it must send OPEN within the policy's timeout. */
        final long connectedNanos;
        /** Its buffers' native memory, freed when it is dropped (a direct ByteBuffer's waits for a GC: 32 KiB per client gone). */
        final Arena buffers = Arena.ofShared();
        final ByteBuffer in = buffers.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES).asByteBuffer();
        final ByteBuffer out = buffers.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES).asByteBuffer();
        /** The pid it states in OPEN (logged beside the kernel's). */
        long pid;
        /** The port it opened. */
        int port;
        /** Dropped: its descriptor is closed (a poll that saw it ready must not read it). */
        boolean dropped;
        /** Its ring occupancy counters in the counters file, once it is open and the file published; else null. */
        int[] ringCounters;
        /** Sends it one of its CM ids' events: made once, not per control interval. */
        Consumer<CmEventMessage> cmEvents;

        Connection(UnixListener.Peer peer, ClientSession session, long now) {
            this.fd = peer.fd();
            this.session = session;
            this.uid = peer.uid();
            this.peerPid = peer.pid();
            this.peer = "uid " + peer.uid() + " pid " + peer.pid();
            this.connectedNanos = now;
        }
    }

    /**
     * Listens on {@code dir}/control.sock (a stale socket file is replaced: the caller holds the
     * directory's lock) for clients of {@code ports}; shared files go in {@code shmDir}, or, when it
     * is null, each client's memory is a sealed memfd ({@link SealedMemory}) that no one can shrink.
     */
    public AttachServer(Path dir, List<Context> ports, AllowRule allow, Path shmDir) {
        this(dir, ports, AttachPolicy.of(allow), shmDir, 0, 1);
    }

    /** As below, with the default limits and socket group. */
    public AttachServer(Path dir, List<Context> ports, AllowRule allow, Path shmDir, int lcore, int lcores) {
        this(dir, ports, AttachPolicy.of(allow), shmDir, lcore, lcores);
    }

    /**
     * The server of lcore {@code lcore} of {@code lcores} in a dataplane that runs one per lcore, under {@code policy}:
     * its client ids are {@code lcore + 1}, {@code lcore + 1 + lcores}, ..., so that no two clients
     * of the process share an id, nor the shared file named by it.
     */
    public AttachServer(Path dir, List<Context> ports, AttachPolicy policy, Path shmDir, int lcore, int lcores) {
        if (lcore < 0 || lcore >= lcores) {
            throw new IllegalArgumentException("lcore " + lcore + " of " + lcores);
        }
        this.nextClient = lcore + 1;
        this.clientIdStep = lcores;
        this.socketPath = dir.resolve(SOCKET);
        this.ports = List.copyOf(ports);
        this.policy = policy;
        this.shmDir = shmDir;
        for (Context port : this.ports) {
            cms.add(ConnectionManager.of(port));
        }
        try {
            Files.deleteIfExists(socketPath);
            server = UnixListener.listen(socketPath, "rw-rw----", policy.socketGid());
        } catch (IOException e) {
            throw new VerbsException("cannot listen on " + socketPath + ": " + e.getMessage());
        }
        LOG.log(Level.INFO, "listening on {0} for {1} port(s); attach allowed to {2}; at most {3} connections, {4} per uid",
            socketPath, String.valueOf(ports.size()), policy.allow().description(), String.valueOf(policy.maxConnections()),
            String.valueOf(policy.maxConnectionsPerUid())); // numbers as text: MessageFormat would group their digits
    }

    /** What each client that opens from now on may make (CQs, QPs, SRQs and their depths). */
    public AttachServer quota(ClientQuota quota) {
        this.quota = Objects.requireNonNull(quota);
        return this;
    }

    /** What all clients together may hold: shared by every lcore's server of one dataplane, so the sum over them is bounded. */
    public AttachServer totals(TotalQuota totals) {
        this.totals = Objects.requireNonNull(totals);
        return this;
    }

    public Path socketPath() {
        return socketPath;
    }

    /**
     * One duty cycle at {@code now}: the transports, the clients' rings, and now and then the
     * control socket. A fault in one client's handling — anything its records, indexes, sizes or
     * file make the dataplane's code throw — fences that client alone ({@link #fence}); the pass
     * goes on for the others. Whatever else throws is the dataplane's own failure and leaves.
     */
    public int doWork(long now) {
        // Posts first, so that the cycles below transmit them; completions last, so that what the
        // cycles made reaches the clients' rings in this pass: a record never waits a whole pass.
        // The posts in the applications' order: every client's send indexes are read first, then
        // every receive ring is taken, then the sends found: a receive published before a send
        // (of any client of this server) is posted before that send, so it is in place when the
        // send arrives, as a NIC's receive queue is (no RNR for a receive posted in time).
        int work = eachClient(BEGIN_PASS);
        work += eachClient(RECEIVES);
        work += eachClient(SENDS);
        work += cycles(now);
        work += eachClient(COMPLETIONS);
        if (now - lastControl >= CONTROL_INTERVAL_NANOS) {
            lastControl = now;
            try { // the CMs and the async events from what this pass's cycles made: no cycle more
                for (int i = 0; i < cms.size(); i++) {
                    work += cms.get(i).pollCompleted();
                }
                work += routeEvents();
            } catch (InternalError e) {
                work += fenceTruncators(e);
            }
            work += pollControl(now);
            if (published != null) {
                published.maybeExport(this, now, false);
                res.maybeWrite(this, lcore, now, false);
            }
        }
        return work;
    }

    private static final int BEGIN_PASS = 0;
    private static final int RECEIVES = 1;
    private static final int SENDS = 2;
    private static final int COMPLETIONS = 3;

    /** One step of the pass for every open client; a client that broke a ring index or faulted is fenced, the others go on. */
    private int eachClient(int step) {
        int work = 0;
        for (int i = connections.size() - 1; i >= 0; i--) {
            Connection c = connections.get(i);
            if (!c.session.isOpen()) {
                continue;
            }
            int n;
            try {
                n = switch (step) {
                    case BEGIN_PASS -> c.session.beginPass();
                    case RECEIVES -> c.session.pumpReceives();
                    case SENDS -> c.session.pumpSends();
                    default -> c.session.pumpCompletions();
                };
            } catch (RuntimeException | InternalError e) {
                fence(c, e);
                continue;
            }
            if (n == ShmRing.CORRUPT) {
                ringCorruptions++;
                send(c, 0, new ErrorReply("a ring index in the context's shared memory was overwritten"));
                drop(c, "broke a ring index in its shared memory: context errored");
            } else {
                work += n;
            }
        }
        return work;
    }

    /**
     * Each port's cycle once, then once more each port whose cycle ran before the last one that did
     * any work: that one may have sent to it (a dataplane serving both ends of a link, the README's
     * one-machine setup: B's reply to A leaves in port B's cycle, after port A's has run), and what
     * it sent then lands, and completes, in this pass rather than the next: two passes per
     * ping-pong round trip instead of three. An idle pass runs each cycle once, as before; a port
     * facing another host pays an empty receive poll when a later port was busy.
     */
    private int cycles(long now) {
        int work = 0;
        int lastBusy = -1;
        for (int i = 0; i < ports.size(); i++) {
            int n = progress(ports.get(i), now);
            if (n > 0) {
                lastBusy = i;
            }
            work += n;
        }
        for (int i = 0; i < lastBusy; i++) {
            work += progress(ports.get(i), now);
        }
        return work;
    }

    /**
     * A port's cycle, at the pass's time {@code now} (read once by the lcore). The transport reads
     * and writes clients' pools (sends leave from them, messages land in them); if a client
     * truncated its shared file, that access faults (SIGBUS, an InternalError in Java) inside the
     * cycle: the client whose file is short is fenced, and the pass goes on. A fault no client's
     * file explains is the dataplane's own, and is thrown.
     */
    private int progress(Context port, long now) {
        try {
            return EmbeddedObjects.runCycle(port, now); // at the pass's time: the lcore drives the transport, no clock read per port
        } catch (InternalError e) {
            return fenceTruncators(e);
        }
    }

    private boolean anyTruncated() {
        for (int i = 0; i < connections.size(); i++) {
            Connection c = connections.get(i);
            if (c.session.isOpen() && c.session.truncatedItsFile()) {
                return true;
            }
        }
        return false;
    }

    /** After a fault in a port's cycle: fences every client whose shared file is short, or throws {@code fault} when none is. */
    private int fenceTruncators(InternalError fault) {
        int fenced = 0;
        for (int i = connections.size() - 1; i >= 0; i--) {
            Connection c = connections.get(i);
            if (c.session.isOpen() && c.session.truncatedItsFile()) {
                fence(c, fault);
                fenced++;
            }
        }
        if (fenced == 0) {
            throw fault;
        }
        return fenced;
    }

    /**
     * Fences a client whose handling faulted: counted ({@code clients_fenced}), logged with its
     * user and pid and the fault, told why in an ERROR, then dropped (its objects reclaimed).
     */
    private void fence(Connection c, Throwable fault) {
        clientsFenced++;
        String why = c.session.truncatedItsFile() ? "its shared file was truncated under the dataplane's mapping" : fault.toString();
        LOG.log(Level.WARNING, "client " + c.session.id + " (user " + c.peer + ", pid " + c.pid + ") fenced: " + why, fault);
        send(c, 0, new ErrorReply("this context was fenced by the dataplane: " + why));
        drop(c, "fenced (" + why + ")");
    }

    /** Counters of the attach side, for logs and tests; {@link #publishCounters} puts them in the live counters file. */
    public Map<String, Long> counters() {
        long[] values = new long[AttachCounters.NAMES.length];
        fillCounters(values);
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            m.put(AttachCounters.NAMES[i], values[i]);
        }
        return m;
    }

    /** The counts, in {@link AttachCounters#NAMES}' order, into {@code out} (no allocation: the counters file's export). */
    void fillCounters(long[] out) {
        long refused = refusedByDeparted;
        for (int i = 0; i < connections.size(); i++) {
            refused += connections.get(i).session.refusedCount();
        }
        out[0] = connections.size();
        out[1] = clientsAttached;
        out[2] = clientsRefused;
        out[3] = clientsReclaimed;
        out[4] = objectsReclaimed;
        out[5] = malformedMessages;
        out[6] = ringCorruptions;
        out[7] = refused;
        out[8] = clientsClosed;
        out[9] = connectionsRefused;
        out[10] = openTimeouts;
        out[11] = clientsFenced;
        out[12] = quotaRefusals;
        out[13] = totalQuotaRefusals;
    }

    /**
     * Publishes the attach side's counters in a counters file in {@code dir} (the dataplane's, where
     * its ports' files are), read by {@code srdnic stat}; on the dataplane's thread. Returns the file.
     */
    public Path publishCounters(Path dir) {
        return publishCounters(dir, 0);
    }

    /**
     * {@link #publishCounters(Path)} for the server of lcore {@code lcore} of a dataplane that runs
     * several, each serving the clients of its own contexts: its file and scope say which lcore.
     */
    public Path publishCounters(Path dir, int lcore) {
        if (published != null) {
            throw new IllegalStateException("the attach counters are published already, in " + published.file());
        }
        published = new AttachCounters(dir, lcore);
        this.lcore = lcore;
        res = new ResFile(dir, lcore);
        res.maybeWrite(this, lcore, System.nanoTime(), true);
        for (int i = 0; i < connections.size(); i++) {
            Connection c = connections.get(i);
            if (c.session.isOpen()) {
                c.ringCounters = published.addClient(c.session.id);
            }
        }
        published.maybeExport(this, System.nanoTime(), true);
        return published.file();
    }

    /** Each open client's objects as lines of the res file (on this thread). */
    void describeClients(StringBuilder out) {
        for (int i = 0; i < connections.size(); i++) {
            Connection c = connections.get(i);
            if (c.session.isOpen()) {
                c.session.describe(out, c.uid, c.peerPid, c.port);
            }
        }
    }

    /** Each open client's ring occupancy into its counters (the counters file's export, on this thread). */
    void exportClients(AttachCounters counters) {
        for (int i = 0; i < connections.size(); i++) {
            Connection c = connections.get(i);
            if (c.ringCounters != null) {
                counters.exportClient(c.session, c.ringCounters);
            }
        }
    }

    private int pollControl(long now) {
        int count = connections.size();
        if (pollSet.length < count) {
            pollSet = new int[Math.max(count, pollSet.length * 2)];
            polled = new Connection[pollSet.length];
        }
        for (int i = 0; i < count; i++) {
            polled[i] = connections.get(i);
            pollSet[i] = polled[i].fd;
        }
        int ready;
        try {
            ready = server.poll(pollSet, count);
        } catch (IOException e) {
            LOG.log(Level.ERROR, "poll of the control socket failed: " + e.getMessage());
            return 0;
        }
        int work = 0;
        if (ready > 0) {
            // Connections first (the poll's slots are i + 1), as polled: answering one may drop another
            // (a failed send of an event), which then is skipped, its descriptor closed.
            for (int i = 0; i < count; i++) {
                Connection c = polled[i];
                polled[i] = null;
                if (server.ready(i + 1) && !c.dropped) {
                    read(c);
                    work++;
                }
            }
            if (server.ready(0)) {
                accept(now);
                work++;
            }
        }
        expireUnopened(now);
        return work;
    }

    /** Closes every connection that has not sent OPEN within the policy's timeout. */
    private void expireUnopened(long now) {
        long limit = policy.openTimeoutMillis() * 1_000_000L;
        for (int i = connections.size() - 1; i >= 0; i--) {
            Connection c = connections.get(i);
            if (!c.session.isOpen() && now - c.connectedNanos > limit) {
                openTimeouts++;
                send(c, 0, new ErrorReply("no OPEN within " + policy.openTimeoutMillis() + " ms: closed"));
                drop(c, "sent no OPEN within " + policy.openTimeoutMillis() + " ms");
            }
        }
    }

    private void accept(long now) {
        while (true) {
            UnixListener.Peer who;
            try {
                who = server.accept();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "accept failed: " + e.getMessage());
                return;
            }
            if (who == null) {
                return;
            }
            // Decided before anything is made for the connection: a refused uid that floods connect()
            // costs the dataplane's thread one reply from a shared buffer, no session or buffers.
            String refusal = refusal(who);
            if (refusal != null) {
                logRefusal(who, refusal, now);
                refusalOut.clear();
                ControlCodec.write(refusalOut, 0, new ErrorReply(refusal));
                refusalOut.flip();
                writeWhole(who.fd(), refusalOut); // told if it reads at once; closed either way
                server.closeConnection(who.fd());
                continue;
            }
            Connection c = new Connection(who, new ClientSession(nextClient, shmDir), now);
            nextClient += clientIdStep;
            c.cmEvents = m -> send(c, 0, m);
            connections.add(c);
            connectionsByUid.merge(c.uid, 1, Integer::sum);
        }
    }

    /**
     * Logs a refused connection at most once per {@link #REFUSAL_LOG_INTERVAL_NANOS}, with how many
     * more were refused since the last line: a uid that floods connect() must not flood the log (the
     * refusals are all counted in clients_refused).
     */
    private void logRefusal(UnixListener.Peer who, String refusal, long now) {
        if (refusalsLogged && now - lastRefusalLogNanos < REFUSAL_LOG_INTERVAL_NANOS) {
            refusalsNotLogged++;
            return;
        }
        String more = refusalsNotLogged == 0 ? "" : " (" + refusalsNotLogged + " more refused since the last such line)";
        LOG.log(Level.WARNING, "refused a connection of uid " + who.uid() + " pid " + who.pid() + ": " + refusal + more);
        refusalsLogged = true;
        lastRefusalLogNanos = now;
        refusalsNotLogged = 0;
    }

    /** Why {@code who} may not connect (counted), or null when it may. */
    private String refusal(UnixListener.Peer who) {
        if (!policy.allow().allows(who.uid(), who.gid())) {
            clientsRefused++;
            return "uid " + who.uid() + " (gid " + who.gid() + ") may not attach to this dataplane (allowed: "
                + policy.allow().description() + ")";
        }
        if (connections.size() >= policy.maxConnections()) {
            connectionsRefused++;
            return "the dataplane has " + connections.size() + " control connections, its limit (--max-connections)";
        }
        if (connectionsByUid.getOrDefault(who.uid(), 0) >= policy.maxConnectionsPerUid()) {
            connectionsRefused++;
            return "uid " + who.uid() + " has " + policy.maxConnectionsPerUid()
                    + " control connections, its limit (--max-connections-per-uid)";
        }
        return null;
    }

    private void read(Connection c) {
        int n = server.read(c.fd, c.in);
        if (n < 0) {
            drop(c, "closed its socket");
            return;
        }
        c.in.flip();
        try {
            while (true) {
                int length = ControlCodec.frameLength(c.in);
                if (length < 0 || c.in.remaining() < ControlCodec.LENGTH_BYTES + length) {
                    break;
                }
                int id = ControlCodec.requestId(c.in);
                ControlMessage m = ControlCodec.read(c.in);
                if (!answer(c, id, m)) {
                    return;
                }
            }
        } catch (ProtocolException e) {
            malformedMessages++;
            drop(c, "sent a malformed control message (" + e.getMessage() + ")");
            return;
        }
        c.in.compact();
    }

    /** Handles one request and sends its reply; false when the connection was dropped. */
    private boolean answer(Connection c, int id, ControlMessage m) {
        ClientSession s = c.session;
        if (m instanceof CloseRequest) {
            send(c, id, HandleReply.of(0));
            drop(c, CLOSED_CONTEXT);
            return false;
        }
        if (!s.isOpen() != (m instanceof OpenRequest)) {
            malformedMessages++;
            send(c, 0, new ErrorReply(s.isOpen() ? "the context is already open" : "OPEN must come first"));
            drop(c, "sent " + m.getClass().getSimpleName() + (s.isOpen() ? " after" : " before") + " OPEN");
            return false;
        }
        ControlMessage reply;
        try {
            reply = switch (m) {
                case OpenRequest r -> open(c, r);
                case AllocPdRequest r -> s.allocPd();
                case CreateCqRequest r -> s.createCq(r.depth());
                case CreateQpRequest r -> s.createQp(r);
                case ModifyQpRequest r -> s.modifyQp(r);
                case QueryQpRequest r -> s.queryQp(r);
                case CmRequest r -> s.cm(r);
                case CreateSrqRequest r -> s.createSrq(r);
                case SrqRequest r -> s.srq(r);
                case OpenXrcdRequest r -> s.openXrcd();
                case CreateAhRequest r -> s.createAh(r);
                case RegisterMrRequest r -> s.registerMr(r);
                case DestroyRequest r -> s.destroy(r);
                default -> throw new ProtocolException("a client does not send " + m.getClass().getSimpleName());
            };
        } catch (ProtocolException e) {
            malformedMessages++;
            drop(c, e.getMessage());
            return false;
        } catch (QuotaRefused e) {
            if (e.total) {
                totalQuotaRefusals++;
            } else {
                quotaRefusals++;
            }
            reply = new ErrorReply(e.getMessage());
        } catch (VerbsException | IllegalArgumentException | IllegalStateException e) {
            reply = new ErrorReply(String.valueOf(e.getMessage()));
        } catch (RuntimeException | InternalError e) { // a fault in this client's request: it alone is fenced
            fence(c, e);
            return false;
        }
        if (res != null && !(reply instanceof ErrorReply) && changesRes(m)) {
            res.changed(); // rewritten at the next interval; a query (which a client may loop on) rewrites nothing
        }
        return send(c, id, reply);
    }

    /**
     * Whether a request that succeeded changes what the res file says: it made or destroyed an
     * object, attached, or moved a QP's state (MODIFY_QP, or a CM request that will). Queries do not.
     */
    private static boolean changesRes(ControlMessage m) {
        return !(m instanceof QueryQpRequest || m instanceof SrqRequest);
    }

    /** Package-private for tests: how many times the res file was written. */
    long resWrites() {
        return res == null ? 0 : res.writes();
    }

    /** Package-private for tests: the inline staging buffers of every open client's QPs. */
    List<MemorySegment> inlineBuffers() {
        List<MemorySegment> all = new ArrayList<>();
        for (Connection c : connections) {
            if (c.session.isOpen()) {
                all.addAll(c.session.inlineBuffers());
            }
        }
        return all;
    }

    /** Makes the newest client's CM pump throw from now on (tests: containment of a CM fault). */
    void failCmPumpOfNewestClient() {
        cmFaultClient = nextClient - clientIdStep;
    }

    private ControlMessage open(Connection c, OpenRequest r) {
        if (r.port() < 0 || r.port() >= ports.size()) {
            throw new VerbsException("no port " + r.port() + ": this dataplane serves ports 0.." + (ports.size() - 1));
        }
        c.pid = r.pid();
        c.port = r.port();
        ControlMessage reply = c.session.open(ports.get(r.port()), r, quota, totals);
        clientsAttached++;
        if (published != null) {
            c.ringCounters = published.addClient(c.session.id);
        }
        LOG.log(Level.INFO, "client {0} ({1}, pid {2} as it says) attached to port {3}", String.valueOf(c.session.id), c.peer,
            String.valueOf(r.pid()), String.valueOf(r.port())); // as text: MessageFormat would print pid 23,379
        return reply;
    }

    private int routeEvents() {
        int n = 0;
        for (int i = connections.size() - 1; i >= 0; i--) {
            if (i >= connections.size()) {
                continue; // a fence below dropped several clients
            }
            Connection c = connections.get(i);
            if (!c.session.isOpen()) {
                continue;
            }
            try { // as eachClient: a fault in one client's CM fences that client, the lcore goes on
                if (c.session.id == cmFaultClient) {
                    throw new IllegalStateException("a fault in client " + cmFaultClient + "'s CM");
                }
                int events = c.session.pumpCm(c.cmEvents);
                if (events > 0 && res != null) {
                    res.changed(); // a CONNECT_REQUEST made a CM id, a connection moved a QP's state
                }
                n += events;
            } catch (InternalError e) {
                // the pump runs the port's cycle too: a fault a truncated file explains is that client's
                if (anyTruncated()) {
                    n += fenceTruncators(e);
                } else {
                    fence(c, e);
                }
            } catch (RuntimeException e) {
                fence(c, e);
            }
        }
        for (Context port : ports) {
            AsyncEventQueue.AsyncEvent e;
            while ((e = EmbeddedObjects.pollAsyncEvent(port)) != null) { // what the pass's cycles raised: no cycle more
                n++;
                AsyncEventMessage m = new AsyncEventMessage(e.type(), e.addressHandle(), e.remoteIp(), e.qpn(), e.srqn(), e.timeNanos());
                for (int i = connections.size() - 1; i >= 0; i--) {
                    Connection c = connections.get(i);
                    ClientSession s = c.session;
                    if (s.context() == port && (s.ownsQp(e.qpn()) || (e.qpn() == 0 && s.ownsAh(e.addressHandle()))
                        || (e.srqn() != 0 && s.ownsSrq(e.srqn())))) {
                        send(c, 0, m);
                    }
                }
            }
        }
        return n;
    }

    /** Writes one frame whole (a client that does not read its socket is dropped); false when dropped. */
    private boolean send(Connection c, int id, ControlMessage m) {
        if (c.dropped) {
            return false; // its buffers are freed (an event for it may come after its drop in the same pass)
        }
        c.out.clear();
        ControlCodec.write(c.out, id, m);
        c.out.flip();
        String failed = m instanceof OpenReply ? passMemory(c) : null; // its first bytes carry the client's memory
        if (failed == null) {
            failed = writeWhole(c.fd, c.out);
        }
        if (failed != null) {
            drop(c, failed);
            return false;
        }
        return true;
    }

    /**
     * Writes the first bytes of OPEN's reply with the descriptor of the client's memory attached
     * (SCM_RIGHTS): the client maps what it receives, so nothing in a file system names the memory
     * and no other process can open it. Null when it went, else why not.
     */
    private String passMemory(Connection c) {
        for (int spins = 0; ; spins++) {
            int n = server.writeWithFd(c.fd, c.out, c.session.memoryFd());
            if (n > 0) {
                return null;
            }
            if (n < 0) {
                return "closed its socket";
            }
            if (spins > 10_000) {
                return "does not read its control socket";
            }
        }
    }

    /** Writes what {@code out} holds to {@code fd}; null when all of it went, else why not. */
    private String writeWhole(int fd, ByteBuffer out) {
        for (int spins = 0; out.hasRemaining(); spins++) {
            int n = server.write(fd, out);
            if (n < 0) {
                return "closed its socket";
            }
            if (n == 0 && spins > 10_000) {
                return "does not read its control socket";
            }
        }
        return null;
    }

    private void drop(Connection c, String why) {
        if (!connections.remove(c)) {
            return;
        }
        c.dropped = true;
        if (res != null) {
            res.changed();
        }
        server.closeConnection(c.fd);
        c.buffers.close(); // nothing touches them once dropped (send checks)
        connectionsByUid.computeIfPresent(c.uid, (u, n) -> n == 1 ? null : n - 1);
        refusedByDeparted += c.session.refusedCount(); // a counter counts for good: not only the clients still here
        boolean wasOpen = c.session.isOpen();
        int objects;
        try {
            objects = c.session.reclaim();
        } catch (RuntimeException | InternalError e) { // what it held may stay in the transport: said, and the dataplane goes on
            LOG.log(Level.ERROR, "reclaiming client " + c.session.id + " failed: " + e, e);
            objects = 0;
        }
        if (c.ringCounters != null) {
            published.removeClient(c.ringCounters);
            c.ringCounters = null;
        }
        if (wasOpen && why.equals(CLOSED_CONTEXT)) {
            clientsClosed++; // it closed its context itself, in order: not a reclaim
        } else if (wasOpen) {
            clientsReclaimed++;
            objectsReclaimed += objects;
        }
        LOG.log(why.startsWith("closed") ? Level.INFO : Level.WARNING, "client {0} ({1}) {2}; {3} object(s) reclaimed",
            String.valueOf(c.session.id), c.peer, why, String.valueOf(objects));
    }

    /** Drops every client (reclaiming what it made) and stops listening; the ports' contexts are the caller's. */
    @Override
    public void close() {
        for (int i = connections.size() - 1; i >= 0; i--) {
            drop(connections.get(i), "closed: the dataplane is shutting down");
        }
        if (published != null) {
            published.maybeExport(this, System.nanoTime(), true); // the final counts, then the file is marked closed
            published.close();
            res.close();
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing " + socketPath + " failed: " + e.getMessage());
        }
    }
}
