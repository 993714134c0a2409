package dev.orchestrate.retention;

import dev.orchestrate.item.Housekeeping;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a run's maintenance happens (docs/how-it-works.md): at the end of a scheduler tick, at the first
 * tick and then whenever {@code interval} has elapsed since the last pass began. The scheduler
 * calls it after the tick has spawned its agents, and a pass steps aside as soon as the scheduler
 * has work waiting: a pass that did so is continued at the next tick (not the next interval), so
 * maintenance runs in the scheduler's idle moments and still finishes its pass on a busy run. The
 * pass itself is bounded by the retention budget, not by the size of the tables. When the run ends
 * normally, {@link #atEnd} finishes the pass and makes more until every structure is within its
 * policy. A failing pass is logged and
 * retried at the next interval: maintenance never stops a run.
 */
public final class MaintenanceSchedule implements Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceSchedule.class);

  /** One pass, which may step aside for the scheduler and be continued. */
  @FunctionalInterface
  public interface Pass {
    /**
     * Does (the rest of) the pass, at least one unit of it, stepping aside when {@code waiting}
     * says so; returns true when the pass is complete, false when it stepped aside.
     */
    boolean proceed(BooleanSupplier waiting);

    /** After the pass is complete: whether some structure still has rows beyond its policy. */
    default boolean moreToDo() {
      return false;
    }
  }

  /** Passes at most at the end of a run; anything beyond is left to the next run or compact. */
  static final int MAX_END_PASSES = 100;

  private final Duration interval;
  private final Function<Instant, Pass> begin;
  private Instant last;
  private Pass current;
  private int passes;
  private int continuations;
  private int failures;

  /** @param begin starts one pass at {@code now} (one budgeted retention pass plus the run's stats sample) */
  public MaintenanceSchedule(Duration interval, Function<Instant, Pass> begin) {
    this.interval = interval;
    this.begin = begin;
  }

  @Override
  public void afterTick(Instant now, BooleanSupplier waiting) {
    try {
      if (current != null) {
        continuations++;
      } else if (last == null || !now.isBefore(last.plus(interval))) {
        last = now;
        passes++;
        current = begin.apply(now);
      } else {
        return;
      }
      if (current.proceed(waiting)) {
        current = null;
      }
    } catch (RuntimeException e) {
      current = null;
      failures++;
      LOG.warn("retention maintenance failed ({}); the run goes on, next try in {}", e.getMessage(), interval);
    }
  }

  /**
   * The end of a run: finishes a pass that stepped aside, then makes passes whatever the interval
   * until no structure has rows beyond its policy (at most {@value #MAX_END_PASSES}), so that the
   * run leaves every structure within its policy: what accumulated since the last pass would
   * otherwise stay until the next run or compact, and {@code stats --check} right after the run
   * could read the top of that sawtooth as a warning. A stop makes it step aside at the next unit.
   */
  @Override
  public void atEnd(Instant now, BooleanSupplier stop) {
    try {
      if (current != null) {
        continuations++;
        if (!current.proceed(stop)) {
          return; // stepped aside for a stop
        }
        current = null;
      }
      for (int i = 0; i < MAX_END_PASSES && !stop.getAsBoolean(); i++) {
        last = now;
        passes++;
        Pass pass = begin.apply(now);
        if (!pass.proceed(stop) || !pass.moreToDo()) {
          return;
        }
      }
      if (!stop.getAsBoolean()) {
        LOG.info("retention: still rows beyond a policy after {} passes at the end of the run; the next run or "
            + "compact goes on", MAX_END_PASSES);
      }
    } catch (RuntimeException e) {
      current = null;
      failures++;
      LOG.warn("retention maintenance at the end of the run failed ({}); the next run or compact applies it",
          e.getMessage());
    }
  }

  /** Passes begun. */
  int passes() {
    return passes;
  }

  /** Ticks that continued a pass which had stepped aside. */
  int continuations() {
    return continuations;
  }

  int failures() {
    return failures;
  }

  /** Whether a pass stepped aside and waits to be continued. */
  boolean pending() {
    return current != null;
  }
}
