package io.srdnic.rnbd.client;

/** Where an {@link RnbdDevice} is: waiting for the session, OPEN sent, open, refused (errno), closed. */
public enum DeviceState {
    PENDING, OPENING, OPEN, FAILED, CLOSED
}
