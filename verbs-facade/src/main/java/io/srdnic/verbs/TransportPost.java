package io.srdnic.verbs;

import io.srdnic.srd.api.QpType;
import io.srdnic.srd.api.SendOpcode;
import io.srdnic.srd.transport.device.SrdTransport;
import io.srdnic.srd.transport.port.GatherList;
import io.srdnic.srd.transport.rc.SrdQp;
import java.lang.foreign.MemorySegment;

/**
 * A checked send work request straight into the transport, with no post slot in between: the
 * served path of the dataplane process, whose lcore is the transport's thread. The one place a
 * {@link SendWr} meets the transport's post entry points (as {@code ContextDriver.submit} is for a
 * post slot): an SRC QP's post names the remote SRQ, the others' their destination; an atomic
 * carries its operands; an RC or SRC SEND or WRITE of several SGEs goes as its gather list.
 */
final class TransportPost {
    private TransportPost() {
    }

    /**
     * Posts {@code wr} from {@code buffer} at {@code offset} ({@code length} bytes), or, when
     * {@code gather} is not null, from the SGEs of {@code wr} copied into it; {@code ah}: its address
     * handle, 0 for a connected QP. Returns a POST_* code.
     */
    static int send(SrdTransport t, SrdQp qp, SendWr wr, int ah, MemorySegment buffer, long offset, int length, boolean signaled,
                    GatherList gather) {
        boolean src = qp.type() == QpType.SRC;
        if (SendOpcode.isAtomic(wr.opcode)) {
            return src
                ? t.postSrcAtomic(qp, wr.remoteSrqn, wr.wrId, wr.opcode, buffer, offset, wr.remoteAddress, wr.rkey, wr.compareAdd, wr.swap,
                    signaled)
                : t.postAtomic(qp, wr.wrId, wr.opcode, buffer, offset, wr.remoteAddress, wr.rkey, wr.compareAdd, wr.swap, signaled);
        }
        if (gather != null) {
            gather.clear();
            for (int k = 0; k < wr.numSge; k++) {
                gather.add(wr.sges[k].segment, wr.sges[k].offset, wr.sges[k].length);
            }
            int rc = t.postGather(qp, src ? wr.remoteSrqn : 0, wr.wrId, wr.opcode, gather, length, wr.immediate, wr.remoteAddress, wr.rkey,
                signaled);
            gather.clear(); // copied by the transport: the list keeps no client memory alive
            return rc;
        }
        return src
            ? t.postSrc(qp, wr.remoteSrqn, wr.wrId, wr.opcode, buffer, offset, length, wr.immediate, wr.remoteAddress, wr.rkey, signaled)
            : t.postSend(qp, ah, wr.remoteQpn, wr.remoteQkey, wr.wrId, wr.opcode, buffer, offset, length, wr.immediate, wr.remoteAddress,
                wr.rkey, signaled);
    }
}
