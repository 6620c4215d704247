package io.srdnic.srd.fuzz;

/** A broken invariant of the transport under attack (not a failure of the harness). */
final class Violation extends AssertionError {
    Violation(String message) {
        super("RECEIVE-PATH VIOLATION: " + message);
    }
}
