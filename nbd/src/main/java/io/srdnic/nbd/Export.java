package io.srdnic.nbd;

import io.srdnic.block.BlockDevice;
import java.util.Objects;

/** A device under the name clients ask for (NBD_OPT_GO, NBD_OPT_EXPORT_NAME). */
public record Export(String name, BlockDevice device) {
    public Export {
        Objects.requireNonNull(device);
        if (name.isEmpty() || name.length() > 4096 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("an export name is 1 to 4096 characters, no NUL: '" + name + "'");
        }
    }
}
