package io.srdnic.verbs.attach.control;

import java.nio.ByteBuffer;

/** One control message: its type on the wire and how its payload is written. Each message is a record with a static decode. */
public sealed interface ControlMessage permits OpenRequest, OpenReply, AllocPdRequest, CreateCqRequest, CreateQpRequest,
    ModifyQpRequest, CreateAhRequest, RegisterMrRequest, DestroyRequest, HandleReply, ErrorReply, AsyncEventMessage, CloseRequest,
    QueryQpRequest, QpAttributesReply,
    CmRequest, CmEventMessage, CreateSrqRequest, SrqRequest, OpenXrcdRequest {
    int type();

    /** Writes the payload (the frame header is {@link ControlCodec}'s). */
    void encode(ByteBuffer out);
}
