package io.srdnic.dataplane;

import io.srdnic.pmd.lcore.PortDispatcher;
import org.agrona.concurrent.Agent;

/**
 * An lcore's receive duty: an RX burst of each port it receives, each frame handed to the lcore
 * whose context owns its destination address ({@link PortDispatcher#poll}).
 */
final class ReceiveDuty implements Agent {
    private final PortDispatcher[] dispatchers;

    ReceiveDuty(PortDispatcher[] dispatchers) {
        this.dispatchers = dispatchers;
    }

    @Override
    public String roleName() {
        return "receive";
    }

    @Override
    public int doWork() {
        int work = 0;
        for (PortDispatcher d : dispatchers) {
            work += d.poll();
        }
        return work;
    }
}
