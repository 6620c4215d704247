package io.srdnic.rnbd.server;

import io.srdnic.rnbd.protocol.Rnbd;

/** One session's open of a device (Linux's rnbd_srv_sess_dev): its id on the session and the access it was granted. */
final class SessionDevice {
    final int id;
    final ServedDevice served;
    final int accessMode;

    SessionDevice(int id, ServedDevice served, int accessMode) {
        this.id = id;
        this.served = served;
        this.accessMode = accessMode;
    }

    boolean writable() {
        return accessMode != Rnbd.ACCESS_RO;
    }
}
