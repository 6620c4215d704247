package io.srdnic.srd.transport.device;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.transport.rc.DeviceQp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** A QP under test, with its completion queues drained into lists. */
record TestQp(DeviceQp qp, CompletionQueue sendCq, CompletionQueue recvCq, MemorySegment receiveBuffer) {

    /** One completion, as a test reads it. */
    record Wc(long wrId, int status, int opcode, int byteLength, boolean hasImm, int imm, int qpn, int srcQpn, int srcIp) {
    }

    List<Wc> sends() {
        return drain(sendCq);
    }

    List<Wc> receives() {
        return drain(recvCq);
    }

    private static List<Wc> drain(CompletionQueue cq) {
        List<Wc> out = new ArrayList<>();
        cq.poll((wr, st, op, len, hasImm, imm, qpn, srcQpn, srcIp) -> out.add(new Wc(wr, st, op, len, hasImm, imm, qpn, srcQpn, srcIp)),
            Integer.MAX_VALUE);
        return out;
    }

    int qpn() {
        return qp.qpn();
    }
}
