package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.dataplane.attach.AttachInternals;
import io.srdnic.dataplane.attach.ClientQuota;
import io.srdnic.srd.api.QpType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's shared memory from attach to reclaim, as the dataplane's process sees it (it runs in
 * this JVM here, so /proc/self is the dataplane's): the memory is passed by descriptor with OPEN's
 * reply (nothing to open by name), allocated in full at attach (a full file system is ENOSPC in the
 * reply), bounded by the pool quota, and unmapped and closed when the client goes, without a GC.
 */
class AttachedMemoryLifecycleTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    /** Lines of /proc/self/maps and links in /proc/self/fd that name a client's memory of this process. */
    static long mappings() throws IOException {
        String me = "srdnic-" + ProcessHandle.current().pid() + "-";
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains(me)).count();
        }
    }

    static long descriptors() throws IOException {
        String me = "srdnic-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(f -> {
                try {
                    return Files.readSymbolicLink(f).toString().contains(me);
                } catch (IOException gone) {
                    return false; // the listing's own descriptor, closed by now
                }
            }).count();
        }
    }

    @Test
    void shouldUnmapAndCloseEveryClientsMemoryWhenItGoesWithoutAGc() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), null, 0, 1)) {
            for (int cycle = 0; cycle < 20; cycle++) {
                try (Context ctx = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 20)
                        .attachedRingBytes(1 << 16))) {
                    ctx.allocPd();
                    // the dataplane's mapping and the client's, one memfd; only the dataplane keeps a descriptor
                    assertEquals(2, mappings(), "while attached: the dataplane's mapping and the client's");
                    assertEquals(1, descriptors(), "while attached: the dataplane's descriptor");
                }
                HostileClient bad = new HostileClient(dir, 0, 1 << 20, 1 << 16);
                bad.allocPd();
                bad.close(); // its socket closes: the dataplane reclaims it
                awaitZero(w);
            }
            assertEquals(0, mappings(), "no mapping left after 40 attach/detach cycles");
            assertEquals(0, descriptors(), "no descriptor left after 40 attach/detach cycles");
        }
    }

    /** The dataplane reclaims on its next pass after the socket closes. */
    private static void awaitZero(AttachedWorld w) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((mappings() != 0 || descriptors() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, mappings(), "the dataplane unmapped the client's memory at reclaim");
        assertEquals(0, descriptors(), "the dataplane closed the client's memory at reclaim");
    }

    /**
     * A QP's inline staging buffer (the dataplane's own native memory) is freed when the QP is
     * destroyed and when its client goes, not when a GC finds it unreachable: its scope is dead at
     * once, though the test still holds the segment.
     */
    @Test
    void shouldFreeEachQpsInlineBufferAtDestroyAndAtReclaim() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), null, 0, 1)) {
            Context ctx = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 20).attachedRingBytes(1 << 16));
            ProtectionDomain pd = ctx.allocPd();
            CompletionQueue cq = ctx.createCq(16);
            QueuePair first = pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(4).maxRecvWr(4).build());
            pd.createQueuePair(QpInitAttributes.builder(QpType.SRD).cq(cq).maxSendWr(4).maxRecvWr(4).build());
            List<MemorySegment> buffers = w.onLoop(() -> AttachInternals.inlineBuffers(w.server));
            assertEquals(2, buffers.size());
            assertTrue(buffers.stream().allMatch(b -> b.scope().isAlive()), "in use while the QPs are");
            first.destroy();
            List<MemorySegment> left = w.onLoop(() -> AttachInternals.inlineBuffers(w.server));
            assertEquals(1, left.size());
            MemorySegment destroyed = buffers.stream().filter(b -> !left.contains(b)).findFirst().orElseThrow();
            assertFalse(destroyed.scope().isAlive(), "the destroyed QP's buffer is freed at its destroy");
            assertTrue(left.getFirst().scope().isAlive());
            ctx.close(); // the client goes: the other QP is reclaimed with it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (left.getFirst().scope().isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertFalse(left.getFirst().scope().isAlive(), "the reclaimed QP's buffer is freed at the reclaim");
        }
    }

    @Test
    void shouldPassTheMemoryByDescriptorWithNoNameAnywhere() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), null, 0, 1);
             HostileClient c = new HostileClient(dir, 0, 1 << 20, 1 << 16)) {
            assertTrue(c.info.shmPath().startsWith("memfd:"), "named for logs only: " + c.info.shmPath());
            assertTrue(!c.info.shmPath().contains("/proc/"), c.info.shmPath());
            try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
                List<Path> named = shm.filter(p -> p.getFileName().toString()
                        .startsWith("srdnic-" + ProcessHandle.current().pid())).toList();
                assertEquals(List.of(), named);
            }
            assertEquals(c.info.fileBytes(), c.file.size(), "the descriptor passed is the whole memory");
        }
    }

    @Test
    void shouldRefuseAPoolOverThePoolQuota() throws Exception {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), null, 0, 1)) {
            w.server.quota(ClientQuota.DEFAULTS.with("pool-bytes", String.valueOf(2 << 20)));
            VerbsException e = assertThrows(VerbsException.class,
                () -> Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(4 << 20).attachedRingBytes(1 << 16)));
            assertTrue(e.getMessage().contains("a pool of 4194304 bytes asked; at most 2097152 bytes (--quota pool-bytes)"),
                    e.getMessage());
            assertEquals(0, mappings(), "nothing made for the refused client");
            assertEquals(0, descriptors());
            try (Context ok = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(2 << 20)
                    .attachedRingBytes(1 << 16))) {
                ok.allocPd(); // at the quota: served
            }
        }
    }

    /**
     * A --shm-dir on a file system too small for the client's memory: the attach is refused with
     * ENOSPC (fallocate at OPEN), not served to fault (SIGBUS) at the first touch of a page the file
     * system cannot give. Needs root to mount a small tmpfs (CI runs as root).
     */
    @Test
    void shouldRefuseAnAttachTheShmFileSystemCannotHold() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a 4 MiB tmpfs needs root");
        Path small = Files.createDirectory(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "srdnic-test", small.toString())
            .redirectErrorStream(true).start();
        assumeTrue(mount.waitFor() == 0, "could not mount a tmpfs: " + new String(mount.getInputStream().readAllBytes()));
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot(), small, 0, 1)) {
            VerbsException e = assertThrows(VerbsException.class,
                () -> Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(8 << 20).attachedRingBytes(1 << 16)));
            assertTrue(e.getMessage().contains("ENOSPC (No space left on device)"), e.getMessage());
            try (Stream<Path> left = Files.list(small)) {
                assertEquals(List.of(), left.toList(), "the refused client's file is removed");
            }
            try (Context ok = Context.open(Device.attached(dir), new ContextConfig().attachedPoolBytes(1 << 20)
                    .attachedRingBytes(1 << 16))) {
                ok.allocPd(); // one that fits is served
            }
        } finally {
            new ProcessBuilder("umount", "-l", small.toString()).inheritIO().start().waitFor();
        }
    }
}
