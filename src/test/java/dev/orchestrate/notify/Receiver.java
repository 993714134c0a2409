package dev.orchestrate.notify;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A real local HTTP endpoint (the JDK's server) that records every request it receives: answering
 * with the statuses a test gives, or never answering at all until the test ends.
 */
final class Receiver implements AutoCloseable {
  /** One request as received. */
  record Request(String method, Map<String, List<String>> headers, String body) {
    String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
          return e.getValue().get(0);
        }
      }
      return null;
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "receiver");
    t.setDaemon(true);
    return t;
  });
  private final List<Request> requests = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);

  private Receiver(IntSupplier status, boolean answer) {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/hook", exchange -> {
      String body;
      try (InputStream in = exchange.getRequestBody()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      synchronized (requests) {
        requests.add(new Request(exchange.getRequestMethod(), Map.copyOf(exchange.getRequestHeaders()), body));
        requests.notifyAll();
      }
      if (!answer) {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      exchange.sendResponseHeaders(status.getAsInt(), -1);
      exchange.close();
    });
    server.setExecutor(executor);
    server.start();
  }

  /** Answers every request with {@code status}. */
  static Receiver answering(int status) {
    return new Receiver(() -> status, true);
  }

  /** Answers the requests in turn with the given statuses, then with the last one. */
  static Receiver answering(int... statuses) {
    int[] next = {0};
    return new Receiver(() -> {
      synchronized (next) {
        return statuses[Math.min(next[0]++, statuses.length - 1)];
      }
    }, true);
  }

  /** Accepts connections and reads requests, and never answers. */
  static Receiver silent() {
    return new Receiver(() -> 200, false);
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
  }

  List<Request> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** Waits until at least {@code count} requests arrived (or 10 s passed). */
  List<Request> awaitRequests(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    synchronized (requests) {
      while (requests.size() < count && System.nanoTime() < deadline) {
        requests.wait(100);
      }
      return List.copyOf(requests);
    }
  }

  @Override
  public void close() {
    release.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
