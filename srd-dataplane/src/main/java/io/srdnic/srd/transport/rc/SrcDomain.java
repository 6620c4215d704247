package io.srdnic.srd.transport.rc;

import io.srdnic.srd.transport.qp.SrcMembership;

/**
 * An SRC domain (seed 001; XRC's XRC domain): the set of SRC QPs and SRC SRQs of one device that
 * may reach each other. A message that arrives on an SRC QP is delivered only into an SRQ of the
 * QP's own domain; one naming an SRQ of another domain is refused. Destroyed only once no SRQ or
 * QP uses it. Owned by the transport's thread, like the QPs.
 */
public final class SrcDomain implements SrcMembership {
    /** The device that made it (compared by identity: an SRQ or QP of another device may not join). */
    private final Object transport;
    private final int number;
    private int srqs;
    private int qps;
    private boolean destroyed;

    public SrcDomain(Object transport, int number) {
        this.transport = transport;
        this.number = number;
    }

    /** The domain's number on its device (for messages and reports; the wire never carries it). */
    public int number() {
        return number;
    }

    /** SRQs and QPs created in this domain and not yet destroyed. */
    public int users() {
        return srqs + qps;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    /** Destroys the domain; refused while an SRQ or QP still uses it, as ibv_close_xrcd is. */
    public void destroy() {
        if (users() > 0) {
            throw new IllegalStateException("SRC domain " + number + " is still used by " + srqs + " SRQ(s) and " + qps
                + " QP(s): destroy them first");
        }
        destroyed = true;
    }

    /** Throws unless an SRQ or QP of {@code owner} may be created in this domain. */
    public void checkUsableBy(Object owner) {
        if (owner != transport) {
            throw new IllegalArgumentException("SRC domain " + number + " belongs to another transport (device)");
        }
        if (destroyed) {
            throw new IllegalStateException("SRC domain " + number + " was destroyed: create a new one");
        }
    }

    public void attachSrq() {
        srqs++;
    }

    @Override
    public void detachSrq() {
        srqs--;
    }

    public void attachQp() {
        qps++;
    }

    @Override
    public void detachQp() {
        qps--;
    }
}
