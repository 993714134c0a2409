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
 * <p><b>One writer at a time.</b> Every write transaction takes one transaction-scoped advisory
 * lock first ({@code pg_advisory_xact_lock} on {@link Locks#WRITE} and the schema's key), and so
 * does every write outside a transaction ({@link #writesInTransaction}): writes to one state are
 * serialized across processes exactly as SQLite's file lock serializes them. That is what keeps
 * the store's read-modify-write logic correct — the next {@code seq} as {@code MAX(seq) + 1}, the
 * "is it already there" checks of follow-ups, the counters in {@code structures} — without
 * rewriting it for concurrent writers, and without serialization failures to retry. The price is
 * the same as on SQLite: two runners never write at once, even to different items; a write waits
 * for the one in progress (per {@code BusyWait}: {@code lock_timeout} is the database's own wait,
 * after which the wait is told and goes on). Reads take no lock and see the last commit (MVCC).
 * Several runners writing truly in parallel is for a later step (item leases, row versions: the
 * {@code lease_owner} and {@code version} columns).
 *
 * <p>Transactions are the driver's: auto-commit off at {@link #begin}, back on at commit or
 * rollback, so that a scan inside one streams with a fetch size ({@link #fetchSize}).
 */
final class PostgresDialect implements Dialect {
  /** Rows a streamed scan fetches at a time. */
  static final int FETCH_SIZE = 1_000;

  private final PostgresLocation location;
  private final String writeLock;

  PostgresDialect(PostgresLocation location) {
    this.location = location;
    this.writeLock = "SELECT pg_advisory_xact_lock(" + Locks.WRITE + ", " + Locks.key(location.schema()) + ")";
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
  public void committed() {
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
