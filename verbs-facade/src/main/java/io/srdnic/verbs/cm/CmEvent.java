package io.srdnic.verbs.cm;


/**
 * One CM event (rdma_cm_event), lent by its {@link EventChannel} from a pool made up front: read it,
 * then give it back with {@link EventChannel#ack}. Its private data lives in the event itself and is
 * valid until then; nothing is allocated per event while the application acks what it polls.
 */
public final class CmEvent {
    CmEventType type;
    CmId id;
    CmId listenId;
    int status;
    final byte[] privateData = new byte[CmMessage.MAX_LENGTH - CmMessage.HEADER_LENGTH];
    int privateDataLength;
    int responderResources;
    int initiatorDepth;
    int retryCount;
    int rnrRetryCount;
    boolean lent;

    public CmEventType type() {
        return type;
    }

    /** The id the event is about; for CONNECT_REQUEST the new id of the request, to accept or reject. */
    public CmId id() {
        return id;
    }

    /** For CONNECT_REQUEST: the listening id the request came to; else null. */
    public CmId listenId() {
        return listenId;
    }

    /** For REJECTED: the {@link RejectReason} code; else 0. */
    public int status() {
        return status;
    }

    /** The peer's private data (its first {@link #privateDataLength()} bytes), valid until the event is acked. */
    public byte[] privateData() {
        return privateData;
    }

    public int privateDataLength() {
        return privateDataLength;
    }

    /** For CONNECT_REQUEST and ESTABLISHED: what the peer offered — reads and atomics it serves. */
    public int responderResources() {
        return responderResources;
    }

    /** For CONNECT_REQUEST and ESTABLISHED: reads and atomics the peer issues at once. */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    /** For CONNECT_REQUEST: the requester's retry count. */
    public int retryCount() {
        return retryCount;
    }

    /** For CONNECT_REQUEST: the RNR retry count the requester asks for. */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    @Override
    public String toString() {
        return type + (type == CmEventType.REJECTED ? " (" + RejectReason.name(status) + ")" : "") + " private data " + privateDataLength
            + " B";
    }
}
