package io.srdnic.srd.transport.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.srdnic.srd.api.QpAttributes;
import io.srdnic.srd.api.QpState;
import io.srdnic.srd.api.QpType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The state machine against the kernel's {@code qp_state_table} (drivers/infiniband/core/verbs.c),
 * transcribed below row by row with the kernel's own names, for every QP type and every pair of states.
 */
class QpTransitionsTest {
    /**
     * {from, to, IB_QPT_UD required, IB_QPT_UD optional, IB_QPT_RC required, IB_QPT_RC optional}; IB_QP_STATE
     * is implied. A pair of states not listed is not a legal move.
     */
    private static final String[][] KERNEL_TABLE = {
        {"RESET", "RESET", "", "", "", ""},
        {"RESET", "ERR", "", "", "", ""},
        {"RESET", "INIT", "PKEY_INDEX PORT QKEY", "", "PKEY_INDEX PORT ACCESS_FLAGS", ""},
        {"INIT", "RESET", "", "", "", ""},
        {"INIT", "ERR", "", "", "", ""},
        {"INIT", "INIT", "", "PKEY_INDEX PORT QKEY", "", "PKEY_INDEX PORT ACCESS_FLAGS"},
        {"INIT", "RTR", "", "PKEY_INDEX QKEY",
            "AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER", "ALT_PATH ACCESS_FLAGS PKEY_INDEX"},
        {"RTR", "RESET", "", "", "", ""},
        {"RTR", "ERR", "", "", "", ""},
        {"RTR", "RTS", "SQ_PSN", "CUR_STATE QKEY",
            "TIMEOUT RETRY_CNT RNR_RETRY SQ_PSN MAX_QP_RD_ATOMIC", "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE"},
        {"RTS", "RESET", "", "", "", ""},
        {"RTS", "ERR", "", "", "", ""},
        {"RTS", "RTS", "", "CUR_STATE QKEY", "", "CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE MIN_RNR_TIMER"},
        {"RTS", "SQD", "", "EN_SQD_ASYNC_NOTIFY", "", "EN_SQD_ASYNC_NOTIFY"},
        {"SQD", "RESET", "", "", "", ""},
        {"SQD", "ERR", "", "", "", ""},
        {"SQD", "RTS", "", "CUR_STATE QKEY", "", "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE"},
        {"SQD", "SQD", "", "PKEY_INDEX QKEY", "", "PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC MAX_DEST_RD_ATOMIC ALT_PATH "
            + "ACCESS_FLAGS PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE"},
        {"SQE", "RESET", "", "", "", ""},
        {"SQE", "ERR", "", "", "", ""},
        {"SQE", "RTS", "", "CUR_STATE QKEY", "", ""},
        {"ERR", "RESET", "", "", "", ""},
        {"ERR", "ERR", "", "", "", ""},
    };

    /** EFA's srd_qp_state_table: UD's, with IB_QP_RNR_RETRY also optional on RTR -> RTS. */
    private static final String[] SRD_EXTRA_OPTIONAL_RTR_TO_RTS = {"RNR_RETRY"};

    /** The kernel's IB_QP_* names of the attributes srdnic offers; ALT_PATH and PATH_MIG_STATE (APM) it does not. */
    private static final Map<String, Integer> BITS = Map.ofEntries(
        Map.entry("CUR_STATE", QpAttributes.CUR_STATE), Map.entry("EN_SQD_ASYNC_NOTIFY", QpAttributes.SQ_DRAINED_NOTIFY),
        Map.entry("ACCESS_FLAGS", QpAttributes.ACCESS_FLAGS), Map.entry("PKEY_INDEX", QpAttributes.PKEY_INDEX),
        Map.entry("PORT", QpAttributes.PORT), Map.entry("QKEY", QpAttributes.QKEY), Map.entry("AV", QpAttributes.ADDRESS_HANDLE),
        Map.entry("PATH_MTU", QpAttributes.PATH_MTU), Map.entry("TIMEOUT", QpAttributes.TIMEOUT),
        Map.entry("RETRY_CNT", QpAttributes.RETRY_CNT), Map.entry("RNR_RETRY", QpAttributes.RNR_RETRY),
        Map.entry("RQ_PSN", QpAttributes.RQ_PSN), Map.entry("MAX_QP_RD_ATOMIC", QpAttributes.MAX_RD_ATOMIC),
        Map.entry("MIN_RNR_TIMER", QpAttributes.MIN_RNR_TIMER), Map.entry("SQ_PSN", QpAttributes.SQ_PSN),
        Map.entry("MAX_DEST_RD_ATOMIC", QpAttributes.MAX_DEST_RD_ATOMIC), Map.entry("DEST_QPN", QpAttributes.DEST_QPN),
        Map.entry("ALT_PATH", 0), Map.entry("PATH_MIG_STATE", 0));

    /** Every attribute a caller can set besides the state, with the setter name a message must use for it. */
    private static final Map<Integer, String> SETTERS = Map.ofEntries(
        Map.entry(QpAttributes.CUR_STATE, "curState"), Map.entry(QpAttributes.SQ_DRAINED_NOTIFY, "sqDrainedNotify"),
        Map.entry(QpAttributes.ACCESS_FLAGS, "accessFlags"), Map.entry(QpAttributes.PKEY_INDEX, "pkeyIndex"),
        Map.entry(QpAttributes.PORT, "port"), Map.entry(QpAttributes.QKEY, "qkey"),
        Map.entry(QpAttributes.ADDRESS_HANDLE, "addressHandle"), Map.entry(QpAttributes.PATH_MTU, "pathMtu"),
        Map.entry(QpAttributes.TIMEOUT, "timeout"), Map.entry(QpAttributes.RETRY_CNT, "retryCnt"),
        Map.entry(QpAttributes.RNR_RETRY, "rnrRetry"), Map.entry(QpAttributes.RQ_PSN, "rqPsn"),
        Map.entry(QpAttributes.MAX_RD_ATOMIC, "maxRdAtomic"), Map.entry(QpAttributes.MIN_RNR_TIMER, "minRnrTimer"),
        Map.entry(QpAttributes.SQ_PSN, "sqPsn"), Map.entry(QpAttributes.MAX_DEST_RD_ATOMIC, "maxDestRdAtomic"),
        Map.entry(QpAttributes.DEST_QPN, "destQpn"));

    /** What the kernel table says of one (type, from, to): null when the move is illegal. */
    private record Expected(int required, int optional) {
    }

    private static final Map<String, Expected> EXPECTED = new HashMap<>();

    static {
        for (String[] row : KERNEL_TABLE) {
            QpState from = state(row[0]);
            QpState to = state(row[1]);
            Expected ud = new Expected(bits(row[2]), bits(row[3]));
            EXPECTED.put(key(QpType.UD, from, to), ud);
            int srdExtra = from == QpState.RTR && to == QpState.RTS ? bits(String.join(" ", SRD_EXTRA_OPTIONAL_RTR_TO_RTS)) : 0;
            EXPECTED.put(key(QpType.SRD, from, to), new Expected(ud.required(), ud.optional() | srdExtra));
            EXPECTED.put(key(QpType.RC, from, to), new Expected(bits(row[4]), bits(row[5])));
            EXPECTED.put(key(QpType.SRC, from, to), new Expected(bits(row[4]), bits(row[5]))); // seed 001: RC's attributes
        }
    }

    private static QpState state(String kernelName) {
        return kernelName.equals("ERR") ? QpState.ERROR : QpState.valueOf(kernelName);
    }

    private static int bits(String kernelNames) {
        int mask = 0;
        for (String name : kernelNames.split(" ")) {
            if (!name.isEmpty()) {
                mask |= BITS.get(name);
            }
        }
        return mask;
    }

    private static String key(QpType type, QpState from, QpState to) {
        return type + " " + from + " -> " + to;
    }

    /** Sets attribute {@code bit} to a value valid for a QP moving out of {@code from}. */
    private static void set(QpAttributes a, int bit, QpState from) {
        switch (bit) {
            case QpAttributes.CUR_STATE -> a.curState(from);
            case QpAttributes.SQ_DRAINED_NOTIFY -> a.sqDrainedNotify(true);
            case QpAttributes.ACCESS_FLAGS -> a.accessFlags(QpAttributes.ACCESS_REMOTE_WRITE);
            case QpAttributes.PKEY_INDEX -> a.pkeyIndex(0);
            case QpAttributes.PORT -> a.port(1);
            case QpAttributes.QKEY -> a.qkey(0x1234);
            case QpAttributes.ADDRESS_HANDLE -> a.addressHandle(1);
            case QpAttributes.PATH_MTU -> a.pathMtu(1024);
            case QpAttributes.TIMEOUT -> a.timeout(14);
            case QpAttributes.RETRY_CNT -> a.retryCnt(7);
            case QpAttributes.RNR_RETRY -> a.rnrRetry(7);
            case QpAttributes.RQ_PSN -> a.rqPsn(100);
            case QpAttributes.MAX_RD_ATOMIC -> a.maxRdAtomic(1);
            case QpAttributes.MIN_RNR_TIMER -> a.minRnrTimer(12);
            case QpAttributes.SQ_PSN -> a.sqPsn(200);
            case QpAttributes.MAX_DEST_RD_ATOMIC -> a.maxDestRdAtomic(1);
            case QpAttributes.DEST_QPN -> a.destQpn(0x42);
            default -> throw new AssertionError("no setter for bit " + bit);
        }
    }

    private static QpAttributes attributes(QpState from, QpState to, int mask) {
        QpAttributes a = new QpAttributes().state(to);
        for (int bit : SETTERS.keySet()) {
            if ((mask & bit) != 0) {
                set(a, bit, from);
            }
        }
        return a;
    }

    @Test
    void shouldAllowExactlyTheKernelsTransitionsForEveryTypeAndPairOfStates() {
        List<String> wrong = new ArrayList<>();
        int pairs = 0;
        for (QpType type : QpType.values()) {
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    pairs++;
                    Expected expected = EXPECTED.get(key(type, from, to));
                    if (expected != null) {
                        try {
                            assertEquals(to, QpTransitions.check(type, from, attributes(from, to, expected.required())));
                        } catch (RuntimeException | AssertionError e) {
                            wrong.add(key(type, from, to) + " is legal with its required attributes, but: " + e.getMessage());
                        }
                    } else {
                        try {
                            QpTransitions.check(type, from, new QpAttributes().state(to));
                            wrong.add(key(type, from, to) + " is illegal, but was allowed");
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().contains("illegal transition " + from + " -> " + to)) {
                                wrong.add(key(type, from, to) + ": the message should name the move: " + e.getMessage());
                            }
                        } catch (RuntimeException e) {
                            wrong.add(key(type, from, to) + " is illegal, but threw " + e);
                        }
                    }
                }
            }
        }
        assertEquals(4 * 7 * 7, pairs, "UD, SRD, RC and SRC over the seven verbs states");
        if (!wrong.isEmpty()) {
            fail(wrong.size() + " (type, from, to) cases differ from the kernel's table:\n" + String.join("\n", wrong));
        }
    }

    @Test
    void shouldRequireTheKernelsAttributes() {
        List<String> wrong = new ArrayList<>();
        forEachAttributeOfEachMove((type, from, to, expected, bit, setter) -> {
            if ((expected.required() & bit) != 0) {
                QpAttributes missing = attributes(from, to, expected.required() & ~bit);
                expectRefusal(wrong, key(type, from, to) + " without " + setter, () -> QpTransitions.check(type, from, missing), setter);
            }
        });
        if (!wrong.isEmpty()) {
            fail(wrong.size() + " required attributes differ from the kernel's table:\n" + String.join("\n", wrong));
        }
    }

    @Test
    void shouldTakeOnlyTheKernelsOptionalAttributes() {
        List<String> wrong = new ArrayList<>();
        forEachAttributeOfEachMove((type, from, to, expected, bit, setter) -> {
            String move = key(type, from, to);
            if ((expected.optional() & bit) != 0) {
                try {
                    QpTransitions.check(type, from, attributes(from, to, expected.required() | bit));
                } catch (RuntimeException e) {
                    wrong.add(move + " takes " + setter + " optionally, but: " + e.getMessage());
                }
            } else if ((expected.required() & bit) == 0) {
                QpAttributes extra = attributes(from, to, expected.required() | bit);
                expectRefusal(wrong, move + " with " + setter, () -> QpTransitions.check(type, from, extra), setter);
            }
        });
        forEachMove((type, from, to, expected) -> {
            try {
                QpTransitions.check(type, from, attributes(from, to, expected.required() | expected.optional()));
            } catch (RuntimeException e) {
                wrong.add(key(type, from, to) + " with every attribute it takes: " + e.getMessage());
            }
        });
        if (!wrong.isEmpty()) {
            fail(wrong.size() + " optional attributes differ from the kernel's table:\n" + String.join("\n", wrong));
        }
    }

    /** One legal move of the kernel's table. */
    private interface Move {
        void check(QpType type, QpState from, QpState to, Expected expected);
    }

    /** One attribute of one legal move of the kernel's table. */
    private interface AttributeOfMove {
        void check(QpType type, QpState from, QpState to, Expected expected, int bit, String setter);
    }

    private static void forEachMove(Move check) {
        for (QpType type : QpType.values()) {
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    Expected expected = EXPECTED.get(key(type, from, to));
                    if (expected != null) {
                        check.check(type, from, to, expected);
                    }
                }
            }
        }
    }

    private static void forEachAttributeOfEachMove(AttributeOfMove check) {
        forEachMove((type, from, to, expected) -> {
            for (Map.Entry<Integer, String> attribute : SETTERS.entrySet()) {
                check.check(type, from, to, expected, attribute.getKey(), attribute.getValue());
            }
        });
    }

    private static void expectRefusal(List<String> wrong, String what, Runnable modify, String setter) {
        try {
            modify.run();
            wrong.add(what + " was accepted");
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains(setter)) {
                wrong.add(what + ": the message should name " + setter + ": " + e.getMessage());
            }
        } catch (RuntimeException e) {
            wrong.add(what + " should be an IllegalArgumentException, was " + e);
        }
    }

    @Test
    void shouldNameWhatAnRcInitToRtrLacks() {
        QpAttributes a = new QpAttributes().state(QpState.RTR).destQpn(7).rqPsn(0).pathMtu(4096).maxDestRdAtomic(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpTransitions.check(QpType.RC, QpState.INIT, a));
        assertTrue(e.getMessage().contains("missing addressHandle (IBV_QP_AV), minRnrTimer (IBV_QP_MIN_RNR_TIMER)"), e.getMessage());
        assertTrue(e.getMessage().contains("RC QP, INIT -> RTR"), e.getMessage());
    }

    @Test
    void shouldRefuseAQkeyOnRcNamingWhatTheMoveTakes() {
        QpAttributes a = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0).qkey(5);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpTransitions.check(QpType.RC, QpState.RESET, a));
        assertTrue(e.getMessage().contains("does not take qkey"), e.getMessage());
        assertTrue(e.getMessage().contains("accessFlags"), "lists what the move takes: " + e.getMessage());
    }

    @Test
    void shouldStayInTheCurrentStateWhenNoStateIsSet() {
        assertEquals(QpState.RTS, QpTransitions.check(QpType.UD, QpState.RTS, new QpAttributes().qkey(9)));
        assertThrows(IllegalStateException.class, () -> QpTransitions.check(QpType.UD, QpState.RTR, new QpAttributes().qkey(9)),
            "RTR -> RTR is not a move");
    }

    @Test
    void shouldRefuseACurStateThatIsNotTheQpsState() {
        QpAttributes a = new QpAttributes().state(QpState.RTS).curState(QpState.SQE);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> QpTransitions.check(QpType.UD, QpState.RTS, a));
        assertTrue(e.getMessage().contains("curState says SQE but the QP is in RTS"), e.getMessage());
    }

    @Test
    void shouldReportEveryAttributeATypeHasForQueries() {
        int ud = QpAttributes.PKEY_INDEX | QpAttributes.PORT | QpAttributes.QKEY | QpAttributes.SQ_PSN;
        assertEquals(ud, QpTransitions.attributesOf(QpType.UD));
        assertEquals(ud | QpAttributes.RNR_RETRY, QpTransitions.attributesOf(QpType.SRD));
        int rc = 0;
        for (int bit : SETTERS.keySet()) {
            rc |= bit;
        }
        rc &= ~(QpAttributes.CUR_STATE | QpAttributes.SQ_DRAINED_NOTIFY | QpAttributes.QKEY);
        assertEquals(rc, QpTransitions.attributesOf(QpType.RC));
    }
}
