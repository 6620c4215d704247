package io.srdnic.srd.transport.rc;

import io.srdnic.srd.api.CompletionQueue;
import io.srdnic.srd.api.QpType;
import io.srdnic.srd.transport.qp.QpDevice;
import io.srdnic.srd.transport.qp.QpEvents;
import io.srdnic.srd.transport.qp.TransportQp;

/**
 * A queue pair of this device as the applications and the message layers see it: the transport QP
 * ({@link TransportQp}, in {@code transport.qp}: number, state, attributes, queues, completions) and,
 * on RC and SRC, the two halves of its connection. Those halves are why this class is still here
 * and not in {@code qp/}: the QP room may not name RC's classes, and RC reaches them as fields.
 */
public final class DeviceQp extends TransportQp {
    /** RC only: the message layer's sending and receiving halves of this QP's connection. */
    public RcRequester rcRequester;
    public RcResponder rcResponder;

    public DeviceQp(QpDevice device, QpEvents events, QpType type, int qpn, int pd, int sqDepth, int rqDepth, CompletionQueue sendCq,
                 CompletionQueue recvCq) {
        super(device, events, type, qpn, pd, sqDepth, rqDepth, sendCq, recvCq);
    }
}
