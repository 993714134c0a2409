package dev.orchestrate.workspace;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

  /**
   * {@code git -C where args...} for the test's own fixture, its output stripped; fails the test
   * unless git exits 0. The test's git directly, not orchestrate's {@link Git}: the repositories are
   * the test's own, so neither the configuration listing that precedes each of orchestrate's
   * commands nor {@code setsid} is needed, and together they made every fixture command four
   * process starts instead of one (the unit tests run thousands). With {@link Git}'s own options
   * and environment (no hooks, no signing, no prompt, no pager, the C locale).
   */
  public String git(Path where, String... args) {
    List<String> argv = new ArrayList<>(List.of("git", "-C", where.toString()));
    argv.addAll(Git.SAFE_OPTIONS);
    argv.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(argv)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    builder.environment().putAll(Git.environment(null));
    builder.environment().putAll(AUTHOR);
    try {
      Process process = builder.start();
      CompletableFuture<String> err = Git.drain(process.getErrorStream(), 64 * 1024, "fixture-git-err");
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("git " + String.join(" ", args) + " did not finish in " + where);
      }
      if (process.exitValue() != 0) {
        throw new AssertionError("git " + String.join(" ", args) + " failed in " + where + ": "
            + err.get(10, TimeUnit.SECONDS));
      }
      return out.strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: git " + String.join(" ", args), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("git " + String.join(" ", args) + ": its errors unread", e);
    }
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
