package io.srdnic.dataplane.attach;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What all the clients of one dataplane may hold together, over every lcore's attach server, and
 * what they hold now. {@link ClientQuota} bounds one client; N clients at their quota could still
 * exhaust what the host and the dataplane share: the memory their pools take (a memfd's pages are
 * the host's RAM and swap; a {@code --shm-dir} file's its file system), and the dataplane's Java
 * heap, which holds ~37 bytes per CQ entry and about as much per QP or SRQ entry. A take past a
 * total is refused with an ERROR naming it and the flag that sets it, before anything is made; the
 * clients that hold the rest carry on. Thread-safe: the servers of several lcores take from one.
 */
public final class TotalQuota {
    /** The names {@link #with} takes, as {@code srdnic dataplane --total-quota NAME=VALUE} spells them. */
    public static final List<String> NAMES = List.of("pool-bytes", "cq-entries", "qp-entries");
    /** The heap an entry (CQ, QP or SRQ) costs the dataplane, about: what the derived defaults divide by. */
    static final long HEAP_BYTES_PER_ENTRY = 40;

    private final long poolBytes;
    private final long cqEntries;
    private final long qpEntries;
    private final AtomicLong poolHeld = new AtomicLong();
    private final AtomicLong cqHeld = new AtomicLong();
    private final AtomicLong qpHeld = new AtomicLong();

    /**
     * At most {@code poolBytes} of shared memory (every client's rings and pool, as allocated at
     * OPEN), {@code cqEntries} CQ entries and {@code qpEntries} QP and SRQ entries over all clients.
     */
    public TotalQuota(long poolBytes, long cqEntries, long qpEntries) {
        if (poolBytes < 1 || cqEntries < 1 || qpEntries < 1) {
            throw new IllegalArgumentException("every total quota is at least 1: pool-bytes " + poolBytes + ", cq-entries " + cqEntries
                + ", qp-entries " + qpEntries);
        }
        this.poolBytes = poolBytes;
        this.cqEntries = cqEntries;
        this.qpEntries = qpEntries;
    }

    /**
     * Derived from this machine and JVM: half the physical memory for the pools (the rest is the
     * host's: the dataplane's own heap and hugepages, the applications), and a quarter of the
     * heap's maximum for the CQ entries and another for the QP and SRQ entries.
     */
    public static TotalQuota ofThisMachine() {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        long entries = Math.max(1, Runtime.getRuntime().maxMemory() / 4 / HEAP_BYTES_PER_ENTRY);
        return new TotalQuota(Math.max(1, memory / 2), entries, entries);
    }

    /** This total with {@code name} (one of {@link #NAMES}) set to {@code value}, holding nothing; unknown names refused. */
    public TotalQuota with(String name, String value) {
        long v;
        try {
            v = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("total quota " + name + " is a number, was '" + value + "'");
        }
        if (v < 1) {
            throw new IllegalArgumentException("total quota " + name + " must be at least 1, was " + v);
        }
        return switch (name) {
            case "pool-bytes" -> new TotalQuota(v, cqEntries, qpEntries);
            case "cq-entries" -> new TotalQuota(poolBytes, v, qpEntries);
            case "qp-entries" -> new TotalQuota(poolBytes, cqEntries, v);
            default -> throw new IllegalArgumentException("no total quota '" + name + "' (total quotas: " + String.join(", ", NAMES) + ")");
        };
    }

    public long poolBytes() {
        return poolBytes;
    }

    public long cqEntries() {
        return cqEntries;
    }

    public long qpEntries() {
        return qpEntries;
    }

    /** The shared memory all clients hold now, in bytes. */
    public long poolBytesHeld() {
        return poolHeld.get();
    }

    /** The CQ entries all clients hold now. */
    public long cqEntriesHeld() {
        return cqHeld.get();
    }

    /** The QP and SRQ entries all clients hold now. */
    public long qpEntriesHeld() {
        return qpHeld.get();
    }

    /** Takes {@code bytes} of shared memory for a client's OPEN, or refuses it (nothing taken). */
    void takePool(long bytes) {
        take(poolHeld, poolBytes, bytes, "bytes of shared memory (rings and pools)", "pool-bytes");
    }

    void takeCq(long entries) {
        take(cqHeld, cqEntries, entries, "CQ entries", "cq-entries");
    }

    void takeQp(long entries) {
        take(qpHeld, qpEntries, entries, "QP and SRQ entries", "qp-entries");
    }

    void givePool(long bytes) {
        poolHeld.addAndGet(-bytes);
    }

    void giveCq(long entries) {
        cqHeld.addAndGet(-entries);
    }

    void giveQp(long entries) {
        qpHeld.addAndGet(-entries);
    }

    private static void take(AtomicLong held, long limit, long asked, String what, String name) {
        while (true) {
            long now = held.get();
            if (asked > limit - now) {
                throw new QuotaRefused(true, "over the dataplane's total quota: its clients hold " + now + " of the " + limit + " " + what
                    + " it gives all clients together, " + asked + " asked (--total-quota " + name + ")");
            }
            if (held.compareAndSet(now, now + asked)) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "pool-bytes " + poolBytes + ", cq-entries " + cqEntries + ", qp-entries " + qpEntries;
    }
}
