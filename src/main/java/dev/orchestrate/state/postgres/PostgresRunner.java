package dev.orchestrate.state.postgres;

import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run lease of a PostgreSQL state: not one run at a time, but one runner row per running
 * process, {@code host:pid:start-ms}, whose heartbeat a thread of its own renews every third of the
 * lease timeout on a connection of its own (so a busy scheduler, a long summarization or a held
 * write lock never delays it). Another runner that finds the heartbeat older than the lease timeout
 * takes the runner's items over ({@code SqlItemLeases}). Times are the database server's.
 *
 * <p>The heartbeat connection also tries, at every beat, the state's maintenance lock (a session
 * advisory lock): the runner holding it is the one that runs retention during runs, so that
 * several runners never compact at once.
 *
 * <p>A runner whose row was deleted (others took it for dead: it did not beat for a whole lease
 * timeout) registers again under the same id; the items it held are no longer its own, and its
 * writes to them fail their version check.
 */
final class PostgresRunner implements RunLease {
  private static final Logger log = LoggerFactory.getLogger(PostgresRunner.class);

  private static final java.util.concurrent.atomic.AtomicInteger STARTED = new java.util.concurrent.atomic.AtomicInteger();

  private final String id;
  private final String host;
  private final Path logs;
  private final Duration timeout;
  private final Supplier<Connection> connect;
  private final int key;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread beat;
  private Connection connection;
  private volatile boolean maintainer;

  private PostgresRunner(String host, Path logs, Duration timeout, Supplier<Connection> connect, int key) {
    long pid = ProcessHandle.current().pid();
    long start = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli)
        .orElse(System.currentTimeMillis());
    int nth = STARTED.incrementAndGet();
    this.id = host + ":" + pid + ":" + start + (nth == 1 ? "" : "#" + nth); // a second runner in one process (tests)
    this.host = host;
    this.logs = logs;
    this.timeout = timeout;
    this.connect = connect;
    this.key = key;
    this.beat = new Thread(this::beatLoop, "orchestrate-heartbeat");
    this.beat.setDaemon(true);
  }

  /** Registers a runner and starts its heartbeat. */
  static PostgresRunner start(String host, Path logs, Duration timeout, Supplier<Connection> connect, String schema) {
    PostgresRunner runner = new PostgresRunner(host, logs, timeout, connect, Locks.key(schema));
    runner.connection = connect.get();
    try {
      runner.register();
      runner.tryMaintenance();
    } catch (SQLException e) {
      runner.closeConnection();
      throw new StoreException("cannot register this runner in the state database: "
          + e.getMessage(), e);
    }
    runner.beat.start();
    return runner;
  }

  @Override
  public String runnerId() {
    return id;
  }

  @Override
  public String host() {
    return host;
  }

  @Override
  public boolean maintains() {
    return maintainer;
  }

  @Override
  public java.util.List<String> checkout(String checkoutId, String where) {
    try (Connection c = connect.get();
        PreparedStatement mine = c.prepareStatement("UPDATE runners SET checkout = ?, checkout_path = ? WHERE id = ?");
        PreparedStatement others = c.prepareStatement("SELECT id, checkout_path FROM runners WHERE id <> ?"
            + " AND checkout IS NOT NULL AND checkout <> ? AND heartbeat_at > " + PostgresDialect.CLOCK_MS
            + " - ? ORDER BY id")) {
      mine.setString(1, checkoutId);
      mine.setString(2, where);
      mine.setString(3, id);
      mine.executeUpdate();
      others.setString(1, id);
      others.setString(2, checkoutId);
      others.setLong(3, timeout.toMillis());
      java.util.List<String> found = new java.util.ArrayList<>();
      try (var rs = others.executeQuery()) {
        while (rs.next()) {
          found.add("runner " + rs.getString(1) + " in " + rs.getString(2));
        }
      }
      return found;
    } catch (SQLException e) {
      throw new StoreException("cannot record this runner's checkout in the state database: "
          + e.getMessage(), e);
    }
  }

  private void register() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("INSERT INTO runners (id, host, pid, started_at,"
        + " heartbeat_at, logs_dir) VALUES (?, ?, ?, " + PostgresDialect.CLOCK_MS + ", " + PostgresDialect.CLOCK_MS
        + ", ?) ON CONFLICT (id) DO UPDATE"
        + " SET heartbeat_at = EXCLUDED.heartbeat_at")) {
      ps.setString(1, id);
      ps.setString(2, host);
      ps.setLong(3, ProcessHandle.current().pid());
      ps.setString(4, logs.toAbsolutePath().normalize().toString());
      ps.executeUpdate();
    }
  }

  /** Renews the heartbeat; registers again when the row is gone. */
  void beatOnce() throws SQLException {
    int n;
    try (PreparedStatement ps = connection
        .prepareStatement("UPDATE runners SET heartbeat_at = " + PostgresDialect.CLOCK_MS
            + " WHERE id = ?")) {
      ps.setString(1, id);
      n = ps.executeUpdate();
    }
    if (n == 0) {
      log.warn("runner {} was taken for dead (no heartbeat for {} s) and its items taken over; it registers again",
          id, timeout.toSeconds());
      register();
    }
    tryMaintenance();
  }

  private void tryMaintenance() throws SQLException {
    if (maintainer) {
      return;
    }
    try (Statement st = connection.createStatement();
        var rs = st.executeQuery("SELECT pg_try_advisory_lock(" + Locks.MAINTENANCE + ", " + key + ")")) {
      maintainer = rs.next() && rs.getBoolean(1);
    }
  }

  private void beatLoop() {
    long every = Math.max(100, timeout.toMillis() / 3);
    try {
      while (!stop.await(every, TimeUnit.MILLISECONDS)) {
        try {
          if (connection == null || !connection.isValid(5)) {
            closeConnection();
            maintainer = false; // its session, and the lock with it, is gone
            connection = connect.get();
          }
          beatOnce();
        } catch (SQLException | RuntimeException e) {
          log.warn("runner {}: could not renew the heartbeat ({}); trying again in {} ms", id, e.getMessage(), every);
          closeConnection();
          connection = null;
          maintainer = false;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the heartbeat, frees this runner's items and deletes its row. */
  @Override
  public void close() {
    stop.countDown();
    try {
      beat.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      if (connection == null) {
        connection = connect.get();
      }
      try (PreparedStatement free = connection.prepareStatement(
          "UPDATE items SET lease_owner = NULL, version = version + 1 WHERE lease_owner = ?");
          PreparedStatement gone = connection.prepareStatement("DELETE FROM runners WHERE id = ?")) {
        free.setString(1, id);
        free.executeUpdate();
        gone.setString(1, id);
        gone.executeUpdate();
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("runner {}: could not deregister ({}); others take its items over after {} s", id, e.getMessage(),
          timeout.toSeconds());
    } finally {
      closeConnection();
    }
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // the server ends the session, and frees its locks
      }
    }
  }
}
