package io.srdnic.srd.transport.rc;

import io.srdnic.srd.transport.engine.ReliableSender;

/**
 * What the transport's tests outside {@code rc/} read of an RC connection's inner state (the
 * members stay package-private in main code): the requester's engine, whether its completer waits
 * out an RNR NAK, the responder's expected PSN.
 */
public final class RcInternals {
    private RcInternals() {
    }

    public static ReliableSender sender(DeviceQp qp) {
        return qp.rcRequester.sender;
    }

    public static boolean rnrHolding(DeviceQp qp) {
        return qp.rcRequester.completer.rnrHolding;
    }

    public static int expectedPsn(DeviceQp qp) {
        return qp.rcResponder.expectedPsn;
    }
}
