package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The answer to OPEN: the shared-memory file the client maps (its layout in {@link io.srdnic.verbs.attach.SharedLayout}),
 * where its pool and ring area lie, the device's address (IPv4, MAC, SRD UDP port) and its
 * attributes as {@code ibv_query_device} gives them ({@code attributes} in DeviceAttributes order,
 * booleans as 0/1; the name apart).
 */
public record OpenReply(String shmPath, long fileBytes, long poolOffset, long poolBytes, long ringsOffset, long ringsBytes, int ip,
                        long mac, int udpPort, String deviceName, int[] attributes) implements ControlMessage {
    public static final int TYPE = 2;
    /** DeviceAttributes' numeric components. */
    public static final int ATTRIBUTES = 18;

    @Override
    public int type() {
        return TYPE;
    }

    @Override
    public void encode(ByteBuffer out) {
        Fields.putString(out, shmPath);
        out.putLong(fileBytes).putLong(poolOffset).putLong(poolBytes).putLong(ringsOffset).putLong(ringsBytes).putInt(ip).putLong(mac)
            .putInt(udpPort);
        Fields.putString(out, deviceName);
        for (int i = 0; i < ATTRIBUTES; i++) {
            out.putInt(attributes[i]);
        }
    }

    static OpenReply decode(ByteBuffer in) throws ProtocolException {
        String path = Fields.string(in);
        long file = Fields.int64(in);
        long poolOffset = Fields.int64(in);
        long poolBytes = Fields.int64(in);
        long ringsOffset = Fields.int64(in);
        long ringsBytes = Fields.int64(in);
        int ip = Fields.int32(in);
        long mac = Fields.int64(in);
        int udp = Fields.int32(in);
        String name = Fields.string(in);
        int[] attributes = new int[ATTRIBUTES];
        for (int i = 0; i < ATTRIBUTES; i++) {
            attributes[i] = Fields.int32(in);
        }
        return new OpenReply(path, file, poolOffset, poolBytes, ringsOffset, ringsBytes, ip, mac, udp, name, attributes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpenReply r && r.shmPath.equals(shmPath) && r.fileBytes == fileBytes && r.poolOffset == poolOffset
            && r.poolBytes == poolBytes && r.ringsOffset == ringsOffset && r.ringsBytes == ringsBytes && r.ip == ip && r.mac == mac
            && r.udpPort == udpPort && r.deviceName.equals(deviceName) && Arrays.equals(r.attributes, attributes);
    }

    @Override
    public int hashCode() {
        return shmPath.hashCode() * 31 + Arrays.hashCode(attributes);
    }
}
