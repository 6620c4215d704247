package io.srdnic.pmd;

import static io.srdnic.ffm.rte_ethdev_h.RTE_ETH_MQ_RX_RSS;
import static io.srdnic.ffm.rte_ethdev_h.RTE_ETH_NAME_MAX_LEN;
import static io.srdnic.ffm.rte_ethdev_h.RTE_ETH_RSS_IP;
import static io.srdnic.ffm.rte_ethdev_h.RTE_ETH_RSS_UDP;
import static io.srdnic.ffm.rte_ethdev_h.RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
import static io.srdnic.ffm.rte_ethdev_h.RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
import static io.srdnic.ffm.rte_ethdev_h.RTE_MAX_ETHPORTS;

import io.srdnic.ffm.rte_eal_h;
import io.srdnic.ffm.rte_eth_conf;
import io.srdnic.ffm.rte_eth_dev_info;
import io.srdnic.ffm.rte_eth_link;
import io.srdnic.ffm.rte_eth_stats;
import io.srdnic.ffm.rte_eth_xstat;
import io.srdnic.ffm.rte_ethdev_h;
import io.srdnic.ffm.srdnic_shim_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An Ethernet port: a vdev (net_ring, net_memif, net_af_xdp, net_af_packet, net_tap, net_null) or
 * a PCI NIC. Life cycle: {@link #attach} or {@link #of}, {@link #configure}, {@link #start},
 * bursts through {@link #rxQueue}/{@link #txQueue}, {@link #close()} (stops, closes, detaches).
 * Control path only: every method here may throw {@link DpdkException}; the queues never do.
 */
public final class EthPort implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EthPort.class.getName());
    private static final int ENOTSUP = 95;
    private static final int ETIMEDOUT = 110;
    /** How long a stop waits for EAL's interrupt thread, which runs only short driver callbacks. */
    private static final int STOP_WAIT_MILLIS = 5_000;
    private final int id;
    private final String name;
    private final boolean hotplugged;
    private RxQueue[] rxQueues = new RxQueue[0];
    private TxQueue[] txQueues = new TxQueue[0];
    private boolean udpChecksumOffload;
    private boolean started;
    private boolean closed;

    private EthPort(int id, String name, boolean hotplugged) {
        this.id = id;
        this.name = name;
        this.hotplugged = hotplugged;
    }

    /**
     * Hot-plugs a virtual device by its EAL spec, e.g. {@code net_memif0,role=client,socket=/tmp/m.sock},
     * and returns its port. The device is removed again on {@link #close()}.
     */
    public static EthPort attach(String devargs) {
        Eal eal = Eal.current();
        String name = devargs.split(",", 2)[0].trim();
        try (Arena arena = Arena.ofConfined()) {
            DpdkException.check(rte_eal_h.rte_dev_probe(arena.allocateFrom(devargs)), "rte_dev_probe(" + devargs + ")",
                "is the PMD installed (ls /usr/lib/x86_64-linux-gnu/dpdk/pmds-*) and are its arguments right? EAL's log above names the "
                        + "problem");
        }
        EthPort port = new EthPort(portIdOf(name), name, true);
        eal.register(port);
        return port;
    }

    /** A port EAL already knows (probed at start by {@code --vdev} or PCI scan), by device name. */
    public static EthPort byName(String name) {
        Eal eal = Eal.current();
        EthPort port = new EthPort(portIdOf(name), name, false);
        eal.register(port);
        return port;
    }

    /** A port EAL already knows, by id. */
    public static EthPort of(int portId) {
        Eal eal = Eal.current();
        if (rte_ethdev_h.rte_eth_dev_is_valid_port((short) portId) != 1) {
            throw new IllegalArgumentException("no port " + portId + ": list them with `srdnic ports`");
        }
        EthPort port = new EthPort(portId, nameOf(portId), false);
        eal.register(port);
        return port;
    }

    /** Ids of every attached port. */
    public static List<Integer> ids() {
        Eal.current();
        List<Integer> ids = new ArrayList<>();
        for (int p = 0; p < RTE_MAX_ETHPORTS; p++) {
            if (rte_ethdev_h.rte_eth_dev_is_valid_port((short) p) == 1) {
                ids.add(p);
            }
        }
        return ids;
    }

    static int portIdOf(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment id = arena.allocate(ValueLayout.JAVA_SHORT);
            int rc = rte_ethdev_h.rte_eth_dev_get_port_by_name(arena.allocateFrom(name), id);
            if (rc < 0) {
                throw new DpdkException("no port named '" + name + "'", -rc,
                    "attach it with a --vdev spec, or list the ports with `srdnic ports`");
            }
            return Short.toUnsignedInt(id.get(ValueLayout.JAVA_SHORT, 0));
        }
    }

    static String nameOf(int portId) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(RTE_ETH_NAME_MAX_LEN);
            DpdkException.check(rte_ethdev_h.rte_eth_dev_get_name_by_port((short) portId, buf), "rte_eth_dev_get_name_by_port", "");
            return buf.getString(0);
        }
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    public DeviceInfo info() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(rte_eth_dev_info.LAYOUT);
            DpdkException.check(rte_ethdev_h.rte_eth_dev_info_get((short) id, info), "rte_eth_dev_info_get(" + name + ")", "");
            MemorySegment driver = info.get(ValueLayout.ADDRESS, rte_eth_dev_info.DRIVER_NAME_OFFSET);
            return new DeviceInfo(
                driver.equals(MemorySegment.NULL) ? "?" : driver.reinterpret(256).getString(0),
                info.get(ValueLayout.JAVA_INT, rte_eth_dev_info.IF_INDEX_OFFSET),
                Short.toUnsignedInt(info.get(ValueLayout.JAVA_SHORT, rte_eth_dev_info.MIN_MTU_OFFSET)),
                Short.toUnsignedInt(info.get(ValueLayout.JAVA_SHORT, rte_eth_dev_info.MAX_MTU_OFFSET)),
                Integer.toUnsignedLong(info.get(ValueLayout.JAVA_INT, rte_eth_dev_info.MAX_RX_PKTLEN_OFFSET)),
                Short.toUnsignedInt(info.get(ValueLayout.JAVA_SHORT, rte_eth_dev_info.MAX_RX_QUEUES_OFFSET)),
                Short.toUnsignedInt(info.get(ValueLayout.JAVA_SHORT, rte_eth_dev_info.MAX_TX_QUEUES_OFFSET)),
                info.get(ValueLayout.JAVA_LONG, rte_eth_dev_info.FLOW_TYPE_RSS_OFFLOADS_OFFSET),
                Short.toUnsignedInt(info.get(ValueLayout.JAVA_SHORT, rte_eth_dev_info.RETA_SIZE_OFFSET)),
                info.get(ValueLayout.JAVA_LONG, rte_eth_dev_info.RX_OFFLOAD_CAPA_OFFSET),
                info.get(ValueLayout.JAVA_LONG, rte_eth_dev_info.TX_OFFLOAD_CAPA_OFFSET));
        }
    }

    /**
     * Configures queues (RSS over IP/UDP when more than one RX queue and the port hashes), sets the
     * MTU if asked, and sets every RX queue up to draw from {@code pool}.
     */
    public EthPort configure(PortConfig config, MbufPool pool) {
        DeviceInfo info = info();
        if (config.rxQueues() > info.maxRxQueues() || config.txQueues() > info.maxTxQueues()) {
            throw new IllegalArgumentException(name + " (" + info.driverName() + ") has at most " + info.maxRxQueues() + " RX and "
                + info.maxTxQueues() + " TX queues; asked for " + config.rxQueues() + "/" + config.txQueues());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment conf = arena.allocate(rte_eth_conf.LAYOUT);
            long rss = info.rssOffloads() & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
            if (config.rxQueues() > 1 && rss != 0) {
                conf.set(ValueLayout.JAVA_INT, rte_eth_conf.RXMODE_MQ_MODE_OFFSET, RTE_ETH_MQ_RX_RSS);
                conf.set(ValueLayout.JAVA_LONG, rte_eth_conf.RSS_HF_OFFSET, rss);
            }
            // The UDP checksum, SRD's end-to-end check, computed and verified by the NIC where it can.
            udpChecksumOffload = (info.txOffloads() & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0;
            if (udpChecksumOffload) {
                conf.set(ValueLayout.JAVA_LONG, rte_eth_conf.TXMODE_OFFLOADS_OFFSET, RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
            }
            if ((info.rxOffloads() & RTE_ETH_RX_OFFLOAD_UDP_CKSUM) != 0) {
                conf.set(ValueLayout.JAVA_LONG, rte_eth_conf.RXMODE_OFFLOADS_OFFSET, RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
            }
            DpdkException.check(rte_ethdev_h.rte_eth_dev_configure((short) id, (short) config.rxQueues(), (short) config.txQueues(), conf),
                "rte_eth_dev_configure(" + name + ")", "fewer queues, or stop the port first");
            MemorySegment rxDesc = arena.allocate(ValueLayout.JAVA_SHORT);
            MemorySegment txDesc = arena.allocate(ValueLayout.JAVA_SHORT);
            rxDesc.set(ValueLayout.JAVA_SHORT, 0, (short) config.rxDescriptors());
            txDesc.set(ValueLayout.JAVA_SHORT, 0, (short) config.txDescriptors());
            DpdkException.check(rte_ethdev_h.rte_eth_dev_adjust_nb_rx_tx_desc((short) id, rxDesc, txDesc),
                    "rte_eth_dev_adjust_nb_rx_tx_desc", "");
            if (config.mtu() > 0) {
                int rc = rte_ethdev_h.rte_eth_dev_set_mtu((short) id, (short) config.mtu());
                // Some PMDs (memif, ring) have no MTU to set: DeviceInfo.maxFrameLength() is their limit.
                if (rc != -ENOTSUP) {
                    DpdkException.check(rc, "rte_eth_dev_set_mtu(" + config.mtu() + ")",
                        "the MTU must be within " + info.minMtu() + ".." + info.maxMtu() + " for " + info.driverName());
                }
            }
            int socket = Math.max(0, rte_ethdev_h.rte_eth_dev_socket_id((short) id));
            rxQueues = new RxQueue[config.rxQueues()];
            txQueues = new TxQueue[config.txQueues()];
            for (int q = 0; q < config.rxQueues(); q++) {
                DpdkException.check(rte_ethdev_h.rte_eth_rx_queue_setup((short) id, (short) q,
                        rxDesc.get(ValueLayout.JAVA_SHORT, 0), socket,
                    MemorySegment.NULL, pool.segment()), "rte_eth_rx_queue_setup(" + name + ", queue " + q + ")",
                    "the pool " + pool.name() + " may be too small for " + config.rxDescriptors()
                            + " descriptors, or its mbufs too small for the port (min_rx_bufsize)");
                rxQueues[q] = new RxQueue(id, q);
            }
            for (int q = 0; q < config.txQueues(); q++) {
                DpdkException.check(rte_ethdev_h.rte_eth_tx_queue_setup((short) id, (short) q,
                        txDesc.get(ValueLayout.JAVA_SHORT, 0), socket,
                    MemorySegment.NULL), "rte_eth_tx_queue_setup(" + name + ", queue " + q + ")", "use fewer descriptors");
                txQueues[q] = new TxQueue(id, q);
            }
        }
        if (config.promiscuous()) {
            // Not every PMD supports it (memif, ring): those receive everything anyway.
            rte_ethdev_h.rte_eth_promiscuous_enable((short) id);
        }
        return this;
    }

    /** Whether {@link #configure} turned on the UDP checksum TX offload (the port advertised it). */
    public boolean offloadsUdpChecksum() {
        return udpChecksumOffload;
    }

    public EthPort start() {
        if (rxQueues.length == 0) {
            throw new IllegalStateException("configure " + name + " before starting it");
        }
        DpdkException.check(rte_ethdev_h.rte_eth_dev_start((short) id), "rte_eth_dev_start(" + name + ")",
            "check the interface exists and is up (af_xdp/af_packet), or the memif socket path is writable");
        started = true;
        for (RxQueue q : rxQueues) {
            q.bind();
        }
        for (TxQueue q : txQueues) {
            q.bind();
        }
        return this;
    }

    /**
     * Stops the port; its queues drop their PMD pointers first (a burst on a stopped port does nothing).
     * The driver's stop runs on EAL's interrupt thread: net_memif disconnects there when its peer
     * closes, unlocked against its own stop, and the two at once free its regions twice (SIGSEGV).
     */
    public void stop() {
        if (started) {
            started = false;
            for (RxQueue q : rxQueues) {
                q.unbind();
            }
            for (TxQueue q : txQueues) {
                q.unbind();
            }
            if (srdnic_shim_h.srdnic_eth_dev_stop_on_intr_thread((short) id, STOP_WAIT_MILLIS) == -ETIMEDOUT) {
                LOG.log(System.Logger.Level.WARNING, "EAL's interrupt thread did not stop " + name + " within " + STOP_WAIT_MILLIS
                    + " ms: stopping it on this thread");
                rte_ethdev_h.rte_eth_dev_stop((short) id);
            }
        }
    }

    public RxQueue rxQueue(int queue) {
        checkQueue(queue, rxQueues.length, "RX");
        return rxQueues[queue];
    }

    public TxQueue txQueue(int queue) {
        checkQueue(queue, txQueues.length, "TX");
        return txQueues[queue];
    }

    private void checkQueue(int queue, int count, String kind) {
        if (queue < 0 || queue >= count) {
            throw new IllegalArgumentException(name + " has " + count + " " + kind + " queue(s) configured, not queue " + queue);
        }
    }

    public long macAddress() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mac = arena.allocate(6);
            DpdkException.check(rte_ethdev_h.rte_eth_macaddr_get((short) id, mac), "rte_eth_macaddr_get(" + name + ")", "");
            return MacAddress.read(mac, 0);
        }
    }

    public LinkStatus link() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment link = arena.allocate(rte_eth_link.LAYOUT);
            DpdkException.check(rte_ethdev_h.rte_eth_link_get_nowait((short) id, link), "rte_eth_link_get_nowait(" + name + ")", "");
            int bits = link.get(ValueLayout.JAVA_SHORT, rte_eth_link.LINK_BITS_OFFSET);
            return new LinkStatus((bits & rte_eth_link.LINK_STATUS_BIT) != 0,
                    link.get(ValueLayout.JAVA_INT, rte_eth_link.LINK_SPEED_OFFSET),
                (bits & rte_eth_link.LINK_DUPLEX_BIT) != 0, (bits & rte_eth_link.LINK_AUTONEG_BIT) != 0);
        }
    }

    public PortStats stats() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(rte_eth_stats.LAYOUT);
            DpdkException.check(rte_ethdev_h.rte_eth_stats_get((short) id, s), "rte_eth_stats_get(" + name + ")", "");
            long[] values = new long[PortStats.NAMES.size()];
            copyStats(s, values);
            return PortStats.of(values);
        }
    }

    /** A scratch area for {@link #readStats}: made once by its caller, so that reading the counts allocates nothing. */
    public static MemorySegment statsScratch(Arena arena) {
        return arena.allocate(rte_eth_stats.LAYOUT);
    }

    /**
     * The port totals into {@code into} in {@link PortStats#NAMES} order, through {@code scratch}
     * ({@link #statsScratch}); false, {@code into} untouched, if the driver refused. Allocates
     * nothing: for a dataplane that publishes them on its duty cycle.
     */
    public boolean readStats(MemorySegment scratch, long[] into) {
        if (rte_ethdev_h.rte_eth_stats_get((short) id, scratch) != 0) {
            return false;
        }
        copyStats(scratch, into);
        return true;
    }

    private static void copyStats(MemorySegment s, long[] into) {
        into[0] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.IPACKETS_OFFSET);
        into[1] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.OPACKETS_OFFSET);
        into[2] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.IBYTES_OFFSET);
        into[3] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.OBYTES_OFFSET);
        into[4] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.IMISSED_OFFSET);
        into[5] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.IERRORS_OFFSET);
        into[6] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.OERRORS_OFFSET);
        into[7] = s.get(ValueLayout.JAVA_LONG, rte_eth_stats.RX_NOMBUF_OFFSET);
    }

    public void resetStats() {
        DpdkException.check(rte_ethdev_h.rte_eth_stats_reset((short) id), "rte_eth_stats_reset(" + name + ")", "");
    }

    /** The driver's extended statistics, by name, in the driver's order. */
    public Map<String, Long> xstats() {
        try (Arena arena = Arena.ofConfined()) {
            int n = DpdkException.check(rte_ethdev_h.rte_eth_xstats_get_names((short) id, MemorySegment.NULL, 0),
                    "rte_eth_xstats_get_names", "");
            MemorySegment names = arena.allocate(rte_eth_xstat.NAME_SIZE * Math.max(1, n));
            MemorySegment values = arena.allocate(rte_eth_xstat.SIZE * Math.max(1, n));
            int got = Math.min(n, DpdkException.check(rte_ethdev_h.rte_eth_xstats_get_names((short) id, names, n),
                    "rte_eth_xstats_get_names", ""));
            got = Math.min(got, DpdkException.check(rte_ethdev_h.rte_eth_xstats_get((short) id, values, n), "rte_eth_xstats_get", ""));
            Map<String, Long> out = new LinkedHashMap<>();
            for (int i = 0; i < got; i++) {
                long xid = values.get(ValueLayout.JAVA_LONG, i * rte_eth_xstat.SIZE + rte_eth_xstat.ID_OFFSET);
                long value = values.get(ValueLayout.JAVA_LONG, i * rte_eth_xstat.SIZE + rte_eth_xstat.VALUE_OFFSET);
                out.put(names.getString(xid * rte_eth_xstat.NAME_SIZE), value);
            }
            return out;
        }
    }

    /** Stops and closes the port, and removes the device if {@link #attach} plugged it in. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop();
        rte_ethdev_h.rte_eth_dev_close((short) id);
        if (hotplugged) {
            try (Arena arena = Arena.ofConfined()) {
                rte_eal_h.rte_eal_hotplug_remove(arena.allocateFrom("vdev"), arena.allocateFrom(name));
            }
        }
        if (Eal.isRunning()) {
            Eal.current().unregister(this);
        }
    }

    @Override
    public String toString() {
        return "EthPort[" + id + " " + name + "]";
    }
}
