package dev.orchestrate.retention;

import dev.orchestrate.scheduler.Housekeeping;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a run's maintenance happens (DESIGN §5.7): at the end of a scheduler tick, at the first
 * tick and then whenever {@code interval} has elapsed since the last pass. The scheduler calls it
 * after the tick has spawned its agents, so a pass never delays an agent's start; the pass itself
 * is bounded by the retention budget, not by the size of the tables. A failing pass is logged and
 * retried at the next interval: maintenance never stops a run.
 */
public final class MaintenanceSchedule implements Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceSchedule.class);

  private final Duration interval;
  private final Consumer<Instant> pass;
  private Instant last;
  private int passes;
  private int failures;

  /** @param pass one budgeted retention pass plus the run's stats sample, at {@code now} */
  public MaintenanceSchedule(Duration interval, Consumer<Instant> pass) {
    this.interval = interval;
    this.pass = pass;
  }

  @Override
  public void afterTick(Instant now) {
    if (last != null && now.isBefore(last.plus(interval))) {
      return;
    }
    last = now;
    passes++;
    try {
      pass.accept(now);
    } catch (RuntimeException e) {
      failures++;
      LOG.warn("retention maintenance failed ({}); the run goes on, next try in {}", e.getMessage(), interval);
    }
  }

  public int passes() {
    return passes;
  }

  public int failures() {
    return failures;
  }
}
