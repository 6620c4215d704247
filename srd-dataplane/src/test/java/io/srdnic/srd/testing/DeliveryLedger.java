package io.srdnic.srd.testing;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;

/**
 * The books of a run of numbered messages (0 .. messages - 1): each event — a delivery, or a send's
 * completion — is booked once, and a second booking of one message, or a number no message has,
 * fails the test at once, naming it. At the end a test asks whether every message was booked. With
 * {@link #fill} and {@link #assertIntact} a message carries its number and a pattern made from it,
 * so a delivery proves which message it is and that it arrived whole.
 */
public final class DeliveryLedger {
    private final int messages;
    private final String event;
    private final BitSet booked;

    /** Books of {@code messages} messages whose events are called {@code event} ("delivered", "completed") in failures. */
    public DeliveryLedger(int messages, String event) {
        this.messages = messages;
        this.event = event;
        this.booked = new BitSet(messages);
    }

    /** Books message {@code message}'s event; fails if it is no message of the run or was booked before. */
    public void book(long message) {
        if (message < 0 || message >= messages) {
            throw new AssertionError("message " + message + " " + event + ", but the run has messages 0.." + (messages - 1));
        }
        if (booked.get((int) message)) {
            throw new AssertionError("message " + message + " " + event + " twice");
        }
        booked.set((int) message);
    }

    /** How many messages have been booked. */
    public int count() {
        return booked.cardinality();
    }

    /** Fails unless every message of the run was booked, naming the first that was not. */
    public void assertAllBooked() {
        int missing = booked.nextClearBit(0);
        if (missing < messages) {
            throw new AssertionError((messages - count()) + " of " + messages + " messages never " + event + ", the first " + missing);
        }
    }

    /** Writes message {@code message}: its number in the first four bytes, then a pattern made from it. */
    public static void fill(MemorySegment s, int message) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, message);
        for (long j = 4; j < s.byteSize(); j++) {
            s.set(ValueLayout.JAVA_BYTE, j, (byte) (message * 31 + j));
        }
    }

    /** The number a message {@link #fill} wrote carries. */
    public static int number(MemorySegment s) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    }

    /** Fails unless {@code s} holds message {@code message} whole, as {@link #fill} wrote it. */
    public static void assertIntact(MemorySegment s, int message) {
        for (long j = 4; j < s.byteSize(); j++) {
            if (s.get(ValueLayout.JAVA_BYTE, j) != (byte) (message * 31 + j)) {
                throw new AssertionError("message " + message + " damaged at byte " + j);
            }
        }
    }
}
