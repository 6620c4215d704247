package io.srdnic.ffm;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Finds DPDK's symbols. The shim (built from {@code src/main/c}) is linked against every DPDK library
 * we bind, so one dlopen of it resolves them all through its dependency tree.
 * <p>
 * Nothing here runs until a binding is first used: code that only reads mbuf layouts (SimPort)
 * never loads libdpdk.
 */
public final class Dpdk {
    /** System property naming the shim explicitly; otherwise it is taken from the class path. */
    public static final String SHIM_PATH_PROPERTY = "srdnic.shim.path";
    static final String SHIM_RESOURCE = "/native/libsrdnic_shim.so";

    private static final Linker LINKER = Linker.nativeLinker();

    private Dpdk() {
    }

    private static final class Holder {
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(shimPath(), Arena.global());
    }

    /** A downcall handle for a DPDK or shim function; fails with a message naming the missing symbol. */
    public static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(symbol(name), descriptor, options);
    }

    /** The address of an exported DPDK or shim symbol. */
    public static MemorySegment symbol(String name) {
        final SymbolLookup lookup;
        try {
            lookup = Holder.LOOKUP;
        } catch (ExceptionInInitializerError | IllegalArgumentException e) {
            throw new IllegalStateException("cannot load the DPDK shim (" + e.getMessage()
                + "): install DPDK 22.11 with scripts/setup, then rebuild with mvn", e);
        }
        return lookup.find(name).orElseThrow(() -> new IllegalStateException(
            "symbol " + name + " not found in DPDK: is DPDK 22.11 (libdpdk23) installed? run scripts/setup"));
    }

    /** Whether the shim and libdpdk can be loaded in this process. */
    public static boolean available() {
        try {
            return Holder.LOOKUP != null;
        } catch (Throwable t) {
            return false;
        }
    }

    static Path shimPath() {
        String explicit = System.getProperty(SHIM_PATH_PROPERTY);
        if (explicit != null) {
            return Path.of(explicit);
        }
        URL url = Dpdk.class.getResource(SHIM_RESOURCE);
        if (url == null) {
            throw new IllegalStateException("libsrdnic_shim.so is not on the class path: build with mvn (needs gcc and libdpdk-dev)");
        }
        if ("file".equals(url.getProtocol())) {
            return Path.of(url.getPath());
        }
        // Inside a jar: dlopen needs a file, so copy it out once per process.
        try (InputStream in = url.openStream()) {
            Path tmp = Files.createTempFile("srdnic_shim", ".so");
            tmp.toFile().deleteOnExit();
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            return tmp;
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the DPDK shim to a temporary file: " + e.getMessage(), e);
        }
    }

    /** Wraps a Throwable from invokeExact: downcalls do not throw checked exceptions. */
    static AssertionError unexpected(String function, Throwable t) {
        return new AssertionError("downcall " + function + " failed", t);
    }
}
