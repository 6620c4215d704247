package io.srdnic.srd.transport.port;

import java.util.Arrays;

/**
 * Open-addressing map from long keys to non-negative int values, linear probing, no boxing: lookups
 * on the receive path allocate nothing. Key 0 is reserved (no {@link FlowKey} of a usable peer is 0:
 * its address is not 0.0.0.0).
 */
public final class LongIntMap {
    public static final int MISSING = -1;
    private long[] keys;
    private int[] values;
    private int size;

    public LongIntMap(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
    }

    public int get(long key) {
        if (key == 0) {
            return MISSING; // empty slots hold key 0: never let them answer
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == 0) {
                return MISSING;
            }
        }
    }

    public void put(long key, int value) {
        if (key == 0) {
            throw new IllegalArgumentException("key 0 is reserved");
        }
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
            if (keys[i] == 0) {
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
        }
    }

    public void remove(long key) {
        if (key == 0) {
            return; // never put: an empty slot would match it
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != key) {
            if (keys[i] == 0) {
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = 0;
        size--;
        // Re-insert the rest of the probe run so lookups still find them.
        for (int j = (i + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
            long k = keys[j];
            int v = values[j];
            keys[j] = 0;
            size--;
            put(k, v);
        }
    }

    public int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    /** Spreads every bit of the key over the index bits (a flow key's port is its low 16, its address above). */
    private static int mix(long key) {
        long h = key * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h ^ (h >>> 32));
    }

    void clear() {
        Arrays.fill(keys, 0);
        size = 0;
    }
}
