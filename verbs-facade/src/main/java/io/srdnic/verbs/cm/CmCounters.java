package io.srdnic.verbs.cm;

import java.util.LinkedHashMap;
import java.util.Map;

/** What a context's connection manager has done and refused, under its lock. */
final class CmCounters {
    /** By message type (REQ..MRA). */
    final long[] sent = new long[CmMessage.MRA + 1];
    final long[] received = new long[CmMessage.MRA + 1];
    /** By {@link CmMessage#parse} error (its negation). */
    final long[] malformed = new long[7];
    long wrongSender;
    long retransmits;
    long duplicateRequests;
    long duplicateReplies;
    long unknownCommId;
    long noListener;
    long backlogFull;
    long wrongTransport;
    long receiveErrors;
    long sendSlotsExhausted;

    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int t = CmMessage.REQ; t <= CmMessage.MRA; t++) {
            m.put("sent_" + CmMessage.typeName(t), sent[t]);
            m.put("received_" + CmMessage.typeName(t), received[t]);
        }
        long all = 0;
        for (int e = 1; e < malformed.length; e++) {
            m.put("malformed_" + CmMessage.errorName(-e).replace(' ', '_'), malformed[e]);
            all += malformed[e];
        }
        m.put("malformed", all);
        m.put("wrong_sender", wrongSender);
        m.put("retransmits", retransmits);
        m.put("duplicate_requests", duplicateRequests);
        m.put("duplicate_replies", duplicateReplies);
        m.put("unknown_comm_id", unknownCommId);
        m.put("no_listener", noListener);
        m.put("backlog_full", backlogFull);
        m.put("wrong_transport", wrongTransport);
        m.put("receive_errors", receiveErrors);
        m.put("send_slots_exhausted", sendSlotsExhausted);
        return m;
    }
}
