package io.srdnic.srd.api;

import java.util.ArrayDeque;

/**
 * Unaffiliated asynchronous events (seed §3.3.2.1). Rare by nature (once per episode), so a
 * plain queue of small records is fine here; the data path never touches it.
 */
public final class AsyncEventQueue {
    /** The local transport timeout was exceeded sending to a destination; its context is unaffected. */
    public static final int REMOTE_UNRESPONSIVE = 1;

    /** One event: its type, the address handle(s) concerned (the first is named), the remote and when. */
    public record AsyncEvent(int type, int addressHandle, int remoteIp, long timeNanos) {
        public String typeName() {
            return type == REMOTE_UNRESPONSIVE ? "REMOTE_UNRESPONSIVE" : "event" + type;
        }
    }

    private final ArrayDeque<AsyncEvent> events = new ArrayDeque<>();
    private long raised;

    public void raise(int type, int addressHandle, int remoteIp, long now) {
        events.add(new AsyncEvent(type, addressHandle, remoteIp, now));
        raised++;
    }

    /** The next event, or null. */
    public AsyncEvent poll() {
        return events.poll();
    }

    public long raised() {
        return raised;
    }
}
