package io.srdnic.srd.transport.srd;

import java.util.function.IntConsumer;

/**
 * The send requests waiting out an RNR backoff before they go again under a new PSN: linked through
 * {@link SendRequests#next}, with the earliest time one is due, so a duty cycle with nothing due
 * costs one comparison and a cycle that requeues walks the list once.
 */
public final class RnrWaitList {
    private final SendRequests requests;
    private int head = -1;
    private long earliest = Long.MAX_VALUE;

    public RnrWaitList(SendRequests requests) {
        this.requests = requests;
    }

    /** Request {@code r} waits until {@code readyAt}. */
    public void add(int r, long readyAt) {
        requests.readyAt[r] = readyAt;
        requests.next[r] = head;
        head = r;
        earliest = Math.min(earliest, readyAt);
    }

    /** When the first waiting request is due (Long.MAX_VALUE when none waits). */
    public long earliest() {
        return earliest;
    }

    /** Takes request {@code r} off the list (it was aborted while waiting). */
    public void remove(int r) {
        int prev = -1;
        for (int i = head; i >= 0; prev = i, i = requests.next[i]) {
            if (i == r) {
                if (prev < 0) {
                    head = requests.next[i];
                } else {
                    requests.next[prev] = requests.next[i];
                }
                requests.next[i] = -1;
                return;
            }
        }
    }

    /** Takes off every request due by {@code now}, in one pass, handing each to {@code due}; returns how many. */
    public int takeDue(long now, IntConsumer due) {
        int taken = 0;
        long next = Long.MAX_VALUE;
        int prev = -1;
        for (int r = head; r >= 0; ) {
            int following = requests.next[r];
            if (requests.readyAt[r] - now <= 0) {
                if (prev < 0) {
                    head = following;
                } else {
                    requests.next[prev] = following;
                }
                due.accept(r);
                taken++;
            } else {
                next = Math.min(next, requests.readyAt[r]);
                prev = r;
            }
            r = following;
        }
        earliest = next;
        return taken;
    }
}
