package dev.orchestrate.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The webhook sink behind the notifier, against a real local HTTP server. */
class WebhookNotifierTest {
  private static final Instant T = Instant.parse("2026-11-26T10:00:00Z");
  private static final Clock CLOCK = Clock.fixed(T, ZoneOffset.UTC);
  private static final String SECRET = "k3y-for-the-hook";
  private static final Map<String, String> ENV = Map.of("HOOK_SECRET", SECRET);

  private final List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
  private final Sleeper recordingSleeper = waits::add;
  private Receiver receiver;
  private Notifier notifier;

  @AfterEach
  void tearDown() {
    if (notifier != null) {
      notifier.close(Duration.ofSeconds(1));
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  private static NotifySink.Webhook webhook(URI url, Optional<String> secretEnv, Set<EventKind> events) {
    return new NotifySink.Webhook("hook", url, secretEnv, Map.of(), events, Duration.ofSeconds(5),
        Duration.ofSeconds(10));
  }

  private Notifier notifier(NotifySink.Webhook config) {
    notifier = new Notifier(List.of(new WebhookSink(config, ENV, recordingSleeper)), text -> text.replace(SECRET,
        "***"), CLOCK, Notifier.DEFAULT_CAPACITY);
    return notifier;
  }

  private static NotificationEvent event(EventKind kind, String item, Map<String, String> details) {
    return new NotificationEvent(kind, item, "run-1", T, details);
  }

  private static String hmac(String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void a_local_server_receives_exactly_the_configured_events_each_once_with_a_valid_signature() throws Exception {
    receiver = Receiver.answering(204);
    Notifier n = notifier(webhook(receiver.url(), Optional.of("HOOK_SECRET"),
        EnumSet.of(EventKind.ITEM_BLOCKED, EventKind.BUDGET_80, EventKind.RUN_HALTED)));

    n.publish(event(EventKind.ITEM_BLOCKED, "A", Map.of("reason", "retries exhausted")));
    n.publish(event(EventKind.ITEM_BLOCKED, "A", Map.of("reason", "stalled again")));
    n.publish(event(EventKind.ITEM_DONE, "C", Map.of()));
    n.publish(event(EventKind.ITEM_BLOCKED, "B", Map.of("reason", "set-up failed")));
    n.publish(event(EventKind.BUDGET_80, null, Map.of("budget", "cost")));
    n.publish(event(EventKind.BUDGET_80, null, Map.of("budget", "cost")));
    n.publish(event(EventKind.RUN_HALTED, null, Map.of("reason", "auth")));
    DeliveryStats stats = n.close(Duration.ofSeconds(10));

    List<Receiver.Request> got = receiver.requests();
    assertEquals(List.of("item_blocked", "item_blocked", "budget_80", "run_halted"),
        got.stream().map(r -> r.header(WebhookSink.EVENT_HEADER)).toList());
    assertTrue(got.get(0).body().contains("\"item_id\":\"A\"") && got.get(0).body().contains("retries exhausted"));
    assertTrue(got.get(1).body().contains("\"item_id\":\"B\""));
    assertTrue(got.get(3).body().contains("\"reason\":\"auth\""));
    Set<String> ids = new HashSet<>();
    for (Receiver.Request request : got) {
      assertEquals("POST", request.method());
      assertEquals("application/json", request.header("Content-Type"));
      assertEquals(hmac(request.body()), request.header(WebhookSink.SIGNATURE_HEADER), "signature of "
          + request.body());
      assertTrue(request.body().startsWith("{\"version\":1,\"id\":\"" + request.header(WebhookSink.DELIVERY_HEADER)
          + "\""), request.body());
      assertTrue(ids.add(request.header(WebhookSink.DELIVERY_HEADER)), "delivery ids are unique");
    }
    assertEquals(4, stats.delivered());
    assertEquals(0, stats.failed() + stats.dropped() + stats.undelivered());
    assertEquals(2, stats.suppressed());
    assertNull(stats.sinks().get(0).lastError());
    assertTrue(waits.isEmpty());
  }

  @Test
  void an_item_blocked_again_after_it_was_cleared_is_announced_again() throws Exception {
    receiver = Receiver.answering(200);
    Notifier n = notifier(webhook(receiver.url(), Optional.empty(), EnumSet.of(EventKind.ITEM_BLOCKED,
        EventKind.USAGE_LIMIT_PAUSED)));

    n.publish(event(EventKind.ITEM_BLOCKED, "A", Map.of()));
    n.publish(event(EventKind.ITEM_BLOCKED, "A", Map.of()));
    n.cleared("A");
    n.publish(event(EventKind.ITEM_BLOCKED, "A", Map.of()));
    n.publish(event(EventKind.USAGE_LIMIT_PAUSED, null, Map.of("profile", "claude")));
    n.publish(event(EventKind.USAGE_LIMIT_PAUSED, null, Map.of("profile", "claude")));
    n.publish(event(EventKind.USAGE_LIMIT_PAUSED, null, Map.of("profile", "codex")));
    n.resumed("claude");
    n.publish(event(EventKind.USAGE_LIMIT_PAUSED, null, Map.of("profile", "claude")));
    DeliveryStats stats = n.close(Duration.ofSeconds(10));

    assertEquals(5, receiver.requests().size());
    assertEquals(5, stats.delivered());
    assertEquals(2, stats.suppressed());
    assertNull(receiver.requests().get(0).header(WebhookSink.SIGNATURE_HEADER), "unsigned without secret_env");
  }

  @Test
  void a_server_error_is_retried_after_a_backoff_and_a_client_error_is_not() throws Exception {
    receiver = Receiver.answering(503, 200, 400);
    Notifier n = notifier(webhook(receiver.url(), Optional.empty(), EnumSet.of(EventKind.ITEM_DONE)));

    n.publish(event(EventKind.ITEM_DONE, "A", Map.of()));
    n.publish(event(EventKind.ITEM_DONE, "B", Map.of()));
    DeliveryStats stats = n.close(Duration.ofSeconds(10));

    List<Receiver.Request> got = receiver.requests();
    assertEquals(3, got.size());
    assertEquals(got.get(0).header(WebhookSink.DELIVERY_HEADER), got.get(1).header(WebhookSink.DELIVERY_HEADER),
        "a retry carries the same delivery id");
    assertEquals(List.of(Duration.ofSeconds(1)), waits);
    DeliveryStats.SinkFigures hook = stats.sinks().get(0);
    assertEquals(1, hook.delivered());
    assertEquals(1, hook.failed());
    assertTrue(hook.lastError().startsWith("HTTP 400"), hook.lastError());
    assertEquals(T, hook.lastErrorAt());
  }

  @Test
  void a_refused_connection_is_tried_three_times_then_recorded_as_failed() throws Exception {
    Notifier n = notifier(webhook(refusedUrl(), Optional.of("HOOK_SECRET"), EnumSet.of(EventKind.ITEM_DONE)));

    n.publish(event(EventKind.ITEM_DONE, "A", Map.of()));
    DeliveryStats stats = n.close(Duration.ofSeconds(10));

    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), waits);
    DeliveryStats.SinkFigures hook = stats.sinks().get(0);
    assertEquals(1, hook.failed());
    assertEquals(0, hook.delivered());
    assertEquals("cannot connect (3 attempts)", hook.lastError());
    assertFalse(hook.lastError().contains(SECRET));
  }

  @Test
  void configured_headers_are_sent_and_secrets_in_details_are_masked() throws Exception {
    receiver = Receiver.answering(200);
    notifier = new Notifier(List.of(new WebhookSink(new NotifySink.Webhook("hook", receiver.url(), Optional.empty(),
        Map.of("Authorization", "Bearer abc"), EnumSet.of(EventKind.CHECKS_RED), Duration.ofSeconds(5),
        Duration.ofSeconds(10)), ENV, recordingSleeper)), text -> text.replace(SECRET, "***"), CLOCK, 10);

    notifier.publish(event(EventKind.CHECKS_RED, "A", Map.of("message", "token " + SECRET + " leaked")));
    notifier.close(Duration.ofSeconds(10));

    Receiver.Request request = receiver.requests().get(0);
    assertEquals("Bearer abc", request.header("Authorization"));
    assertTrue(request.body().contains("token *** leaked"), request.body());
    assertFalse(request.body().contains(SECRET));
  }

  @Test
  void a_secret_env_that_is_not_set_stops_the_start_without_showing_any_secret() {
    NotifySink.Webhook config = webhook(URI.create("http://127.0.0.1:9/hook"), Optional.of("MISSING_SECRET"),
        EnumSet.of(EventKind.ITEM_DONE));

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Notifier.start(List.of(config), ENV, Path.of("."), t -> t, CLOCK));

    assertEquals("notify hook: secret_env MISSING_SECRET is not set: export it, or remove secret_env to send "
        + "unsigned documents", e.getMessage());
  }

  @Test
  void an_event_the_masking_function_fails_on_is_dropped_without_reaching_the_caller() throws Exception {
    receiver = Receiver.answering(200);
    notifier = new Notifier(List.of(new WebhookSink(webhook(receiver.url(), Optional.empty(),
        EnumSet.of(EventKind.ITEM_DONE)), ENV, recordingSleeper)), text -> {
          throw new IllegalStateException("mask broke");
        }, CLOCK, 10);

    notifier.publish(event(EventKind.ITEM_DONE, "A", Map.of("phase", "build")));
    notifier.publish(null);
    DeliveryStats stats = notifier.close(Duration.ofSeconds(5));

    assertEquals(1, stats.dropped());
    assertEquals(0, stats.delivered());
    assertTrue(receiver.requests().isEmpty());
  }

  @Test
  void the_signature_is_the_one_openssl_computes_as_the_doc_shows() {
    // printf '%s' '{"version":1}' | openssl dgst -sha256 -hmac 'k3y' -r
    assertEquals("66d9b4a25267bcf0bb3359eeeaddc0a4bd80596e0ec4e900ea6450b393f9fac0", WebhookSink.sign(
        new SecretKeySpec("k3y".getBytes(StandardCharsets.UTF_8), "HmacSHA256"),
        "{\"version\":1}".getBytes(StandardCharsets.UTF_8)));
  }

  /** A loopback port nothing listens on: bound, then closed. */
  static URI refusedUrl() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    return URI.create("http://127.0.0.1:" + port + "/hook");
  }
}
