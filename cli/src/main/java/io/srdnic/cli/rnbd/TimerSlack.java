package io.srdnic.cli.rnbd;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The calling thread's timer slack (prctl PR_SET_TIMERSLACK): Linux lets a normal thread's timed
 * sleep run up to 50 us late so that wake-ups bunch; a poll loop that parks for 10 us then sleeps
 * 60. With 1 us, its short parks are short and it can sleep instead of spin.
 */
final class TimerSlack {
    private static final int PR_SET_TIMERSLACK = 29;
    private static final MethodHandle PRCTL = Linker.nativeLinker().defaultLookup().find("prctl")
        .map(a -> Linker.nativeLinker().downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1)))
        .orElse(null);

    private TimerSlack() {
    }

    /** Sets the calling thread's slack; false if the kernel refused (the default slack stays: slower, not wrong). */
    static boolean set(long nanos) {
        if (PRCTL == null) {
            return false;
        }
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, nanos) == 0;
        } catch (Throwable t) {
            return false;
        }
    }
}
