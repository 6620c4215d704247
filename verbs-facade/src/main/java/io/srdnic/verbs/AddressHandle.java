package io.srdnic.verbs;

/** An address handle (ibv_ah): a remote device's MAC, IPv4 address and SRD UDP port. */
public final class AddressHandle {
    final ProtectionDomain pd;
    final int id;
    final long mac;
    final int ip;
    final int port;
    volatile boolean destroyed;

    AddressHandle(ProtectionDomain pd, int id, long mac, int ip, int port) {
        this.pd = pd;
        this.id = id;
        this.mac = mac;
        this.ip = ip;
        this.port = port;
    }

    public int ip() {
        return ip;
    }

    public long mac() {
        return mac;
    }

    public int udpPort() {
        return port;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    /** The transport's number for this handle: what {@code QpAttributes.addressHandle} takes as an RC QP's path. */
    public int handle() {
        return id;
    }

    /** Destroys the handle: its outstanding work requests complete with WR_FLUSH_ERROR. */
    public void destroy() {
        if (destroyed) {
            throw new VerbsException("address handle already destroyed");
        }
        destroyed = true;
        pd.context.provider.destroyAh(id);
        pd.ahs.decrementAndGet();
    }
}
