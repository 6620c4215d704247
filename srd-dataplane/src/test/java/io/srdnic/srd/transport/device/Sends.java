package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.transport.port.WorkRequest;
import java.lang.foreign.MemorySegment;

/** Work requests as the SRD tests post them. */
final class Sends {
    private Sends() {
    }

    /** A signaled SEND of {@code length} bytes of {@code buffer} from {@code offset} to QP {@code destQpn} behind {@code ah}. */
    static WorkRequest send(long wrId, MemorySegment buffer, long offset, int length, int ah, int destQpn) {
        WorkRequest wr = new WorkRequest();
        wr.wrId = wrId;
        wr.opcode = SendOpcode.SEND;
        wr.buffer = buffer;
        wr.offset = offset;
        wr.length = length;
        wr.signaled = true;
        wr.ah = ah;
        wr.destQpn = destQpn;
        wr.qkey = SimFabric.QKEY;
        return wr;
    }
}
