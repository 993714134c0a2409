package dev.orchestrate.state.postgres;

import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.sql.Dialect;
import dev.orchestrate.state.sql.Jdbc;
import dev.orchestrate.stats.DatabaseFigures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * PostgreSQL as the shared store code needs it, for one state schema.
 *
 * <p><b>The locking rules.</b> Every write transaction takes one transaction-scoped advisory lock
 * first ({@link Locks#WRITE} and the schema's key), in one of two modes:
 * <ul>
 *   <li><b>Exclusive</b> ({@link #begin}, and every write outside a transaction:
 *       {@link #writesInTransaction}): a write of the whole state, one at a time across processes,
 *       exactly as SQLite's file lock serializes them. That is what keeps the store's
 *       read-modify-write logic correct without rewriting it for concurrent writers: the backlog
 *       sync (new items at {@code MAX(seq) + 1}, vanished ones marked, every row touched), follow-up
 *       items, the schema's migrations, retention and compaction, the take-over of a dead runner,
 *       turns, summaries, memories, workspaces, agent pauses, stats samples, {@code unblock} and the
 *       review gate (writes of items nobody holds, outside a run), and {@code VACUUM FULL} (the
 *       session form of the lock).</li>
 *   <li><b>Shared</b> ({@link #beginRowWrite}): a row write, which writes only rows it may write
 *       alone and makes each write conditional on what it read of that row, so that it needs no
 *       other runner to stand still: a claim ({@code UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP
 *       LOCKED)}, free or its own), a release, the writes of an item this runner holds (each
 *       compares the lease's owner and version and bumps the version, a compare-and-set: a runner
 *       that lost the item writes nothing), this runner's own job and run rows, new events. Row
 *       writes run beside each other and wait only for an exclusive write; an exclusive write waits
 *       for the row writes in progress, and row writes asked for after it wait for it (the
 *       server's lock queue is fair).</li>
 * </ul>
 * A promotion's claim under {@code max_wip} counts the items in progress across runners: it takes
 * {@link Locks#WIP} too, exclusively, so that two promotions never both count below the limit.
 * Inside a row write, the rows are locked in one order — a job's row and the usage totals (its
 * usage trigger), the item's row, then the counters of {@code structures} (events' and jobs'
 * triggers) — and a claim never waits for a row (SKIP LOCKED), so row writes do not deadlock; a
 * row lock is waited for at most {@link #ROW_LOCK_TIMEOUT_MS}. The wait for the advisory lock is
 * {@code BusyWait}'s: {@code lock_timeout} is the database's own wait, after which the wait is told
 * and goes on. Reads take no lock and see the last commit (MVCC).
 *
 * <p>Transactions are the driver's: auto-commit off at {@link #begin}, back on at commit or
 * rollback, so that a scan inside one streams with a fetch size ({@link #fetchSize}).
 */
final class PostgresDialect implements Dialect {
  @Override
  public boolean sharedByRunners() {
    return true;
  }

  /** Rows a streamed scan fetches at a time. */
  static final int FETCH_SIZE = 1_000;

  private final PostgresLocation location;
  private final String writeLock;
  private final String rowWriteLock;
  private final String wipRowWriteLock;
  /**
   * How long a statement of a row write waits for a row lock another row write holds (a counter of
   * {@code structures}, the usage totals) before the write fails: such a holder is another short
   * row write, which waits for nothing this one holds, so only a process stopped in the middle of
   * one makes this wait long. Not {@code BusyWait}'s slice: a wait inside a transaction is not
   * tried again.
   */
  static final int ROW_LOCK_TIMEOUT_MS = 60_000;

  PostgresDialect(PostgresLocation location) {
    this.location = location;
    String state = Locks.key(location.schema()) + ")";
    this.writeLock = "SELECT pg_advisory_xact_lock(" + Locks.WRITE + ", " + state;
    String rows = "SELECT pg_advisory_xact_lock_shared(" + Locks.WRITE + ", " + state;
    String rowWait = "SET LOCAL lock_timeout = " + ROW_LOCK_TIMEOUT_MS;
    this.rowWriteLock = rows + "; " + rowWait;
    this.wipRowWriteLock = rows + "; SELECT pg_advisory_xact_lock(" + Locks.WIP + ", " + state + "; " + rowWait;
  }

  @Override
  public String description() {
    return description(location);
  }

  static String description(PostgresLocation location) {
    return "state database " + location.display();
  }

  @Override
  public void begin(Connection connection) throws SQLException {
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      st.execute(writeLock);
    } catch (SQLException e) {
      rollback(connection); // lock_timeout: no transaction is left open for the next try
      throw e;
    }
  }

  /**
   * The shared form of the write lock (and, with {@code wip}, the WIP lock), within the session's
   * {@code lock_timeout} like {@link #begin}; then a longer wait for the row locks of the rest of
   * the transaction ({@link #ROW_LOCK_TIMEOUT_MS}).
   */
  @Override
  public void beginRowWrite(Connection connection, boolean wip) throws SQLException {
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      st.execute(wip ? wipRowWriteLock : rowWriteLock);
    } catch (SQLException e) {
      rollback(connection);
      throw e;
    }
  }

  @Override
  public void commit(Connection connection) throws SQLException {
    connection.commit();
    connection.setAutoCommit(true);
  }

  @Override
  public void rollback(Connection connection) throws SQLException {
    SQLException failure = null;
    try {
      connection.rollback();
    } catch (SQLException e) {
      failure = e;
    }
    try {
      connection.setAutoCommit(true);
    } catch (SQLException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** lock_not_available: {@code lock_timeout} passed while another session held the lock. */
  @Override
  public boolean busy(SQLException e) {
    return "55P03".equals(e.getSQLState());
  }

  @Override
  public void busyTimeout(Connection connection, int ms) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("SET lock_timeout = " + ms);
    }
  }

  @Override
  public String classified(SQLException e) {
    return classified(location, e);
  }

  /**
   * One line for the failures a user has to act on: the server out of reach or gone, a refused
   * login, a database that does not exist, a missing privilege, a full disk on the server.
   */
  static String classified(PostgresLocation location, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String where = description(location);
    String why = firstLine(e.getMessage());
    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
      return "cannot reach the " + where + " (" + why + "); check that the server runs and accepts connections"
          + " from here, and run the command again";
    }
    if (state.equals("28P01") || state.equals("28000")) {
      return where + ": the server refused the login (" + why + "); set PGPASSWORD or put the password of "
          + location.user() + " in ~/.pgpass (or the file PGPASSFILE names)";
    }
    if (state.equals("3D000")) {
      return where + ": the database " + location.database() + " does not exist; create it (createdb "
          + location.database() + ") or name another one";
    }
    if (state.equals("42501")) {
      return where + ": permission denied (" + why + "); the user " + location.user()
          + " needs CREATE on the database (or on the schema " + location.schema() + " when it exists)";
    }
    if (state.equals("53100")) {
      return where + ": the server's disk is full, so the last change was not recorded; free space on the"
          + " database server and run the command again (everything recorded before is kept)";
    }
    return null;
  }

  /** The server's messages run over several lines (detail, hint, position): the first says it. */
  @Override
  public String message(SQLException e) {
    return firstLine(e.getMessage());
  }

  @Override
  public void committed(Connection connection) {
    // nothing to check: the server keeps its files
  }

  @Override
  public boolean writesInTransaction() {
    return true;
  }

  @Override
  public PreparedStatement prepareInsert(Connection connection, String sql) throws SQLException {
    return connection.prepareStatement(sql, new String[] {"id"}); // RETURNING id
  }

  @Override
  public long insertedId(Connection connection, PreparedStatement insert) throws SQLException {
    try (ResultSet rs = insert.getGeneratedKeys()) {
      return rs.next() ? rs.getLong(1) : -1L;
    }
  }

  @Override
  public int fetchSize() {
    return FETCH_SIZE;
  }

  @Override
  public String tagged(String column) {
    return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(CAST(" + column + " AS jsonb)) AS tag(value)"
        + " WHERE tag.value = ?)";
  }

  @Override
  public String contains(String text, String part) {
    return "strpos(" + text + ", " + part + ") > 0";
  }

  /** {@link #clockMillis()}: the time of the statement's execution, not of its transaction's start. */
  static final String CLOCK_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

  @Override
  public String clockMillis() {
    return CLOCK_MS;
  }

  @Override
  public int schemaVersion(Jdbc jdbc) {
    return PostgresSchema.version(jdbc, location.schema());
  }

  @Override
  public int latestSchemaVersion() {
    return PostgresSchema.latest();
  }

  /** The first PostgreSQL schema has everything SQLite's took nine to build. */
  @Override
  public boolean has(Feature feature, int schemaVersion) {
    return schemaVersion >= 1;
  }

  @Override
  public boolean hasColumn(Jdbc jdbc, String table, String column) {
    return jdbc.queryLong("""
        SELECT COUNT(*) FROM information_schema.columns
         WHERE table_schema = ? AND table_name = ? AND column_name = ?""", location.schema(), table, column) > 0;
  }

  @Override
  public long bytes(Jdbc jdbc) {
    return PostgresSchema.bytes(jdbc, location.schema());
  }

  /**
   * The schema's tables, indexes and TOAST as the file bytes, in pages of the server's block size.
   * No WAL of its own (the server's is shared by every database) and no free-page count: space
   * that VACUUM FULL would give back is not known without reading every table.
   */
  @Override
  public DatabaseFigures figures(Jdbc jdbc) {
    long bytes = bytes(jdbc);
    long pageSize = jdbc.queryLong("SELECT CAST(current_setting('block_size') AS bigint)");
    return new DatabaseFigures(bytes, 0, pageSize, pageSize == 0 ? 0 : bytes / pageSize, 0);
  }

  /**
   * {@code VACUUM FULL} of the schema's tables: each rewritten down to its live rows and its
   * indexes rebuilt, the space given back to the file system. It runs outside a transaction (VACUUM
   * cannot run in one) under the session form of the write lock, so that writers wait for it rather
   * than for the tables' exclusive locks; readers wait for one table at a time.
   */
  @Override
  public StateStore.Vacuum vacuum(Jdbc jdbc) {
    long before = bytes(jdbc);
    List<String> tables = jdbc.query("""
        SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY c.relname""", rs -> rs.getString(1), location.schema());
    if (tables.isEmpty()) {
      return new StateStore.Vacuum(before, before);
    }
    String lockArgs = "(" + Locks.WRITE + ", " + Locks.key(location.schema()) + ")";
    StringBuilder vacuum = new StringBuilder("VACUUM (FULL, ANALYZE) ");
    for (int i = 0; i < tables.size(); i++) {
      vacuum.append(i == 0 ? "" : ", ").append('"').append(location.schema()).append("\".\"")
          .append(tables.get(i).replace("\"", "\"\"")).append('"');
    }
    try (Statement st = jdbc.connection().createStatement()) {
      st.execute("SELECT pg_advisory_lock" + lockArgs);
      try {
        st.execute(vacuum.toString());
      } finally {
        st.execute("SELECT pg_advisory_unlock" + lockArgs);
      }
    } catch (SQLException e) {
      throw jdbc.failure("VACUUM FULL", e);
    }
    return new StateStore.Vacuum(before, bytes(jdbc));
  }

  static String firstLine(String message) {
    String s = String.valueOf(message).strip();
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl).strip();
  }

  /** A failure to connect, as the exception to throw. */
  static StoreException connectFailure(PostgresLocation location, SQLException e) {
    String classified = classified(location, e);
    return new StoreException(classified != null ? classified
        : "cannot open the " + description(location) + ": " + firstLine(e.getMessage()), e);
  }
}
