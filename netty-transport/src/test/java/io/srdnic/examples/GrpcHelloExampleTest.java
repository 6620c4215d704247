package io.srdnic.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The README's gRPC example runs and its greeting crosses srdnic (so the example cannot rot). */
class GrpcHelloExampleTest {

    @Test
    void shouldGreetOverSrdnic() throws Exception {
        assertEquals("Hello, srdnic, over srdnic", GrpcHello.run("srdnic"));
    }
}
