package io.srdnic.verbs.attach.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.srdnic.srd.api.QpState;
import java.nio.ByteBuffer;

/**
 * The control protocol against what a hostile client might write on the dataplane's socket, two ways:
 * <ul>
 * <li>any bytes: a frame is either decoded or refused with a ProtocolException — never another
 * exception, which on the dataplane's one thread would take every client down;</li>
 * <li>every message written from fuzzed values reads back equal.</li>
 * </ul>
 */
class ControlCodecFuzzTest {
    @FuzzTest(maxDuration = "6s")
    void framesDecodeOrAreRefusedAndMessagesRoundTrip(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            roundTrip(data);
            return;
        }
        ByteBuffer in = ByteBuffer.wrap(data.consumeRemainingAsBytes());
        try {
            while (true) {
                int length = ControlCodec.frameLength(in);
                if (length < 0 || in.remaining() < ControlCodec.LENGTH_BYTES + length) {
                    return;
                }
                ControlCodec.read(in);
            }
        } catch (ProtocolException refused) {
            // what a malformed frame must give
        }
    }

    private static void roundTrip(FuzzedDataProvider data) {
        ControlMessage m = switch (data.consumeInt(0, 19)) {
            case 0 -> new OpenRequest(data.consumeInt(), data.consumeLong(), data.consumeLong(), data.consumeLong());
            case 1 -> new OpenReply(data.consumeString(200), data.consumeLong(), data.consumeLong(), data.consumeLong(), data.consumeLong(),
                data.consumeLong(), data.consumeInt(), data.consumeLong(), data.consumeInt(), data.consumeString(100),
                ints(data, OpenReply.ATTRIBUTES));
            case 2 -> new AllocPdRequest();
            case 3 -> new CreateCqRequest(data.consumeInt());
            case 4 -> new CreateQpRequest(data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(),
                data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt());
            case 5 -> new CreateAhRequest(data.consumeInt(), data.consumeLong(), data.consumeInt(), data.consumeInt());
            case 6 -> new RegisterMrRequest(data.consumeInt(), data.consumeLong(), data.consumeLong(), data.consumeLong(),
                    data.consumeInt());
            case 7 -> new DestroyRequest(data.consumeInt(), data.consumeInt());
            case 8 -> new HandleReply(data.consumeInt(), data.consumeInt(), data.consumeLong(), data.consumeInt(), data.consumeLong(),
                data.consumeInt());
            case 9 -> new ErrorReply(data.consumeString(500));
            case 10 -> new AsyncEventMessage(data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(),
                data.consumeLong());
            case 11 -> modify(data);
            case 12 -> new QueryQpRequest(data.consumeInt());
            case 13 -> new QpAttributesReply(modify(data));
            case 14 -> new CmRequest(data.consumeInt(), data.consumeInt(), ints(data, CmRequest.ARGS),
                    data.consumeBytes(CmRequest.MAX_DATA));
            case 15 -> new CmEventMessage(data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(),
                ints(data, CmEventMessage.VALUES), data.consumeBytes(CmEventMessage.MAX_DATA));
            case 16 -> new CreateSrqRequest(data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(), data.consumeInt(),
                data.consumeInt());
            case 17 -> new SrqRequest(data.consumeInt(), data.consumeInt(), data.consumeInt());
            case 18 -> new OpenXrcdRequest();
            default -> new CloseRequest();
        };
        ByteBuffer out = ByteBuffer.allocate(ControlCodec.MAX_FRAME + ControlCodec.LENGTH_BYTES);
        int id = data.consumeInt();
        ControlCodec.write(out, id, m);
        out.flip();
        try {
            assertEquals(id, ControlCodec.requestId(out));
            assertEquals(m, ControlCodec.read(out));
        } catch (ProtocolException e) {
            throw new AssertionError("a message we wrote was refused: " + e.getMessage(), e);
        }
        assertEquals(0, out.remaining());
    }

    private static ModifyQpRequest modify(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            return ModifyQpRequest.simple(data.consumeInt(), data.pickValue(QpState.values()), data.consumeInt());
        }
        return new ModifyQpRequest(data.consumeInt(), false, data.consumeInt(), ints(data, ModifyQpRequest.VALUES));
    }

    private static int[] ints(FuzzedDataProvider data, int n) {
        int[] v = new int[n];
        for (int i = 0; i < n; i++) {
            v[i] = data.consumeInt();
        }
        return v;
    }
}
