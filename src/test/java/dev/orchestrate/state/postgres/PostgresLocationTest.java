package dev.orchestrate.state.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** State locations as libpq writes them, with the environment given, never the real one. */
class PostgresLocationTest {
  private static final Map<String, String> NO_ENV = Map.of();

  @TempDir
  Path dir;

  private static PostgresLocation parse(String location) {
    return PostgresLocation.parse(location, NO_ENV);
  }

  private static String refusal(String location) {
    String message = assertThrows(PostgresLocation.InvalidLocation.class, () -> parse(location)).getMessage();
    assertFalse(message.contains("\n"), message);
    return message;
  }

  @Test
  void every_part_of_a_full_location_is_read() {
    PostgresLocation l = parse("postgresql://alice@db.example.com:6543/work?schema=team_a&sslmode=require");
    assertEquals(new PostgresLocation("alice", "db.example.com", 6543, "work", "team_a", "require"), l);
    assertEquals("jdbc:postgresql://db.example.com:6543/work", l.jdbcUrl());
    assertEquals("postgresql://alice@db.example.com:6543/work?schema=team_a&sslmode=require", l.display());
  }

  @Test
  void postgres_is_the_same_scheme_and_only_these_two_name_a_database() {
    assertEquals(parse("postgresql://alice@h/db"), parse("postgres://alice@h/db"));
    assertTrue(PostgresLocation.names("postgresql://h"));
    assertTrue(PostgresLocation.names("postgres://h"));
    assertFalse(PostgresLocation.names("/var/lib/orchestrate"));
    assertFalse(PostgresLocation.names("postgresql:h"));
    assertFalse(PostgresLocation.names("mysql://h/db"));
  }

  @Test
  void what_the_location_leaves_out_is_taken_as_libpq_takes_it() {
    PostgresLocation bare = PostgresLocation.parse("postgresql://", Map.of("PGUSER", "bob"));
    assertEquals(new PostgresLocation("bob", "localhost", 5432, "bob", "orchestrate", null), bare);
    assertEquals("carol", PostgresLocation.parse("postgresql://h", Map.of("PGUSER", "bob", "PGDATABASE", "carol"))
        .database());
    assertEquals("dave", PostgresLocation.parse("postgresql://dave@h", Map.of("PGUSER", "bob")).user(),
        "the location's user comes first");
    assertEquals(System.getProperty("user.name"), parse("postgresql://h/db").user(), "without PGUSER: the OS user");
    assertEquals(5432, parse("postgresql://h:/db").port());
    assertEquals("db", parse("postgresql://h/db?").database());
  }

  @Test
  void an_ipv6_host_is_written_in_brackets() {
    PostgresLocation l = parse("postgresql://u@[::1]:5433/db");
    assertEquals("::1", l.host());
    assertEquals(5433, l.port());
    assertEquals("jdbc:postgresql://[::1]:5433/db", l.jdbcUrl());
    assertEquals("postgresql://u@[::1]:5433/db?schema=orchestrate", l.display());
    assertEquals("fe80::1", parse("postgresql://u@[fe80::1]/db").host());
  }

  @Test
  void percent_escapes_are_decoded_and_written_back() {
    PostgresLocation l = parse("postgresql://first%20last@h/my%2Ddb%C3%A9");
    assertEquals("first last", l.user());
    assertEquals("my-dbé", l.database());
    assertEquals("postgresql://first%20last@h:5432/my-db%C3%A9?schema=orchestrate", l.display());
    assertTrue(refusal("postgresql://u@h/db%2").contains("malformed %-escape"));
  }

  @Test
  void a_password_in_the_user_part_is_refused_and_never_shown() {
    String message = refusal("postgresql://alice:s3cret@db.example.com/work");
    assertFalse(message.contains("s3cret"), message);
    assertTrue(message.contains("postgresql://alice:***@db.example.com/work"), message);
    assertTrue(message.contains("contains a password"), message);
    assertTrue(message.contains("PGPASSWORD") && message.contains(".pgpass"), message);
    assertTrue(refusal("postgresql://alice:@h/db").contains("contains a password"), "even an empty one");
    assertFalse(refusal("postgresql://alice:p%40ss@h/db").contains("p%40ss"));
  }

  @Test
  void a_password_parameter_is_refused_and_never_shown() {
    String message = refusal("postgresql://alice@h/db?sslmode=require&password=s3cret&schema=x");
    assertFalse(message.contains("s3cret"), message);
    assertTrue(message.contains("password=***"), message);
    assertTrue(message.contains("contains a password"), message);
    assertFalse(refusal("postgresql://alice@h/db?PassWord=s3cret").contains("s3cret"));
  }

  @Test
  void what_cannot_be_used_is_refused_in_one_line_naming_the_part() {
    assertTrue(refusal("postgresql://h:99999/db").contains("port '99999'"));
    assertTrue(refusal("postgresql://h:five/db").contains("port 'five'"));
    assertTrue(refusal("postgresql://h/db?schema=Team").contains("schema 'Team'"));
    assertTrue(refusal("postgresql://h/db?schema=1st").contains("schema '1st'"));
    assertTrue(refusal("postgresql://h/db?schema=a;drop").contains("schema 'a;drop'"));
    assertTrue(refusal("postgresql://h/db?schema=" + "s".repeat(64)).contains("at most 63"));
    assertTrue(refusal("postgresql://h/db?connect_timeout=5").contains("parameter 'connect_timeout'"));
    assertTrue(refusal("postgresql://h/db?schema=a&schema=b").contains("'schema' twice"));
    assertTrue(refusal("postgresql://h/db?sslmode=sometimes").contains("sslmode 'sometimes'"));
    assertTrue(refusal("postgresql://h1,h2/db").contains("several hosts"));
    assertTrue(refusal("postgresql://h/db/schema").contains("no '/'"));
    assertTrue(refusal("postgresql://[::1/db").contains("unclosed ["));
    assertTrue(refusal("/var/lib/state").contains("not a PostgreSQL location"));
    assertEquals("s".repeat(63), parse("postgresql://h/db?schema=" + "s".repeat(63)).schema());
  }

  @Test
  void a_backend_on_a_location_with_a_password_says_so_as_its_problem_and_refuses_to_connect() {
    List<String> warnings = new ArrayList<>();
    PostgresBackend backend = new PostgresBackend("postgresql://alice:s3cret@localhost:1/db",
        new StateDirectory(dir.resolve("state")), NO_ENV, dir, warnings::add);
    Optional<String> problem = backend.problem();
    assertTrue(problem.orElseThrow().contains("contains a password"), problem.toString());
    assertFalse(problem.get().contains("s3cret"));
    assertFalse(backend.toString().contains("s3cret"), backend.toString());
    StoreException e = assertThrows(StoreException.class, () -> backend.open(StateStore.Mode.READ_ONLY));
    assertEquals(problem.get(), e.getMessage());
    assertThrows(StoreException.class, backend::exists);
    assertThrows(StoreException.class, backend::leaseHeld);
    assertEquals(List.of(), warnings);
  }

  @Test
  void a_server_out_of_reach_is_told_in_one_line_naming_the_location() {
    PostgresBackend backend = new PostgresBackend("postgresql://alice@127.0.0.1:1/db?schema=s",
        new StateDirectory(dir.resolve("state")), NO_ENV, dir, line -> {});
    assertEquals(Optional.empty(), backend.problem(), "nothing wrong with the location itself");
    StoreException e = assertThrows(StoreException.class, () -> backend.open(StateStore.Mode.READ_WRITE));
    assertTrue(e.getMessage().startsWith("cannot reach the state database postgresql://alice@127.0.0.1:1/db?schema=s"),
        e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }

  @Test
  void masking_leaves_a_location_without_a_password_as_it_is() {
    assertEquals("postgresql://u@h:1/db?schema=s", PostgresLocation.masked("postgresql://u@h:1/db?schema=s"));
    assertEquals("postgresql://u:***@h", PostgresLocation.masked("postgresql://u:pw@h"));
    assertEquals("postgresql://u:***@h/d?password=***&x=1",
        PostgresLocation.masked("postgresql://u:pw@h/d?password=pw2&x=1"));
  }
}
