package dev.orchestrate.e2e;

import static dev.orchestrate.e2e.TwoMachinesIT.git;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Two machines' worth of git for the tests of several clones: a bare {@code origin}, a seed
 * repository holding the project's files pushed to it, and clones {@code A} and {@code B} of it.
 */
final class Clones {
  final Path dir;
  final Path origin;
  final Path seed;
  final Path a;
  final Path b;

  private Clones(Path dir) {
    this.dir = dir;
    this.origin = dir.resolve("origin.git");
    this.seed = dir.resolve("seed");
    this.a = dir.resolve("A");
    this.b = dir.resolve("B");
  }

  /** {@code files} (name to text; a {@code .gitignore} of {@code .orchestrate/} is added) on origin's main, cloned twice. */
  static Clones of(Path dir, Map<String, String> files) throws Exception {
    Clones c = new Clones(dir);
    git(dir, "init", "-q", "--bare", "-b", "main", c.origin.toString());
    git(dir, "init", "-q", "-b", "main", c.seed.toString());
    for (Map.Entry<String, String> f : files.entrySet()) {
      Files.writeString(c.seed.resolve(f.getKey()), f.getValue());
    }
    Files.writeString(c.seed.resolve(".gitignore"), ".orchestrate/\n");
    c.commit("init");
    git(dir, "clone", "-q", c.origin.toString(), c.a.toString());
    git(dir, "clone", "-q", c.origin.toString(), c.b.toString());
    return c;
  }

  /** Someone else's commit of {@code file} on origin's main (from the seed). */
  void push(String file, String text, String message) throws Exception {
    Files.writeString(seed.resolve(file), text);
    commit(message);
  }

  private void commit(String message) throws Exception {
    git(seed, "add", "-A");
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message);
    git(seed, "push", "-q", origin.toString(), "main");
  }

  /** {@code file} as origin's main has it. */
  String show(String file) throws Exception {
    return git(dir, "--git-dir=" + origin, "show", "main:" + file);
  }

  /** The subjects of origin's main, newest first. */
  List<String> subjects() throws Exception {
    return git(dir, "--git-dir=" + origin, "log", "--format=%s", "main").lines().toList();
  }

  /** The refs under {@code prefix} on origin. */
  List<String> refs(String prefix) throws Exception {
    return git(dir, "--git-dir=" + origin, "for-each-ref", "--format=%(refname)", prefix).lines().toList();
  }
}
