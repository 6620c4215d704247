package io.srdnic.nbd.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.local.FileBlockDevice;
import io.srdnic.block.local.MemoryBlockDevice;
import io.srdnic.nbd.Export;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportSpecsTest {
    @TempDir
    Path dir;

    @Test
    void shouldOpenEachKindOfExport() throws IOException {
        Export mem = ExportSpecs.local().open("disk=mem:64M");
        assertEquals("disk", mem.name());
        assertTrue(mem.device() instanceof MemoryBlockDevice);
        assertEquals(64L << 20, mem.device().size());
        Path file = Files.write(dir.resolve("f.img"), new byte[12345]);
        try (BlockDevice d = ExportSpecs.local().open("f=file:" + file).device()) {
            assertTrue(d instanceof FileBlockDevice);
            assertEquals(12345, d.size());
        }
    }

    @Test
    void shouldRefuseRnbdUntilRegistered() throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExportSpecs.local().open("x=rnbd://server/dev"));
        assertTrue(e.getMessage().contains("not available here"), e.getMessage());
        String[] seen = new String[1];
        Export x = ExportSpecs.local().with("rnbd", argument -> {
            seen[0] = argument;
            return new MemoryBlockDevice(1, false);
        }).open("x=rnbd://server/dev");
        assertEquals("//server/dev", seen[0], "a registered scheme gets what follows 'rnbd:'");
        assertEquals("x", x.name());
    }

    @Test
    void shouldExplainMalformedSpecs() {
        ExportSpecs specs = ExportSpecs.local();
        for (String bad : new String[] {"mem:1M", "=mem:1M", "x=", "x=mem", "x=tape:1", "x=mem:lots", "x=file:"}) {
            assertThrows(IllegalArgumentException.class, () -> specs.open(bad), bad);
        }
    }

    @Test
    void shouldParseSizesWithBinarySuffixes() {
        assertEquals(4096, Sizes.parse("4096"));
        assertEquals(512L << 10, Sizes.parse("512K"));
        assertEquals(64L << 20, Sizes.parse("64m"));
        assertEquals(1L << 30, Sizes.parse("1GiB"));
        assertEquals(2L << 40, Sizes.parse("2T"));
        assertEquals(100, Sizes.parse("100B"));
        for (String bad : new String[] {"", "-1", "1X", "K", "99999999999T"}) {
            assertThrows(IllegalArgumentException.class, () -> Sizes.parse(bad), bad);
        }
    }
}
