package io.srdnic.cli;

import io.srdnic.pmd.DeviceInfo;
import io.srdnic.pmd.Eal;
import io.srdnic.pmd.EalConfig;
import io.srdnic.pmd.EthPort;
import io.srdnic.pmd.MacAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code srdnic ports}: starts EAL with the given devices and lists every port. */
@Command(name = "ports", mixinStandardHelpOptions = true,
    description = "Initialise EAL and list ports: id, name, driver, MAC, link.")
final class PortsCommand implements Callable<Integer> {
    @Option(names = "--vdev", paramLabel = "SPEC", description = "A virtual device, e.g. net_null0 or net_tap0,iface=t0 (repeatable).")
    List<String> vdevs = new ArrayList<>();

    @Option(names = "--pci", description = "Scan the PCI bus too (NICs bound to vfio-pci; needs hugepages).")
    boolean pci;

    @Option(names = "--memory-mb", defaultValue = "512", description = "EAL memory in MiB (default ${DEFAULT-VALUE}).")
    int memoryMb;

    @Override
    public Integer call() {
        EalConfig config = new EalConfig().memoryMb(memoryMb).pci(pci).hugepages(pci);
        vdevs.forEach(config::vdev);
        try (Eal eal = Eal.start(config)) {
            List<Integer> ids = EthPort.ids();
            System.out.printf("%-4s %-24s %-16s %-17s %s%n", "id", "name", "driver", "mac", "link");
            for (int id : ids) {
                EthPort port = EthPort.of(id);
                DeviceInfo info = port.info();
                System.out.printf("%-4d %-24s %-16s %-17s %s%n", id, port.name(), info.driverName(),
                    MacAddress.format(port.macAddress()), port.link());
            }
            if (ids.isEmpty()) {
                System.err.println("no ports: give --vdev SPEC, or --pci with a NIC bound to vfio-pci");
            }
        }
        return 0;
    }
}
