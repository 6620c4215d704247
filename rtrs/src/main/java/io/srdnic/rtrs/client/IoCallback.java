package io.srdnic.rtrs.client;

/** Told once when an IO ends: errno 0, the server's errno, or ECONNABORTED when no path was left to carry it. */
@FunctionalInterface
public interface IoCallback {
    void done(Permit permit, int errno);
}
