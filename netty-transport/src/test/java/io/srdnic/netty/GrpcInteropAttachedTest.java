package io.srdnic.netty;

import java.net.InetSocketAddress;
import org.junit.AfterClass;
import org.junit.BeforeClass;

/**
 * The interop suite between two applications attached to one dataplane ({@link AttachedLoops}):
 * every stream's buffers come from its application's shared pool, which is 32 MiB here — far less
 * than the suite's channels would take without the loop reusing closed streams' buffers.
 */
public class GrpcInteropAttachedTest extends SrdnicInteropTest {
    private static AttachedLoops attached;

    @BeforeClass
    public static void attach() {
        LeakRecorder.install();
        attached = new AttachedLoops(32 << 20, 32 << 20);
    }

    @AfterClass
    public static void detach() {
        attached.close();
        LeakRecorder.assertNoLeaks();
    }

    @Override
    protected SrdnicEventLoopGroup serverGroup() {
        return attached.server;
    }

    @Override
    protected SrdnicEventLoopGroup clientGroup() {
        return attached.client;
    }

    @Override
    protected InetSocketAddress serverAddress(int port) {
        return AttachedLoops.serverAddress(port);
    }
}
