package io.srdnic.netty;

import io.netty.channel.IoHandle;
import io.srdnic.verbs.cm.CmEvent;

/** What a srdnic channel gives its event loop's {@link SrdnicIoHandler}: a turn at its completions and its CM events. */
interface SrdnicIoHandle extends IoHandle {

    /** Takes the completions its queue pair has made and acts on them; returns how many there were (0: idle). */
    int poll();

    /** One event of the CM id this handle owns (the event is acked by the handler after the call). */
    void onCmEvent(CmEvent event);

    /** Closes the channel (the loop is going away); throws nothing. */
    @Override
    void close();
}
