package io.srdnic.cli.perf;

import java.util.Map;

/**
 * One side's check, at the end of an RDMA run, of the region the other side's bytes land in: how
 * many bytes were compared with the {@link Pattern}, and the first that differs (-1: none).
 * {@link #NONE}: not checked. On the side channel: {@code checked=N bad_at=M} in the RESULT line.
 */
record PayloadCheck(long bytes, long firstBad) {
    static final PayloadCheck NONE = new PayloadCheck(0, -1);

    String fields() {
        return "checked=" + bytes + " bad_at=" + firstBad;
    }

    /** The check in a line's fields, or {@link #NONE} when it has none. */
    static PayloadCheck of(Map<String, String> f) {
        String checked = f.get("checked");
        return checked == null ? NONE : new PayloadCheck(Long.parseLong(checked), Long.parseLong(f.get("bad_at")));
    }

    /** Why the check of {@code where} failed, or null if every byte was checked and is the pattern's. */
    String failure(String where) {
        if (bytes == 0) {
            return "the payload in " + where + " was not checked";
        }
        return firstBad < 0 ? null : "byte " + firstBad + " of the " + bytes + " B in " + where + " is not what was sent";
    }

    /** How it went, for the text output. */
    String text(String where) {
        String failure = failure(where);
        return failure != null ? failure : where + " " + bytes + " B, the pattern in every byte";
    }
}
