package io.srdnic.dataplane.attach;

import java.util.List;

/**
 * What one attached client may make on the dataplane, checked before anything is allocated: a
 * request past it is refused with an ERROR naming the quota, and leaves nothing behind. Each bound
 * also bounds the dataplane's Java heap per client (a CQ entry costs ~37 bytes of it, a QP's work
 * requests a few words each) and the work one pass does for it (its rings are taken at most
 * {@link ClientSession#BURST} records each per pass).
 *
 * @param cqs         CQs at once
 * @param cqEntries   the sum of the depths of its CQs
 * @param qps         QPs at once
 * @param qpEntries   the sum of the send and receive depths of its QPs and the depths of its SRQs
 * @param srqs        SRQs at once
 * @param pds         protection domains at once
 * @param mrs         memory regions at once
 * @param ahs         address handles at once
 * @param cmIds       CM ids it creates, at once
 * @param xrcds       XRC domains at once
 * @param poolBytes   the pool (the memory its MRs are carved from) it may ask at OPEN, in bytes: the
 *                    shared memory it holds on the dataplane's host, allocated at attach
 */
public record ClientQuota(int cqs, long cqEntries, int qps, long qpEntries, int srqs, int pds, int mrs, int ahs, int cmIds, int xrcds,
                          long poolBytes) {
    /**
     * 64 CQs and 1 Mi CQ entries (~37 MB of heap), 256 QPs, 1 Mi QP and SRQ entries, 64 SRQs, 64
     * PDs, 4096 MRs, 1024 AHs, 256 CM ids, 16 XRC domains, a 4 GiB pool.
     */
    public static final ClientQuota DEFAULTS = new ClientQuota(64, 1 << 20, 256, 1 << 20, 64, 64, 4096, 1024, 256, 16, 4L << 30);

    /** The quotas before the pool had one: the pool is bounded by OPEN's own limit then. */
    public ClientQuota(int cqs, long cqEntries, int qps, long qpEntries, int srqs, int pds, int mrs, int ahs, int cmIds, int xrcds) {
        this(cqs, cqEntries, qps, qpEntries, srqs, pds, mrs, ahs, cmIds, xrcds, DEFAULTS_POOL_BYTES);
    }

    private static final long DEFAULTS_POOL_BYTES = 4L << 30;

    public ClientQuota {
        if (cqs < 1 || cqEntries < 1 || qps < 1 || qpEntries < 1 || srqs < 1 || pds < 1 || mrs < 1 || ahs < 1 || cmIds < 1 || xrcds < 1
            || poolBytes < 1) {
            throw new IllegalArgumentException("every quota is at least 1: " + this);
        }
    }

    /** The names {@link #with} takes, as {@code srdnic dataplane --quota NAME=VALUE} spells them. */
    public static final List<String> NAMES = List.of("cqs", "cq-entries", "qps", "qp-entries", "srqs", "pds", "mrs",
        "ahs", "cm-ids", "xrcds", "pool-bytes");

    /**
     * This quota with {@code name} (one of {@link #NAMES}) set to {@code value}; an unknown name or
     * a value out of range is refused, saying which.
     */
    public ClientQuota with(String name, String value) {
        long v;
        try {
            v = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("quota " + name + " is a number, was '" + value + "'");
        }
        boolean wide = name.endsWith("-entries") || name.endsWith("-bytes");
        if (v < 1 || (!wide && v > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("quota " + name + " must be 1.." + (wide ? Long.MAX_VALUE : Integer.MAX_VALUE)
                + ", was " + v);
        }
        int n = (int) Math.min(v, Integer.MAX_VALUE);
        return switch (name) {
            case "cqs" -> new ClientQuota(n, cqEntries, qps, qpEntries, srqs, pds, mrs, ahs, cmIds, xrcds, poolBytes);
            case "cq-entries" -> new ClientQuota(cqs, v, qps, qpEntries, srqs, pds, mrs, ahs, cmIds, xrcds, poolBytes);
            case "qps" -> new ClientQuota(cqs, cqEntries, n, qpEntries, srqs, pds, mrs, ahs, cmIds, xrcds, poolBytes);
            case "qp-entries" -> new ClientQuota(cqs, cqEntries, qps, v, srqs, pds, mrs, ahs, cmIds, xrcds, poolBytes);
            case "srqs" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, n, pds, mrs, ahs, cmIds, xrcds, poolBytes);
            case "pds" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, srqs, n, mrs, ahs, cmIds, xrcds, poolBytes);
            case "mrs" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, srqs, pds, n, ahs, cmIds, xrcds, poolBytes);
            case "ahs" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, srqs, pds, mrs, n, cmIds, xrcds, poolBytes);
            case "cm-ids" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, srqs, pds, mrs, ahs, n, xrcds, poolBytes);
            case "xrcds" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, srqs, pds, mrs, ahs, cmIds, n, poolBytes);
            case "pool-bytes" -> new ClientQuota(cqs, cqEntries, qps, qpEntries, srqs, pds, mrs, ahs, cmIds, xrcds, v);
            default -> throw new IllegalArgumentException("no quota '" + name + "' (quotas: " + String.join(", ", NAMES) + ")");
        };
    }
}
