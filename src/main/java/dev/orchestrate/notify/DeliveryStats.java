package dev.orchestrate.notify;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * What the notifier did, per sink: what {@code stats} shows and a run persists.
 *
 * @param sinks      one entry per configured sink, in config order
 * @param suppressed repeats not sent (the same debounce key again, {@link Notifier})
 */
public record DeliveryStats(List<SinkFigures> sinks, long suppressed) {
  public static final DeliveryStats NONE = new DeliveryStats(List.of(), 0);

  public DeliveryStats {
    sinks = List.copyOf(sinks);
  }

  /**
   * One sink's figures.
   *
   * @param delivered   documents it accepted
   * @param failed      documents it refused or never answered, after retries
   * @param dropped     documents pushed out of its full queue before it could try them
   * @param undelivered documents still queued (or in flight) when the run ended and the notifier
   *                    stopped waiting
   * @param queued      documents waiting now
   * @param lastError   the last failure, short and masked, or null
   * @param lastErrorAt when it happened, or null
   */
  public record SinkFigures(String name, String type, long delivered, long failed, long dropped, long undelivered,
      long queued, String lastError, Instant lastErrorAt) {
    public SinkFigures {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
    }

    /** Documents it was given and did not deliver, for whatever reason. */
    public long lost() {
      return failed + dropped + undelivered;
    }
  }

  public long delivered() {
    return sum(SinkFigures::delivered);
  }

  public long failed() {
    return sum(SinkFigures::failed);
  }

  public long dropped() {
    return sum(SinkFigures::dropped);
  }

  public long undelivered() {
    return sum(SinkFigures::undelivered);
  }

  private long sum(ToLongFunction<SinkFigures> figure) {
    return sinks.stream().mapToLong(figure).sum();
  }
}
