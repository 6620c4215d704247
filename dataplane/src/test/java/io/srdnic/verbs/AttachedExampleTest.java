package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.examples.PingPong;
import io.srdnic.examples.XrcJobs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples, unchanged but for the line that opens their contexts, run attached to a dataplane. */
class AttachedExampleTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    @Test
    void shouldRunThePingPongExampleAttached() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot())) {
            PrintStream original = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                PingPong.main(new String[] {"3", "--attached", dir.toString()});
            } finally {
                System.setOut(original);
            }
            String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("b got: ping 0") && text.contains("a got: pong 2"), text);
            assertEquals(2, w.counter("clients_attached"), "both hosts were attached contexts");
            assertEquals(2, w.counter("clients_closed"), "and closed them");
        }
    }

    /** XrcJobs attached: XRC domain, XRC SRQs, XRC_SEND and XRC_RECV QPs served, connected by the dataplane's CM. */
    @Test
    void shouldRunTheXrcJobsExampleAttached() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot())) {
            PrintStream original = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                XrcJobs.main(new String[] {"--attached", dir.toString()});
            } finally {
                System.setOut(original);
            }
            String text = out.toString(StandardCharsets.UTF_8);
            for (int j = 0; j < 4; j++) {
                assertTrue(text.contains(") got: hello job " + j + " via QP"), text);
            }
            assertTrue(text.contains("1 XRC_SEND QP reached 4 jobs"), text);
            assertEquals(2, w.counter("clients_attached"), "both nodes were attached contexts");
            assertEquals(2, w.counter("clients_closed"), "and closed them");
        }
    }
}
