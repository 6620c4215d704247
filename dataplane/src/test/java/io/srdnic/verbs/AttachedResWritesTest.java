package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachInternals;
import io.srdnic.verbs.attach.control.HandleReply;
import io.srdnic.verbs.attach.control.QueryQpRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The res file is the dataplane thread's file IO: it is rewritten when the clients' objects
 * change, never because a client asks something. A client looping on queries must not make the
 * packet thread rebuild and write it.
 */
class AttachedResWritesTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldNotRewriteTheResFileForQueries() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot())) {
            w.onLoop(() -> w.server.publishCounters(dir));
            try (HostileClient client = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
                int pd = client.allocPd();
                HandleReply cq = client.createCq(64);
                HandleReply qp = client.srdQp(pd, cq.handle(), 16, AttachedSrdTest.QKEY);
                long made = awaitSettled(w);
                assertTrue(made >= 2, "the file was written at start and for the objects made: " + made);
                // queries over a second, ten times the res file's interval: each interval had one
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                int queries = 0;
                while (System.nanoTime() < end) {
                    client.call(new QueryQpRequest(qp.handle()));
                    queries++;
                    Thread.sleep(5);
                }
                Thread.sleep(300); // past the interval: a write the queries asked for would be done
                assertEquals(made, resWrites(w), queries + " queries rewrote the res file");
                client.allocPd(); // an object made: the file says so
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (resWrites(w) == made && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(made + 1, resWrites(w), "a new PD rewrites the file once");
                // written by the res file's own thread: the file comes to list both PDs
                Path res = dir.resolve(ProcessHandle.current().pid() + "-attach.res");
                while (pdLines(res) < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(2, pdLines(res), "the res file lists both PDs");
            }
        }
    }

    private static long pdLines(Path res) throws IOException {
        return Files.exists(res) ? Files.readAllLines(res).stream().filter(l -> l.startsWith("pd ")).count() : 0;
    }

    private static long resWrites(AttachedWorld w) {
        return w.onLoop(() -> AttachInternals.resWrites(w.server));
    }

    /** The write count once it has stopped moving (the last change's write is done). */
    private static long awaitSettled(AttachedWorld w) throws InterruptedException {
        long seen = resWrites(w);
        while (true) {
            Thread.sleep(300);
            long now = resWrites(w);
            if (now == seen) {
                return now;
            }
            seen = now;
        }
    }
}
