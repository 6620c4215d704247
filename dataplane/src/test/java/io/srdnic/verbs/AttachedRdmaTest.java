package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.WcOpcode;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AttachedSrdTest.App;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RDMA naming an attached region: the application advertises its own mapping's address of the
 * pool, which the dataplane (another mapping, another address) translates per region.
 */
class AttachedRdmaTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    @TempDir
    Path dir;

    @Test
    void shouldReachAnAttachedRegionByRdmaAtTheAddressItsApplicationAdvertises() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4);
             App b = new App(dir, 1, 4)) {
            MemoryRegion target = b.pd.allocateRegion(4096, REMOTE);
            long advertised = target.segment().address() + 128; // b's own mapping, as an application sends it to its peer
            a.mr.segment().setString(0, "written by a");
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).destination(a.to(b), b.qp.qpNum(), AttachedSrdTest.QKEY)
                .rdma(advertised, target.rkey());
            write.sge(0).set(a.mr, 0, 13);
            assertEquals(0, a.qp.postSend(write.numSge(1)));
            WorkCompletion wc = a.await();
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
            assertEquals("written by a", target.segment().getString(128));

            target.segment().setString(1024, "read from b");
            SendWr read = new SendWr().wrId(2).opcode(SendWr.OP_RDMA_READ).destination(a.to(b), b.qp.qpNum(), AttachedSrdTest.QKEY)
                .rdma(target.segment().address() + 1024, target.rkey());
            read.sge(0).set(a.mr, 512, 12);
            assertEquals(0, a.qp.postSend(read.numSge(1)));
            wc = a.await();
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals("read from b", a.mr.segment().getString(512));
        }
    }

    @Test
    void shouldRefuseAnotherClientsRkeyChangingNothing() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 4);
             App b = new App(dir, 1, 4); App c = new App(dir, 1, 4)) {
            MemoryRegion bTarget = b.pd.allocateRegion(4096, REMOTE);
            MemoryRegion cTarget = c.pd.allocateRegion(4096, REMOTE);
            bTarget.segment().fill((byte) 0x11);
            cTarget.segment().fill((byte) 0x22);
            a.mr.segment().setString(0, "intruder");
            // to b's QP, naming c's region (c's rkey and c's advertised address): c's rkey is not of b's PD
            SendWr write = new SendWr().wrId(1).opcode(SendWr.OP_RDMA_WRITE).destination(a.to(b), b.qp.qpNum(), AttachedSrdTest.QKEY)
                .rdma(cTarget.segment().address(), cTarget.rkey());
            write.sge(0).set(a.mr, 0, 9);
            assertEquals(0, a.qp.postSend(write.numSge(1)));
            WorkCompletion wc = a.await();
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, wc.status(), wc.toString());
            // and with b's address but c's rkey: refused too
            write.wrId(2).rdma(bTarget.segment().address(), cTarget.rkey());
            assertNotEquals(bTarget.rkey(), cTarget.rkey());
            assertEquals(0, a.qp.postSend(write));
            assertEquals(WcStatus.REMOTE_ACCESS_ERROR, a.await().status());
            for (long i = 0; i < 4096; i++) {
                assertEquals((byte) 0x11, bTarget.segment().get(ValueLayout.JAVA_BYTE, i), "b's byte " + i);
                assertEquals((byte) 0x22, cTarget.segment().get(ValueLayout.JAVA_BYTE, i), "c's byte " + i);
            }
            assertEquals(0, b.cq.poll(b.wcs), "b saw nothing");
            assertEquals(0, c.cq.poll(c.wcs), "c saw nothing");
        }
    }
}
