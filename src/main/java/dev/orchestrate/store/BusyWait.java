package dev.orchestrate.store;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * How a connection waits for the write lock while another process holds it, rather than failing
 * at the end of SQLite's busy timeout: it keeps trying, says so once per wait (after
 * {@link Database#BUSY_TIMEOUT_MS} of waiting, so the short waits next to a {@code compact} stay
 * silent), and gives up only when {@code stop} says so (a run's Ctrl-C). A connection with a stop
 * condition waits in short native slices so that the stop is seen within a fraction of a second.
 */
public final class BusyWait {
  /** The native busy timeout of a connection that can be stopped: how often the stop is looked at. */
  static final int STOPPABLE_SLICE_MS = 250;

  private final Consumer<String> notice;
  private final BooleanSupplier stop;
  private final long patienceMs;
  private final boolean waits;

  BusyWait(Consumer<String> notice, BooleanSupplier stop, long patienceMs) {
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
  static BusyWait atMost(int ms) {
    return new BusyWait(line -> { }, null, ms, false);
  }

  /** Whether a busy database is waited out at all (else the write fails once the native timeout passed). */
  boolean waits() {
    return waits;
  }

  /** Waits as long as it takes, saying so on stderr; what every command's connection does by default. */
  static BusyWait standard() {
    return new BusyWait(line -> System.err.println(line), null, Database.BUSY_TIMEOUT_MS);
  }

  /** Waits, telling {@code notice} once per wait, until the lock is free or {@code stop} holds. */
  public static BusyWait stoppable(Consumer<String> notice, BooleanSupplier stop) {
    return new BusyWait(notice, stop, Database.BUSY_TIMEOUT_MS);
  }

  boolean stoppable() {
    return stop != null;
  }

  /** The native busy timeout of the connection: SQLite's own wait before it answers busy. */
  int sliceMs() {
    return stop != null ? (int) Math.min(STOPPABLE_SLICE_MS, patienceMs) : (int) patienceMs;
  }

  /** How long a wait goes on before it is told. */
  long patienceMs() {
    return patienceMs;
  }

  boolean stopRequested() {
    return stop != null && stop.getAsBoolean();
  }

  void tell(String line) {
    notice.accept(line);
  }
}
