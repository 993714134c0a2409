package dev.orchestrate.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dead endpoint never costs the run anything: publishing stays immediate, memory stays bounded
 * by the queue's capacity (the rest is dropped and counted), and closing returns within its bound.
 * Real sleeps and default timeouts: nothing here is sped up.
 */
@Timeout(60)
class DeadEndpointTest {
  private static final int EVENTS = 10_000;
  private static final int CAPACITY = Notifier.DEFAULT_CAPACITY;

  private static Notifier notifier(URI url) {
    NotifySink.Webhook config = new NotifySink.Webhook("dead", url, Optional.empty(), Map.of(),
        EnumSet.of(EventKind.ITEM_BLOCKED), NotifySink.DEFAULT_CONNECT_TIMEOUT, NotifySink.DEFAULT_TIMEOUT);
    return new Notifier(List.of(new WebhookSink(config, Map.of(), Sleeper.REAL)), t -> t, Clock.systemUTC(),
        CAPACITY);
  }

  /** Publishes {@link #EVENTS} distinct events; returns the longest single publish in nanoseconds. */
  private static long publishAll(Notifier notifier) {
    long longest = 0;
    for (int i = 0; i < EVENTS; i++) {
      NotificationEvent event = new NotificationEvent(EventKind.ITEM_BLOCKED, "I-" + i, "run", java.time.Instant.now(),
          Map.of("reason", "retries exhausted"));
      long start = System.nanoTime();
      notifier.publish(event);
      longest = Math.max(longest, System.nanoTime() - start);
    }
    return longest;
  }

  private static void assertBoundedAndFast(Notifier notifier) {
    long start = System.nanoTime();
    long longest = publishAll(notifier);
    long total = System.nanoTime() - start;
    assertTrue(total < Duration.ofSeconds(2).toNanos(), "10,000 publishes took " + total / 1_000_000 + " ms");
    assertTrue(longest < Duration.ofMillis(500).toNanos(), "one publish took " + longest / 1_000 + " µs");

    DeliveryStats.SinkFigures open = notifier.stats().sinks().get(0);
    assertTrue(open.queued() <= CAPACITY, "queued " + open.queued());
    assertTrue(open.dropped() >= EVENTS - CAPACITY - 1, "dropped " + open.dropped());

    long closeStart = System.nanoTime();
    DeliveryStats stats = notifier.close(Duration.ofMillis(500));
    long closing = System.nanoTime() - closeStart;
    assertTrue(closing < Duration.ofSeconds(4).toNanos(), "close took " + closing / 1_000_000 + " ms");

    DeliveryStats.SinkFigures dead = stats.sinks().get(0);
    assertEquals(0, dead.delivered());
    assertEquals(EVENTS, dead.failed() + dead.dropped() + dead.undelivered(), dead.toString());
    assertEquals(0, dead.queued());
    assertTrue(dead.undelivered() >= CAPACITY - 1, "what was queued at the end is counted: " + dead);
    assertTrue(dead.lastError() != null, dead.toString());
  }

  @Test
  void with_the_connection_refused_publishing_stays_immediate_and_memory_bounded() throws Exception {
    assertBoundedAndFast(notifier(WebhookNotifierTest.refusedUrl()));
  }

  @Test
  void with_a_server_that_never_answers_publishing_stays_immediate_and_close_returns_in_time() {
    try (Receiver silent = Receiver.silent()) {
      Notifier notifier = notifier(silent.url());
      assertBoundedAndFast(notifier);
      assertTrue(silent.requests().size() >= 1, "the request reached the server");
    }
  }

  @Test
  void a_closed_notifier_takes_no_more_events() throws Exception {
    Notifier notifier = notifier(WebhookNotifierTest.refusedUrl());
    notifier.close(Duration.ofMillis(100));

    notifier.publish(NotificationEvent.of(EventKind.ITEM_BLOCKED, "A", "run", java.time.Instant.now()));

    DeliveryStats.SinkFigures sink = notifier.stats().sinks().get(0);
    assertEquals(0, sink.queued() + sink.failed() + sink.dropped() + sink.undelivered());
  }
}
