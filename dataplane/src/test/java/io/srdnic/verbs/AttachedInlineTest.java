package io.srdnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.dataplane.attach.AllowRule;
import io.srdnic.srd.api.WcStatus;
import io.srdnic.verbs.AttachedSrdTest.App;
import io.srdnic.verbs.attach.SendRecord;
import io.srdnic.verbs.attach.ShmRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INLINE sends attached, as verbs defines them: the bytes are taken when postSend returns (the
 * buffer may be reused at once) and need no memory region. The dataplane takes a record later,
 * when its loop comes round, so the bytes must travel in the record; and a record is the
 * client's to scribble on, so its inline length is checked like everything else in it.
 */
class AttachedInlineTest {
    static {
        System.setProperty("srdnic.shim.path", "/nonexistent/no-dpdk-needed-here.so");
    }

    @TempDir
    Path dir;

    private static SendWr inline(App from, App to, AddressHandle ah, MemorySegment bytes, long offset, int length) {
        SendWr wr = new SendWr().wrId(9).flags(SendWr.SIGNALED | SendWr.INLINE).destination(ah, to.qp.qpNum(), AttachedSrdTest.QKEY);
        wr.sge(0).set(bytes, offset, length, from.mr.lkey());
        return wr.numSge(1);
    }

    private static String received(App b, WorkCompletion wc) {
        return b.mr.segment().getString(1024 + (wc.wrId() - 100) * 256);
    }

    @Test
    void shouldSendTheBytesThatWereThereWhenPostSendReturned() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0);
             App b = new App(dir, 1, 4)) {
            AddressHandle toB = a.to(b);
            w.pause(true); // the dataplane does not take the record before the buffer is reused
            try {
                a.mr.segment().setString(0, "ping");
                assertEquals(0, a.qp.postSend(inline(a, b, toB, a.mr.segment(), 0, 5)));
                a.mr.segment().setString(0, "XXXX"); // reused at once, as INLINE allows
            } finally {
                w.pause(false);
            }
            WorkCompletion recv = b.await();
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals("ping", received(b, recv), "the dataplane sent the buffer as it was when it took the record");
            assertEquals(WcStatus.SUCCESS, a.await().status());
        }
    }

    @Test
    void shouldSendInlineBytesFromMemoryOutsideThePool() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0);
             App b = new App(dir, 1, 4); Arena arena = Arena.ofConfined()) {
            MemorySegment heapish = arena.allocate(64);
            heapish.setString(0, "from anywhere");
            assertEquals(0, a.qp.postSend(inline(a, b, a.to(b), heapish, 0, 14)));
            WorkCompletion recv = b.await();
            assertEquals(WcStatus.SUCCESS, recv.status(), "inline data needs no memory region");
            assertEquals("from anywhere", received(b, recv));
        }
    }

    @Test
    void shouldRefuseARecordWhoseInlineLengthWasScribbledOver() {
        try (AttachedWorld w = new AttachedWorld(dir, 2, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0);
             App b = new App(dir, 1, 4)) {
            AddressHandle toB = a.to(b);
            w.pause(true);
            try {
                a.mr.segment().setString(0, "ping");
                assertEquals(0, a.qp.postSend(inline(a, b, toB, a.mr.segment(), 0, 5)));
                long record = AttachedSrdTest.firstSendRing(a) + ShmRing.RECORDS_OFFSET;
                a.ctx.session().rings.set(ValueLayout.JAVA_INT, record + SendRecord.INLINE_LENGTH, 1 << 20);
            } finally {
                w.pause(false);
            }
            WorkCompletion sent = a.await();
            assertEquals(WcStatus.LOCAL_LENGTH_ERROR, sent.status(), "an inline length past the record's room");
            assertEquals(1, w.counter("work_requests_refused"));
            a.mr.segment().setString(0, "alive");
            SendWr wr = new SendWr().wrId(10).flags(SendWr.SIGNALED).destination(toB, b.qp.qpNum(), AttachedSrdTest.QKEY);
            wr.sge(0).set(a.mr, 0, 6);
            assertEquals(0, a.qp.postSend(wr.numSge(1)));
            WorkCompletion recv = b.await();
            assertEquals("alive", received(b, recv), "the dataplane and the QP carry on");
            assertTrue(recv.ok());
        }
    }

    @Test
    void shouldOfferNoMoreInlineDataThanARecordCarries() {
        try (AttachedWorld w = new AttachedWorld(dir, 1, AllowRule.ownUidOrRoot()); App a = new App(dir, 0, 0)) {
            assertEquals(SendRecord.MAX_INLINE, a.ctx.queryDevice().maxInlineData());
        }
    }
}
