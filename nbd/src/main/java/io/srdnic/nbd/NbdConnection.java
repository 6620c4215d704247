package io.srdnic.nbd;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.ByteChannel;

/**
 * One client, from greeting to hang-up, on the thread that runs it: the handshake, then the
 * transmission phase. Works on any byte channel (a socket, or bytes in memory for the fuzz test).
 * The channel is closed when the client leaves, after every request in flight has been answered.
 */
public final class NbdConnection implements Runnable {
    private static final System.Logger LOG = System.getLogger(NbdConnection.class.getName());
    /** Enough for a burst of request headers and small writes in one read call. */
    private static final int READ_BUFFER = 64 << 10;

    private final ByteChannel channel;
    private final Exports exports;

    public NbdConnection(ByteChannel channel, Exports exports) {
        this.channel = channel;
        this.exports = exports;
    }

    @Override
    public void run() {
        WireReader in = new WireReader(channel, READ_BUFFER);
        WireWriter out = new WireWriter(channel);
        try {
            Session session = new Negotiation(in, out, exports).run();
            if (session != null) {
                new Transmission(in, out, session).run();
            }
        } catch (ProtocolViolation e) {
            LOG.log(Level.DEBUG, "nbd: hanging up on a client: {0}", e.getMessage());
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "nbd: client connection ended: {0}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "nbd: closing a client connection: {0}", e.toString());
            }
        }
    }
}
