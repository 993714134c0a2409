package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The self-contained archive (src/dist/build.sh, issue 47): installed by its install.sh into a
 * temporary prefix, it runs {@code --version}, {@code init} and a short {@code run} where no
 * {@code java} is on PATH and JAVA_HOME is unset, on its own runtime and its own start-up archive.
 * The archive is the one {@code ./mvnw package -Pdist} left in target/dist for this jar; without
 * one this class builds it there once (a jlink of about 15 s of CPU).
 */
class InstallWithoutJavaIT {
  private static final Path DIST = Launcher.HOME.resolve("target/dist");
  private static Path archive;

  @TempDir
  Path dir;

  @BeforeAll
  static void theArchiveOfThisBuild() throws Exception {
    Path jar = Launcher.HOME.resolve("target/orchestrate.jar");
    archive = builtArchive(jar);
    if (archive == null) {
      Path jdk = Path.of(System.getProperty("java.home"));
      Assumptions.assumeTrue(Files.isExecutable(jdk.resolve("bin/jlink")) && Files.isDirectory(jdk.resolve("jmods")),
          () -> jdk + " has no jlink or no jmods/ (Debian: apt-get install -y openjdk-17-jmods): the archive"
              + " without a JDK cannot be built, and is not tested");
      Launcher.Result build = exec(Launcher.HOME, System.getenv(), 600, "bash", "src/dist/build.sh", "--jdk",
          jdk.toString(), "--out", DIST.toString());
      assertEquals(0, build.exitCode(), build.out() + build.err());
      archive = builtArchive(jar);
      assertTrue(archive != null, "src/dist/build.sh wrote no archive in " + DIST + ": " + build.out());
    }
  }

  /** The one archive in target/dist at least as new as the jar, or null. */
  private static Path builtArchive(Path jar) throws IOException {
    if (!Files.isDirectory(DIST)) {
      return null;
    }
    FileTime jarTime = Files.getLastModifiedTime(jar);
    try (Stream<Path> files = Files.list(DIST)) {
      List<Path> fresh = files.filter(f -> f.getFileName().toString().matches("orchestrate-.+-.+\\.tar\\.gz"))
          .filter(f -> lastModified(f).compareTo(jarTime) >= 0).toList();
      return fresh.size() == 1 ? fresh.get(0) : null;
    }
  }

  private static FileTime lastModified(Path p) {
    try {
      return Files.getLastModifiedTime(p);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  /** The PATH's links go before JUnit cleans up, which warns about each link out of its directory. */
  @AfterEach
  void removeThePathsLinks() throws IOException {
    Path bin = dir.resolve("path");
    if (Files.isDirectory(bin)) {
      try (Stream<Path> links = Files.list(bin)) {
        for (Path link : links.toList()) {
          Files.delete(link);
        }
      }
    }
  }

  @Test
  void the_installed_archive_runs_version_init_and_a_run_with_no_java_on_path() throws Exception {
    Map<String, String> env = withoutJava();
    assertEquals(1, exec(dir, env, 10, "bash", "-c", "command -v java").exitCode(), "java is on the test's PATH");

    Path prefix = dir.resolve("prefix");
    Launcher.Result install = exec(dir, env, 300, "bash", DIST.resolve("install.sh").toString(), "--prefix",
        prefix.toString(), archive.toString());
    assertEquals(0, install.exitCode(), install.out() + install.err());
    assertTrue(install.out().contains("checked " + archive + " against " + archive + ".sha256"), install.out());
    assertEquals("", install.err(), "no warning: the start-up archive was made");
    Path orchestrate = prefix.resolve("bin/orchestrate");
    assertTrue(Files.isSymbolicLink(orchestrate), orchestrate + " is a link into lib/orchestrate");
    try (Stream<Path> archives = Files.list(prefix.resolve("lib/orchestrate/lib/cds"))) {
      List<String> jsa = archives.map(a -> a.getFileName().toString()).filter(a -> a.endsWith(".jsa")).sorted()
          .toList();
      assertEquals(2, jsa.size(), "the start-up archives, run's and the other commands': " + jsa);
      assertTrue(jsa.get(0).endsWith("-run.jsa"), jsa.toString());
    }

    Launcher.Result version = exec(dir, env, 60, orchestrate.toString(), "--version");
    assertEquals(0, version.exitCode(), version.err());
    String firstLine = version.out().lines().findFirst().orElse("");
    assertTrue(firstLine.startsWith("orchestrate "), version.out());
    assertTrue(archive.getFileName().toString().startsWith(firstLine.replace(' ', '-') + "-"),
        "the archive's name carries the version: " + archive + ", " + firstLine);
    assertTrue(version.out().contains("Java 17"), "the runtime is the baseline's: " + version.out());
    assertEquals("", version.err(), "no JVM or archive warnings");

    // An installed copy runs its own runtime whatever JAVA_HOME says.
    Map<String, String> withJavaHome = new HashMap<>(env);
    withJavaHome.put("JAVA_HOME", dir.resolve("no-such-jdk").toString());
    Launcher.Result ignored = exec(dir, withJavaHome, 60, orchestrate.toString(), "--version");
    assertEquals(0, ignored.exitCode(), ignored.err());

    Path project = dir.resolve("project");
    Files.createDirectories(project);
    assertEquals(0, exec(project, env, 60, "git", "init", "-q").exitCode());
    Launcher.Result init = exec(project, env, 60, orchestrate.toString(), "init");
    assertEquals(0, init.exitCode(), init.err());
    assertTrue(Files.isRegularFile(project.resolve("orchestrate.yaml")) && Files.isRegularFile(project.resolve(
        "backlog.yaml")), init.out());

    Launcher.Result run = exec(project, env, 120, orchestrate.toString(), "run", "--no-live");
    assertEquals(0, run.exitCode(), run.out() + run.err());
    assertTrue(run.out().contains("every item is done"), run.out());
    Launcher.Result status = exec(project, env, 60, orchestrate.toString(), "status", "--json");
    assertEquals(0, status.exitCode(), status.err());
    assertEquals("", status.err());
    JsonNode items = new ObjectMapper().readTree(status.out()).get("items");
    assertEquals(2, items.size(), status.out());
    items.forEach(i -> assertEquals("done", i.get("status").asText(), status.out()));

    // Installing again replaces the installation and keeps the link; the state is the project's.
    Launcher.Result again = exec(dir, env, 300, "bash", DIST.resolve("install.sh").toString(), "--prefix",
        prefix.toString(), archive.toString());
    assertEquals(0, again.exitCode(), again.out() + again.err());
    Launcher.Result after = exec(project, env, 60, orchestrate.toString(), "status", "--json");
    assertEquals(0, after.exitCode(), after.err());
    assertEquals(status.out(), after.out());
  }

  @Test
  void an_archive_that_differs_from_its_checksum_is_not_installed() throws Exception {
    Path copy = dir.resolve(archive.getFileName());
    Files.copy(archive, copy);
    Files.writeString(dir.resolve(copy.getFileName() + ".sha256"), "0".repeat(64) + "  " + copy.getFileName()
        + "\n");
    Path prefix = dir.resolve("prefix");
    Launcher.Result install = exec(dir, withoutJava(), 60, "bash", DIST.resolve("install.sh").toString(),
        "--prefix", prefix.toString(), copy.toString());
    assertEquals(1, install.exitCode(), install.out() + install.err());
    assertEquals(1, install.err().lines().count(), install.err());
    assertTrue(install.err().startsWith("install.sh: error: " + copy + " does not match " + copy + ".sha256"),
        install.err());
    assertTrue(install.err().endsWith("download it again\n"), install.err());
    assertFalse(Files.exists(prefix.resolve("lib/orchestrate")), "nothing installed");
  }

  /**
   * This JVM's environment without JAVA_HOME and with a PATH of one directory that links the
   * programs install.sh, the launcher, bin/build-cds (whose training agent is `true`), git and the
   * example agent use, found on this JVM's PATH:
   * no java among them, even where /usr/bin has one.
   */
  private Map<String, String> withoutJava() throws IOException {
    Path bin = dir.resolve("path");
    if (!Files.isDirectory(bin)) {
      Files.createDirectories(bin);
      for (String program : List.of("bash", "sh", "env", "git", "tar", "gzip", "cat", "head", "ls", "mkdir", "rm",
          "mv", "cp", "ln", "dirname", "readlink", "stat", "touch", "mktemp", "grep", "sed", "sha256sum", "uname",
          "true")) {
        Path found = OnPath.find(program);
        assertTrue(found != null, program + " is not on PATH");
        Files.createSymbolicLink(bin.resolve(program), found);
      }
    }
    Map<String, String> env = new HashMap<>(System.getenv());
    env.keySet().removeIf(k -> k.equals("JAVA_HOME") || k.startsWith("ORCHESTRATE_") || k.startsWith("JAVA_TOOL")
        || k.startsWith("JDK_JAVA"));
    env.put("PATH", bin.toString());
    env.put("HOME", dir.toString());
    return env;
  }

  private static Launcher.Result exec(Path cwd, Map<String, String> env, int seconds, String... command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("install-out", ".txt");
    Path err = Files.createTempFile("install-err", ".txt");
    try {
      ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(List.of(command))).directory(cwd.toFile());
      pb.environment().clear();
      pb.environment().putAll(env);
      Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not finish in " + seconds + " s");
      }
      return new Launcher.Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
