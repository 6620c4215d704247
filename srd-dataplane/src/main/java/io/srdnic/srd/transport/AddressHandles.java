package io.srdnic.srd.transport;

/** The address handles of one transport: remote MAC, IPv4 and UDP port, with a free list. */
final class AddressHandles {
    private final long[] mac;
    private final int[] ip;
    private final int[] port;
    private final boolean[] live;
    private final int[] free;
    private int freeCount;

    AddressHandles(int capacity) {
        mac = new long[capacity];
        ip = new int[capacity];
        port = new int[capacity];
        live = new boolean[capacity];
        free = new int[capacity - 1];
        for (int i = capacity - 1; i >= 1; i--) {
            free[freeCount++] = i; // handle 0 is never issued
        }
    }

    int create(long remoteMac, int remoteIp, int remotePort) {
        if (freeCount == 0) {
            return -1;
        }
        int ah = free[--freeCount];
        mac[ah] = remoteMac;
        ip[ah] = remoteIp;
        port[ah] = remotePort;
        live[ah] = true;
        return ah;
    }

    void destroy(int ah) {
        live[ah] = false;
        free[freeCount++] = ah;
    }

    boolean isLive(int ah) {
        return ah > 0 && ah < live.length && live[ah];
    }

    long mac(int ah) {
        return mac[ah];
    }

    int ip(int ah) {
        return ip[ah];
    }

    int port(int ah) {
        return port[ah];
    }
}
