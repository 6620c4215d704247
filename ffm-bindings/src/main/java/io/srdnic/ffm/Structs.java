package io.srdnic.ffm;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds C struct layouts from the fields we use at their C offsets, padding the rest. The offsets
 * are those of DPDK 22.11 on x86-64; LayoutProbeTest compiles a C probe and checks every one of them.
 */
final class Structs {
    private Structs() {
    }

    record Field(long offset, MemoryLayout layout) {
    }

    static Field field(long offset, MemoryLayout layout, String name) {
        return new Field(offset, layout.withName(name));
    }

    static StructLayout struct(String name, long size, Field... fields) {
        List<MemoryLayout> members = new ArrayList<>();
        long at = 0;
        for (Field f : fields) {
            if (f.offset < at) {
                throw new IllegalArgumentException(name + ": field " + f.layout.name().orElse("?") + " overlaps");
            }
            if (f.offset > at) {
                members.add(MemoryLayout.paddingLayout(f.offset - at));
            }
            members.add(f.layout.withByteAlignment(Math.min(f.layout.byteAlignment(), 8)));
            at = f.offset + f.layout.byteSize();
        }
        if (size > at) {
            members.add(MemoryLayout.paddingLayout(size - at));
        }
        return MemoryLayout.structLayout(members.toArray(MemoryLayout[]::new)).withName(name);
    }

    static long offset(StructLayout layout, String... path) {
        MemoryLayout.PathElement[] elements = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = MemoryLayout.PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }
}
