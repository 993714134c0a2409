package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What every fake model API of the tests shares (Anthropic's Messages, OpenAI's Responses, Gemini's
 * generateContent): a local HTTP server on a free port of the loopback address, the requests it
 * got and the answers it sent, the first failure answer as a CLI would have shown it, and how many
 * requests fail before the model answers. Each provider's fake answers in its own words
 * ({@link #handle}).
 */
abstract class FakeModelServer implements AutoCloseable {
  private final HttpServer server;
  private final AtomicInteger failures = new AtomicInteger();
  /** The bodies of the model requests, failed ones included, in the order they came. */
  final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  /** Every request with the status it got. */
  final List<ServedRequest> served = new CopyOnWriteArrayList<>();
  /** The first failure answer sent, as {@link ServedRequest#shown}; null until one is. */
  final AtomicReference<String> firstFailure = new AtomicReference<>();
  /** With a failure mode: how many model requests fail before the model answers; 0 means all do. */
  volatile int failFirst;

  FakeModelServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  /** Answers one request (the exchange is closed by the caller's try-with-resources). */
  protected abstract void handle(HttpExchange exchange) throws IOException;

  /** {@code http://127.0.0.1:PORT}. */
  final String root() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Whether this request, with a failure mode set, fails: all do, or the first {@link #failFirst}. */
  final boolean failsNow() {
    return failFirst == 0 || failures.incrementAndGet() <= failFirst;
  }

  /** Headers the provider sends with every answer (a request id, say). */
  protected void headers(Headers headers) {
  }

  final void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
    served.add(ServedRequest.of(exchange, status));
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    headers(exchange.getResponseHeaders());
    if (status >= 400) {
      firstFailure.compareAndSet(null, ServedRequest.shown(status, exchange, body));
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
