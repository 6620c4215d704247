package io.srdnic.block;


/**
 * How a {@link BlockDevice} reports that an operation is over. The server passes the request's own
 * slot, which implements this interface, so completing an IO allocates nothing.
 */
@FunctionalInterface
public interface IoCompletion {
    /** @param error 0 for success, else an {@link Errno} value */
    void complete(int error);
}
