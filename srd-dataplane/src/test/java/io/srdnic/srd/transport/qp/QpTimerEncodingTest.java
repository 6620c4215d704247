package io.srdnic.srd.transport.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The IBTA timer encodings RC's data path reads from the QP attributes. */
class QpTimerEncodingTest {
    /**
     * IBTA's RNR NAK timer field encoding, code by code, in milliseconds as the spec prints them (the
     * names of the kernel's IB_RNR_TIMER_* constants say the same).
     */
    private static final String[] RNR_TIMER_MILLIS = {
        "655.36", "0.01", "0.02", "0.03", "0.04", "0.06", "0.08", "0.12",
        "0.16", "0.24", "0.32", "0.48", "0.64", "0.96", "1.28", "1.92",
        "2.56", "3.84", "5.12", "7.68", "10.24", "15.36", "20.48", "30.72",
        "40.96", "61.44", "81.92", "122.88", "163.84", "245.76", "327.68", "491.52",
    };

    @Test
    void shouldMapEveryRnrTimerCodeToIbtasTable() {
        assertEquals(32, RNR_TIMER_MILLIS.length);
        for (int code = 0; code < RNR_TIMER_MILLIS.length; code++) {
            long expected = new BigDecimal(RNR_TIMER_MILLIS[code]).movePointRight(6).longValueExact();
            assertEquals(expected, RnrTimer.nanos(code), "RNR timer code " + code);
        }
    }

    @Test
    void shouldRefuseRnrTimerCodesOutsideFiveBits() {
        assertThrows(IllegalArgumentException.class, () -> RnrTimer.nanos(-1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RnrTimer.nanos(32));
        assertEquals(true, e.getMessage().contains("0..31"), e.getMessage());
    }

    @Test
    void shouldMapTheLocalAckTimeoutTo4096NanosTimesAPowerOfTwoWithZeroInfinite() {
        assertEquals(LocalAckTimeout.INFINITE, LocalAckTimeout.nanos(0));
        assertEquals(8_192, LocalAckTimeout.nanos(1));
        assertEquals(67_108_864, LocalAckTimeout.nanos(14), "14, a common choice: 67.1 ms");
        assertEquals(4_096L * (1L << 31), LocalAckTimeout.nanos(31));
        assertThrows(IllegalArgumentException.class, () -> LocalAckTimeout.nanos(32));
        assertThrows(IllegalArgumentException.class, () -> LocalAckTimeout.nanos(-1));
    }
}
