package dev.orchestrate.state.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint of one bulk write's write-ahead log, done by a thread of its own so that the
 * write's commit (and the run's first agent after it) does not wait for it.
 *
 * <p>SQLite copies the log into the database file when a commit leaves it over 1,000 pages (the
 * connection's {@code wal_autocheckpoint}), in the committing thread, with an fsync of the log and
 * one of the database. {@link #defer}, inside the bulk write's transaction, turns that off on the
 * writing connection; the commit after it then starts a daemon thread that opens a connection of
 * its own and runs {@code PRAGMA wal_checkpoint(PASSIVE)}, which waits for no reader or writer:
 * the run's writes go on meanwhile (their frames are simply left for the next checkpoint). Once
 * that thread is done, the next commit on the writing connection gives it back the setting it
 * had, and SQLite checkpoints as before. A checkpoint cut short (the process ends, an error) loses
 * nothing: the log is complete on disk and the next one copies it.
 */
final class BackgroundCheckpoint {
  private static final Logger log = LoggerFactory.getLogger(BackgroundCheckpoint.class);

  private final Path file;
  /** The writing connection's {@code wal_autocheckpoint} before {@link #defer}. */
  private final long pages;
  private volatile Thread thread;
  private volatile boolean done;

  private BackgroundCheckpoint(Path file, long pages) {
    this.file = file;
    this.pages = pages;
  }

  /** Turns the automatic checkpoint of {@code connection} off until the background one is done. */
  static BackgroundCheckpoint defer(Connection connection, Path file) throws SQLException {
    long pages;
    try (Statement st = connection.createStatement(); var rs = st.executeQuery("PRAGMA wal_autocheckpoint")) {
      pages = rs.next() ? rs.getLong(1) : 1000;
    }
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA wal_autocheckpoint = 0");
    }
    return new BackgroundCheckpoint(file, pages);
  }

  /**
   * After a commit on the writing connection: starts the checkpoint at the first (the bulk write's
   * own), gives the connection its setting back at the first after the checkpoint ended.
   *
   * @return this while the checkpoint is pending or running, null once the setting is back
   */
  BackgroundCheckpoint committed(Connection connection) {
    if (thread == null) {
      thread = new Thread(this::checkpoint, "orchestrate-checkpoint");
      thread.setDaemon(true);
      try {
        thread.start();
      } catch (OutOfMemoryError | RuntimeException e) { // no thread to be had: checkpoint as before
        log.debug("no thread for the checkpoint of {}", file, e);
        done = true;
      }
      return this;
    }
    if (!done) {
      return this;
    }
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA wal_autocheckpoint = " + pages);
      return null;
    } catch (SQLException e) {
      log.debug("could not restore wal_autocheckpoint on {}", file, e);
      return this; // tried again at the next commit
    }
  }

  /**
   * Waits up to {@code limit} for a started checkpoint to end; at once if none was started or it
   * ended. Interrupted, it returns with the interrupt kept.
   */
  void awaitEnd(Duration limit) {
    Thread running = thread;
    if (running == null || done) {
      return;
    }
    try {
      running.join(limit.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (running.isAlive()) {
      log.debug("the background checkpoint of {} still runs after {}; it goes on", file, limit);
    }
  }

  private void checkpoint() {
    long started = System.nanoTime();
    try (Connection connection = Database.connectExisting(file); Statement st = connection.createStatement()) {
      st.execute("PRAGMA wal_checkpoint(PASSIVE)");
      log.debug("checkpointed {} in {} ms", file, (System.nanoTime() - started) / 1_000_000);
    } catch (SQLException | RuntimeException e) {
      log.debug("background checkpoint of {} failed; the next one copies the log", file, e);
    } finally {
      done = true;
    }
  }
}
