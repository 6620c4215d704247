package io.srdnic.verbs.attach.control;

/** A control message that is malformed: too short, too long, an unknown type or version, a bad string. */
public final class ProtocolException extends Exception {
    public ProtocolException(String message) {
        super(message);
    }
}
