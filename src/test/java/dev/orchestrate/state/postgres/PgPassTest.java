package dev.orchestrate.state.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Passwords as libpq finds them: PGPASSWORD, else the password file, with an explicit environment and home. */
class PgPassTest {
  private static final PostgresLocation ALICE = new PostgresLocation("alice", "db.example.com", 5432, "work",
      "orchestrate", null);

  @TempDir
  Path home;

  private final List<String> warnings = new ArrayList<>();

  private Path pgpass(String content, String mode) throws Exception {
    Path file = home.resolve(".pgpass");
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  private Optional<String> password(PostgresLocation location, Map<String, String> env) {
    return PgPass.password(location, env, home, warnings::add);
  }

  private Optional<String> password(PostgresLocation location) {
    return password(location, Map.of());
  }

  @Test
  void pgpassword_comes_before_the_password_file() throws Exception {
    pgpass("*:*:*:*:from-file\n", "rw-------");
    assertEquals(Optional.of("from-env"), password(ALICE, Map.of("PGPASSWORD", "from-env")));
    assertEquals(Optional.of("from-file"), password(ALICE, Map.of("PGPASSWORD", "")), "an empty one is none");
    assertEquals(List.of(), warnings);
  }

  @Test
  void the_first_line_that_matches_wins_and_a_star_matches_anything() throws Exception {
    pgpass("""
        # a comment:with:colons:and:a password
        other.example.com:5432:work:alice:not-this-host
        db.example.com:5433:work:alice:not-this-port
        db.example.com:5432:play:alice:not-this-database
        db.example.com:5432:work:bob:not-this-user
        db.example.com:5432:work
        db.example.com:*:work:alice:any-port
        *:*:*:*:anything
        """, "rw-------");
    assertEquals(Optional.of("any-port"), password(ALICE));
    assertEquals(Optional.of("anything"), password(new PostgresLocation("carol", "h", 1, "d", "s", null)));
    assertEquals(Optional.of("not-this-user"), password(new PostgresLocation("bob", "db.example.com", 5432, "work",
        "orchestrate", null)));
  }

  @Test
  void escaped_colons_and_backslashes_are_part_of_a_field_and_an_escaped_star_is_a_star() throws Exception {
    pgpass("""
        db.example.com:5432:wo\\:rk:alice:first
        \\*:5432:work:alice:literal-star
        db.example.com:5432:work:alice:pa\\:ss\\\\word:with:colons
        """, "rw-------");
    assertEquals(Optional.of("first"), password(new PostgresLocation("alice", "db.example.com", 5432, "wo:rk", "s",
        null)));
    assertEquals(Optional.of("pa:ss\\word:with:colons"), password(ALICE), "\\* is not the wildcard");
    assertEquals(Optional.of("literal-star"), password(new PostgresLocation("alice", "*", 5432, "work", "s", null)));
  }

  @Test
  void windows_line_ends_are_not_part_of_the_password() throws Exception {
    pgpass("*:*:*:*:secret\r\n", "rw-------");
    assertEquals(Optional.of("secret"), password(ALICE));
  }

  @Test
  void a_file_others_can_read_is_ignored_with_a_warning_as_libpq_does() throws Exception {
    Path file = pgpass("*:*:*:*:secret\n", "rw-r--r--");
    assertEquals(Optional.empty(), password(ALICE));
    assertEquals(List.of("the password file " + file + " has group or world access; ignored (chmod 0600 it)"),
        warnings);
    warnings.clear();
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
    assertEquals(Optional.empty(), password(ALICE));
    assertEquals(1, warnings.size());
    warnings.clear();
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    assertEquals(Optional.of("secret"), password(ALICE), "0400 is stricter than 0600: fine");
    assertEquals(List.of(), warnings);
  }

  @Test
  void pgpassfile_names_the_file_instead_of_the_one_in_home() throws Exception {
    pgpass("*:*:*:*:from-home\n", "rw-------");
    Path other = home.resolve("elsewhere.pgpass");
    Files.writeString(other, "*:*:*:*:from-pgpassfile\n");
    Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rw-------"));
    assertEquals(Optional.of("from-pgpassfile"), password(ALICE, Map.of("PGPASSFILE", other.toString())));
    assertEquals(Optional.empty(), password(ALICE, Map.of("PGPASSFILE", home.resolve("missing").toString())),
        "a file named but not there: no password, and nothing to say");
    assertEquals(List.of(), warnings);
  }

  @Test
  void no_file_means_no_password_and_a_directory_in_its_place_is_told() throws Exception {
    assertEquals(Optional.empty(), password(ALICE));
    assertEquals(List.of(), warnings);
    Files.createDirectory(home.resolve(".pgpass"));
    assertEquals(Optional.empty(), password(ALICE));
    assertEquals(1, warnings.size());
    assertTrue(warnings.get(0).contains("is not a plain file"), warnings.toString());
  }

  @Test
  void the_fields_of_a_line() {
    assertEquals(List.of(new PgPass.Field("h", false), new PgPass.Field("*", true), new PgPass.Field("d", false),
        new PgPass.Field("*", false), new PgPass.Field("p:w", false)), PgPass.fields("h:*:d:\\*:p:w"));
    assertEquals(List.of(new PgPass.Field("h", false), new PgPass.Field("**", false)), PgPass.fields("h:**"));
  }
}
