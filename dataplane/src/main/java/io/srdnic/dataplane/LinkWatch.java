package io.srdnic.dataplane;

import io.srdnic.pmd.EthPort;
import java.util.List;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * Says when each port's link first comes up ({@code link up <i>} on stdout, and the log), so that
 * whoever started the dataplane (perf --attach, a test) sends only once frames can cross: a memif
 * end is up only after its peer has connected, and SRD gives up on a peer that never answers.
 * Reads the link state without waiting, at most every 10 ms, and only of ports still down.
 */
final class LinkWatch implements Agent {
    private static final long PERIOD_NANOS = 10_000_000L;
    private static final System.Logger LOG = System.getLogger(LinkWatch.class.getName());
    private final List<EthPort> ports;
    private final boolean[] up;
    private int down;
    private long next;

    private final NanoClock clock;

    /** {@code clock}: the lcore's pass time. */
    LinkWatch(List<EthPort> ports, NanoClock clock) {
        this.ports = ports;
        this.clock = clock;
        this.up = new boolean[ports.size()];
        this.down = ports.size();
    }

    @Override
    public String roleName() {
        return "link-watch";
    }

    /** A duty of lcore 0's pass: never counted as work, so an idle lcore still idles. */
    @Override
    public int doWork() {
        check(clock.nanoTime());
        return 0;
    }

    void check(long now) {
        if (down == 0 || now - next < 0) {
            return;
        }
        next = now + PERIOD_NANOS;
        for (int i = 0; i < up.length; i++) {
            if (!up[i] && ports.get(i) != null && ports.get(i).link().up()) {
                up[i] = true;
                down--;
                LOG.log(System.Logger.Level.INFO, "port {0} ({1}): link up", String.valueOf(i), ports.get(i).name());
                System.out.println("link up " + i);
                System.out.flush();
            }
        }
    }
}
