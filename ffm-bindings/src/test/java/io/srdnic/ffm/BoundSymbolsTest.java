package io.srdnic.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** symbols.txt is the committed list of what we bind: it must match the bindings and resolve in the installed DPDK. */
class BoundSymbolsTest {
    static final List<Class<?>> HOLDERS = List.of(rte_eal_h.class, rte_errno_h.class, rte_mempool_h.class,
        rte_mbuf_h.class, rte_ring_h.class, rte_eth_ring_h.class, rte_ethdev_h.class, srdnic_shim_h.class);

    @Test
    void shouldListExactlyTheBoundFunctions() throws Exception {
        Set<String> bound = new TreeSet<>();
        for (Class<?> holder : HOLDERS) {
            for (Method m : holder.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && m.getName().endsWith("$handle")) {
                    bound.add(m.getName().substring(0, m.getName().length() - "$handle".length()));
                }
                if (Modifier.isPublic(m.getModifiers()) && m.getName().endsWith("$address")) {
                    bound.add(m.getName().substring(0, m.getName().length() - "$address".length())); // a callback's address
                }
            }
        }
        bound.add("rte_eth_fp_ops");
        Set<String> listed = Files.readAllLines(Path.of("symbols.txt")).stream()
            .filter(l -> !l.isBlank() && !l.startsWith("#")).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(listed, bound);
    }

    @Test
    void shouldResolveEveryListedSymbolInTheInstalledDpdk() throws Exception {
        for (String name : Files.readAllLines(Path.of("symbols.txt"))) {
            if (!name.isBlank() && !name.startsWith("#")) {
                assertFalse(Dpdk.symbol(name).equals(MemorySegment.NULL), name);
            }
        }
    }

    @Test
    void shouldCallIntoDpdkWithoutEal() {
        // rte_strerror needs no EAL: a cheap proof that downcalls and string returns work.
        String text = rte_errno_h.rte_strerror(22).reinterpret(256).getString(0);
        assertEquals("Invalid argument", text);
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(0, rte_ethdev_h.rte_eth_dev_count_avail());
        }
    }
}
