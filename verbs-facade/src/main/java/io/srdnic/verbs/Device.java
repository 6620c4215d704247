package io.srdnic.verbs;

import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPacketIo;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MbufPool;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.PortConfig;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Where a {@link Context} meets the wire: a DPDK port's queue pair with its pool (real time), or a
 * host on a {@link SimWorld} (virtual time). What the device owns is closed with the context.
 */
public final class Device {
    private static final AtomicInteger POOLS = new AtomicInteger();

    final String name;
    final PacketIo io;
    final LongSupplier clock;
    final SimWorld world;
    /** The IPv4 address a simulated host has; 0 for DPDK devices, which take ContextConfig's. */
    final int simIp;
    /** Attached devices: the dataplane's directory (its control socket); null for embedded ones. */
    final Path attachDir;
    private final AutoCloseable[] owned;

    private Device(String name, PacketIo io, LongSupplier clock, SimWorld world, int simIp, AutoCloseable... owned) {
        this(name, io, clock, world, simIp, null, owned);
    }

    private Device(String name, PacketIo io, LongSupplier clock, SimWorld world, int simIp, Path attachDir, AutoCloseable... owned) {
        this.attachDir = attachDir;
        this.name = name;
        this.simIp = simIp;
        this.io = io;
        this.clock = clock;
        this.world = world;
        this.owned = owned;
    }

    /**
     * A DPDK virtual or PCI device by its EAL spec (e.g. {@code net_memif0,role=server,socket=/run/m.sock}),
     * hot-plugged into the running EAL (started with defaults if none is), configured, started, with
     * a pool sized for whole SRD frames. Port and pool are closed with the context.
     */
    public static Device dpdk(String devargs) {
        Eal.startOrGet(new EalConfig());
        EthPort port = EthPort.attach(devargs);
        MbufPool pool = null;
        try {
            // AF_XDP builds its umem from the pool: an mbuf must fit a 4 KiB page, so its frames are smaller.
            int frameRoom = "net_af_xdp".equals(port.info().driverName()) ? 2048 : 4096 + 256;
            pool = MbufPool.create("srdnic" + POOLS.getAndIncrement(), 8191, frameRoom);
            port.configure(PortConfig.DEFAULT, pool).start();
            return new Device(port.name(), new EthPacketIo(port, 0, pool), System::nanoTime, null, 0, port, pool);
        } catch (RuntimeException e) {
            port.close();
            if (pool != null) {
                pool.close();
            }
            throw e;
        }
    }

    /** The DPDK port this device opened ({@link #dpdk(String)}), for its link state; null for any other device. */
    public EthPort ethPort() {
        for (AutoCloseable c : owned) {
            if (c instanceof EthPort port) {
                return port;
            }
        }
        return null;
    }

    /**
     * The queue pair a context on this device runs on: for a dataplane that steers one port to
     * several contexts itself ({@code srdnic dataplane --lcores}), each on a device of its own
     * ({@link #of}). Null for attached devices.
     */
    public PacketIo packetIo() {
        return io;
    }

    /** Closes what this device owns (a DPDK port and its pool) when no context was opened on it to close them. */
    public void close() {
        closeOwned();
    }

    /** A started DPDK port you manage yourself (a RingLink end, say), with the pool its RX queue uses. */
    public static Device dpdk(EthPort port, MbufPool pool) {
        return new Device(port.name(), new EthPacketIo(port, 0, pool), System::nanoTime, null, 0);
    }

    /** Any PacketIo with its clock: for decorators (fault injection, capture) around a real port. */
    public static Device of(String name, PacketIo io, LongSupplier clock) {
        return new Device(name, io, clock, null, 0);
    }

    /** A new host on a simulated network; every context on one world is driven together, in virtual time. */
    public static Device sim(SimWorld world) {
        return world.newDevice();
    }

    /**
     * A device served by the {@code srdnic dataplane} process whose directory is {@code dir} (its
     * control socket {@code dir/control.sock}): contexts opened on it run in that process, reached
     * through the control socket and shared-memory rings; the verbs API is the same, except that
     * memory regions must come from the context's shared pool ({@link ProtectionDomain#allocateRegion}).
     * Nothing is connected until {@link Context#open}.
     */
    public static Device attached(Path dir) {
        return new Device("attached:" + dir, null, System::nanoTime, null, 0, dir);
    }

    /** {@link #attached(Path)} in $SRDNIC_DIR, else {@link #DEFAULT_DIR}. */
    public static Device attached() {
        String env = System.getenv("SRDNIC_DIR");
        return attached(env != null && !env.isEmpty() ? Path.of(env) : DEFAULT_DIR);
    }

    /** Where {@code srdnic dataplane} keeps its control socket and PID file unless told otherwise. */
    public static final Path DEFAULT_DIR = Path.of("/run/srdnic");

    /** Whether contexts on this device run in a {@code srdnic dataplane} process rather than in this JVM. */
    public boolean isAttached() {
        return attachDir != null;
    }

    static Device simHost(String name, PacketIo io, SimWorld world, int ip) {
        return new Device(name, io, world.clock(), world, ip);
    }

    public String name() {
        return name;
    }

    void closeOwned() {
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                throw new VerbsException("closing " + c + " failed: " + e.getMessage());
            }
        }
    }
}
