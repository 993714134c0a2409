package dev.orchestrate.state.postgres;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Where the password of a {@link PostgresLocation} comes from, as libpq has it (never from the
 * location itself): {@code PGPASSWORD}, else the first matching line of the password file —
 * {@code PGPASSFILE}, else {@code ~/.pgpass}. A line is
 * {@code hostname:port:database:username:password}; each of the first four fields may be
 * {@code *}, matching anything; {@code \:} and {@code \\} stand for a colon and a backslash; lines
 * starting with {@code #} are comments. A file that group or others can read or write (anything
 * but mode 0600 or stricter) is ignored with a warning, as libpq ignores it.
 */
final class PgPass {
  private static final Set<PosixFilePermission> GROUP_OR_OTHERS = Set.of(PosixFilePermission.GROUP_READ,
      PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  private PgPass() {
  }

  /**
   * The password for {@code location}, if any: from {@code env} ({@code PGPASSWORD},
   * {@code PGPASSFILE}) and the password file under {@code home}; {@code warnings} hears why a
   * password file was ignored.
   */
  static Optional<String> password(PostgresLocation location, Map<String, String> env, Path home,
      Consumer<String> warnings) {
    String fromEnv = env.get("PGPASSWORD");
    if (fromEnv != null && !fromEnv.isEmpty()) {
      return Optional.of(fromEnv);
    }
    return lookup(file(env, home), location, warnings);
  }

  /** The password file: {@code PGPASSFILE}, else {@code .pgpass} in {@code home}. */
  static Path file(Map<String, String> env, Path home) {
    String named = env.get("PGPASSFILE");
    return named != null && !named.isEmpty() ? Path.of(named) : home.resolve(".pgpass");
  }

  /** The password of the first line of {@code file} that matches {@code location}; nothing when none does. */
  static Optional<String> lookup(Path file, PostgresLocation location, Consumer<String> warnings) {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    if (!Files.isRegularFile(file)) {
      warnings.accept("the password file " + file + " is not a plain file; ignored");
      return Optional.empty();
    }
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
      if (permissions.stream().anyMatch(GROUP_OR_OTHERS::contains)) {
        warnings.accept("the password file " + file + " has group or world access; ignored (chmod 0600 it)");
        return Optional.empty();
      }
    } catch (UnsupportedOperationException e) {
      // a file system without POSIX permissions: nothing to check, as libpq on Windows
    } catch (IOException e) {
      warnings.accept("cannot read the password file " + file + " (" + e.getMessage() + "); ignored");
      return Optional.empty();
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      warnings.accept("cannot read the password file " + file + " (" + e.getMessage() + "); ignored");
      return Optional.empty();
    }
    String[] wanted = {location.host(), String.valueOf(location.port()), location.database(), location.user()};
    for (String line : lines) {
      if (line.endsWith("\r")) {
        line = line.substring(0, line.length() - 1);
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      List<Field> fields = fields(line);
      if (fields.size() < 5) {
        continue; // not a complete line: libpq skips it too
      }
      boolean matches = true;
      for (int i = 0; i < 4 && matches; i++) {
        matches = fields.get(i).any() || fields.get(i).text().equals(wanted[i]);
      }
      if (matches) {
        return Optional.of(fields.get(4).text());
      }
    }
    return Optional.empty();
  }

  /** One field of a line: its text, escapes resolved; {@code any} when it was a bare {@code *}. */
  record Field(String text, boolean any) {
  }

  /**
   * The fields of one line: split at each {@code :} not escaped; {@code \x} stands for {@code x}
   * (so {@code \*} is a literal star, not the wildcard). The fifth field, the password, runs to the
   * end of the line.
   */
  static List<Field> fields(String line) {
    List<Field> out = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean escaped = false;
    boolean plainStar = true; // the raw text so far is nothing but one unescaped *
    int raw = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (escaped) {
        field.append(c);
        escaped = false;
        plainStar = false;
      } else if (c == '\\') {
        escaped = true;
        raw++;
      } else if (c == ':' && out.size() < 4) {
        out.add(new Field(field.toString(), plainStar && raw == 1));
        field.setLength(0);
        plainStar = true;
        raw = 0;
      } else {
        field.append(c);
        plainStar = plainStar && c == '*';
        raw++;
      }
    }
    out.add(new Field(field.toString(), out.size() < 4 && plainStar && raw == 1));
    return out;
  }
}
