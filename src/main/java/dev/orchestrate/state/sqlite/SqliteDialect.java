package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.sql.Dialect;
import dev.orchestrate.state.sql.Jdbc;
import dev.orchestrate.stats.DatabaseFigures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * SQLite as the shared store code needs it, for one database file: {@code BEGIN IMMEDIATE} takes
 * the file's write lock when a transaction begins, {@code SQLITE_BUSY} is waited out, failures are
 * told as {@link Database#classified} says, and after each commit {@link DatabaseFile} checks that
 * the file is still the one opened.
 */
final class SqliteDialect implements Dialect {
  /** The schema that added follow-up origins to items. */
  private static final int ORIGIN_SCHEMA = 4;
  /** The schema that added the structures table (counters and recorded policies). */
  private static final int STRUCTURES_SCHEMA = 5;

  private final Path file;
  private final DatabaseFile watched;

  /** For the database {@code file}, just opened: checked after each commit from now on. */
  SqliteDialect(Path file) {
    this(file, true);
  }

  /** {@code watch}: false for a store that reads no file (a state where nothing was recorded yet). */
  SqliteDialect(Path file, boolean watch) {
    this.file = file;
    this.watched = watch ? DatabaseFile.of(file) : null;
  }

  @Override
  public String description() {
    return "state database " + file;
  }

  @Override
  public void begin(Connection connection) throws SQLException {
    run(connection, "BEGIN IMMEDIATE");
  }

  /** In WAL mode a COMMIT needs no lock beyond the one BEGIN IMMEDIATE took. */
  @Override
  public void commit(Connection connection) throws SQLException {
    run(connection, "COMMIT");
  }

  /**
   * SQLite may have rolled the transaction back already (a full disk, an I/O error): then there is
   * nothing to undo, and the failure that caused it says what happened.
   */
  @Override
  public void rollback(Connection connection) throws SQLException {
    try {
      run(connection, "ROLLBACK");
    } catch (SQLException e) {
      if (!String.valueOf(e.getMessage()).contains("no transaction is active")) {
        throw e;
      }
    }
  }

  @Override
  public boolean busy(SQLException e) {
    if (e instanceof SQLiteException s && s.getResultCode() != null) {
      return (s.getResultCode().code & 0xff) == SQLiteErrorCode.SQLITE_BUSY.code; // extended codes too
    }
    return String.valueOf(e.getMessage()).contains("SQLITE_BUSY");
  }

  @Override
  public void busyTimeout(Connection connection, int ms) throws SQLException {
    run(connection, "PRAGMA busy_timeout = " + ms);
  }

  @Override
  public String classified(SQLException e) {
    return Database.classified(file, e);
  }

  @Override
  public void committed(Connection connection) {
    if (watched != null) {
      watched.check();
    }
    if (checkpoint != null) {
      checkpoint = checkpoint.committed(connection);
    }
  }

  /**
   * A bulk write's commit leaves its write-ahead log to a {@link BackgroundCheckpoint}: SQLite would
   * otherwise copy it into the database in the committing thread, fsyncs included (a first sync of
   * 1,000,000 items: a 240 MB log, about 0.5 s before the run's first agent).
   */
  @Override
  public void bulkWritten(Connection connection) throws SQLException {
    if (checkpoint == null) {
      checkpoint = BackgroundCheckpoint.defer(connection, file);
    }
  }

  /**
   * A background checkpoint still running ends before the store closes: its connection would
   * otherwise write the log into the database, and delete the log, after the store's close returned
   * (a state directory deleted or copied then was found changing under it).
   */
  @Override
  public void closing(Connection connection) {
    if (checkpoint != null) {
      checkpoint.awaitEnd(CHECKPOINT_AT_CLOSE);
    }
  }

  /** How long a close waits for a background checkpoint; a longer one goes on, and loses nothing. */
  static final Duration CHECKPOINT_AT_CLOSE = Duration.ofSeconds(30);

  /** The deferred checkpoint of the last bulk write, until the connection checkpoints itself again. */
  private BackgroundCheckpoint checkpoint;

  @Override
  public boolean writesInTransaction() {
    return false;
  }

  @Override
  public PreparedStatement prepareInsert(Connection connection, String sql) throws SQLException {
    return connection.prepareStatement(sql);
  }

  @Override
  public long insertedId(Connection connection, PreparedStatement insert) throws SQLException {
    // The statement is closed too, not only its result set: sqlite-jdbc keeps every open statement
    // registered with the connection, so one left open per insert grows the heap of a long run (the
    // soak test found ~0.2 KB per job).
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("SELECT last_insert_rowid()")) {
      return rs.next() ? rs.getLong(1) : -1L;
    }
  }

  @Override
  public int fetchSize() {
    return 0; // sqlite-jdbc steps through the rows as they are read
  }

  @Override
  public String tagged(String column) {
    return "EXISTS (SELECT 1 FROM json_each(" + column + ") WHERE value = ?)";
  }

  @Override
  public String contains(String text, String part) {
    return "instr(" + text + ", " + part + ") > 0";
  }

  /**
   * LIKE with the part's wildcards escaped: SQLite's LIKE folds ASCII case only, as its
   * {@code lower} does, so the answer is that of {@code instr(lower(text), lower(part))}, in about
   * a quarter of the time over a million titles (the dashboard's text filter scans them all).
   */
  @Override
  public String containsIgnoringCase(String text, String part) {
    return text + " LIKE '%' || replace(replace(replace(" + part + ", '\\', '\\\\'), '%', '\\%'), '_', '\\_')"
        + " || '%' ESCAPE '\\'";
  }

  @Override
  public String clockMillis() {
    return "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
  }

  @Override
  public int schemaVersion(Jdbc jdbc) {
    return Database.schemaVersion(jdbc.connection(), file);
  }

  @Override
  public int latestSchemaVersion() {
    return Database.latestSchemaVersion();
  }

  @Override
  public boolean has(Feature feature, int schemaVersion) {
    return switch (feature) {
      case ITEM_ORIGINS -> schemaVersion >= ORIGIN_SCHEMA;
      case STRUCTURES -> schemaVersion >= STRUCTURES_SCHEMA;
      case DASHBOARD -> schemaVersion >= DashboardQueries.MIN_SCHEMA;
    };
  }

  @Override
  public boolean hasColumn(Jdbc jdbc, String table, String column) {
    return !jdbc.query("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", rs -> 1, table, column).isEmpty();
  }

  /** The database file plus its WAL. */
  @Override
  public long bytes(Jdbc jdbc) {
    return Database.bytes(file);
  }

  /** The file and WAL sizes from the file system, the pages from SQLite's pragmas. */
  @Override
  public DatabaseFigures figures(Jdbc jdbc) {
    return new DatabaseFigures(size(file), size(Path.of(file + "-wal")), jdbc.queryLong("PRAGMA page_size"),
        jdbc.queryLong("PRAGMA page_count"), jdbc.queryLong("PRAGMA freelist_count"));
  }

  @Override
  public StateStore.Vacuum vacuum(Jdbc jdbc) {
    long[] bytes = Database.vacuum(file);
    return new StateStore.Vacuum(bytes[0], bytes[1]);
  }

  private static long size(Path path) {
    try {
      return Files.isRegularFile(path) ? Files.size(path) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private static void run(Connection connection, String sql) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(sql);
    }
  }
}
