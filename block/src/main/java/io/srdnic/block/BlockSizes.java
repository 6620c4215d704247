package io.srdnic.block;


/**
 * NBD_INFO_BLOCK_SIZE: the smallest block a request may address without a read-modify-write
 * (a power of two, 1 to 64 KiB), the block the device prefers, and the largest payload of one READ
 * or WRITE.
 */
public record BlockSizes(int minimum, int preferred, int maximum) {
    /** Byte-granular, 4 KiB preferred, 32 MiB payloads: what the local devices offer. */
    public static final BlockSizes DEFAULT = new BlockSizes(1, 4096, 32 << 20);

    public BlockSizes {
        if (Integer.bitCount(minimum) != 1 || minimum > 65536) {
            throw new IllegalArgumentException("minimum block size must be a power of two up to 64 KiB: " + minimum);
        }
        if (Integer.bitCount(preferred) != 1 || preferred < Math.max(512, minimum)) {
            throw new IllegalArgumentException("preferred block size must be a power of two >= 512 and >= the minimum: " + preferred);
        }
        if (maximum < preferred || maximum % minimum != 0) {
            throw new IllegalArgumentException("maximum payload must be >= preferred and a multiple of the minimum: " + maximum);
        }
    }
}
