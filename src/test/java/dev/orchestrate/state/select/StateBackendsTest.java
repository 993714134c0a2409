package dev.orchestrate.state.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.postgres.PostgresBackend;
import dev.orchestrate.state.sqlite.SqliteBackend;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The backend is chosen by the state location: a PostgreSQL URL, or a state directory for SQLite. */
class StateBackendsTest {
  @TempDir
  Path dir;

  @Test
  void a_state_directory_is_sqlite() {
    StateBackend backend = StateBackends.at(new StateDirectory(dir));
    assertInstanceOf(SqliteBackend.class, backend);
    assertEquals(dir.toAbsolutePath().normalize(), backend.directory().root());
  }

  @Test
  void a_postgresql_url_is_postgresql_with_the_job_logs_in_the_local_directory() {
    StateDirectory local = new StateDirectory(dir.resolve("local"));
    for (String url : new String[] {"postgresql://u@h:5432/db", "postgres://u@h/db?schema=team"}) {
      StateBackend backend = StateBackends.at(url, local);
      assertInstanceOf(PostgresBackend.class, backend, url);
      assertEquals(local, backend.directory());
      assertTrue(backend.problem().isEmpty(), backend.problem().toString());
      assertTrue(StateBackends.isDatabase(url));
    }
  }

  @Test
  void a_path_is_a_state_directory_that_holds_everything() {
    StateBackend backend = StateBackends.at(dir.resolve("state").toString(), new StateDirectory(dir.resolve("other")));
    assertInstanceOf(SqliteBackend.class, backend);
    assertEquals(dir.resolve("state").toAbsolutePath().normalize(), backend.directory().root());
    assertFalse(StateBackends.isDatabase(dir.toString()));
  }

  @Test
  void a_url_of_another_kind_is_refused_rather_than_taken_for_a_directory() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StateBackends.at("mysql://u:secret@h/db", new StateDirectory(dir)));
    assertEquals("the state location mysql://… is a URL of no known kind; a state location is a directory or a"
        + " postgresql:// URL", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> StateBackends.at("postgresq://h/db", new StateDirectory(dir)));
  }

  @Test
  void a_postgresql_url_with_a_password_is_a_backend_whose_problem_says_so() {
    StateBackend backend = StateBackends.at("postgresql://u:secret@h/db", new StateDirectory(dir));
    String problem = backend.problem().orElseThrow();
    assertTrue(problem.contains("contains a password"), problem);
    assertFalse(problem.contains("secret"), problem);
  }

  @Test
  void a_url_is_what_the_scheme_expression_matches() {
    java.util.regex.Pattern expression = java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://.*",
        java.util.regex.Pattern.DOTALL);
    for (String location : java.util.List.of("", "://", "a://", "a:/", "a:", "1a://x", "postgresql://u@h/db",
        "svn+ssh://h/p", "x.y-z+1://\nline", "C:\\state", "c://x", "./state", "state", "/tmp/a://b",
        "s\u00e9://x", "a b://x", "https:/x", "a:://x", "a::/x", "-a://x", "+a://x", "A://")) {
      assertEquals(expression.matcher(location).matches(), StateBackends.isUrl(location), location);
    }
  }
}
