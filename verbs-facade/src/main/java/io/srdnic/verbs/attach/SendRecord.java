package io.srdnic.verbs.attach;

/**
 * One posted send in a QP's send ring (the client writes it, the dataplane reads each field once):
 * <pre>
 *   0        8        12       16       20         24          28     32              40     44
 *   | wr id  | opcode | flags  | ah     | dest QPN | dest Q_Key | imm  | remote address | rkey | numSge |
 *   48            56     64            68              72    80
 *   | compare/add | swap | remote SRQN | inline length | pad | numSge × SGE { pool offset(8) | length(4) | lkey(4) } |
 * </pre>
 * An SGE names its bytes by offset in the client's pool, not by address: the two processes map the
 * pool at different addresses. An INLINE send carries its bytes instead of SGEs, from offset 80
 * (at most {@link #MAX_INLINE}): verbs lets the application reuse the buffer as soon as postSend
 * returns, and the dataplane takes the record only when its loop comes round.
 */
public final class SendRecord {
    public static final int WR_ID = 0;
    public static final int OPCODE = 8;
    public static final int FLAGS = 12;
    public static final int AH = 16;
    public static final int DEST_QPN = 20;
    public static final int DEST_QKEY = 24;
    public static final int IMMEDIATE = 28;
    public static final int REMOTE_ADDRESS = 32;
    public static final int RKEY = 40;
    public static final int NUM_SGE = 44;
    public static final int COMPARE_ADD = 48;
    public static final int SWAP = 56;
    public static final int REMOTE_SRQN = 64;
    public static final int INLINE_LENGTH = 68;
    public static final int SGES = 80;
    public static final int SGE_BYTES = 16;
    public static final int SGE_OFFSET = 0;
    public static final int SGE_LENGTH = 8;
    public static final int SGE_LKEY = 12;
    public static final int MAX_SGE = 8;
    public static final int BYTES = 256;
    /** The inline bytes a record carries (where its SGEs would be): an attached device's max_inline_data. */
    public static final int MAX_INLINE = BYTES - SGES;

    private SendRecord() {
    }
}
