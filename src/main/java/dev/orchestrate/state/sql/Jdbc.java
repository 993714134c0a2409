package dev.orchestrate.state.sql;

import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.StoreInterruptedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A tiny JDBC helper over one connection: parameterised queries, updates and transactions, the
 * same on every database; what differs is its {@link Dialect}'s.
 *
 * <p>Transactions are begun, committed and rolled back by the dialect on a connection that is in
 * auto-commit mode between them (SQLite: plain {@code BEGIN IMMEDIATE} / {@code COMMIT} /
 * {@code ROLLBACK} statements, not the driver's auto-commit switch, which begins the next
 * transaction as part of every commit and so could fail after the data was committed, and whose
 * rollback after a statement SQLite had already rolled back - a full disk - reported "no
 * transaction is active" instead of the disk being full). Every write transaction takes the
 * database's write lock first (a row write, {@link #inRowTransaction}, its shared form where the
 * database has one). It also:
 * <ul>
 *   <li>waits out a write lock another process holds, per its {@link BusyWait}, instead of
 *       failing at the end of the database's own wait;</li>
 *   <li>checks after each commit that the database is still the one it opened
 *       ({@link Dialect#committed}: SQLite's file check);</li>
 *   <li>turns the failures a user has to act on into one line that says what happened and where
 *       ({@link Dialect#classified}): a full disk, an I/O error, a file moved away, a server out
 *       of reach.</li>
 * </ul>
 */
public final class Jdbc implements AutoCloseable {
  @FunctionalInterface
  public interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  @FunctionalInterface
  interface RowConsumer {
    void accept(ResultSet rs) throws SQLException;
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws SQLException;
  }

  private final Connection connection;
  private final Dialect dialect;
  private final String what;
  private BusyWait busy = BusyWait.standard();
  /**
   * One statement or transaction at a time on this connection: the scheduler thread shares its store
   * with the workers that run the worktrees' git (issue 46), whose few writes (a worktree made, a
   * phase commit recorded) wait for a transaction of the scheduler's to end, and the other way round.
   * Held for a whole transaction, so that another thread's statement never lands inside it.
   */
  private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
  private int depth;
  /** The open transaction is a row write ({@link #inRowTransaction}). */
  private boolean rows;

  /** Over {@code connection}, just opened, of the database {@code dialect} speaks for. */
  public Jdbc(Connection connection, Dialect dialect) {
    this.connection = connection;
    this.dialect = dialect;
    this.what = dialect.description();
  }

  /** How this connection waits for a lock another process holds; see {@link BusyWait}. */
  public void busyWait(BusyWait wait) {
    this.busy = wait;
    try {
      dialect.busyTimeout(connection, wait.sliceMs());
    } catch (SQLException e) {
      throw failure("setting the busy timeout", e);
    }
  }

  /** How this connection waits now. */
  BusyWait busyWait() {
    return busy;
  }

  public Connection connection() {
    return connection;
  }

  Dialect dialect() {
    return dialect;
  }

  public <T> List<T> query(String sql, RowMapper<T> mapper, Object... params) {
    lock.lock();
    try {
      return attempt(sql, () -> {
        try (PreparedStatement ps = prepare(sql, params); ResultSet rs = ps.executeQuery()) {
          List<T> rows = new ArrayList<>();
          while (rs.next()) {
            rows.add(mapper.map(rs));
          }
          return rows;
        }
      });
    } finally {
      lock.unlock();
    }
  }

  /**
   * Streams the rows to {@code each}, holding none of them: for scans over tables of any size. A
   * driver that streams only inside a transaction ({@link Dialect#fetchSize}) gets one: this
   * helper's own when one is open, else a read-only one around the scan.
   */
  void forEach(String sql, RowConsumer each, Object... params) {
    lock.lock();
    try {
      int fetchSize = dialect.fetchSize();
      attempt(sql, () -> {
        boolean own = fetchSize > 0 && connection.getAutoCommit();
        if (own) {
          connection.setAutoCommit(false);
        }
        try (PreparedStatement ps = prepare(sql, params)) {
          if (fetchSize > 0) {
            ps.setFetchSize(fetchSize);
          }
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              each.accept(rs);
            }
          }
          return null;
        } finally {
          if (own) {
            try {
              connection.rollback(); // it only read
            } finally {
              connection.setAutoCommit(true);
            }
          }
        }
      });
    } finally {
      lock.unlock();
    }
  }

  <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... params) {
    List<T> rows = query(sql, mapper, params);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  public long queryLong(String sql, Object... params) {
    return queryOne(sql, rs -> rs.getLong(1), params).orElse(0L);
  }

  public int execute(String sql, Object... params) {
    lock.lock();
    try {
      if (depth == 0 && dialect.writesInTransaction()) {
        return inTransaction(() -> execute(sql, params));
      }
      int n = attempt(sql, () -> {
        try (PreparedStatement ps = prepare(sql, params)) {
          return ps.executeUpdate();
        }
      });
      committed();
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** Runs an INSERT and returns the new row id. */
  long insert(String sql, Object... params) {
    lock.lock();
    try {
      if (depth == 0 && dialect.writesInTransaction()) {
        return inTransaction(() -> insert(sql, params));
      }
      long id = attempt(sql, () -> {
        try (PreparedStatement ps = dialect.prepareInsert(connection, sql)) {
          bind(ps, params);
          ps.executeUpdate();
          return dialect.insertedId(connection, ps);
        }
      });
      committed();
      return id;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A statement prepared once for many rows of the transaction open on this helper, sent to the
   * database {@value Batch#ROWS} rows at a time: a sync of a million backlog items prepares two
   * statements, not two million (docs/benchmarks.md, "A million backlog items").
   *
   * @throws IllegalStateException outside {@link #inTransaction}
   */
  Batch batch(String sql) {
    lock.lock();
    try {
      if (depth == 0) {
        throw new IllegalStateException("a batch belongs in a transaction");
      }
      return attempt(sql, () -> new Batch(sql, connection.prepareStatement(sql)));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Rows for one table, inserted {@value Inserts#ROWS} to a statement ({@code INSERT ... VALUES
   * (...), (...), ...}) in the transaction open on this helper. Fewer statements than rows matters
   * where a row-counting trigger fires: SQLite then keeps a statement journal of every page each
   * statement changes, so one row a statement copied a few pages a row (docs/benchmarks.md, "A
   * million backlog items").
   *
   * @param head  {@code INSERT INTO t (a, b, c) VALUES}
   * @param group one row's values, e.g. {@code (?, ?, 1)}
   * @throws IllegalStateException outside {@link #inTransaction}
   */
  Inserts inserts(String head, String group) {
    lock.lock();
    try {
      if (depth == 0) {
        throw new IllegalStateException("inserts belong in a transaction");
      }
      return new Inserts(head, group);
    } finally {
      lock.unlock();
    }
  }

  /** See {@link #inserts}; closing it inserts the rows still pending. */
  final class Inserts implements AutoCloseable {
    static final int ROWS = 100;
    private final String head;
    private final String group;
    private final List<Object[]> pending = new ArrayList<>(ROWS);
    private PreparedStatement full;

    private Inserts(String head, String group) {
      this.head = head;
      this.group = group;
    }

    void add(Object... params) {
      pending.add(params);
      if (pending.size() == ROWS) {
        String sql = sql(ROWS);
        attempt(sql, () -> {
          if (full == null) {
            full = connection.prepareStatement(sql);
          }
          run(full);
          return null;
        });
      }
    }

    private String sql(int rows) {
      StringBuilder sql = new StringBuilder(head).append(' ');
      for (int i = 0; i < rows; i++) {
        sql.append(i == 0 ? "" : ", ").append(group);
      }
      return sql.toString();
    }

    private void run(PreparedStatement statement) throws SQLException {
      int at = 0;
      for (Object[] row : pending) {
        bindFrom(statement, at, row);
        at += row.length;
      }
      statement.executeUpdate();
      pending.clear();
    }

    /** Inserts the rows still pending now, so that the statements after it see them. */
    void flush() {
      if (pending.isEmpty()) {
        return;
      }
      String sql = sql(pending.size());
      attempt(sql, () -> {
        try (PreparedStatement rest = connection.prepareStatement(sql)) {
          run(rest);
        }
        return null;
      });
    }

    @Override
    public void close() {
      try {
        flush();
      } finally {
        attempt(head, () -> {
          if (full != null) {
            full.close();
          }
          return null;
        });
      }
    }
  }

  /** The rows of one statement, see {@link #batch}; closing it sends the rows still pending. */
  final class Batch implements AutoCloseable {
    static final int ROWS = 1000;
    private final String sql;
    private final PreparedStatement statement;
    private int pending;

    private Batch(String sql, PreparedStatement statement) {
      this.sql = sql;
      this.statement = statement;
    }

    /** Adds one row of parameters, bound as {@link Jdbc#execute} binds them. */
    void add(Object... params) {
      attempt(sql, () -> {
        bind(statement, params);
        statement.addBatch();
        if (++pending == ROWS) {
          flush();
        }
        return null;
      });
    }

    private void flush() throws SQLException {
      if (pending > 0) {
        pending = 0;
        statement.executeBatch();
      }
    }

    @Override
    public void close() {
      attempt(sql, () -> {
        try (PreparedStatement ps = statement) {
          flush();
        }
        return null;
      });
    }
  }

  /**
   * Runs {@code work} in one transaction: committed when it returns, rolled back when it throws.
   * Inside another transaction of this helper it is part of that one.
   */
  public <T> T inTransaction(Supplier<T> work) {
    lock.lock(); // before looking at depth: another thread's transaction is not this one's
    try {
      if (depth > 0 && rows) {
        throw new IllegalStateException("a write of the whole state inside a row write: it needs the write lock"
            + " the row write did not take");
      }
      return transaction(false, false, work);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code work} in one transaction that writes only rows it may write alone, each write
   * conditional on what it read of that row (an item's lease and version, this runner's own job
   * and run rows): other such transactions may run beside it; a transaction of
   * {@link #inTransaction} never does ({@link Dialect#beginRowWrite}). {@code wip}: it also counts
   * the items in progress across runners to decide (a promotion's claim under {@code max_wip}), so
   * it excludes the other such counts. Inside another transaction of this helper it is part of
   * that one.
   */
  public <T> T inRowTransaction(boolean wip, Supplier<T> work) {
    return transaction(true, wip, work);
  }

  private <T> T transaction(boolean rowWrite, boolean wip, Supplier<T> work) {
    lock.lock();
    try {
      if (depth > 0) {
        return work.get();
      }
      attempt("BEGIN", () -> {
        if (rowWrite) {
          dialect.beginRowWrite(connection, wip);
        } else {
          dialect.begin(connection);
        }
        return null;
      });
      rows = rowWrite;
      depth++;
      T result;
      try {
        result = work.get();
        attempt("COMMIT", () -> {
          dialect.commit(connection);
          return null;
        });
      } catch (RuntimeException | Error e) {
        rollback(e);
        throw e;
      } finally {
        depth--;
        rows = false;
      }
      committed();
      return result;
    } finally {
      lock.unlock();
    }
  }

  public void inTransaction(Runnable work) {
    inTransaction(() -> {
      work.run();
      return null;
    });
  }

  /** A failure of {@code sql} (or of an operation described so) as the exception to throw. */
  public StoreException failure(String sql, SQLException e) {
    String described = dialect.classified(e);
    if (described != null) {
      return new StoreException(described, e);
    }
    return new StoreException(what + ": " + dialect.message(e) + " (in: " + firstLine(sql) + ")", e);
  }

  /** Closes the connection; a failure to close is not worth reporting over whatever comes next. */
  @Override
  public void close() {
    dialect.closing(connection);
    try {
      connection.close();
    } catch (SQLException ignored) {
      // nothing useful to do; the process is failing or done anyway
    }
  }

  /** Rolls back after {@code cause}; a failure to roll back is told along with it. */
  private void rollback(Throwable cause) {
    try {
      dialect.rollback(connection);
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  /** See {@link Dialect#bulkWritten}: inside the bulk write's transaction, before it commits. */
  void bulkWritten() {
    lock.lock();
    try {
      if (depth == 0) {
        throw new IllegalStateException("a bulk write is said inside its transaction");
      }
      try {
        dialect.bulkWritten(connection);
      } catch (SQLException e) {
        throw failure("a bulk write's end", e);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The check after a commit (outside a transaction, every write is one). */
  private void committed() {
    if (depth == 0) {
      dialect.committed(connection);
    }
  }

  /**
   * Runs {@code call}; when another process holds the lock (outside a transaction of ours: inside
   * one we hold it), waits per {@link #busy} and tries again, saying so once.
   */
  private <T> T attempt(String sql, Call<T> call) {
    lock.lock();
    try {
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
          if (depth > 0 || !dialect.busy(e) || !busy.waits()) {
            throw failure(sql, e);
          }
          long now = System.nanoTime();
          if (waitingSince == 0) {
            // the first busy answer came after the database's own timeout: that much was waited already
            waitingSince = now - busy.sliceMs() * 1_000_000L;
          }
          if (busy.stopRequested()) {
            throw new StoreInterruptedException(what + " is locked by another process; stopped while waiting for it,"
                + " so the last change was not recorded (the next run takes it up again, as after a crash)");
          }
          if (!told && now - waitingSince >= busy.patienceMs() * 1_000_000L) {
            told = true;
            busy.tell("orchestrate: warning: " + what + " is locked by another process; waiting\u2026"
                + (busy.stoppable() ? " (Ctrl-C to stop)" : ""));
          }
          try {
            Thread.sleep(RETRY_PAUSE_MS); // a database may answer busy at once in a few cases: never spin
          } catch (InterruptedException ie) {
            interrupted = true;
          }
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private static final long RETRY_PAUSE_MS = 20;

  private PreparedStatement prepare(String sql, Object... params) throws SQLException {
    PreparedStatement ps = connection.prepareStatement(sql);
    try {
      bind(ps, params);
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  /** Binds the parameters; a boolean as 0 or 1, as every flag column holds it. */
  private static void bind(PreparedStatement ps, Object... params) throws SQLException {
    bindFrom(ps, 0, params);
  }

  /** Binds the parameters from the one after {@code offset}. */
  private static void bindFrom(PreparedStatement ps, int offset, Object... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      if (params[i] instanceof Boolean b) {
        ps.setInt(offset + i + 1, b ? 1 : 0);
      } else {
        ps.setObject(offset + i + 1, params[i]);
      }
    }
  }

  private static String firstLine(String sql) {
    String s = sql.strip();
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl) + " …";
  }
}
