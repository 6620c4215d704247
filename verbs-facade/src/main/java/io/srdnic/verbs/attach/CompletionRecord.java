package io.srdnic.verbs.attach;

/**
 * One work completion in a CQ's completion ring (the dataplane writes it, the client reads it):
 * <pre>
 *   0       8        12       16            20        24    28    32           36           40    48
 *   | wr id | status | opcode | byte length | has imm | imm | QPN | source QPN | source IP | pad |
 * </pre>
 */
public final class CompletionRecord {
    public static final int WR_ID = 0;
    public static final int STATUS = 8;
    public static final int OPCODE = 12;
    public static final int BYTE_LENGTH = 16;
    public static final int HAS_IMMEDIATE = 20;
    public static final int IMMEDIATE = 24;
    public static final int QPN = 28;
    public static final int SOURCE_QPN = 32;
    public static final int SOURCE_IP = 36;
    public static final int BYTES = 48;

    private CompletionRecord() {
    }
}
