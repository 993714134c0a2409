package dev.orchestrate.state.select;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.postgres.PostgresBackend;
import dev.orchestrate.state.sqlite.SqliteBackend;
import java.nio.file.Path;

/**
 * The one place that chooses a backend by the state location, and so the one file outside the
 * backends' own packages that names them: a {@code postgresql://} (or {@code postgres://}) URL is a
 * PostgreSQL database; anything else is a state directory with a SQLite database in it.
 */
public final class StateBackends {
  private StateBackends() {
  }

  /** The backend for the state directory {@code directory}: SQLite, everything in it. */
  public static StateBackend at(StateDirectory directory) {
    return new SqliteBackend(directory);
  }

  /**
   * The backend for {@code location}: a PostgreSQL URL, with this runner's job logs and worktrees
   * in {@code local}; or the path of a state directory, which holds everything ({@code local} is
   * then not used).
   *
   * @throws IllegalArgumentException for a URL of any other kind
   */
  public static StateBackend at(String location, StateDirectory local) {
    if (isDatabase(location)) {
      return new PostgresBackend(location, local);
    }
    if (isUrl(location)) {
      throw new IllegalArgumentException("the state location " + location.substring(0, location.indexOf("://") + 3)
          + "… is a URL of no known kind; a state location is a directory or a postgresql:// URL");
    }
    return at(new StateDirectory(Path.of(location)));
  }

  /**
   * As {@link #at(String, StateDirectory)}, with a relative state directory taken relative to
   * {@code base} (the working directory of a command line, the directory of a config file).
   */
  public static StateBackend at(String location, Path base, StateDirectory local) {
    if (isDatabase(location) || isUrl(location)) {
      return at(location, local);
    }
    return at(new StateDirectory(base.resolve(location)));
  }

  /**
   * {@code scheme://...}, a URL rather than a path: as the regular expression
   * {@code [A-Za-z][A-Za-z0-9+.-]*://.*} would match it, without compiling one on every command's
   * path (a scheme has no ':', so its "://" is at the first ':').
   */
  static boolean isUrl(String location) {
    int colon = location.indexOf(':');
    if (colon < 1 || !location.startsWith("://", colon) || !asciiLetter(location.charAt(0))) {
      return false;
    }
    for (int i = 1; i < colon; i++) {
      char c = location.charAt(i);
      if (!asciiLetter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '.' && c != '-') {
        return false;
      }
    }
    return true;
  }

  private static boolean asciiLetter(char c) {
    return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z';
  }

  /**
   * Whether {@code location} names a database server rather than a state directory (checked here,
   * so that a SQLite command does not load the PostgreSQL classes to find out).
   */
  public static boolean isDatabase(String location) {
    return location.startsWith("postgresql://") || location.startsWith("postgres://");
  }
}
