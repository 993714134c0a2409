package dev.orchestrate.notify;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.limits.SizeCap;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Something a human should hear about, as the scheduler reports it. At most {@link #MAX_DETAILS}
 * details; {@link #masked} (what {@link Notifier} queues and sends) cuts each value to
 * {@link #MAX_VALUE_CHARS}, so one document stays well under a pipe's buffer and a queue of them
 * under a known size.
 *
 * @param kind    what happened
 * @param itemId  the item it is about, or {@code null} for a run-wide event
 * @param runId   the run it happened in
 * @param time    when
 * @param details a few named facts in the caller's order (reason, phase, message, profile, budget,
 *                ...); snake_case keys
 */
public record NotificationEvent(EventKind kind, String itemId, String runId, Instant time,
    Map<String, String> details) {
  /** The version of the JSON document; a consumer checks it before reading further. */
  public static final int VERSION = 1;
  public static final int MAX_DETAILS = 16;
  public static final int MAX_VALUE_CHARS = 2_000;
  private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  public NotificationEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(details, "details");
    if (kind.scope() == EventKind.Scope.ITEM && itemId == null) {
      throw new IllegalArgumentException(kind.wireName() + " needs an item id");
    }
    if (details.size() > MAX_DETAILS) {
      throw new IllegalArgumentException("at most " + MAX_DETAILS + " details, got " + details.size());
    }
    Map<String, String> copy = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : details.entrySet()) {
      if (e.getKey() == null || !KEY.matcher(e.getKey()).matches()) {
        throw new IllegalArgumentException("bad detail key " + Quote.value(e.getKey())
            + ": use lower-case letters, digits and '_'");
      }
      copy.put(e.getKey(), e.getValue() == null ? "" : e.getValue());
    }
    details = Collections.unmodifiableMap(copy);
  }

  /** An event with no details. */
  public static NotificationEvent of(EventKind kind, String itemId, String runId, Instant time) {
    return new NotificationEvent(kind, itemId, runId, time, Map.of());
  }

  /**
   * The same event as it may leave the process: every detail value passed through {@code mask}
   * (secrets as {@code ***}), then cut to {@link #MAX_VALUE_CHARS} (masked first, so that a cut
   * cannot leave half a secret that the mask no longer recognises).
   */
  public NotificationEvent masked(UnaryOperator<String> mask) {
    Map<String, String> out = new LinkedHashMap<>();
    details.forEach((k, v) -> out.put(k, SizeCap.cap(mask.apply(v), MAX_VALUE_CHARS)));
    return new NotificationEvent(kind, itemId, runId, time, out);
  }

  /**
   * What repeats of this event are recognised by: the kind and its scope's subject (the item; the
   * run, and the budget for a budget event; the profile).
   */
  public String debounceKey() {
    return switch (kind.scope()) {
      case ITEM -> debounceKey(kind, itemId);
      case RUN -> debounceKey(kind, runId + "|" + details.getOrDefault("budget", ""));
      case PROFILE -> debounceKey(kind, details.getOrDefault("profile", ""));
    };
  }

  /** The debounce key of events of {@code kind} about {@code subject} (see {@link #debounceKey()}). */
  static String debounceKey(EventKind kind, String subject) {
    return kind.wireName() + "|" + subject;
  }

  /**
   * The JSON document sent to every sink, keys in this order: {@code version}, {@code id} (the
   * delivery id, the same on every retry), {@code kind}, {@code time} (ISO-8601 UTC),
   * {@code run_id}, {@code item_id} (or null), {@code details} (an object of strings).
   */
  public String toJson(String deliveryId) {
    StringBuilder out = new StringBuilder(256);
    out.append("{\"version\":").append(VERSION);
    out.append(",\"id\":");
    JsonText.string(out, deliveryId);
    out.append(",\"kind\":");
    JsonText.string(out, kind.wireName());
    out.append(",\"time\":");
    JsonText.string(out, DateTimeFormatter.ISO_INSTANT.format(time));
    out.append(",\"run_id\":");
    JsonText.string(out, runId);
    out.append(",\"item_id\":");
    JsonText.string(out, itemId);
    out.append(",\"details\":{");
    boolean first = true;
    for (Map.Entry<String, String> e : details.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      JsonText.string(out, e.getKey());
      out.append(':');
      JsonText.string(out, e.getValue());
    }
    return out.append("}}").toString();
  }
}
