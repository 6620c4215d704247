package io.srdnic.verbs;

/** Misuse of the verbs API, or a resource that cannot be had: the message says what to change. */
public final class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public VerbsException(String message) {
        super(message);
    }
}
