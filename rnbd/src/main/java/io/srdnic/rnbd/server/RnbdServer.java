package io.srdnic.rnbd.server;

import io.srdnic.block.BlockDevice;
import io.srdnic.rnbd.protocol.BlockStatus;
import io.srdnic.rnbd.protocol.BlockStatusRsp;
import io.srdnic.rnbd.protocol.Close;
import io.srdnic.rnbd.protocol.Io;
import io.srdnic.rnbd.protocol.Open;
import io.srdnic.rnbd.protocol.OpenRsp;
import io.srdnic.rnbd.protocol.Rnbd;
import io.srdnic.rnbd.protocol.RnbdErrno;
import io.srdnic.rnbd.protocol.SessInfo;
import io.srdnic.rnbd.protocol.SessInfoRsp;
import io.srdnic.rnbd.protocol.Wire;
import io.srdnic.rtrs.server.RtrsServerHandler;
import io.srdnic.rtrs.server.ServerIo;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * RNBD's server side (Linux's rnbd-srv): the RTRS server's handler. Each session (by the name its
 * client gave) has the devices it opened, by id; every field of every message is checked against
 * them before the backing device is touched. Access: any number of RO openers; one RW opener, or
 * two MIGRATION (or one RW and one MIGRATION) writers during a move, else EPERM, as Linux.
 * Runs on the RTRS server's poll thread; IO on devices that may block (files) runs on
 * {@link IoWorkers} and is answered from {@link #poll}, which the poll loop calls after the RTRS
 * server's.
 */
public final class RnbdServer implements RtrsServerHandler {
    /** Discard and write-zeroes per request, at most (sectors): 1 GiB, as a u32 of bytes must hold it. */
    static final int MAX_DISCARD_SECTORS = 1 << 21;
    /** IO worker threads by default: two, so a flush waiting on the disk does not hold up reads. */
    public static final int DEFAULT_IO_THREADS = 2;

    private final ExportDirectory exports;
    private final Map<String, ServedDevice> served = new HashMap<>();
    private final Map<String, List<SessionDevice>> sessions = new HashMap<>();
    /** One reusable request per chunk; weak: a session's chunks go with it. */
    private final Map<ServerIo, BlockRequest> requests = new WeakHashMap<>();
    private final int ioThreads;
    private final ExtentsAnswer extents = new ExtentsAnswer();
    /** Started when the first device that may block is opened. */
    private IoWorkers workers;
    private Runnable wake = () -> { };
    private long refused;

    public RnbdServer(ExportDirectory exports) {
        this(exports, DEFAULT_IO_THREADS);
    }

    /** {@code ioThreads} threads run the IO of file devices (0: on the poll thread, as memory devices always are). */
    public RnbdServer(ExportDirectory exports, int ioThreads) {
        if (ioThreads < 0) {
            throw new IllegalArgumentException("io threads must be >= 0: " + ioThreads);
        }
        this.exports = exports;
        this.ioThreads = ioThreads;
    }

    /**
     * {@code wake} runs on an IO worker's thread when it has finished a request: a poll loop that
     * sleeps when idle is woken to answer it. Set before the first device opens.
     */
    public void onIoFinished(Runnable wake) {
        this.wake = wake;
        if (workers != null) {
            workers.onFinished(wake);
        }
    }

    /** On the poll thread, after the RTRS server's poll: answers the requests the IO workers finished. Returns how many. */
    public int poll() {
        return workers == null ? 0 : workers.drain();
    }

    @Override
    public void onRequest(ServerIo io) {
        MemorySegment c = io.chunk();
        int at = io.headerOffset();
        int length = io.headerLength();
        int errno = switch (Wire.type(c, at, length)) {
            case Rnbd.MSG_IO -> io(io, c, at, length);
            case Rnbd.MSG_SESS_INFO -> sessInfo(io, c, at, length);
            case Rnbd.MSG_OPEN -> open(io, c, at, length);
            case Rnbd.MSG_CLOSE -> close(io, c, at, length);
            case Rnbd.MSG_BLOCK_STATUS -> blockStatus(io, c, at, length);
            default -> RnbdErrno.EINVAL;
        };
        if (errno != 0) {
            refused++;
            io.respond(errno);
        }
    }

    /** Requests refused with an errno before they reached a device. */
    public long refused() {
        return refused;
    }

    /** Sessions that said SESS_INFO and the devices each has open. */
    public int openDevices(String session) {
        List<SessionDevice> l = sessions.get(session);
        int n = 0;
        if (l != null) {
            for (SessionDevice d : l) {
                n += d != null ? 1 : 0;
            }
        }
        return n;
    }

    /** A checked IO, started on its device (0: the device answers), or the errno to answer with. */
    private int io(ServerIo io, MemorySegment c, int at, int length) {
        if (!Io.check(c, at, length)) {
            return RnbdErrno.EINVAL;
        }
        SessionDevice d = device(io.sessionName(), Io.deviceId(c, at));
        if (d == null) {
            return RnbdErrno.ENXIO;
        }
        int rw = Io.rw(c, at);
        int op = rw & Rnbd.OP_MASK;
        int flags = rw & ~Rnbd.OP_MASK;
        long sector = Io.sector(c, at);
        long bytes = Io.bytes(c, at);
        if ((flags & ~Rnbd.F_KNOWN) != 0) {
            return RnbdErrno.EINVAL;
        }
        boolean data = op == Rnbd.OP_READ || op == Rnbd.OP_WRITE;
        // The RTRS direction and length must be the message's: a read's bi_size is what the client's buffer takes.
        boolean wantsRead = op == Rnbd.OP_READ;
        if (io.isRead() != wantsRead) {
            return RnbdErrno.EINVAL;
        }
        long carried = wantsRead ? io.readLength() : io.dataLength();
        switch (op) {
            case Rnbd.OP_READ, Rnbd.OP_WRITE -> {
                if (bytes == 0 || bytes != carried) {
                    return RnbdErrno.EINVAL;
                }
            }
            case Rnbd.OP_FLUSH -> {
                if (bytes != 0 || carried != 0) {
                    return RnbdErrno.EINVAL;
                }
            }
            case Rnbd.OP_DISCARD, Rnbd.OP_WRITE_ZEROES -> {
                if (bytes == 0 || carried != 0 || bytes > (long) MAX_DISCARD_SECTORS << Rnbd.SECTOR_SHIFT) {
                    return RnbdErrno.EINVAL;
                }
            }
            default -> {
                return RnbdErrno.EOPNOTSUPP;
            }
        }
        if (op != Rnbd.OP_READ && !d.writable()) {
            return RnbdErrno.EPERM;
        }
        long size = d.served.device.size();
        if (op != Rnbd.OP_FLUSH && (sector < 0 || sector > size >> Rnbd.SECTOR_SHIFT
            || bytes % Rnbd.SECTOR_SIZE != 0 || (sector << Rnbd.SECTOR_SHIFT) + bytes > size)) {
            return RnbdErrno.EINVAL;
        }
        if (data && bytes > io.chunk().byteSize()) {
            return RnbdErrno.EINVAL; // RTRS bounds it already; the chunk is the last word
        }
        BlockRequest r = requests.get(io);
        if (r == null) {
            r = new BlockRequest(io);
            requests.put(io, r);
        }
        r.start(d.served, workers, op, flags, sector << Rnbd.SECTOR_SHIFT, (int) bytes);
        return 0;
    }

    /**
     * srdnic's BLOCK_STATUS (docs/rnbd.md): the device's extents for a range, written into the
     * read's buffer. Asked of the device on the poll thread, files included: SEEK_DATA and
     * SEEK_HOLE read the file system's extent map, they do not wait on the disk's data.
     */
    private int blockStatus(ServerIo io, MemorySegment c, int at, int length) {
        if (!BlockStatus.check(c, at, length) || !io.isRead() || BlockStatusRsp.capacity(io.readLength()) < 1) {
            return RnbdErrno.EINVAL;
        }
        SessionDevice d = device(io.sessionName(), Io.deviceId(c, at)); // laid out as an IO
        if (d == null) {
            return RnbdErrno.ENXIO;
        }
        long sector = Io.sector(c, at);
        long bytes = Io.bytes(c, at);
        long size = d.served.device.size();
        if (bytes == 0 || bytes % Rnbd.SECTOR_SIZE != 0 || sector < 0 || sector > size >> Rnbd.SECTOR_SHIFT
            || (sector << Rnbd.SECTOR_SHIFT) + bytes > size) {
            return RnbdErrno.EINVAL;
        }
        extents.begin(c, BlockStatusRsp.capacity(Math.min(io.readLength(), c.byteSize())));
        int errno = d.served.device.blockStatus(sector << Rnbd.SECTOR_SHIFT, bytes, extents);
        int count = extents.finish();
        if (errno != 0) {
            return errno;
        }
        if (count == 0) {
            return RnbdErrno.EIO; // a device that described nothing broke its contract
        }
        io.respond(0);
        return 0;
    }

    private SessionDevice device(String session, int id) {
        List<SessionDevice> l = sessions.get(session);
        return l == null || id < 0 || id >= l.size() ? null : l.get(id);
    }

    /**
     * SESS_INFO starts the session's RNBD state anew: whatever it had open is closed. The client
     * says it first on every (re)connected session and reopens its devices after it; Linux closes
     * them when the RTRS session goes, which this RTRS server does not report.
     */
    private int sessInfo(ServerIo io, MemorySegment c, int at, int length) {
        if (!SessInfo.check(c, at, length) || !io.isRead() || io.readLength() < SessInfoRsp.LENGTH) {
            return RnbdErrno.EINVAL;
        }
        if (SessInfo.version(c, at) != Rnbd.VERSION_MAJOR) {
            return RnbdErrno.EPROTONOSUPPORT;
        }
        closeAll(io.sessionName());
        sessions.put(io.sessionName(), new ArrayList<>());
        SessInfoRsp.write(c, 0, Rnbd.VERSION_MAJOR);
        io.respond(0);
        return 0;
    }

    private int open(ServerIo io, MemorySegment c, int at, int length) {
        if (Open.check(c, at, length) != Open.OK || !io.isRead() || io.readLength() < OpenRsp.LENGTH) {
            return RnbdErrno.EINVAL;
        }
        List<SessionDevice> l = sessions.get(io.sessionName());
        if (l == null) {
            return RnbdErrno.EPROTONOSUPPORT; // OPEN before SESS_INFO
        }
        String name = Open.deviceName(c, at);
        int mode = Open.accessMode(c, at);
        for (SessionDevice d : l) {
            if (d != null && d.served.name.equals(name)) {
                return RnbdErrno.EEXIST;
            }
        }
        ServedDevice s = served.get(name);
        if (s == null) {
            try {
                BlockDevice b = exports.open(name);
                s = new ServedDevice(name, b, exports.isMemory(name), exports.mayBlock(name) && ioThreads > 0);
                if (s.mayBlock && workers == null) {
                    workers = new IoWorkers(ioThreads);
                    workers.onFinished(wake);
                }
            } catch (ExportDirectory.Refused e) {
                return e.errno;
            }
        }
        int allowedWriters = mode == Rnbd.ACCESS_RW ? 0 : mode == Rnbd.ACCESS_MIGRATION ? 1 : Integer.MAX_VALUE;
        if (mode != Rnbd.ACCESS_RO && (s.writers > allowedWriters || s.device.readOnly())) {
            if (s.openers == 0 && !s.memory) {
                s.device.close();
            }
            return RnbdErrno.EPERM;
        }
        served.put(name, s);
        s.openers++;
        s.writers += mode != Rnbd.ACCESS_RO ? 1 : 0;
        int id = l.indexOf(null);
        if (id < 0) {
            id = l.size();
            l.add(null);
        }
        l.set(id, new SessionDevice(id, s, mode));
        long sectors = s.device.size() >> Rnbd.SECTOR_SHIFT;
        int maxSectors = (int) (io.chunk().byteSize() >> Rnbd.SECTOR_SHIFT);
        OpenRsp.write(c, 0, id, new OpenRsp.Geometry(sectors, maxSectors, MAX_DISCARD_SECTORS, MAX_DISCARD_SECTORS,
            Rnbd.SECTOR_SIZE, 4096, Rnbd.SECTOR_SIZE, Rnbd.CACHE_FUA | Rnbd.CACHE_WRITEBACK));
        io.respond(0);
        return 0;
    }

    private int close(ServerIo io, MemorySegment c, int at, int length) {
        if (!Close.check(c, at, length) || io.isRead() || io.dataLength() != 0) {
            return RnbdErrno.EINVAL;
        }
        List<SessionDevice> l = sessions.get(io.sessionName());
        SessionDevice d = device(io.sessionName(), Close.deviceId(c, at));
        if (d == null) {
            return RnbdErrno.ENXIO;
        }
        l.set(d.id, null);
        release(d);
        io.respond(0);
        return 0;
    }

    private void closeAll(String session) {
        List<SessionDevice> l = sessions.remove(session);
        if (l != null) {
            for (SessionDevice d : l) {
                if (d != null) {
                    release(d);
                }
            }
        }
    }

    private void release(SessionDevice d) {
        ServedDevice s = d.served;
        s.openers--;
        s.writers -= d.writable() ? 1 : 0;
        if (s.openers == 0) {
            served.remove(s.name);
            if (!s.memory) {
                if (s.inFlight > 0) {
                    s.closeWhenIdle = true;
                } else {
                    s.device.close();
                }
            }
        }
    }

    /** Closes every session's devices (the memory devices' contents go with the server). */
    public void close() {
        if (workers != null) {
            workers.close(); // before the devices: a worker may be inside one
        }
        for (String session : new ArrayList<>(sessions.keySet())) {
            closeAll(session);
        }
    }
}
