package dev.orchestrate.state.postgres;

import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.sql.Jdbc;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The state's schema in the database and its forward-only migrations: the scripts under
 * {@code src/main/resources/db/postgres}, numbered on their own ({@code V1__…}), recorded in the
 * schema's own {@code schema_version} table (one row per script applied, with when). Each script
 * runs in its own transaction, which takes the state's write lock first like every write
 * ({@link PostgresDialect}): two processes opening a new state at once serialize there, and the
 * second finds the version moved on (read again under the lock) and applies nothing. A state at a
 * version newer than this orchestrate knows is refused, read-only or not.
 */
final class PostgresSchema {
  /** Migration scripts in order; script N brings the schema to version N. */
  private static final List<String> MIGRATIONS = List.of("V1__initial.sql", "V2__outcomes.sql",
      "V3__verified_work.sql", "V4__landed_commits.sql", "V5__notifications.sql", "V6__push.sql",
      "V7__review.sql", "V8__checks.sql", "V9__review_decisions.sql",
      "V10__checks_resume.sql", "V11__read_indexes.sql", "V12__landing.sql", "V13__checkouts.sql",
      "V14__jobs_by_agent.sql", "V15__backlog_hooks.sql", "V16__review_feedback.sql");

  private PostgresSchema() {
  }

  static int latest() {
    return MIGRATIONS.size();
  }

  /** The highest version applied to {@code schema}; 0 when it or its version table does not exist. */
  static int version(Jdbc jdbc, String schema) {
    boolean table = jdbc.queryLong("""
        SELECT COUNT(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = ? AND c.relname = 'schema_version' AND c.relkind = 'r'""", schema) > 0;
    if (!table) {
      return 0;
    }
    return (int) jdbc.queryLong("SELECT COALESCE(MAX(version), 0) FROM \"" + schema + "\".schema_version");
  }

  /** The bytes of every table of {@code schema}, with its indexes and TOAST; 0 when there is none. */
  static long bytes(Jdbc jdbc, String schema) {
    return jdbc.queryLong("""
        SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bigint)
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = ? AND c.relkind IN ('r', 'm', 'p')""", schema);
  }

  /** Refuses a schema newer than this orchestrate knows: its tables may mean something else. */
  static void refuseNewer(Jdbc jdbc, PostgresLocation location) {
    int version = version(jdbc, location.schema());
    if (version > latest()) {
      throw newer(location, version);
    }
  }

  /** Creates the schema as needed and applies the missing migrations, each in its own transaction. */
  static void migrate(Jdbc jdbc, PostgresLocation location, long nowMs) {
    String schema = location.schema();
    int found = version(jdbc, schema);
    if (found > latest()) {
      throw newer(location, found);
    }
    for (int v = found; v < latest(); v++) {
      int next = v;
      jdbc.inTransaction(() -> {
        // Under the write lock now: another process may have migrated meanwhile.
        if (jdbc.queryLong("SELECT COUNT(*) FROM pg_namespace WHERE nspname = ?", schema) == 0) {
          jdbc.execute("CREATE SCHEMA \"" + schema + "\"");
        }
        jdbc.execute("CREATE TABLE IF NOT EXISTS \"" + schema + "\".schema_version ("
            + "version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
        int now = version(jdbc, schema);
        if (now > latest()) {
          throw newer(location, now);
        }
        if (now > next) {
          return;
        }
        String script = load(MIGRATIONS.get(next));
        try (Statement st = jdbc.connection().createStatement()) {
          st.execute(script); // the driver splits it, dollar-quoted function bodies and all
        } catch (SQLException e) {
          throw jdbc.failure(MIGRATIONS.get(next), e);
        }
        jdbc.execute("INSERT INTO \"" + schema + "\".schema_version (version, applied_at) VALUES (?, ?)", next + 1,
            nowMs);
      });
    }
  }

  private static StoreException newer(PostgresLocation location, int version) {
    return new StoreException(PostgresDialect.description(location) + " has schema version " + version
        + ", newer than this orchestrate knows (" + latest() + "); upgrade orchestrate");
  }

  private static String load(String name) {
    try (InputStream in = PostgresSchema.class.getResourceAsStream("/db/postgres/" + name)) {
      if (in == null) {
        throw new StoreException("migration " + name + " is missing from the build");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read migration " + name + ": " + e.getMessage(), e);
    }
  }
}
