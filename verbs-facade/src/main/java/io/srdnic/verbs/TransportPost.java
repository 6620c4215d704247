package io.srdnic.verbs;

import io.srdnic.srd.transport.device.TransportDevice;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.port.WorkRequest;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;

/**
 * A checked send work request straight into the transport, with no post slot in between: the
 * served path of the dataplane process, whose lcore is the transport's thread. The request is
 * mapped as a post slot maps it ({@link PostRing#fill}) and goes through the transport's one post
 * entry point, {@code TransportDevice.post}, as {@code ContextDriver.submit} hands a slot: the same
 * choice of SRC, atomic and gathered posts for both paths.
 */
final class TransportPost {
    private TransportPost() {
    }

    /**
     * Posts {@code wr} through {@code r} (a request of the caller's, reused) from {@code buffer} at
     * {@code offset} ({@code length} bytes), or, when {@code gather} is not null, from the SGEs of
     * {@code wr} copied into it; {@code ah}: its address handle, 0 for a connected QP. Returns a
     * POST_* code.
     */
    static int send(TransportDevice t, DeviceQp qp, WorkRequest r, SendWr wr, int ah, MemorySegment buffer, long offset, int length,
                    boolean signaled, GatherList gather) {
        PostRing.fill(r, wr, ah, buffer, offset, length, signaled, gather);
        int rc = t.post(qp, r);
        // Read during the call only (the transport copies what it keeps): neither keeps client memory alive.
        r.clear();
        if (gather != null) {
            gather.clear();
        }
        return rc;
    }
}
