package dev.orchestrate.state.postgres;

import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateLockedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Function;

/**
 * The run lease of a PostgreSQL state: a session-level advisory lock ({@link Locks#LEASE} and the
 * schema's key) held by a connection of its own until the lease is closed. One run at a time per
 * state, like SQLite's file lock: a second acquire — from another process, another host or
 * another thread of this one, each on its own session — is refused. When the process dies its
 * session ends and the server releases the lock; a host that vanishes without closing its socket
 * keeps it until the server notices the connection is dead (TCP keepalive is on).
 *
 * <p>The lease's session names itself in {@code application_name} (pid and host), so that a
 * refused run can say who holds the state.
 */
final class PostgresLease implements RunLease {
  private final Connection connection;
  private final int key;

  private PostgresLease(Connection connection, int key) {
    this.connection = connection;
    this.key = key;
  }

  /**
   * Takes the lease on a connection {@code connect} opens with the given application name.
   *
   * @throws StateLockedException when another session holds it
   */
  static PostgresLease acquire(PostgresLocation location, Function<String, Connection> connect, String holder) {
    int key = Locks.key(location.schema());
    Connection connection = connect.apply(holder);
    try {
      boolean taken;
      try (Statement st = connection.createStatement();
          ResultSet rs = st.executeQuery("SELECT pg_try_advisory_lock(" + Locks.LEASE + ", " + key + ")")) {
        taken = rs.next() && rs.getBoolean(1);
      }
      if (!taken) {
        String who = holderOf(connection, key);
        throw new StateLockedException(PostgresDialect.description(location) + " is in use by another run ("
            + who + "); wait for it to finish or stop it first");
      }
      return new PostgresLease(connection, key);
    } catch (SQLException e) {
      close(connection);
      throw PostgresDialect.connectFailure(location, e);
    } catch (RuntimeException e) {
      close(connection);
      throw e;
    }
  }

  /** Whether any session holds the lease of {@code schema} now, as {@code pg_locks} shows it. */
  static boolean held(Connection connection, String schema) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(holderQuery(Locks.key(schema)))) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static String holderQuery(int key) {
    return "SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted"
        + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        + " AND l.classid = " + Locks.LEASE + " AND l.objid = " + key + " AND l.objsubid = 2";
  }

  /** The holder's session as {@code pg_stat_activity} shows it: its application name and since when. */
  private static String holderOf(Connection connection, int key) {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("SELECT a.application_name, a.backend_start FROM pg_stat_activity a"
            + " WHERE a.pid = (" + holderQuery(key) + " LIMIT 1)")) {
      if (rs.next()) {
        String name = rs.getString(1);
        java.sql.Timestamp since = rs.getTimestamp(2);
        return (name == null || name.isEmpty() ? "a session" : name)
            + (since == null ? "" : ", connected since " + since.toInstant());
      }
    } catch (SQLException e) {
      // who it is only adorns the message
    }
    return "holder unknown";
  }

  @Override
  public void close() {
    try (Statement st = connection.createStatement()) {
      st.execute("SELECT pg_advisory_unlock(" + Locks.LEASE + ", " + key + ")");
    } catch (SQLException e) {
      // closing the session releases it all the same
    }
    close(connection);
  }

  private static void close(Connection connection) {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // the server releases a closed session's locks
    }
  }
}
