package io.srdnic.srd.transport.port;

import java.util.Arrays;

/**
 * The address handles of one transport: remote MAC, IPv4 and UDP port, with a free list. The
 * tables start small and double when a handle is created past their end (the control path), up to
 * {@code capacity}: a transport talking to a few peers does not build 65,536 entries it never uses.
 * Lookups index the current arrays and allocate nothing.
 */
public final class AddressHandles {
    private static final int INITIAL_LENGTH = 16;

    private final int capacity;
    private long[] mac;
    private int[] ip;
    private int[] port;
    private boolean[] live;
    /** Destroyed handles, reused last-destroyed first. */
    private int[] free;
    private int freeCount;
    /** The lowest handle never issued: handle 0 is never issued. */
    private int nextUnused = 1;

    public AddressHandles(int capacity) {
        this.capacity = capacity;
        int length = Math.min(capacity, INITIAL_LENGTH);
        mac = new long[length];
        ip = new int[length];
        port = new int[length];
        live = new boolean[length];
        free = new int[length];
    }

    public int create(long remoteMac, int remoteIp, int remotePort) {
        int ah;
        if (freeCount > 0) {
            ah = free[--freeCount];
        } else if (nextUnused < capacity) {
            if (nextUnused == live.length) {
                grow();
            }
            ah = nextUnused++;
        } else {
            return -1;
        }
        mac[ah] = remoteMac;
        ip[ah] = remoteIp;
        port[ah] = remotePort;
        live[ah] = true;
        return ah;
    }

    private void grow() {
        int length = Math.min(capacity, live.length * 2);
        mac = Arrays.copyOf(mac, length);
        ip = Arrays.copyOf(ip, length);
        port = Arrays.copyOf(port, length);
        live = Arrays.copyOf(live, length);
        free = Arrays.copyOf(free, length);
    }

    public void destroy(int ah) {
        live[ah] = false;
        free[freeCount++] = ah;
    }

    public boolean isLive(int ah) {
        return ah > 0 && ah < live.length && live[ah];
    }

    public long mac(int ah) {
        return mac[ah];
    }

    public int ip(int ah) {
        return ip[ah];
    }

    public int port(int ah) {
        return port[ah];
    }
}
