package dev.orchestrate.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NotificationEventTest {
  private static final Instant T = Instant.parse("2026-11-26T10:15:30Z");

  @Test
  void the_document_is_versioned_with_its_keys_in_a_stable_order() {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("reason", "retries exhausted");
    details.put("phase", "implement");
    NotificationEvent event = new NotificationEvent(EventKind.ITEM_BLOCKED, "WRK-7", "run-3", T, details);

    assertEquals("{\"version\":1,\"id\":\"run-3-1\",\"kind\":\"item_blocked\",\"time\":\"2026-11-26T10:15:30Z\","
        + "\"run_id\":\"run-3\",\"item_id\":\"WRK-7\",\"details\":{\"reason\":\"retries exhausted\","
        + "\"phase\":\"implement\"}}", event.toJson("run-3-1"));
  }

  @Test
  void a_run_wide_event_has_a_null_item_id_and_strings_are_escaped() {
    NotificationEvent event = new NotificationEvent(EventKind.RUN_HALTED, null, "r", T,
        Map.of("message", "a \"quoted\"\\ line\nnext\u0001\u2028"));

    String json = event.toJson("r-1");

    assertTrue(json.contains("\"item_id\":null"), json);
    assertTrue(json.contains("\"message\":\"a \\\"quoted\\\"\\\\ line\\nnext\\u0001\\u2028\""), json);
  }

  @Test
  void masking_hides_secrets_before_values_are_cut_to_their_cap() {
    String secret = "s3cr3t-token";
    String longValue = "x".repeat(NotificationEvent.MAX_VALUE_CHARS - 5) + secret + "y".repeat(100);
    NotificationEvent event = new NotificationEvent(EventKind.CHECKS_RED, "A", "r", T, Map.of("message", longValue));

    NotificationEvent masked = event.masked(text -> text.replace(secret, "***"));

    String value = masked.details().get("message");
    assertTrue(value.length() <= NotificationEvent.MAX_VALUE_CHARS, "cut to the cap: " + value.length());
    assertTrue(!value.contains("s3cr") && !value.contains("t-token"), value);
    assertTrue(value.contains("…[truncated"), value);
  }

  @Test
  void an_item_event_needs_an_item_and_detail_keys_are_snake_case() {
    assertThrows(IllegalArgumentException.class, () -> NotificationEvent.of(EventKind.ITEM_DONE, null, "r", T));
    assertThrows(IllegalArgumentException.class,
        () -> new NotificationEvent(EventKind.RUN_HALTED, null, "r", T, Map.of("Bad Key", "v")));
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i <= NotificationEvent.MAX_DETAILS; i++) {
      many.put("k" + i, "v");
    }
    assertThrows(IllegalArgumentException.class,
        () -> new NotificationEvent(EventKind.RUN_HALTED, null, "r", T, many));
  }

  @Test
  void debounce_keys_follow_the_scope_of_the_kind() {
    assertEquals(NotificationEvent.of(EventKind.ITEM_BLOCKED, "A", "r1", T).debounceKey(),
        NotificationEvent.of(EventKind.ITEM_BLOCKED, "A", "r2", T.plusSeconds(5)).debounceKey());
    assertNotEquals(NotificationEvent.of(EventKind.ITEM_BLOCKED, "A", "r", T).debounceKey(),
        NotificationEvent.of(EventKind.ITEM_BLOCKED, "B", "r", T).debounceKey());
    assertNotEquals(new NotificationEvent(EventKind.BUDGET_80, null, "r", T, Map.of("budget", "cost")).debounceKey(),
        new NotificationEvent(EventKind.BUDGET_80, null, "r", T, Map.of("budget", "tokens")).debounceKey());
    assertNotEquals(
        new NotificationEvent(EventKind.USAGE_LIMIT_PAUSED, null, "r", T, Map.of("profile", "claude")).debounceKey(),
        new NotificationEvent(EventKind.USAGE_LIMIT_PAUSED, null, "r", T, Map.of("profile", "codex")).debounceKey());
  }
}
