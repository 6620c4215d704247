package io.srdnic.nbd;

import java.io.IOException;

/** The client broke a MUST of the protocol (or asked for what cannot be refused otherwise): hang up. */
final class ProtocolViolation extends IOException {
    private static final long serialVersionUID = 1L;

    ProtocolViolation(String message) {
        super(message);
    }
}
