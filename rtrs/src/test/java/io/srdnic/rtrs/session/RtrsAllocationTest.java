package io.srdnic.rtrs.session;

import static io.srdnic.rtrs.session.RtrsSim.MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import io.srdnic.rtrs.client.IoCallback;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import io.srdnic.rtrs.server.RtrsServerHandler;
import io.srdnic.rtrs.server.ServerIo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** Steady-state IO allocates nothing: submit, the server's handling and answer, the response, the callback. */
class RtrsAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Keeps every permit busy: each completion submits the next IO (writes and reads in turn) on the same permit. */
    static final class Loop implements IoCallback {
        final RtrsClient client;
        final MemorySegment header = Arena.ofAuto().allocate(MemoryDisk.HEADER);
        long completed;
        int errors;
        int size = 4096;
        boolean writesOnly;
        /** Submit nothing more; what is in flight finishes. */
        boolean stop;
        int started;
        int finished;

        Loop(RtrsClient client) {
            this.client = client;
        }

        void start() {
            Permit p;
            while ((p = client.permit()) != null) {
                started++;
                next(p);
            }
        }

        int outstanding() {
            return started - finished;
        }

        void next(Permit p) {
            if (stop) {
                finished++;
                client.release(p);
                return;
            }
            header.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, (long) p.id() * size);
            header.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, completed);
            int rc = writesOnly || (completed & 1) == 0 ? client.write(p, header, 0, MemoryDisk.HEADER, size, this)
                : client.read(p, header, 0, MemoryDisk.HEADER, size, this);
            if (rc != 0) {
                errors++;
            }
        }

        @Override
        public void done(Permit permit, int errno) {
            completed++;
            if (errno != 0) {
                errors++;
            }
            next(permit);
        }
    }

    /** The test's disk counts tags in a map (boxing): a handler that allocates nothing stands in for it here. */
    static final class QuietDisk implements RtrsServerHandler {
        @Override
        public void onRequest(ServerIo io) {
            io.respond(0);
        }
    }

    @Test
    void shouldAllocateNothingPerIoOnceConnected() {
        try (RtrsSim sim = new RtrsSim(7, 1, RtrsSim.smallServer(), 1 << 20, new QuietDisk())) {
            RtrsClient c = sim.connect(RtrsSim.smallClient());
            Loop loop = new Loop(c);
            loop.start();
            long before = 0;
            long ios = 0;
            for (int round = 0; round < 4; round++) { // three rounds warm up (JIT), the last is measured
                long target = loop.completed + 20_000;
                before = THREADS.getCurrentThreadAllocatedBytes();
                ios = loop.completed;
                assertTrue(sim.run(() -> loop.completed >= target, 60_000 * MS));
                ios = loop.completed - ios;
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            System.out.println("RTRS-ALLOCATION " + allocated + " B over " + ios + " IOs");
            assertEquals(0, loop.errors);
            // an object per IO would be 16 B x 20,000 = 320 KB at least; what is left is the JIT's noise
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " B over " + ios + " IOs");
        }
    }
}
