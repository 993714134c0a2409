package dev.orchestrate.state.sql;

import dev.orchestrate.state.StateStore;
import dev.orchestrate.stats.DatabaseFigures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What differs between the databases the store code of this package runs on, for one opened state
 * database (an instance may hold what it checks after each commit). Everything else — the tables,
 * the columns, the statements — is shared: SQL both SQLite and PostgreSQL accept.
 *
 * <p>Implemented by {@code state.sqlite} and {@code state.postgres}; the code here calls it through
 * {@link Jdbc} (transactions, waits, failures, new row ids) and for the few queries that differ.
 */
public interface Dialect {
  /** What a schema older than the latest may lack; a backend whose first schema has it all has every one. */
  enum Feature {
    /** {@code items.origin}: follow-up items (SQLite schema 4). */
    ITEM_ORIGINS,
    /** The {@code structures} table: counters and recorded policies (SQLite schema 5). */
    STRUCTURES,
    /** What the dashboard reads: stats samples and run bounds (SQLite schema 6). */
    DASHBOARD
  }

  /** Whether several runners share the database (a {@code runners} table, jobs with a runner). */
  default boolean sharedByRunners() {
    return false;
  }

  /** How messages name the database: {@code state database /path/state.db}. */
  String description();

  /**
   * Begins a write transaction and takes the database's write lock, so that two processes never
   * interleave their read-modify-write transactions.
   */
  void begin(Connection connection) throws SQLException;

  /**
   * Begins a write transaction that writes only rows it may write alone, each write conditional on
   * what it read of that row (see {@link Jdbc#inRowTransaction}): it needs to exclude the
   * transactions of {@link #begin}, not the other row writes; with {@code wip}, it also excludes the
   * other row writes with {@code wip}. A database with one lock for all (SQLite) takes it: the
   * default.
   */
  default void beginRowWrite(Connection connection, boolean wip) throws SQLException {
    begin(connection);
  }

  void commit(Connection connection) throws SQLException;

  /** Rolls back; a transaction the database already rolled back (SQLite after a full disk) is no failure. */
  void rollback(Connection connection) throws SQLException;

  /** Whether {@code e} says another process holds the lock: waited out per {@code BusyWait} and tried again. */
  boolean busy(SQLException e);

  /** How long the database itself waits for a lock before it answers {@link #busy}. */
  void busyTimeout(Connection connection, int ms) throws SQLException;

  /**
   * One line for the failures a user has to act on (a full disk, an I/O error, a file moved away, a
   * server out of reach), saying what happened and where; null for the others.
   */
  String classified(SQLException e);

  /** The driver's message, as one line. */
  default String message(SQLException e) {
    return String.valueOf(e.getMessage());
  }

  /**
   * After each commit on {@code connection} (the one this dialect serves): the check that the
   * database is still the one opened, and what a {@link #bulkWritten} left to do.
   */
  void committed(Connection connection);

  /**
   * Said inside the transaction of a bulk write (a first sync of thousands of items), before it
   * commits: SQLite leaves copying its write-ahead log into the database to a thread of its own
   * instead of doing it in this commit (see {@code SqliteDialect}). Nothing by default.
   */
  default void bulkWritten(Connection connection) throws SQLException {
  }

  /**
   * Before {@code connection} (the one this dialect serves) closes: what this dialect still does with
   * the database in the background ends first, so that a closed store writes no file after it.
   * Nothing by default.
   */
  default void closing(Connection connection) {
  }

  /**
   * Whether a write outside a transaction runs in a transaction of its own anyway, to take the
   * write lock {@link #begin} takes (PostgreSQL); SQLite's file lock covers it by itself.
   */
  boolean writesInTransaction();

  /** Prepares an INSERT whose new row id {@link #insertedId} reads. */
  PreparedStatement prepareInsert(Connection connection, String sql) throws SQLException;

  /** The id of the row the INSERT prepared by {@link #prepareInsert}, just executed, created. */
  long insertedId(Connection connection, PreparedStatement insert) throws SQLException;

  /**
   * Rows a streamed scan ({@link Jdbc#forEach}) fetches at a time, or 0 when the driver streams by
   * itself (SQLite); PostgreSQL's driver streams only inside a transaction, with a fetch size.
   */
  int fetchSize();

  /** A condition that the JSON array of strings in {@code column} holds the one parameter it takes. */
  String tagged(String column);

  /** A condition that the text {@code text} contains the text {@code part} (SQL expressions both). */
  String contains(String text, String part);

  /**
   * A condition that the text {@code text} contains the text {@code part} ignoring case as the
   * database's {@code lower} does (SQL expressions both): {@link #contains} of both lowered, unless
   * the backend has a cheaper way to the same answer.
   */
  default String containsIgnoringCase(String text, String part) {
    return contains("lower(" + text + ")", "lower(" + part + ")");
  }

  /**
   * The database server's clock now, in epoch milliseconds, as an SQL expression: runners on
   * machines whose clocks disagree still agree on whose heartbeat is old.
   */
  String clockMillis();

  /** The schema version of the database as found; 0 when nothing was ever written to it. */
  int schemaVersion(Jdbc jdbc);

  /** The schema version this orchestrate writes. */
  int latestSchemaVersion();

  /** Whether a database at {@code schemaVersion} has {@code feature}. */
  boolean has(Feature feature, int schemaVersion);

  /** Whether the table {@code table} has the column {@code column}. */
  boolean hasColumn(Jdbc jdbc, String table, String column);

  /** The bytes the database takes, for the stats samples. */
  long bytes(Jdbc jdbc);

  /** The storage figures {@code stats} reports, read without a table scan. */
  DatabaseFigures figures(Jdbc jdbc);

  /** Rewrites the storage down to its live data; the bytes before and after. */
  StateStore.Vacuum vacuum(Jdbc jdbc);
}
