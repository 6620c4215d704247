package io.srdnic.cli.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * The benchmark's gRPC service, without generated code: {@code Echo} (unary, the request back) and
 * {@code Sink} (client streaming, the total of the bytes received back). Messages are plain byte
 * arrays, copied in and out as a protobuf bytes field would be, on either transport alike.
 */
final class BenchService {
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<byte[], byte[]> ECHO = method("Echo", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> SINK = method("Sink", MethodDescriptor.MethodType.CLIENT_STREAMING);

    private BenchService() {
    }

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName("srdnic.bench.Bench/" + name)
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    static ServerServiceDefinition definition() {
        return ServerServiceDefinition.builder("srdnic.bench.Bench")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> reply) -> {
                reply.onNext(request);
                reply.onCompleted();
            }))
            .addMethod(SINK, ServerCalls.asyncClientStreamingCall(reply -> new StreamObserver<byte[]>() {
                private long total;

                @Override
                public void onNext(byte[] value) {
                    total += value.length;
                }

                @Override
                public void onError(Throwable t) {
                    // the client gave up: nothing to answer
                }

                @Override
                public void onCompleted() {
                    reply.onNext(ByteBuffer.allocate(8).putLong(total).array());
                    reply.onCompleted();
                }
            }))
            .build();
    }
}
