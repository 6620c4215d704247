package io.srdnic.verbs.cm;

import io.srdnic.verbs.QueuePair;

/**
 * What a {@link CmId}'s calls do on its context, chosen once when the context's
 * {@link ConnectionManager} is made (as the verbs facade's {@code VerbsProvider}): {@link EmbeddedCm}
 * runs the CM protocol here over the context's management QP; {@link AttachedCm} asks the
 * dataplane's CM, which runs it for the port. Every method runs under the manager's lock.
 */
interface CmProtocol {
    /** A new id on this context: the attached protocol makes its counterpart in the dataplane. */
    void created(CmId id, int portSpace, int xrcOrdinal);

    void bind(CmId id, int port);

    void listen(CmId id, int backlog);

    void resolveAddr(CmId id, int ip, int port);

    void resolveRoute(CmId id);

    /** Takes {@code qp} (checked: the id's type, RESET or INIT) to INIT and makes it the id's. */
    void attachQp(CmId id, QueuePair qp);

    void connect(CmId id, ConnParam p);

    void accept(CmId id, ConnParam p);

    void reject(CmId id, byte[] data, int offset, int length);

    void disconnect(CmId id);

    /** Ends the id's connection as rdma_destroy_id does; {@code deviceGone}: nothing left to tell the device. */
    void destroy(CmId id, boolean deviceGone);

    /** The id's RNR timer or ACK timeout was set (checked, kept in the id): the attached protocol tells the dataplane. */
    void setTimer(CmId id, int op, int code);

    /** One round of the manager: messages or events in, timers; returns the work done. */
    int progress();
}
