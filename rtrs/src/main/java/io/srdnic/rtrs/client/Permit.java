package io.srdnic.rtrs.client;

import java.lang.foreign.MemorySegment;

/**
 * The right to one IO in flight (Linux's rtrs_permit), shared by all the session's paths: permit
 * i owns server chunk i and a registered buffer of one chunk here. Write data goes in
 * {@link #data()} before the write; a read's data is there when its callback comes. Taken with
 * {@link RtrsClient#permit()}, given back with {@link RtrsClient#release}.
 */
public final class Permit {
    final int id;
    final MemorySegment data;
    final long offset;
    boolean taken;
    boolean inflight;
    boolean read;
    int headerLength;
    int dataLength;
    IoCallback callback;
    ClientPath path;

    Permit(int id, MemorySegment data, long offset) {
        this.id = id;
        this.data = data;
        this.offset = offset;
    }

    public int id() {
        return id;
    }

    /** Max IO size bytes: the write's data, or where the read's data lands. */
    public MemorySegment data() {
        return data;
    }

    /** The length of the last IO's data. */
    public int dataLength() {
        return dataLength;
    }
}
