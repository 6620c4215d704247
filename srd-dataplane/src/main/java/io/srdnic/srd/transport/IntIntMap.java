package io.srdnic.srd.transport;

import java.util.Arrays;

/**
 * Open-addressing map from int keys to non-negative int values, linear probing, no boxing: lookups
 * on the receive path allocate nothing. Key 0 is reserved (never a valid IPv4 peer or QPN here).
 */
final class IntIntMap {
    static final int MISSING = -1;
    private int[] keys;
    private int[] values;
    private int size;

    IntIntMap(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new int[capacity];
        values = new int[capacity];
    }

    int get(int key) {
        if (key == 0) {
            return MISSING; // empty slots hold key 0: never let them answer
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == 0) {
                return MISSING;
            }
        }
    }

    void put(int key, int value) {
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

    void remove(int key) {
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
            int k = keys[j];
            int v = values[j];
            keys[j] = 0;
            size--;
            put(k, v);
        }
    }

    int size() {
        return size;
    }

    private void grow() {
        int[] oldKeys = keys;
        int[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    void clear() {
        Arrays.fill(keys, 0);
        size = 0;
    }
}
