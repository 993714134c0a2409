package dev.orchestrate.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real PostgreSQL server per test JVM (zonky's embedded PostgreSQL 17: no server installed),
 * started when a test first asks for it and stopped by a shutdown hook. Tests stay independent by
 * taking a schema of their own ({@link #freshSchema}) in the {@code postgres} database, where the
 * user {@code postgres} logs in without a password.
 */
public final class EmbeddedPostgresServer {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static EmbeddedPostgres server;
  private static Path dataDirectory;

  private EmbeddedPostgresServer() {
  }

  /** The server, started on first use. */
  public static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        Path data = Files.createTempDirectory("orchestrate-test-pg");
        server = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(true)
            // the default 10 s is tight for initdb and a first start on a busy 2-core machine
            .setPGStartupWait(Duration.ofSeconds(60))
            // A server no test crashes, in a directory that goes with the JVM: nothing to flush to
            // disk, and no whole pages in its log after a checkpoint (12 % less of the server's CPU
            // in ConcurrentDecisionsPostgresTest, where the server is three quarters of the CPU).
            .setServerConfig("fsync", "off").setServerConfig("full_page_writes", "off").start();
        dataDirectory = data;
        watchdog(data);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
      }
      EmbeddedPostgres started = server;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          started.close();
        } catch (IOException e) {
          // the JVM is going away; its temporary directory goes with the next start
        }
      }, "embedded-postgres-stop"));
    }
    return server;
  }

  /**
   * pg_ctl detaches the server from this JVM, so a JVM killed with SIGKILL (no shutdown hooks: a
   * test run interrupted hard, a fork timed out) would leave it running. A small shell loop in a
   * session of its own waits for this JVM to go, then stops the server at once (SIGQUIT to the
   * postmaster) and removes its data directory; on a normal exit the shutdown hook has stopped the
   * server first and the loop finds nothing left to do. Without {@code setsid} (not Linux) there
   * is no watchdog.
   */
  private static void watchdog(Path data) throws IOException {
    if (!Files.isExecutable(Path.of("/usr/bin/setsid")) && !Files.isExecutable(Path.of("/bin/setsid"))) {
      return;
    }
    String dir = data.toString().replace("'", "'\\''");
    String script = "while kill -0 " + ProcessHandle.current().pid() + " 2>/dev/null; do sleep 1; done; "
        + "pid=$(head -n 1 '" + dir + "/postmaster.pid' 2>/dev/null) && kill -QUIT \"$pid\" 2>/dev/null; "
        + "sleep 2; rm -rf '" + dir + "'";
    new ProcessBuilder("setsid", "sh", "-c", script).redirectInput(ProcessBuilder.Redirect.from(new java.io.File(
        "/dev/null"))).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  /** The server's data directory (started on first use). */
  static synchronized Path dataDirectory() {
    server();
    return dataDirectory;
  }

  /** A schema name no test of this JVM used before (it does not exist yet). */
  public static String freshSchema(String prefix) {
    return prefix + "_" + SCHEMAS.incrementAndGet();
  }

  /** The state location of {@code schema} in the server's {@code postgres} database. */
  public static String location(String schema) {
    return "postgresql://postgres@localhost:" + server().getPort() + "/postgres?schema=" + schema;
  }

  /** A connection of its own to the {@code postgres} database, as a user with psql would have. */
  public static Connection connect() throws SQLException {
    return server().getPostgresDatabase().getConnection();
  }

  /** Runs {@code sql} in {@code schema} on a connection of its own (as psql would, beside the test's runners). */
  public static void execute(String schema, String sql) {
    try (Connection c = connect(); java.sql.Statement st = c.createStatement()) {
      st.execute("SET search_path TO \"" + schema + "\"");
      st.execute(sql);
    } catch (SQLException e) {
      throw new AssertionError(sql, e);
    }
  }

  /** The first column of the first row {@code sql} reads in {@code schema}, as text; null for none. */
  public static String text(String schema, String sql) {
    try (Connection c = connect(); java.sql.Statement st = c.createStatement()) {
      st.execute("SET search_path TO \"" + schema + "\"");
      try (java.sql.ResultSet rs = st.executeQuery(sql)) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new AssertionError(sql, e);
    }
  }
}
