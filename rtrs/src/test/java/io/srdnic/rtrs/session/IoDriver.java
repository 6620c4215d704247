package io.srdnic.rtrs.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.srdnic.rtrs.client.IoCallback;
import io.srdnic.rtrs.client.Permit;
import io.srdnic.rtrs.client.RtrsClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Keeps a session's permits busy with numbered writes: write k puts {@link #SIZE} bytes of pattern
 * k at offset k * SIZE. Counts every completion per write and every errno, so that a lost or doubly
 * completed IO shows.
 */
final class IoDriver implements IoCallback {
    static final int SIZE = 512;
    final RtrsClient client;
    int total;
    final int[] completions;
    final int[] errnos;
    private final long[] tagOf;
    private final MemorySegment header = Arena.ofAuto().allocate(MemoryDisk.HEADER);
    int submitted;
    int completed;
    int failed;
    int refused;
    /** Read back what the writes wrote, instead of writing; a read whose bytes differ is counted. */
    boolean reading;
    int mismatches;

    IoDriver(RtrsClient client, int total) {
        this.client = client;
        this.total = total;
        this.completions = new int[total];
        this.errnos = new int[total];
        this.tagOf = new long[client.queueDepth()];
    }

    static byte pattern(int k, int i) {
        return (byte) (k * 13 + i * 7 + 1);
    }

    /** Submits while permits are free and writes remain; a refused submit gives its permit back and is counted. */
    void submit() {
        submit(Integer.MAX_VALUE);
    }

    /** Submits at most {@code max} writes. */
    void submit(int max) {
        Permit p;
        for (int n = 0; n < max && submitted < total && (p = client.permit()) != null; n++) {
            int k = submitted;
            for (int i = 0; i < SIZE; i++) {
                p.data().set(ValueLayout.JAVA_BYTE, i, reading ? 0 : pattern(k, i));
            }
            header.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, (long) k * SIZE);
            header.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, k);
            tagOf[p.id()] = k;
            int rc = reading ? client.read(p, header, 0, MemoryDisk.HEADER, SIZE, this)
                : client.write(p, header, 0, MemoryDisk.HEADER, SIZE, this);
            if (rc != 0) {
                refused++;
                client.release(p);
                return;
            }
            submitted++;
        }
    }

    @Override
    public void done(Permit permit, int errno) {
        int k = (int) tagOf[permit.id()];
        completions[k]++;
        errnos[k] = errno;
        completed++;
        if (errno != 0) {
            failed++;
        } else if (reading) {
            for (int i = 0; i < SIZE; i++) {
                if (permit.data().get(ValueLayout.JAVA_BYTE, i) != pattern(k, i)) {
                    mismatches++;
                    break;
                }
            }
        }
        client.release(permit);
    }

    /** Submits no more: the writes so far are the run. */
    void stop() {
        total = submitted;
    }

    boolean finished() {
        return completed == total;
    }

    /** Every write completed exactly once, successfully, and its bytes are on the disk. */
    void assertAllWrittenOnce(MemoryDisk disk) {
        for (int k = 0; k < total; k++) {
            assertEquals(1, completions[k], "write " + k + " completed once");
            assertEquals(0, errnos[k], "write " + k);
            for (int i = 0; i < SIZE; i++) {
                assertEquals(pattern(k, i), disk.bytes.get(ValueLayout.JAVA_BYTE, (long) k * SIZE + i), "write " + k + " byte " + i);
            }
        }
    }
}
