package io.srdnic.verbs;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Test child, run as another uid (setpriv) by {@link ControlSocketAccessTest}: attaches to the
 * dataplane in args[0] as an application does, makes a PD, a CQ and a region in the pool it was
 * passed, writes and reads the region back, and prints "attached uid U ..." (its real uid, from
 * /proc/self/status), or "refused: ..." with the dataplane's reason.
 */
public final class AttachAsAnotherUid {
    private AttachAsAnotherUid() {
    }

    public static void main(String[] args) throws Exception {
        String uid = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:")).findFirst()
            .orElse("Uid: ?").split("\\s+")[1];
        try (Context ctx = Context.open(Device.attached(Path.of(args[0])), new ContextConfig().attachedPoolBytes(1 << 20)
                .attachedRingBytes(1 << 16))) {
            ProtectionDomain pd = ctx.allocPd();
            ctx.createCq(16);
            MemoryRegion mr = pd.allocateRegion(4096, Access.LOCAL_WRITE);
            mr.segment().set(ValueLayout.JAVA_LONG, 0, 0x5eed_cafeL);
            System.out.println("attached uid " + uid + " to " + ctx.queryDevice().name() + ", region lkey " + mr.lkey() + " reads back 0x"
                + Long.toHexString(mr.segment().get(ValueLayout.JAVA_LONG, 0)));
        } catch (VerbsException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
