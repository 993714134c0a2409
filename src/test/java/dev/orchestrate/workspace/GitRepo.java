package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A real git repository in a test's temporary directory, driven through the git CLI. */
public final class GitRepo {
  static final Map<String, String> AUTHOR = Map.of("GIT_AUTHOR_NAME", "Test User", "GIT_AUTHOR_EMAIL",
      "user@example.com", "GIT_COMMITTER_NAME", "Test User", "GIT_COMMITTER_EMAIL", "user@example.com");
  public final Path dir;
  final Git git = new Git();

  private GitRepo(Path dir) {
    this.dir = dir;
  }

  /** The repository at {@code dir} (a clone the test makes there, say). */
  public static GitRepo at(Path dir) {
    return new GitRepo(dir);
  }

  /** A repository on branch main with one commit holding {@code README.md}. */
  public static GitRepo init(Path dir) {
    GitRepo repo = new GitRepo(dir);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    repo.git("init", "--quiet", "--initial-branch=main");
    repo.write("README.md", "hello\n");
    repo.write(".gitignore", "build/\n");
    repo.commitAll("init");
    return repo;
  }

  public String git(String... args) {
    return git(dir, args);
  }

  /** Creates a bare repository at {@code origin}, adds it as remote {@code origin} and pushes main there. */
  public void addBareOrigin(Path origin) {
    git(origin.getParent(), "init", "--quiet", "--bare", origin.toString());
    git("remote", "add", "origin", origin.toString());
    git("push", "--quiet", "origin", "main");
  }

  public String git(Path where, String... args) {
    Git.Result r = git.run(where, AUTHOR, List.of(args));
    if (!r.ok()) {
      throw new AssertionError("git " + String.join(" ", args) + " failed in " + where + ": " + r.err());
    }
    return r.out().strip();
  }

  public void commitAll(String message) {
    git("add", "--all");
    git("commit", "--quiet", "-m", message);
  }

  public void write(String file, String text) {
    write(dir, file, text);
  }

  public static void write(Path root, String file, String text) {
    try {
      Path path = root.resolve(file);
      Files.createDirectories(path.getParent());
      Files.writeString(path, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String head(String ref) {
    return git("rev-parse", ref);
  }

  /** Subjects of the commits on {@code range}, newest first. */
  public List<String> subjects(String range) {
    String out = git("log", "--format=%s", range);
    return out.isEmpty() ? List.of() : out.lines().toList();
  }
}
