package dev.orchestrate.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A process that holds a SQLite database's write lock: {@code HoldWriteLock DB SECONDS READY}
 * begins an IMMEDIATE transaction, creates the file READY, sleeps, and commits. What an agent
 * with access to the state directory can do to a run (a sqlite3 shell left open in a transaction).
 */
public final class HoldWriteLock {
  private HoldWriteLock() {
  }

  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0]); Statement st = c.createStatement()) {
      st.execute("BEGIN IMMEDIATE");
      Files.writeString(Path.of(args[2]), Long.toString(ProcessHandle.current().pid()));
      Thread.sleep(Long.parseLong(args[1]) * 1000);
      st.execute("COMMIT");
    }
  }
}
