package dev.orchestrate.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a run: a healthy sink gets its queue delivered; a failing or stuck one is not waited
 * for, so that a dead endpoint costs a run's end about a second whatever the drain allows.
 */
@Timeout(60)
class NotifierCloseTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  private static Sink sink(Deliver deliver) {
    return new Sink() {
      @Override
      public NotifySink config() {
        return new NotifySink.Command("test", List.of("true"), EnumSet.allOf(EventKind.class), Duration.ofSeconds(1));
      }

      @Override
      public void deliver(NotificationEvent event, String deliveryId, String json)
          throws DeliveryException, InterruptedException {
        deliver.deliver();
      }
    };
  }

  private interface Deliver {
    void deliver() throws DeliveryException, InterruptedException;
  }

  private static void publish(Notifier notifier, int n) {
    for (int i = 0; i < n; i++) {
      notifier.publish(new NotificationEvent(EventKind.ITEM_DONE, "I" + i, "1", NOW, Map.of()));
    }
  }

  @Test
  void a_healthy_sink_gets_what_is_queued_delivered() {
    Notifier notifier = new Notifier(List.of(sink(() -> Thread.sleep(20))), s -> s, Clock.systemUTC(), 100);
    publish(notifier, 30);

    DeliveryStats stats = notifier.close(Duration.ofSeconds(20));

    assertEquals(30, stats.delivered(), stats.toString());
    assertEquals(0, stats.undelivered());
  }

  @Test
  void a_failing_sink_is_not_waited_for() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Notifier notifier = new Notifier(List.of(sink(() -> {
      calls.incrementAndGet();
      Thread.sleep(300); // each document fails, slowly, as a refused endpoint with its retries does
      throw new DeliveryException("cannot connect (3 attempts)");
    })), s -> s, Clock.systemUTC(), 100);
    publish(notifier, 20);
    while (notifier.stats().failed() == 0) {
      Thread.sleep(10);
    }

    long started = System.nanoTime();
    DeliveryStats stats = notifier.close(Duration.ofSeconds(30));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertTrue(millis < 5_000, "close took " + millis + " ms with 30 s allowed");
    assertEquals(0, stats.delivered());
    assertEquals(20, stats.failed() + stats.undelivered(), stats.toString());
  }

  @Test
  void a_sinks_first_delivery_slowed_by_its_clients_start_is_waited_for() {
    AtomicInteger calls = new AtomicInteger();
    // the first request pays for the HTTP client's start on a loaded machine: over STUCK_MILLIS
    Notifier notifier = new Notifier(List.of(sink(() -> Thread.sleep(calls.getAndIncrement() == 0 ? 1_800 : 10))),
        s -> s, Clock.systemUTC(), 100);
    publish(notifier, 3);

    DeliveryStats stats = notifier.close(Duration.ofSeconds(5));

    assertEquals(3, stats.delivered(), stats.toString());
    assertEquals(0, stats.undelivered(), stats.toString());
  }

  @Test
  void a_sink_stuck_on_one_document_is_not_waited_for() {
    Notifier notifier = new Notifier(List.of(sink(() -> Thread.sleep(120_000))), s -> s, Clock.systemUTC(), 100);
    publish(notifier, 5);

    long started = System.nanoTime();
    DeliveryStats stats = notifier.close(Duration.ofSeconds(30));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertTrue(millis < 5_000, "close took " + millis + " ms with 30 s allowed");
    assertEquals(5, stats.undelivered(), stats.toString());
  }
}
