package io.srdnic.verbs.attach;

/**
 * One posted receive in a QP's receive ring:
 * <pre>
 *   0       8                16       20     24    32
 *   | wr id | pool offset    | length | lkey | pad |
 * </pre>
 */
public final class RecvRecord {
    public static final int WR_ID = 0;
    public static final int OFFSET = 8;
    public static final int LENGTH = 16;
    public static final int LKEY = 20;
    public static final int BYTES = 32;

    private RecvRecord() {
    }
}
