package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code notify:} through {@code run} and {@code stats}: a real local HTTP server receives the
 * events the config asks for, each once and signed; a dead endpoint (refused, or never answering)
 * costs the run no more than the few seconds its end waits, and its failures show in {@code stats}.
 */
class NotificationsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "a-webhook-secret-of-some-length";

  @TempDir
  Path dir;

  private HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();

  private record Received(String kind, String signature, String body) {
  }

  @BeforeEach
  void project() throws IOException {
    // B fails every attempt (and is blocked after its one retry); A and C pass both phases.
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent,
        """
            #!/bin/sh
            cat > /dev/null
            if [ "$ORCHESTRATE_ITEM_ID" = B ]; then
              printf '{"result":"failed","summary":"no luck","context":"the tests of B are red"}' > "$ORCHESTRATE_RESULT_FILE"
            else
              printf '{"result":"phase_complete","summary":"did %s"}' "$ORCHESTRATE_PHASE" > "$ORCHESTRATE_RESULT_FILE"
            fi
            """);
    Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: first}\n  - {id: B, title: second}\n  - {id: C, title: third}\n");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private void config(String url, String extra) throws IOException {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["./agent.sh"]
          timeout: 20s
        execution:
          max_retries: 1
        default_pipeline: two
        pipelines:
          two:
            phases:
              - {name: first, instructions: "Do the first thing."}
              - {name: second, instructions: "Do the second thing."}
        notify:
          - type: webhook
            name: hook
            url: %s
        %s    events: [item_blocked, item_done, run_halted, run_finished]
        """.formatted(url, extra));
  }

  private CliRunner.Result cli(Map<String, String> env, String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString(), "--config",
        dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.runIn(dir, env, all.toArray(String[]::new));
  }

  private String listen(int status) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/hook", exchange -> {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      received.add(new Received(exchange.getRequestHeaders().getFirst("X-Orchestrate-Event"),
          exchange.getRequestHeaders().getFirst("X-Orchestrate-Signature"), body));
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  @Test
  void the_endpoint_gets_each_configured_event_once_signed_and_stats_counts_them() throws Exception {
    config(listen(204), "    secret_env: HOOK_SECRET\n");

    CliRunner.Result run = cli(Map.of("HOOK_SECRET", SECRET), "run", "--quiet", dir.resolve("backlog.yaml").toString());

    assertEquals(0, run.exitCode(), run.err());
    Map<String, Integer> kinds = new TreeMap<>();
    for (Received r : received) {
      kinds.merge(r.kind() + (r.body().contains("\"item_id\":null") ? "" : ":" + JSON.readTree(r.body())
          .get("item_id").asText()), 1, Integer::sum);
      assertEquals("sha256=" + hmac(r.body()), r.signature(), "signed with the secret: " + r.body());
      JsonNode doc = JSON.readTree(r.body());
      assertEquals(1, doc.get("version").asInt());
      assertEquals(r.kind(), doc.get("kind").asText());
    }
    // Exactly the configured events, each once: B's block once although both attempts failed; no
    // event the sink did not ask for; the run's end as run_finished (every item done or blocked).
    assertEquals(Map.of("item_blocked:B", 1, "item_done:A", 1, "item_done:C", 1, "run_finished", 1), kinds);
    JsonNode blocked = received.stream().filter(r -> r.kind().equals("item_blocked")).findFirst()
        .map(r -> read(r.body())).orElseThrow();
    assertEquals("second", blocked.get("details").get("title").asText());
    assertTrue(blocked.get("details").get("reason").asText().contains("the tests of B are red"),
        blocked.toString());
    JsonNode finished = received.stream().filter(r -> r.kind().equals("run_finished")).findFirst()
        .map(r -> read(r.body())).orElseThrow();
    assertEquals("all_done", finished.get("details").get("reason").asText());
    assertEquals("2", finished.get("details").get("done").asText());

    JsonNode stats = JSON.readTree(cli(Map.of(), "stats", "--json").out());
    JsonNode notified = stats.get("last_run").get("notifications");
    assertEquals(4, notified.get("delivered").asInt(), stats.toString());
    assertEquals(0, notified.get("failed").asInt());
    assertEquals(0, notified.get("lost").asInt());
    assertTrue(notified.get("last_error").isNull());
  }

  @Test
  void a_refused_endpoint_costs_the_run_nothing_and_stats_shows_the_failures() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    } // closed: nothing listens there now
    config("http://127.0.0.1:" + port + "/hook", "");

    long started = System.nanoTime();
    CliRunner.Result run = cli(Map.of(), "run", "--quiet", dir.resolve("backlog.yaml").toString());
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

    assertEquals(0, run.exitCode(), run.err());
    // The run's end waits at most RunSession.NOTIFY_DRAIN (5 s) for deliveries that retry; a
    // generous bound, far below the 3 retries x 4 documents a blocking delivery would cost.
    assertTrue(seconds < 60, "took " + seconds + " s");
    JsonNode notified = JSON.readTree(cli(Map.of(), "stats", "--json").out()).get("last_run").get("notifications");
    assertEquals(0, notified.get("delivered").asInt());
    assertEquals(4, notified.get("failed").asInt() + notified.get("lost").asInt(), notified.toString());
    assertTrue(notified.get("last_error").asText().startsWith("hook: "), notified.toString());
    assertFalse(notified.get("last_error").asText().contains(String.valueOf(port)), "no URL in the error");
    String text = cli(Map.of(), "stats").out();
    assertTrue(text.contains("notifications, last run: 0 delivered"), text);
  }

  @Test
  void an_endpoint_that_never_answers_holds_the_run_end_only_for_its_drain() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/hook", exchange -> {
      try {
        never.await(); // reads nothing, answers nothing
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    server.start();
    config("http://127.0.0.1:" + server.getAddress().getPort() + "/hook", "");

    long started = System.nanoTime();
    CliRunner.Result run = cli(Map.of(), "run", "--quiet", dir.resolve("backlog.yaml").toString());
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    never.countDown();

    assertEquals(0, run.exitCode(), run.err());
    assertTrue(seconds < 60, "took " + seconds + " s");
    JsonNode notified = JSON.readTree(cli(Map.of(), "stats", "--json").out()).get("last_run").get("notifications");
    assertNotNull(notified, "recorded");
    assertEquals(0, notified.get("delivered").asInt());
    assertEquals(4, notified.get("failed").asInt() + notified.get("lost").asInt(), notified.toString());
  }

  @Test
  void an_unset_secret_refuses_the_run_before_anything_is_created() throws Exception {
    config(listen(204), "    secret_env: HOOK_SECRET\n");

    CliRunner.Result run = cli(Map.of(), "run", dir.resolve("backlog.yaml").toString());

    assertEquals(ExitCode.USAGE, run.exitCode(), run.err());
    assertTrue(run.err().contains("secret_env HOOK_SECRET is not set"), run.err());
    assertFalse(Files.exists(dir.resolve("state").resolve("orchestrate.db")), "no state created");
    assertTrue(received.isEmpty());
  }

  @Test
  void a_sink_that_names_an_unknown_event_is_refused_at_load_with_the_names() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["./agent.sh"]
        notify:
          - {type: webhook, url: "http://127.0.0.1:9/x", events: [item_blokced]}
        """);

    CliRunner.Result run = cli(Map.of(), "run", dir.resolve("backlog.yaml").toString());

    assertEquals(ExitCode.USAGE, run.exitCode(), run.err());
    assertTrue(run.err().contains("item_blokced"), run.err());
    assertTrue(run.err().contains("item_blocked"), "did you mean: " + run.err());
  }

  private static JsonNode read(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String hmac(String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
  }
}
