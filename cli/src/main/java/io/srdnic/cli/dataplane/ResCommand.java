package io.srdnic.cli.dataplane;

import io.srdnic.cli.Json;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code srdnic dataplane res}: which attached client (uid, pid as the kernel gave them) holds
 * which QPs, CQs, MRs, PDs, SRQs, AHs, XRC domains and CM ids, and how much shared memory, as
 * {@code rdma res show} shows a host's RDMA resources. Read from the res files the running
 * dataplane's attach servers keep in DIR ({@code <pid>-attach[-lcore<k>].res}, rewritten as
 * clients' objects change); a file whose dataplane is no longer running is skipped.
 */
@Command(name = "res", mixinStandardHelpOptions = true,
    description = "Resources each attached client holds (QPs, CQs, MRs, PDs, ...), as rdma res show: from the running dataplane in DIR.")
public final class ResCommand implements Callable<Integer> {
    /** The kinds of object a client holds, in the order they are listed. */
    static final List<String> KINDS = List.of("pd", "cq", "qp", "mr", "srq", "ah", "xrcd", "cm_id");

    @Option(names = "--dir", defaultValue = "/run/srdnic", description = "The dataplane's run directory (default ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--json", description = "One JSON object: {dataplanes:{<pid>-lcore<k>:{clients:{<id>:{uid,pid,...,qp:{...},...}}}}}.")
    boolean json;

    /** One client's line and its objects' lines, by kind. */
    record Client(Map<String, String> fields, Map<String, List<Map<String, String>>> objects) {
    }

    @Override
    public Integer call() throws IOException {
        Map<String, Map<String, Client>> planes = read(dir);
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>();
            planes.forEach((plane, clients) -> {
                Map<String, Object> byId = new LinkedHashMap<>();
                clients.forEach((id, c) -> {
                    Map<String, Object> m = new LinkedHashMap<>(c.fields());
                    for (String kind : KINDS) { // every kind, empty or not: a consumer need not ask whether a key is there
                        Map<String, Object> objs = new LinkedHashMap<>();
                        c.objects().getOrDefault(kind, List.of()).forEach(o -> objs.put(o.get("handle"), new LinkedHashMap<>(o)));
                        m.put(kind, objs);
                    }
                    byId.put(id, m);
                });
                out.put(plane, Map.of("clients", byId));
            });
            System.out.println(Json.object(Map.of("dir", dir.toString(), "dataplanes", out)));
            return 0;
        }
        if (planes.isEmpty()) {
            System.out.println("no running dataplane's res file in " + dir + " (is srdnic dataplane running with --dir " + dir + "?)");
            return 1;
        }
        StringBuilder sb = new StringBuilder();
        planes.forEach((plane, clients) -> {
            sb.append("dataplane ").append(plane).append(": ").append(clients.size()).append(" client(s)\n");
            clients.forEach((id, c) -> {
                Map<String, String> f = c.fields();
                sb.append(String.format("client %s: uid %s pid %s port %s %s:", id, f.get("uid"), f.get("pid"), f.get("port"),
                        f.get("device")));
                for (String kind : KINDS) {
                    sb.append(' ').append(kind).append(' ').append(c.objects().getOrDefault(kind, List.of()).size());
                }
                sb.append(String.format(" pool %s bytes (%s in MRs) rings %s bytes%n", f.get("pool_bytes"), f.get("mr_bytes"),
                        f.get("ring_bytes")));
                c.objects().forEach((kind, list) -> list.forEach(o -> {
                    sb.append("  ").append(kind).append(' ').append(o.get("handle"));
                    o.forEach((k, v) -> {
                        if (!k.equals("handle")) {
                            sb.append(' ').append(k).append(' ').append(v);
                        }
                    });
                    sb.append('\n');
                }));
            });
        });
        System.out.print(sb);
        return 0;
    }

    /** Every running dataplane's res files in {@code dir}: by "pid P lcore K", its clients by id. */
    static Map<String, Map<String, Client>> read(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*-attach*.res")) {
            s.forEach(files::add);
        } catch (NoSuchFileException e) {
            return Map.of();
        }
        files.sort(null);
        Map<String, Map<String, Client>> planes = new LinkedHashMap<>();
        for (Path file : files) {
            if (Files.isSymbolicLink(file) || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (NoSuchFileException gone) {
                continue; // replaced or removed meanwhile
            }
            if (lines.size() < 2 || !lines.get(0).equals("srdnic-res 1")) {
                continue;
            }
            String[] head = lines.get(1).split(" ");
            long pid = Long.parseLong(head[2]);
            if (ProcessHandle.of(pid).isEmpty()) {
                continue; // its dataplane is gone: not what is held now
            }
            Map<String, Client> clients = new LinkedHashMap<>();
            for (String line : lines.subList(2, lines.size())) {
                String[] t = line.split(" ");
                Map<String, String> fields = new LinkedHashMap<>();
                for (int i = 2; i + 1 < t.length; i += 2) {
                    fields.put(t[i], t[i + 1]);
                }
                if (t[0].equals("client")) {
                    clients.put(t[1], new Client(fields, new LinkedHashMap<>()));
                } else if (clients.containsKey(fields.get("client"))) {
                    Map<String, String> o = new LinkedHashMap<>();
                    o.put("handle", t[1]);
                    fields.forEach((k, v) -> {
                        if (!k.equals("client")) {
                            o.put(k, v);
                        }
                    });
                    clients.get(fields.get("client")).objects().computeIfAbsent(t[0], k -> new ArrayList<>()).add(o);
                }
            }
            planes.put("pid " + pid + " lcore " + head[4], clients);
        }
        return planes;
    }
}
