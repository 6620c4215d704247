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
    private final ServerResources resources;
    private final String name;
    private final WireWriter out;
    /** Made when the connection starts running (its buffer's memory is the connection's to fail on); null before. */
    private volatile WireReader in;

    /** A connection outside any server (no watchdog), sharing the default limits' buffers with the others made so. */
    public NbdConnection(ByteChannel channel, Exports exports) {
        this(channel, exports, Standalone.RESOURCES, "nbd-conn");
    }

    private static final class Standalone {
        static final ServerResources RESOURCES = new ServerResources(ServerLimits.defaults());
    }

    NbdConnection(ByteChannel channel, Exports exports, ServerResources resources, String name) {
        this.channel = channel;
        this.exports = exports;
        this.resources = resources;
        this.name = name;
        this.out = new WireWriter(channel);
    }

    @Override
    public void run() {
        try {
            WireReader in = new WireReader(channel, READ_BUFFER);
            this.in = in;
            Session session = new Negotiation(in, out, exports).run();
            if (session != null) {
                new Transmission(in, out, session, resources, name).run();
            }
        } catch (ProtocolViolation e) {
            LOG.log(Level.DEBUG, "nbd: hanging up on a client: {0}", e.getMessage());
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "nbd: client connection ended: {0}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (OutOfMemoryError e) {
            LOG.log(Level.WARNING, "nbd: {0}: no memory for the connection''s buffers, hanging up: {1}", name, e.getMessage());
        } finally {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "nbd: closing a client connection: {0}", e.toString());
            }
        }
    }

    /**
     * Hangs up if a reply write has been blocked for the reply timeout (the client stopped
     * reading), or a write's payload has made no progress for as long (the client stopped sending
     * in the middle of a request, holding a slot and maybe a large buffer): counted and logged.
     * Called by the server's watchdog. Closing the channel ends the reader's blocked read, which
     * gives the request's slot and buffer back as a client gone mid-payload does.
     */
    boolean hangUpIfStalled(long now, long timeoutNanos) {
        if (out.hangUpIfStalled(now, timeoutNanos)) {
            stalled("took no reply for {1} ms (not reading)", timeoutNanos);
            return true;
        }
        WireReader reader = in;
        if (reader != null && reader.payloadStalled(now, timeoutNanos) && out.hangUp()) {
            stalled("sent no more of a write''s payload for {1} ms", timeoutNanos);
            return true;
        }
        return false;
    }

    private void stalled(String what, long timeoutNanos) {
        resources.stalledClients.incrementAndGet();
        LOG.log(Level.WARNING, "nbd: {0}: client " + what + ": hung up", name, timeoutNanos / 1_000_000);
    }
}
