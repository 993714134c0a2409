package dev.orchestrate.state;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * How a connection waits for the write lock while another process holds it, rather than failing
 * at the end of SQLite's busy timeout: it keeps trying, says so once per wait (after
 * {@link #PATIENCE_MS} of waiting, so the short waits next to a {@code compact} stay
 * silent), and gives up only when {@code stop} says so (a run's Ctrl-C). A connection with a stop
 * condition waits in short native slices so that the stop is seen within a fraction of a second.
 */
public final class BusyWait {
  /** How long a write waits for the lock before the wait is told (and, with {@link #atMost}, fails). */
  public static final int PATIENCE_MS = 10_000;

  /** The native busy timeout of a connection that can be stopped: how often the stop is looked at. */
  public static final int STOPPABLE_SLICE_MS = 250;

  private final Consumer<String> notice;
  private final BooleanSupplier stop;
  private final long patienceMs;
  private final boolean waits;

  public BusyWait(Consumer<String> notice, BooleanSupplier stop, long patienceMs) {
    this(notice, stop, patienceMs, true);
  }

  private BusyWait(Consumer<String> notice, BooleanSupplier stop, long patienceMs, boolean waits) {
    this.notice = notice;
    this.stop = stop;
    this.patienceMs = patienceMs;
    this.waits = waits;
  }

  /**
   * Waits at most {@code ms} (SQLite's own busy timeout) and then fails as busy: for a write that
   * is only nice to have, like the trend sample {@code stats} records after answering.
   */
  public static BusyWait atMost(int ms) {
    return new BusyWait(line -> {}, null, ms, false);
  }

  /** Whether a busy database is waited out at all (else the write fails once the native timeout passed). */
  public boolean waits() {
    return waits;
  }

  /** Waits as long as it takes, saying so on stderr; what every command's connection does by default. */
  public static BusyWait standard() {
    return new BusyWait(line -> System.err.println(line), null, PATIENCE_MS);
  }

  /** Waits, telling {@code notice} once per wait, until the lock is free or {@code stop} holds. */
  public static BusyWait stoppable(Consumer<String> notice, BooleanSupplier stop) {
    return new BusyWait(notice, stop, PATIENCE_MS);
  }

  public boolean stoppable() {
    return stop != null;
  }

  /** The native busy timeout of the connection: SQLite's own wait before it answers busy. */
  public int sliceMs() {
    return stop != null ? (int) Math.min(STOPPABLE_SLICE_MS, patienceMs) : (int) patienceMs;
  }

  /** How long a wait goes on before it is told. */
  public long patienceMs() {
    return patienceMs;
  }

  public boolean stopRequested() {
    return stop != null && stop.getAsBoolean();
  }

  public void tell(String line) {
    notice.accept(line);
  }
}
