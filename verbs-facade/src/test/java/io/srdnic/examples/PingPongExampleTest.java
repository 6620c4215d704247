package io.srdnic.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The example in src/examples runs and says what it should. */
class PingPongExampleTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @Test
    void shouldPingPongMessages() {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            PingPong.main(new String[] {"3"});
        } finally {
            System.setOut(original);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("b got: ping 0") && text.contains("a got: pong 2"), text);
    }
}
