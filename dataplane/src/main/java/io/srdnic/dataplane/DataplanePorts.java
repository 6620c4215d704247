package io.srdnic.dataplane;

import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.PacketIo;
import io.srdnic.pmd.lcore.HandoffCounts;
import io.srdnic.pmd.lcore.PortDispatcher;
import io.srdnic.verbs.Device;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * The dataplane's ports and who owns what on them. Port p has one context per lcore, context
 * (p, k) at IPv4 address {@code firstIp + p·L + k} (so one lcore gives port p {@code firstIp + p},
 * as before); lcore {@code p mod L} receives port p and steers its frames by destination address
 * to the lanes of the other lcores' contexts ({@link PortDispatcher}), the software hand-off these
 * PMDs need (memif, ring, af_packet and tap have no RSS or rte_flow). With one lcore there is
 * nothing to hand off: its contexts run on the ports' queue pairs directly. Opened on lcore 0 (EAL's),
 * closed there once every lcore has stopped: what is left in the hand-off rings is freed first.
 */
final class DataplanePorts implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DataplanePorts.class.getName());

    private final List<Device> devices = new ArrayList<>();
    private final List<PortDispatcher> dispatchers = new ArrayList<>();
    private final int lcores;
    private final int firstIp;
    /** The dispatchers' bursts: used by one receiver lcore each, and by lcore 0 at close. */
    private final Arena arena = Arena.ofShared();

    private DataplanePorts(int lcores, int firstIp) {
        this.lcores = lcores;
        this.firstIp = firstIp;
    }

    /** Opens every port (EAL running) and its dispatcher; {@code counts[k]} are lcore k's. */
    static DataplanePorts open(List<String> specs, int lcores, int firstIp, HandoffCounts[] counts) {
        DataplanePorts ports = new DataplanePorts(lcores, firstIp);
        try {
            for (int p = 0; p < specs.size(); p++) {
                Device device = Device.dpdk(specs.get(p));
                ports.devices.add(device);
                int[] addresses = new int[lcores];
                for (int k = 0; k < lcores; k++) {
                    addresses[k] = ports.ip(p, k);
                }
                // One lcore owns every flow: nothing to steer, its context runs on the queue pair itself, as it always has.
                ports.dispatchers.add(lcores == 1 ? null : new PortDispatcher(device.packetIo(), addresses, ports.receiverOf(p), counts,
                    PortDispatcher.DEFAULT_RING_CAPACITY, ports.arena));
            }
            return ports;
        } catch (RuntimeException e) {
            ports.close();
            throw e;
        }
    }

    int count() {
        return devices.size();
    }

    /** The lcore that receives port {@code p}: ports are dealt round the lcores. */
    int receiverOf(int p) {
        return p % lcores;
    }

    /** The IPv4 address of lcore {@code k}'s context on port {@code p}. */
    int ip(int p, int k) {
        return firstIp + p * lcores + k;
    }

    /** What lcore {@code k}'s context on port {@code p} runs on: its lane of the port, or with one lcore the port's queue pair. */
    PacketIo lane(int p, int k) {
        PortDispatcher d = dispatchers.get(p);
        return d == null ? devices.get(p).packetIo() : d.lane(k);
    }

    /** The dispatcher lcore {@link #receiverOf} p polls; null with one lcore (its context polls the port). */
    PortDispatcher dispatcher(int p) {
        return dispatchers.get(p);
    }

    /** The name of lcore {@code k}'s context on port {@code p}: the port's, with {@code -lcore<k>} after lcore 0. */
    String contextName(int p, int k) {
        String port = devices.get(p).name();
        return k == 0 ? port : port + "-lcore" + k;
    }

    List<EthPort> ethPorts() {
        return devices.stream().map(Device::ethPort).toList();
    }

    /** Once every lcore has stopped: frees what the hand-off rings hold, then closes the ports and pools. */
    @Override
    public void close() {
        for (PortDispatcher d : dispatchers) {
            int freed = d == null ? 0 : d.drain();
            if (freed > 0) {
                LOG.log(System.Logger.Level.INFO, "freed {0} frame(s) left in hand-off rings", String.valueOf(freed));
            }
        }
        for (Device device : devices) {
            try {
                device.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "closing " + device.name() + " failed: " + e.getMessage());
            }
        }
        arena.close();
    }
}
