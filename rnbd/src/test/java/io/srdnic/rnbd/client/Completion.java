package io.srdnic.rnbd.client;

import io.srdnic.block.IoCompletion;

/** A test's completion: how often it was called and with what. */
final class Completion implements IoCompletion {
    int calls;
    int error = -1;

    @Override
    public void complete(int e) {
        calls++;
        error = e;
    }

    boolean done() {
        return calls > 0;
    }
}
