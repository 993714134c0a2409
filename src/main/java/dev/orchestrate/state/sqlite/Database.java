package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.sql.Jdbc;
import dev.orchestrate.state.sql.JobLogPaths;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteOpenMode;
import org.sqlite.jdbc4.JDBC4Connection;

/**
 * Opens the state database: WAL (readers never block the runner), a busy timeout (short waits
 * instead of "database is locked"), foreign keys on, and forward-only migrations keyed by
 * {@code PRAGMA user_version}.
 */
public final class Database {
  /** Migration scripts in order; script N brings the schema to user_version N. */
  private static final List<String> MIGRATIONS = List.of("V1__initial.sql", "V2__memory.sql", "V3__turns.sql",
      "V4__item_origin.sql", "V5__structures.sql", "V6__retention.sql", "V7__relative_job_paths.sql",
      "V8__job_usage.sql", "V9__workspaces.sql", "V10__outcomes.sql",
      "V11__verified_work.sql", "V12__landed_commits.sql", "V13__notifications.sql", "V14__push.sql",
      "V15__review.sql", "V16__checks.sql", "V17__review_decisions.sql",
      "V18__checks_resume.sql", "V19__read_indexes.sql", "V20__landing.sql", "V21__workspace_place.sql",
      "V22__jobs_by_agent.sql", "V23__backlog_hooks.sql", "V24__review_feedback.sql");
  static final int BUSY_TIMEOUT_MS = BusyWait.PATIENCE_MS;

  private Database() {
  }

  public static int latestSchemaVersion() {
    return MIGRATIONS.size();
  }

  /**
   * Opens the database for bulk maintenance (compaction, imports): the same settings, plus a
   * memory-mapped read path and a larger page cache, which shorten a million-row DELETE (and so
   * the time a concurrent run waits for the write lock) by about a third on our measurements.
   */
  static Connection openForMaintenance(Path file) {
    Connection connection = open(file);
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA mmap_size = " + MAINTENANCE_MMAP_BYTES);
      st.execute("PRAGMA cache_size = -" + MAINTENANCE_CACHE_KIB);
      return connection;
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new StoreException(describe(file, e), e);
    }
  }

  static final long MAINTENANCE_MMAP_BYTES = 1L << 30;
  static final int MAINTENANCE_CACHE_KIB = 65_536;
  /** The page cache of every connection, 64 MiB at most (see {@link #connect}). */
  static final int WRITE_CACHE_KIB = 65_536;

  /** Opens (creating if needed) and migrates the database at {@code file}. */
  static Connection open(Path file) {
    try {
      new StateDirectory(file.toAbsolutePath().getParent()).create();
    } catch (IOException e) {
      throw new StoreException("cannot create the state directory " + file.getParent() + ": " + e.getMessage(), e);
    }
    Connection connection = connect(file);
    try {
      migrate(connection, file);
      return connection;
    } catch (RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /**
   * Opens an existing database for reading only: no migration, no PRAGMA that writes, and no
   * file created next to it, so a dry run leaves the state byte for byte as it found it. While a
   * WAL file exists (a run or a command has the database open, or one crashed), the connection is
   * an ordinary read-only one that shares the WAL index and so sees every commit. Without one,
   * every committed page is in the main file, and the file is opened {@code immutable}: a
   * read-only connection would create the {@code -wal} and {@code -shm} files and, unable to
   * write, leave them behind. A run starting meanwhile writes to a new WAL, not to the main
   * file, until its first checkpoint (1,000 pages, or its end), so a read of a few milliseconds
   * stays consistent; it just does not see that run. Left alone: a {@code -wal} left without its
   * {@code -shm} (a crash, or a copied state) is read the ordinary way, which recreates the
   * {@code -shm} — reading it {@code immutable} would miss the commits in that WAL.
   *
   * @throws StoreException when the schema is newer than this orchestrate knows
   */
  static Connection openReadOnly(Path file) {
    boolean walPresent = Files.exists(file.resolveSibling(file.getFileName() + "-wal"));
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(BUSY_TIMEOUT_MS);
    Connection connection;
    try {
      connection = connection(config, "jdbc:sqlite:" + file.toAbsolutePath().toUri()
          + (walPresent ? "?mode=ro" : "?immutable=1"));
    } catch (SQLException e) {
      throw new StoreException(describe(file, e), e);
    }
    try {
      int version = schemaVersion(connection, file);
      if (version > MIGRATIONS.size()) {
        throw newerSchema(file, version);
      }
      if (version == 0) {
        closeQuietly(connection);
        return nothingRecorded(file);
      }
      return connection;
    } catch (RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /**
   * What a database at schema 0 holds: nothing. A run killed while it created the state leaves the
   * file without a table (the first migration commits its tables and the version together), and a
   * reader meeting it would fail on "no such table". It reads an empty database of today's schema
   * in memory instead, made read-only, exactly as it would read a state where nothing was recorded
   * yet; the file stays as it is, for the next run to create.
   */
  /** Whether {@code connection} is {@link #nothingRecorded}'s: it reads no file, so no file is watched. */
  static boolean inMemory(Connection connection) {
    // The connection's own URL, as its metadata would give it: the metadata class's initialisation
    // (regular expressions) cost every command about 1 ms.
    return connection instanceof SQLiteConnection sqlite && IN_MEMORY.equals(sqlite.getUrl());
  }

  private static final String IN_MEMORY = "jdbc:sqlite::memory:";

  private static Connection nothingRecorded(Path file) {
    Connection memory;
    try {
      memory = connection(new SQLiteConfig(), IN_MEMORY);
    } catch (SQLException e) {
      throw new StoreException(describe(file, e), e);
    }
    try {
      migrate(memory, file);
      try (Statement st = memory.createStatement()) {
        st.execute("PRAGMA query_only = 1");
      }
      return memory;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(memory);
      throw e instanceof StoreException se ? se : new StoreException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** {@code PRAGMA user_version}: the number of migrations applied. */
  static int schemaVersion(Connection connection, Path file) {
    try (Statement st = connection.createStatement(); var rs = st.executeQuery("PRAGMA user_version")) {
      return rs.next() ? rs.getInt(1) : 0;
    } catch (SQLException e) {
      throw new StoreException(describe(file, e), e);
    }
  }

  private static StoreException newerSchema(Path file, int version) {
    return new StoreException("state database " + file + " has schema version " + version
        + ", newer than this orchestrate knows (" + MIGRATIONS.size() + "); upgrade orchestrate");
  }

  /**
   * {@link #connect}, but never creating the file: for a connection beside the one that opened it
   * (a file deleted meanwhile is an error, not a new empty database).
   */
  static Connection connectExisting(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.resetOpenMode(SQLiteOpenMode.CREATE);
    config.setBusyTimeout(BUSY_TIMEOUT_MS);
    return connection(config, "jdbc:sqlite:" + file.toAbsolutePath());
  }

  /**
   * The connection {@code config.createConnection(url)} makes, without sqlite-jdbc's driver class:
   * its initialisation registers the driver with {@code DriverManager}, which spins method-handle
   * classes no start-up archive holds and cost every short command 1-2 ms (docs/benchmarks.md).
   * Nothing here looks SQLite up through {@code DriverManager}. {@code url} is one of ours, always
   * {@code jdbc:sqlite:...}; it is trimmed as the driver trims it.
   */
  static Connection connection(SQLiteConfig config, String url) throws SQLException {
    String trimmed = url.trim();
    return new JDBC4Connection(trimmed, trimmed.substring(JDBC_PREFIX.length()), config.toProperties());
  }

  private static final String JDBC_PREFIX = "jdbc:sqlite:";

  private static Connection connect(Path file) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    // NORMAL is durable against a crash of this process in WAL mode (only power loss can lose the
    // last commits), and avoids an fsync per state change.
    config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
    config.setBusyTimeout(BUSY_TIMEOUT_MS);
    config.enforceForeignKeys(true);
    // Take the write lock when a transaction begins, not at its first write: a transaction that
    // reads first and then writes would otherwise fail at once with SQLITE_BUSY (the busy
    // timeout cannot help an upgrade) whenever another connection - `compact` or `memory` next
    // to a `run` - wrote in between.
    config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    // A larger page cache for a large transaction (the first sync of a million backlog items writes
    // some 200 MB): once SQLite spills dirty pages into the WAL, every later page read searches the
    // WAL's index, and the transaction turns superlinear (1,000,000 items: 23 s of CPU with the
    // default 2 MiB, 16 s with 64 MiB; docs/benchmarks.md, "A million backlog items"). Pages are
    // allocated as they are used, so a small state costs what it did; 64 MiB is what a run may then
    // hold outside the heap. Statement journals (an INSERT whose trigger counts the row) stay in
    // memory for the same reason.
    config.setCacheSize(-WRITE_CACHE_KIB);
    config.setTempStore(SQLiteConfig.TempStore.MEMORY);
    try {
      return connection(config, "jdbc:sqlite:" + file.toAbsolutePath());
    } catch (SQLException e) {
      throw new StoreException(describe(file, e), e);
    }
  }

  /**
   * Applies the missing migrations, each in its own transaction, like every other write: a lock
   * held by another process is waited out, and the version is read again under the lock, so two
   * processes opening an old state at once migrate it once.
   */
  private static void migrate(Connection connection, Path file) {
    int version = schemaVersion(connection, file);
    if (version > MIGRATIONS.size()) {
      throw newerSchema(file, version);
    }
    if (version == MIGRATIONS.size()) {
      return;
    }
    Jdbc jdbc = new Jdbc(connection, new SqliteDialect(file, !inMemory(connection)));
    for (int v = version; v < MIGRATIONS.size(); v++) {
      int next = v;
      jdbc.inTransaction(() -> {
        if (schemaVersion(connection, file) > next) {
          return; // migrated by another process meanwhile
        }
        for (String sql : statements(load(MIGRATIONS.get(next)))) {
          jdbc.execute(sql);
        }
        try {
          codeStep(MIGRATIONS.get(next), connection, file);
        } catch (SQLException e) {
          throw jdbc.failure(MIGRATIONS.get(next), e);
        }
        jdbc.execute("PRAGMA user_version = " + (next + 1));
      });
    }
  }

  /** The part of a migration SQL cannot do, in the migration's transaction. */
  private static void codeStep(String migration, Connection connection, Path file) throws SQLException {
    if (migration.equals("V7__relative_job_paths.sql")) {
      relativizeJobLogPaths(connection, file.toAbsolutePath().getParent());
    }
  }

  /**
   * The code half of migration 7, in its transaction: every absolute {@code log_path} becomes
   * relative to {@code root}, the state directory the database is opened from (a copy's rows,
   * which named the original's directories, now name the copy's own); see {@link JobLogPaths}.
   */
  static void relativizeJobLogPaths(Connection connection, Path root) throws SQLException {
    List<Long> ids = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(
        "SELECT id, log_path FROM jobs WHERE log_path LIKE '/%'"); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String now = rs.getString(2);
        String stored;
        try {
          stored = JobLogPaths.relative(root, Path.of(now));
        } catch (InvalidPathException e) {
          continue;
        }
        if (!stored.equals(now)) {
          ids.add(rs.getLong(1));
          paths.add(stored);
        }
      }
    }
    try (PreparedStatement ps = connection.prepareStatement("UPDATE jobs SET log_path = ? WHERE id = ?")) {
      for (int i = 0; i < ids.size(); i++) {
        ps.setString(1, paths.get(i));
        ps.setLong(2, ids.get(i));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  static List<String> statements(String script) {
    StringBuilder body = new StringBuilder();
    for (String line : script.split("\n")) {
      int comment = line.indexOf("--");
      body.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
    }
    List<String> out = new ArrayList<>();
    StringBuilder statement = new StringBuilder();
    for (String part : body.toString().split(";")) {
      statement.append(part);
      String text = statement.toString().strip();
      // A trigger's body has statements of its own: it ends at its END, not at the first ';'.
      if (text.toUpperCase(java.util.Locale.ROOT).startsWith("CREATE TRIGGER")
          && !text.toUpperCase(java.util.Locale.ROOT).endsWith("END")) {
        statement.append(';');
        continue;
      }
      if (!text.isEmpty()) {
        out.add(text);
      }
      statement.setLength(0);
    }
    return out;
  }

  private static String load(String name) {
    try (InputStream in = Database.class.getResourceAsStream("/db/migration/" + name)) {
      if (in == null) {
        throw new StoreException("migration " + name + " is missing from the build");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read migration " + name + ": " + e.getMessage(), e);
    }
  }

  static String describe(Path file, SQLException e) {
    String classified = classified(file, e);
    return classified != null ? classified : "state database " + file + ": " + e.getMessage();
  }

  /**
   * One line for the failures a user has to act on, saying what happened and where; null for
   * the others. SQLite reports a full file system (or a database at its size limit) as
   * SQLITE_FULL, a failed read or write (a file size limit, a disk gone) as SQLITE_IOERR_*, and a
   * database file deleted or moved while open as SQLITE_READONLY_DBMOVED.
   */
  static String classified(Path file, SQLException e) {
    String msg = String.valueOf(e.getMessage());
    String code = e instanceof org.sqlite.SQLiteException s && s.getResultCode() != null
        ? s.getResultCode().name() : "";
    String where = file == null ? "the state database" : "state database " + file;
    Path dir = file == null ? null : file.toAbsolutePath().getParent();
    if (code.startsWith("SQLITE_FULL") || msg.contains("database or disk is full")) {
      return where + ": the disk is full (or the database reached its size limit), so the last change was not"
          + " recorded; free space on the file system holding " + (dir == null ? "it" : dir)
          + " and run the command again (everything recorded before is kept)";
    }
    if (code.startsWith("SQLITE_IOERR") || msg.contains("disk I/O error")) {
      return where + ": disk I/O error (" + (code.isEmpty() ? "SQLITE_IOERR" : code) + "), so the last change was"
          + " not recorded; check the file system holding " + (dir == null ? "it" : dir)
          + " (full? a file size limit? read-only? unmounted?) and run the command again";
    }
    if (code.equals("SQLITE_READONLY_DBMOVED")) {
      return where + " was moved or deleted while in use (an agent with write access to the state directory?);"
          + " keep agents out of it, and restore the state directory from a copy or " + StateDirectory.ELSEWHERE;
    }
    if (msg.contains("SQLITE_NOTADB") || msg.contains("not a database")) {
      return where + " is not a SQLite database; move it away or " + StateDirectory.ELSEWHERE;
    }
    if (msg.contains("SQLITE_CANTOPEN")) {
      return "cannot open the " + where + " (check the directory exists and is writable)";
    }
    return null;
  }

  /**
   * Rewrites the database with {@code VACUUM} and truncates the WAL, so the file shrinks to its
   * live pages. Plain VACUUM rather than VACUUM INTO + swap (a running `run` keeps its handle on
   * the old file, so a swap would lose its writes) or auto_vacuum=INCREMENTAL (it must be chosen
   * before the tables exist, costs bookkeeping on every commit, and fragments the file). VACUUM
   * is an ordinary write transaction: a concurrent run waits for it within its busy timeout.
   *
   * @return the bytes of the database file plus its WAL, before and after
   */
  static long[] vacuum(Path file) {
    long before = bytes(file);
    try (Connection connection = connect(file); Statement st = connection.createStatement()) {
      st.executeUpdate("VACUUM");
      st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (SQLException e) {
      throw new StoreException(describe(file, e), e);
    }
    return new long[] {before, bytes(file)};
  }

  /** The database file plus its WAL, in bytes. */
  static long bytes(Path file) {
    return size(file) + size(file.resolveSibling(file.getFileName() + "-wal"));
  }

  private static long size(Path file) {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // nothing useful to do; the process is failing anyway
    }
  }
}
