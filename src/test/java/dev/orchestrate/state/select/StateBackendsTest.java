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
}
