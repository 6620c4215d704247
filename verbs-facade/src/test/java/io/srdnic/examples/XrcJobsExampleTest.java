package io.srdnic.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The XRC example in src/examples runs: every job gets its own message through one XRC_SEND QP. */
class XrcJobsExampleTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldReachEveryJobThroughOneSendQueue() {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            XrcJobs.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("connected by the CM; the accept told 4 SRQ numbers"), text);
        for (int j = 0; j < XrcJobs.JOBS; j++) {
            assertTrue(text.contains("job " + j + " (SRQ ") && text.contains(") got: hello job " + j + " via QP"), text);
        }
        assertTrue(text.contains("1 XRC_SEND QP reached 4 jobs"), text);
    }
}
