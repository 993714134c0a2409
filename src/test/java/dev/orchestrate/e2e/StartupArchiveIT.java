package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The start-up archive (bin/build-cds, bin/lib/platform.sh) on the JDK running the tests and on a
 * JDK 25+ when one is installed under /usr/lib/jvm (there an AOT cache, and the static archive on
 * request): the launcher uses it, never prints a warning,
 * and after the jar changes it neither uses a stale archive nor complains; build-cds makes the
 * new one. Works on a copy of the built jar, so target/ is left alone.
 */
class StartupArchiveIT {
  @TempDir
  Path dir;

  static Stream<Path> jdks() throws IOException {
    List<Path> jdks = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"))));
    Path jvms = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> all = Files.list(jvms)) {
        all.filter(j -> feature(j) >= 25 && Files.isExecutable(j.resolve("bin/java"))).sorted().findFirst()
            .ifPresent(jdks::add);
      }
    }
    return jdks.stream();
  }

  private static int feature(Path jdk) {
    try {
      for (String line : Files.readAllLines(jdk.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=")) {
          return Integer.parseInt(line.replaceAll("JAVA_VERSION=\"(\\d+).*", "$1"));
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  @ParameterizedTest
  @MethodSource("jdks")
  void the_archive_is_used_silently_and_a_stale_one_is_ignored_until_build_cds_makes_the_new_one(Path jdk)
      throws Exception {
    Path home = install();
    // A static CDS archive on JDK 17-24, an AOT cache on 25 and later.
    String archiveKind = feature(jdk) >= 25 ? ".aot" : ".jsa";
    Result build = run(home, jdk, Map.of(), home.resolve("bin/build-cds").toString());
    assertEquals(0, build.exitCode(), build.err());
    // Two: run's own (trained on a run) and the other commands'.
    List<Path> archives = archives(home);
    assertEquals(2, archives.size(), archives.toString());
    assertTrue(archives.get(0).toString().endsWith("-run" + archiveKind), archives.toString());
    assertTrue(archives.get(1).toString().endsWith(archiveKind), archives.toString());

    Path state = dir.resolve("state");
    Result fresh = orchestrate(home, jdk, "--state", state.toString(), "status", "--json");
    assertEquals(0, fresh.exitCode(), fresh.err());
    assertEquals("", fresh.err());
    assertTrue(fresh.out().contains("\"kind\" : \"status\""), fresh.out());
    assertTrue(mainComesFromTheArchive(home, jdk, state), "the archive is used");
    assertTrue(runComesFromItsArchive(home, jdk), "run's archive is used by run");
    assertTrue(worktreeRunComesFromItsArchive(home, jdk), "run's archive holds what a run in worktree mode loads");

    // The jar changes (a rebuild without build-cds): its key changes, the archive is not offered.
    Path jar = home.resolve("target/orchestrate.jar");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 60_000));
    assertSilentStatus(home, jdk, state);
    assertFalse(mainComesFromTheArchive(home, jdk, state), "a stale archive is not used");

    // Worse: an archive of another jar under this jar's name, as old as the jar, so offered to the
    // JVM. The JVM checks it against the jar, silently (JDK 17 refuses it, the jar's time differs;
    // JDK 25's AOT cache takes it, the jar's content being the same).
    Result keyed = run(home, jdk, Map.of(), "bash", "-c",
        ". bin/lib/platform.sh && orchestrate_platform \"$PWD\" && orchestrate_archive_name");
    Path impostor = Path.of(keyed.out().strip() + archiveKind);
    Files.move(archives.get(1), impostor);
    Files.setLastModifiedTime(impostor, Files.getLastModifiedTime(jar));
    Result offered = run(home, jdk, Map.of(), "bash", "-c",
        ". bin/lib/platform.sh && orchestrate_platform \"$PWD\" && printf %s \"$archive\"");
    assertEquals(keyed.out().strip(), offered.out(), "the launcher offers it");
    assertSilentStatus(home, jdk, state);

    Result rebuild = run(home, jdk, Map.of(), home.resolve("bin/build-cds").toString());
    assertEquals(0, rebuild.exitCode(), rebuild.err());
    assertEquals(2, archives(home).size(), archives(home).toString());
    assertSilentStatus(home, jdk, state);
    assertTrue(mainComesFromTheArchive(home, jdk, state), "the rebuilt archive is used");

    if (feature(jdk) >= 25) {
      // The static archive on JDK 25, on request: it replaces the AOT cache, and is used silently.
      Result cds = run(home, jdk, Map.of("ORCHESTRATE_ARCHIVE", "cds"), home.resolve("bin/build-cds").toString());
      assertEquals(0, cds.exitCode(), cds.err());
      assertEquals(2, archives(home).size(), archives(home).toString());
      assertTrue(archives(home).stream().allMatch(a -> a.toString().endsWith(".jsa")), archives(home).toString());
      assertSilentStatus(home, jdk, state);
      assertTrue(mainComesFromTheArchive(home, jdk, state), "the static archive is used");
      Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 60_000));
      assertSilentStatus(home, jdk, state);
      assertFalse(mainComesFromTheArchive(home, jdk, state), "a stale static archive is not used");
    }
  }

  private void assertSilentStatus(Path home, Path jdk, Path state) throws Exception {
    Result r = orchestrate(home, jdk, "--state", state.toString(), "status", "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("", r.err());
    assertTrue(r.out().contains("\"kind\" : \"status\""), r.out());
  }

  /**
   * Whether a run loads its session class from an archive: the short commands' archive does not hold
   * it, run's own does.
   */
  private boolean runComesFromItsArchive(Path home, Path jdk) throws Exception {
    Path project = dir.resolve("run-project");
    Files.createDirectories(project);
    Files.writeString(project.resolve("orchestrate.yaml"), "agent:\n  command: [\"true\"]\n");
    Files.writeString(project.resolve("backlog.yaml"), "items:\n  - {id: R-1, title: one, status: ready}\n");
    return loadedFromAnArchive(home, jdk, "dev.orchestrate.app.RunSession", "--quiet", "--state",
        project.resolve("state").toString(), "--config", project.resolve("orchestrate.yaml").toString(), "run",
        project.resolve("backlog.yaml").toString());
  }

  /**
   * Whether a run in worktree mode, in a git repository, loads the landing's class from run's archive:
   * build-cds trains that archive on a run in worktree mode where git is installed (a run in shared
   * mode never loads it).
   */
  private boolean worktreeRunComesFromItsArchive(Path home, Path jdk) throws Exception {
    Path repo = dir.resolve("worktree-project");
    Files.createDirectories(repo);
    Files.writeString(repo.resolve("backlog.yaml"), "items:\n  - {id: W-1, title: one, status: ready}\n");
    for (List<String> git : List.of(List.of("init", "-q"), List.of("add", "backlog.yaml"),
        List.of("-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false", "-c",
            "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "backlog"))) {
      List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
      command.addAll(git);
      assertEquals(0, run(home, jdk, Map.of(), command.toArray(String[]::new)).exitCode(), command.toString());
    }
    Path config = dir.resolve("worktree.yaml");
    Files.writeString(config, "agent:\n  command: [\"sh\", \"-c\", \"echo work > work.txt\"]\n"
        + "execution:\n  workspace: worktree\n");
    boolean fromArchive = loadedFromAnArchive(home, jdk, "dev.orchestrate.landing.Integrator", "--quiet", "--state",
        dir.resolve("worktree-state").toString(), "--config", config.toString(), "run",
        repo.resolve("backlog.yaml").toString());
    Result landed = run(home, jdk, Map.of(), "git", "-C", repo.toString(), "show", "HEAD:work.txt");
    assertEquals("work\n", landed.out(), "the item landed: " + landed.err());
    return fromArchive;
  }

  /** Whether dev.orchestrate.cli.Cli was loaded from the archive. */
  private boolean mainComesFromTheArchive(Path home, Path jdk, Path state) throws Exception {
    return loadedFromAnArchive(home, jdk, "dev.orchestrate.cli.Cli", "--state", state.toString(), "status", "--json");
  }

  /** Whether the launcher, given {@code args}, loads {@code className} from an archive (the JVM's class-load log says so). */
  private boolean loadedFromAnArchive(Path home, Path jdk, String className, String... args) throws Exception {
    Path log = dir.resolve("class-load.log");
    Files.deleteIfExists(log);
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/orchestrate").toString()));
    command.addAll(List.of(args));
    Result r = run(home, jdk, Map.of("ORCHESTRATE_JAVA_OPTS", "-Xlog:class+load=info:file=" + log),
        command.toArray(String[]::new));
    assertEquals(0, r.exitCode(), r.err());
    String line = Files.readAllLines(log).stream().filter(l -> l.contains(" " + className + " ")).findFirst()
        .orElseThrow();
    return line.contains("shared objects file");
  }

  /** A copy of the built launcher: bin/, the jar and the sqlite natives. */
  private Path install() throws IOException {
    Path home = dir.resolve("home");
    Launcher.copyTree(Launcher.HOME.resolve("bin"), home.resolve("bin"));
    for (String script : List.of("bin/orchestrate", "bin/build-cds")) {
      home.resolve(script).toFile().setExecutable(true);
    }
    Files.createDirectories(home.resolve("target"));
    Files.copy(Launcher.HOME.resolve("target/orchestrate.jar"), home.resolve("target/orchestrate.jar"));
    Launcher.copyTree(Launcher.HOME.resolve("target/native"), home.resolve("target/native"));
    return home;
  }

  private static List<Path> archives(Path home) throws IOException {
    Path cds = home.resolve("target/cds");
    if (!Files.isDirectory(cds)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(cds)) {
      return files.sorted().toList();
    }
  }

  record Result(int exitCode, String out, String err) {
  }

  private Result orchestrate(Path home, Path jdk, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/orchestrate").toString()));
    command.addAll(List.of(args));
    return run(home, jdk, Map.of(), command.toArray(String[]::new));
  }

  private Result run(Path home, Path jdk, Map<String, String> env, String... command) throws Exception {
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("JAVA_HOME", jdk.toString());
    pb.environment().remove("ORCHESTRATE_JAVA_OPTS");
    pb.environment().remove("ORCHESTRATE_STATE");
    pb.environment().remove("ORCHESTRATE_CONFIG");
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish in 300 s");
    }
    return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
