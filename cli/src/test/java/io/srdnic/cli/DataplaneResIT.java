package io.srdnic.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.srd.api.QpType;
import io.srdnic.verbs.Access;
import io.srdnic.verbs.CompletionQueue;
import io.srdnic.verbs.Context;
import io.srdnic.verbs.Device;
import io.srdnic.verbs.MemoryRegion;
import io.srdnic.verbs.ProtectionDomain;
import io.srdnic.verbs.QpInitAttributes;
import io.srdnic.verbs.QueuePair;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code srdnic dataplane res} against a real running dataplane with a real attached client (this
 * JVM): the client, by the uid and pid the kernel gives for its socket, and the PD, CQ, QP and MR it
 * made, with their numbers, type, state, depth and length; what it destroys goes from the listing,
 * and so does the client once it closes.
 */
class DataplaneResIT {
    @Test
    void shouldListWhatEachAttachedClientHolds(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("run");
        try (DataplaneFilesIT.Plane plane = DataplaneFilesIT.Plane.start("022", tmp.resolve("log"), "--port",
                "net_memif0,role=server", "--dir",
            dir.toString(), "--shm-dir", tmp.toString())) {
            plane.awaitReady();
            long me = ProcessHandle.current().pid();
            try (Context ctx = Context.open(Device.attached(dir))) {
                ProtectionDomain pd = ctx.allocPd();
                CompletionQueue cq = ctx.createCq(256);
                QueuePair qp = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(64).maxRecvWr(64).build());
                MemoryRegion mr = pd.allocateRegion(1 << 20, Access.LOCAL_WRITE);
                String json = awaitRes(dir, "\"qp\":{\"" + qp.qpNum() + "\"");
                String client = "\"uid\":\"0\",\"pid\":\"" + me + "\",\"port\":\"0\",\"device\":\"net_memif0\"";
                assertTrue(json.contains(client), "the client by the kernel's uid and pid: " + json);
                assertTrue(json.contains("\"qp\":{\"" + qp.qpNum() + "\":{\"handle\":\"" + qp.qpNum() + "\",\"type\":\"SRD\",\"state\":\""
                    + qp.state() + "\"}}"), json);
                assertTrue(json.contains("\"cq\":{\"1\":{\"handle\":\"1\",\"depth\":\"256\"}}"), json);
                assertTrue(json.contains("\"mr\":{\"" + Integer.toUnsignedString(mr.lkey()) + "\":{\"handle\":\""
                    + Integer.toUnsignedString(mr.lkey()) + "\",\"length\":\"1048576\"}}"), json);
                assertTrue(json.contains("\"mr_bytes\":\"1048576\""), json);
                CliRun text = CliRun.of("dataplane", "res", "--dir", dir.toString());
                assertEquals(0, text.status());
                assertTrue(text.stdout().contains("uid 0 pid " + me + " port 0 net_memif0: pd 1 cq 1 qp 1 mr 1 srq 0 ah 0 xrcd 0 cm_id 0"),
                    text.stdout());
                qp.destroy();
                awaitRes(dir, "\"qp\":{}");
            }
            String after = awaitRes(dir, "\"clients\":{}");
            assertTrue(!after.contains("\"pid\":\"" + me + "\""), "a client that closed is gone from the listing: " + after);
        }
    }

    /**
     * Runs {@code srdnic dataplane res --json} until its output contains {@code what} (the file is
     * rewritten within 100 ms of a change).
     */
    private static String awaitRes(Path dir, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        String out = "";
        while (System.currentTimeMillis() < deadline) {
            CliRun run = CliRun.of("dataplane", "res", "--dir", dir.toString(), "--json");
            out = run.stdout();
            if (run.status() == 0 && out.contains(what)) {
                return out;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + what + " in srdnic dataplane res within 10 s: " + out);
    }
}
