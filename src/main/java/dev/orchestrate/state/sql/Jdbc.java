package dev.orchestrate.state.sql;

import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.StoreInterruptedException;
import dev.orchestrate.state.sqlite.Database;
import dev.orchestrate.state.sqlite.DatabaseFile;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * A tiny JDBC helper over one connection: parameterised queries, updates and transactions.
 *
 * <p>Transactions are plain {@code BEGIN IMMEDIATE} / {@code COMMIT} / {@code ROLLBACK}
 * statements on an auto-commit connection (not the driver's auto-commit switch, which begins the
 * next transaction as part of every commit and so could fail after the data was committed, and
 * whose rollback after a statement SQLite had already rolled back - a full disk - reported "no
 * transaction is active" instead of the disk being full). Opened on a database file, it also:
 * <ul>
 *   <li>waits out a write lock another process holds, per its {@link BusyWait}, instead of
 *       failing at the end of the busy timeout;</li>
 *   <li>checks after each commit that the file is still the database it opened
 *       ({@link DatabaseFile});</li>
 *   <li>turns SQLite's failures into one line that says what happened and where
 *       ({@link Database#describe}): a full disk, an I/O error, a file moved away.</li>
 * </ul>
 */
public final class Jdbc {
  @FunctionalInterface
  public interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  @FunctionalInterface
  public interface RowConsumer {
    void accept(ResultSet rs) throws SQLException;
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws SQLException;
  }

  private final Connection connection;
  private final String what;
  private final Path file;
  private final DatabaseFile watched;
  private BusyWait busy = BusyWait.standard();
  private int depth;

  public Jdbc(Connection connection, String what) {
    this.connection = connection;
    this.what = what;
    this.file = null;
    this.watched = null;
  }

  /** On the database {@code file}, just opened: checked after each commit from now on. */
  public Jdbc(Connection connection, Path file) {
    this.connection = connection;
    this.what = "state database " + file;
    this.file = file;
    this.watched = DatabaseFile.of(file);
  }

  /** How this connection waits for a lock another process holds; see {@link BusyWait}. */
  public void busyWait(BusyWait wait) {
    this.busy = wait;
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA busy_timeout = " + wait.sliceMs());
    } catch (SQLException e) {
      throw failure("PRAGMA busy_timeout", e);
    }
  }

  public Connection connection() {
    return connection;
  }

  public <T> List<T> query(String sql, RowMapper<T> mapper, Object... params) {
    return attempt(sql, () -> {
      try (PreparedStatement ps = prepare(sql, params); ResultSet rs = ps.executeQuery()) {
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
        return rows;
      }
    });
  }

  /** Streams the rows to {@code each}, holding none of them: for scans over tables of any size. */
  public void forEach(String sql, RowConsumer each, Object... params) {
    attempt(sql, () -> {
      try (PreparedStatement ps = prepare(sql, params); ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          each.accept(rs);
        }
        return null;
      }
    });
  }

  public <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... params) {
    List<T> rows = query(sql, mapper, params);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  public long queryLong(String sql, Object... params) {
    return queryOne(sql, rs -> rs.getLong(1), params).orElse(0L);
  }

  public int execute(String sql, Object... params) {
    int n = attempt(sql, () -> {
      try (PreparedStatement ps = prepare(sql, params)) {
        return ps.executeUpdate();
      }
    });
    committed();
    return n;
  }

  /** Runs an INSERT and returns the new row id. */
  public long insert(String sql, Object... params) {
    long id = attempt(sql, () -> {
      try (PreparedStatement ps = prepare(sql, params)) {
        ps.executeUpdate();
        // The statement is closed too, not only its result set: sqlite-jdbc keeps every open
        // statement registered with the connection, so one left open per insert grows the heap of a
        // long run (the soak test found ~0.2 KB per job).
        try (Statement st = connection.createStatement();
            ResultSet rs = st.executeQuery("SELECT last_insert_rowid()")) {
          return rs.next() ? rs.getLong(1) : -1L;
        }
      }
    });
    committed();
    return id;
  }

  /**
   * Runs {@code work} in one transaction: committed when it returns, rolled back when it throws.
   * Inside another transaction of this helper it is part of that one.
   */
  public <T> T inTransaction(Supplier<T> work) {
    if (depth > 0) {
      return work.get();
    }
    attempt("BEGIN IMMEDIATE", () -> run("BEGIN IMMEDIATE"));
    depth++;
    T result;
    try {
      result = work.get();
      // In WAL mode a COMMIT needs no lock beyond the one BEGIN IMMEDIATE took; were it ever
      // busy, the transaction stays open and the COMMIT is simply tried again.
      attempt("COMMIT", () -> run("COMMIT"));
    } catch (RuntimeException | Error e) {
      rollback(e);
      throw e;
    } finally {
      depth--;
    }
    committed();
    return result;
  }

  public void inTransaction(Runnable work) {
    inTransaction(() -> {
      work.run();
      return null;
    });
  }

  /** A failure of {@code sql} (or of an operation described so) as the exception to throw. */
  public StoreException failure(String sql, SQLException e) {
    String described = Database.classified(file, e);
    if (described != null) {
      return new StoreException(described, e);
    }
    return new StoreException(what + ": " + e.getMessage() + " (in: " + firstLine(sql) + ")", e);
  }

  private Void run(String sql) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(sql);
    }
    return null;
  }

  /**
   * Rolls back after {@code cause}; SQLite may have rolled the transaction back already (a full
   * disk, an I/O error), and then there is nothing to undo and {@code cause} says what happened.
   */
  private void rollback(Throwable cause) {
    try (Statement st = connection.createStatement()) {
      st.execute("ROLLBACK");
    } catch (SQLException e) {
      if (!String.valueOf(e.getMessage()).contains("no transaction is active")) {
        cause.addSuppressed(e);
      }
    }
  }

  /** The file check after a commit (outside a transaction, every write is one). */
  private void committed() {
    if (depth == 0 && watched != null) {
      watched.check();
    }
  }

  /**
   * Runs {@code call}; when another process holds the lock (outside a transaction of ours: inside
   * one we hold it), waits per {@link #busy} and tries again, saying so once.
   */
  private <T> T attempt(String sql, Call<T> call) {
    long waitingSince = 0;
    boolean told = false;
    boolean interrupted = false;
    while (true) {
      try {
        T result = call.run();
        if (interrupted) {
          Thread.currentThread().interrupt(); // not ours to swallow
        }
        return result;
      } catch (SQLException e) {
        if (depth > 0 || !busy(e) || !busy.waits()) {
          throw failure(sql, e);
        }
        long now = System.nanoTime();
        if (waitingSince == 0) {
          // the first busy answer came after the native timeout: that much was waited already
          waitingSince = now - busy.sliceMs() * 1_000_000L;
        }
        if (busy.stopRequested()) {
          throw new StoreInterruptedException(what + " is locked by another process; stopped while waiting for it,"
              + " so the last change was not recorded (the next run takes it up again, as after a crash)");
        }
        if (!told && now - waitingSince >= busy.patienceMs() * 1_000_000L) {
          told = true;
          busy.tell("orchestrate: warning: " + (file == null ? what : "state database " + file)
              + " is locked by another process; waiting\u2026" + (busy.stoppable() ? " (Ctrl-C to stop)" : ""));
        }
        try {
          Thread.sleep(RETRY_PAUSE_MS); // SQLite answers busy at once in a few cases: never spin
        } catch (InterruptedException ie) {
          interrupted = true;
        }
      }
    }
  }

  private static final long RETRY_PAUSE_MS = 20;

  private static boolean busy(SQLException e) {
    if (e instanceof SQLiteException s && s.getResultCode() != null) {
      return (s.getResultCode().code & 0xff) == SQLiteErrorCode.SQLITE_BUSY.code; // extended codes too
    }
    return String.valueOf(e.getMessage()).contains("SQLITE_BUSY");
  }

  private PreparedStatement prepare(String sql, Object... params) throws SQLException {
    PreparedStatement ps = connection.prepareStatement(sql);
    for (int i = 0; i < params.length; i++) {
      ps.setObject(i + 1, params[i]);
    }
    return ps;
  }

  private static String firstLine(String sql) {
    String s = sql.strip();
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl) + " …";
  }
}
