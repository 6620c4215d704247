package io.srdnic.cli;

import java.util.logging.LogManager;

/**
 * java.util.logging's manager, except that the JVM's shutdown does not reset it: the stock
 * LogManager removes and closes every handler from a shutdown hook of its own, which runs beside
 * the dataplane's (that stops the lcores, reclaims the clients and logs each step), so those last
 * lines were lost on SIGTERM. Handlers here flush every record (ConsoleHandler), so nothing is left
 * to flush at exit. Installed by {@link Srdnic#main} through {@code java.util.logging.manager}
 * unless one is set.
 */
public final class ShutdownSafeLogManager extends LogManager {
    @Override
    public void reset() {
        if (Thread.currentThread().getClass().getName().equals("java.util.logging.LogManager$Cleaner")) {
            for (var h : getLogger("").getHandlers()) {
                h.flush(); // and keep them: hooks still running log through them
            }
            return;
        }
        super.reset();
    }
}
