package dev.orchestrate.state.sqlite;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

/** State databases as an older orchestrate left them: the first N migrations, in WAL mode, closed. */
public final class OldSchemas {
  private static final List<String> SCRIPTS = List.of("V1__initial.sql", "V2__memory.sql", "V3__turns.sql",
      "V4__item_origin.sql", "V5__structures.sql", "V6__retention.sql", "V7__relative_job_paths.sql",
      "V8__job_usage.sql", "V9__workspaces.sql", "V10__outcomes.sql");

  private OldSchemas() {
  }

  /** Creates {@code file} at schema {@code version} and runs {@code sql} (statements separated by ';') on it. */
  public static void create(Path file, int version, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("PRAGMA journal_mode = WAL")) {
        rs.next();
      }
      for (String script : SCRIPTS.subList(0, version)) {
        try (InputStream in = OldSchemas.class.getResourceAsStream("/db/migration/" + script)) {
          for (String statement : Database.statements(new String(in.readAllBytes(), StandardCharsets.UTF_8))) {
            st.executeUpdate(statement);
          }
        }
      }
      st.executeUpdate("PRAGMA user_version = " + version);
      for (String statement : Database.statements(sql)) {
        st.executeUpdate(statement);
      }
    }
  }
}
