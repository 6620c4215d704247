import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * A control-socket client with nothing but the JDK, run by a test as another uid (setpriv) with
 * the source launcher: connects to args[0], sends nothing, and prints what the dataplane sends
 * until it closes the connection (an ERROR frame's text is readable in it), or "connect failed: ..."
 */
public class RawControlClient {
    public static void main(String[] args) throws Exception {
        SocketChannel ch;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(args[0]));
        } catch (Exception e) {
            System.out.println("connect failed: " + e.getMessage());
            return;
        }
        ByteBuffer in = ByteBuffer.allocate(1 << 16);
        while (ch.read(in) >= 0 && in.hasRemaining()) {
            // until the dataplane closes it
        }
        System.out.println("closed by the dataplane: " + new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1));
    }
}
