package io.srdnic.verbs.cm;

import io.srdnic.verbs.Context;
import io.srdnic.verbs.ThreadingMode;
import io.srdnic.verbs.VerbsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connection manager of one context: the CM ids on the context and the protocol they run,
 * chosen once here: {@link EmbeddedCm} (the context's management QP, UD at QPN 1, Q_Key
 * {@link CmMessage#QKEY}, and the messages between the ids and their peers) or, on an attached
 * context, {@link AttachedCm} (a proxy: the dataplane runs an embedded manager for the port, and
 * its clients' ids are made there). It runs when an {@link EventChannel} is polled. All its state
 * is guarded by its own lock, so ids on one context may be used from several threads. Bounded
 * against a hostile peer: a listener holds at most its backlog of unanswered requests, and the
 * answers to strangers go out on at most {@link EmbeddedCm#MAX_REPLY_HANDLES} address handles.
 */
public final class ConnectionManager {
    /** Each open context's manager; a context's close hook takes its entry out. */
    private static final Map<Context, ConnectionManager> MANAGERS = new ConcurrentHashMap<>();
    final Context context;
    final CmConfig config;
    final CmCounters counters = new CmCounters();
    private final List<CmId> ids = new ArrayList<>();
    private final SplittableRandom random;
    private boolean removed;
    /** What the ids' calls do on this context: the protocol here, or the dataplane's through a proxy. */
    final CmProtocol protocol;

    private ConnectionManager(Context context, CmConfig config) {
        this.context = context;
        this.config = config;
        this.random = new SplittableRandom(((long) context.ip() << 32) ^ context.now() ^ 0x5DEECE66DL);
        this.protocol = context.isAttached() ? new AttachedCm(this) : new EmbeddedCm(this);
    }

    /** The context's connection manager, made (with its management QP) on first use with the default timers. */
    public static ConnectionManager of(Context context) {
        return of(context, new CmConfig());
    }

    /** As {@link #of(Context)}; {@code config} counts only if this call makes the manager. */
    public static ConnectionManager of(Context context, CmConfig config) {
        ConnectionManager cm = MANAGERS.get(context);
        if (cm != null) {
            return cm;
        }
        synchronized (context) { // the lock Context.close takes: no close runs between the check and the hook
            if (context.isClosed()) {
                throw new VerbsException("context is closed");
            }
            cm = MANAGERS.get(context);
            if (cm == null) {
                cm = new ConnectionManager(context, config);
                MANAGERS.put(context, cm);
                context.onClose(() -> MANAGERS.remove(context));
            }
            return cm;
        }
    }

    /** Whether {@code context} has a manager in the table (not once it is closed). */
    static boolean isManaged(Context context) {
        return MANAGERS.containsKey(context);
    }

    /** Messages sent and received by type, retransmissions, duplicates, malformed messages dropped (by reason), ... */
    public synchronized Map<String, Long> counters() {
        return counters.snapshot();
    }

    long now() {
        return context.now();
    }

    boolean invoker() {
        return context.threadingMode() == ThreadingMode.INVOKER;
    }

    int newCommId() {
        int id;
        do {
            id = random.nextInt();
        } while (id == 0 || byLocalCommId(id) != null);
        return id;
    }

    int newPsn() {
        return random.nextInt() & 0xFF_FFFF;
    }

    int ephemeralPort() {
        return 32768 + random.nextInt(28232);
    }

    void add(CmId id) {
        ids.add(id);
    }

    void remove(CmId id) {
        ids.remove(id);
    }

    List<CmId> ids() {
        return ids;
    }

    /**
     * Runs the manager once without an event channel: for the srdnic dataplane, which owns each
     * port's CM for its clients and runs it whether or not a client holds an id (so the management
     * QP's receives are always taken, and a request to a port nobody listens on is answered).
     */
    public int poll() {
        return progress();
    }

    /**
     * As {@link #poll}, on what the context's duty cycles have already made, running no cycle of
     * its own: for the dataplane's lcore, which runs its (embedded) contexts' cycles once a pass
     * (a poll would run up to three more: the context's, and one per empty CQ of the management QP).
     */
    public synchronized int pollCompleted() {
        if (removed || context.isClosed() || !(protocol instanceof EmbeddedCm cm)) {
            return progress();
        }
        return cm.progressCompleted();
    }

    /** One round of the protocol (messages or events in, timers); the manager ends once its context is closed. */
    synchronized int progress() {
        if (removed) {
            return 0;
        }
        if (context.isClosed()) {
            deviceRemoved();
            return 1;
        }
        return protocol.progress();
    }

    /** The embedded protocol, for the ids' own messages (an id on an attached context sends none). */
    EmbeddedCm embedded() {
        return (EmbeddedCm) protocol;
    }

    CmId byLocalCommId(int commId) {
        for (int i = 0; i < ids.size(); i++) {
            CmId id = ids.get(i);
            if (id.localCommId == commId && id.state != CmState.DONE) {
                return id;
            }
        }
        return null;
    }

    /** The context was closed, or its dataplane died: every id hears DEVICE_REMOVAL once; the manager is done. */
    void deviceRemoved() {
        removed = true;
        MANAGERS.remove(context);
        for (int i = 0; i < ids.size(); i++) {
            ids.get(i).onDeviceRemoval();
        }
    }
}
