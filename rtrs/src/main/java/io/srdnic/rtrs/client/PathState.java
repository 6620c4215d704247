package io.srdnic.rtrs.client;

/** A client path's state, as Linux's rtrs_clt_state (less its transient CLOSING and CONNECTING_ERR). */
public enum PathState {
    /** Connections and the INFO exchange under way (first connect or a reconnect attempt). */
    CONNECTING,
    CONNECTED,
    /** Down; the next attempt waits for its back-off. */
    RECONNECTING,
    /** Removed or closed by the user. */
    CLOSED,
    /** Reconnect attempts used up. */
    DEAD
}
