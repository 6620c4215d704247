package io.srdnic.nbd.spec;

import io.srdnic.block.BlockDevice;
import io.srdnic.block.local.FileBlockDevice;
import io.srdnic.block.local.MemoryBlockDevice;
import io.srdnic.nbd.Export;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns {@code NAME=SCHEME:ARGUMENT} into an export. The scheme picks an opener: {@code mem:SIZE}
 * and {@code file:PATH} are built in; a layer above registers its own with {@link #with} (srdnic nbd
 * registers the rnbd module's client as {@code rnbd}, for {@code NAME=rnbd://SERVER/PATH}; without
 * it that scheme answers "not available here": this module cannot depend on the one above it).
 */
public final class ExportSpecs {
    /** Opens a device from what follows {@code SCHEME:}. */
    @FunctionalInterface
    public interface Opener {
        BlockDevice open(String argument) throws IOException;
    }

    private final Map<String, Opener> schemes = new LinkedHashMap<>();

    private ExportSpecs() {
    }

    /** The schemes of this module: mem, file, and rnbd refused until a layer above registers it. */
    public static ExportSpecs local() {
        return new ExportSpecs()
            .with("mem", argument -> new MemoryBlockDevice(Sizes.parse(argument), false))
            .with("file", argument -> {
                if (argument.isEmpty()) {
                    throw new IllegalArgumentException("file: needs a path");
                }
                return new FileBlockDevice(Path.of(argument), false);
            })
            .with("rnbd", argument -> {
                throw new IllegalArgumentException("rnbd exports are not available here: the rnbd module registers them (srdnic nbd "
                        + "does, with --rnbd-memif-socket or --rnbd-vdev)");
            });
    }

    /** Adds or replaces a scheme. */
    public ExportSpecs with(String scheme, Opener opener) {
        schemes.put(scheme, opener);
        return this;
    }

    /** Opens the export a spec names; IllegalArgumentException says what is wrong with it. */
    public Export open(String spec) throws IOException {
        int eq = spec.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("export '" + spec + "': expected NAME=" + String.join(":...|", schemes.keySet()) + ":...");
        }
        String name = spec.substring(0, eq);
        String target = spec.substring(eq + 1);
        int colon = target.indexOf(':');
        String scheme = colon < 0 ? target : target.substring(0, colon);
        Opener opener = schemes.get(scheme);
        if (colon < 0 || opener == null) {
            throw new IllegalArgumentException("export '" + spec + "': unknown kind '" + scheme + "' (known: "
                    + String.join(", ", schemes.keySet()) + ")");
        }
        return new Export(name, opener.open(target.substring(colon + 1)));
    }
}
