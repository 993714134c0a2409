package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real launcher, bin/orchestrate, against a missing or too old JVM and a few of the malformed
 * inputs of {@code MalformedInputCorpusTest}: one line on stderr, exit 2, nothing written, and
 * the whole process (JVM start included) within a generous bound.
 */
class LauncherHostileInputIT {
  @TempDir
  Path dir;

  private Launcher.Result run(java.util.Map<String, String> env, String... args) throws Exception {
    ProcessBuilder pb = Launcher.builder(dir, args)
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "orchestrate " + String.join(" ", args) + " finished in 120 s");
    return new Launcher.Result(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
  }

  private static void assertOneErrorLine(Launcher.Result r, String expected) {
    assertEquals(2, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertEquals(List.of("orchestrate: error: " + expected), r.err().lines().toList());
  }

  /** A Java installation of the given version whose java only says it ran. */
  private Path fakeJdk(String version) throws Exception {
    Path home = Files.createDirectories(dir.resolve("jdk-" + version));
    Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
    Files.writeString(java, "#!/bin/sh\necho fake java ran\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
    return home;
  }

  @Test
  void a_java_home_without_a_java_is_one_line_and_exit_2() throws Exception {
    Path nowhere = dir.resolve("no-such-jdk");
    assertOneErrorLine(run(java.util.Map.of("JAVA_HOME", nowhere.toString()), "status"),
        "JAVA_HOME=" + nowhere + " has no bin/java; point JAVA_HOME at a Java 17 (or newer) installation, "
            + "or unset it to use the java on PATH");
  }

  @Test
  void a_java_older_than_17_is_one_line_and_exit_2_and_is_never_run() throws Exception {
    for (String version : List.of("11.0.2", "1.8.0_292")) {
      Path home = fakeJdk(version);
      assertOneErrorLine(run(java.util.Map.of("JAVA_HOME", home.toString()), "status"),
          home.resolve("bin/java") + " is Java " + version + "; orchestrate needs Java 17 or newer: set JAVA_HOME "
              + "to one");
    }
    Path recent = fakeJdk("21.0.1");
    assertEquals("fake java ran\n", run(java.util.Map.of("JAVA_HOME", recent.toString()), "status").out());
  }

  @Test
  void one_compiler_thread_by_default_and_java_options_that_bring_c2_back_still_start() throws Exception {
    Launcher.Result plain = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", "-XX:+PrintFlagsFinal"), "--version");
    assertEquals(0, plain.exitCode(), plain.err());
    assertTrue(plain.out().matches("(?s).* CICompilerCount += 1 +\\{product\\} \\{command line\\}.*"),
        "the launcher asks for one compiler thread");
    // With C2 back on, a count of 1 would stop the JVM ("CICompilerCount (1) must be at least 2").
    Launcher.Result c2 = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", "-XX:TieredStopAtLevel=4 -XX:+PrintFlagsFinal"),
        "--version");
    assertEquals(0, c2.exitCode(), c2.err());
    assertEquals("", c2.err());
    assertFalse(c2.out().matches("(?s).* CICompilerCount += 1 .*"), "the JVM chose its own compiler threads");
    assertTrue(c2.out().contains("orchestrate "), c2.out());
  }

  @Test
  void run_keeps_c2_and_the_short_commands_c1_alone() throws Exception {
    Launcher.Result run = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", "-XX:+PrintFlagsFinal"), "run", "--help");
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().matches("(?s).* TieredStopAtLevel += 4 .*"), "C2 compiles a run's hot code");
    assertFalse(run.out().matches("(?s).* CICompilerCount += 1 .*"), "the JVM chose its own compiler threads");
    assertTrue(run.out().matches("(?s).* MaxTenuringThreshold += 0 .*"), "a run's items promoted at once");
    Path large = dir.resolve("large.jsonl");
    try (java.io.RandomAccessFile sparse = new java.io.RandomAccessFile(large.toFile(), "rw")) {
      sparse.setLength(64L * 1024 * 1024); // no disk written: only its size counts
    }
    Launcher.Result bigImport = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", "-XX:+PrintFlagsFinal"), "memory",
        "import", large.toString(), "--help");
    assertEquals(0, bigImport.exitCode(), bigImport.err());
    assertTrue(bigImport.out().matches("(?s).* TieredStopAtLevel += 4 .*"), "C2 parses and hashes a large import");
    assertTrue(bigImport.out().matches("(?s).* MaxTenuringThreshold += 0 .*"), "its batches promoted at once");
    Path small = Files.writeString(dir.resolve("small.jsonl"), "{\"kind\": \"semantic\", \"content\": \"x\"}\n");
    Launcher.Result smallImport = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", "-XX:+PrintFlagsFinal"), "memory",
        "import", small.toString(), "--help");
    assertTrue(smallImport.out().matches("(?s).* TieredStopAtLevel += 1 .*"), "C1 alone for a small import");
    Launcher.Result status = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", "-XX:+PrintFlagsFinal"), "--version");
    assertTrue(status.out().matches("(?s).* TieredStopAtLevel += 1 .*"), "C1 alone for a short command");
    assertFalse(status.out().matches("(?s).* MaxTenuringThreshold += 0 .*"), "the collector's default elsewhere");
  }

  @Test
  void java_options_the_jvm_refuses_are_one_line_naming_them_and_exit_2() throws Exception {
    for (String[] bad : List.of(new String[] {"-XX:+NoSuchOption", "Unrecognized VM option 'NoSuchOption'"},
        new String[] {"-Xmx1k", "Too small maximum heap"},
        new String[] {"-Xmx64m -XX:MaxRAM=lots", "Improperly specified VM option 'MaxRAM=lots'"})) {
      Launcher.Result r = run(java.util.Map.of("ORCHESTRATE_JAVA_OPTS", bad[0]), "--state",
          dir.resolve("state").toString(), "status");
      assertOneErrorLine(r, "the JVM does not start with ORCHESTRATE_JAVA_OPTS='" + bad[0] + "': " + bad[1]
          + "; fix or unset ORCHESTRATE_JAVA_OPTS");
    }
    assertFalse(Files.exists(dir.resolve("state")));
  }

  /**
   * The java on PATH, without JAVA_HOME: its home (for its release) is noted once and read back while
   * PATH's java is still that file, so a later start runs no readlink; a switch of the link is seen
   * at once. A launcher of its own (a copy of bin/ and an empty jar) keeps its note from other tests.
   */
  @Test
  void the_java_on_path_is_noted_and_a_switched_link_is_seen_at_once() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Launcher.copyTree(Launcher.HOME.resolve("bin"), home.resolve("bin"));
    Files.createDirectories(home.resolve("target"));
    Files.writeString(home.resolve("target/orchestrate.jar"), "");
    Path old = fakeJdk("11.0.2");
    Path recent = fakeJdk("21.0.1");
    Path path = Files.createDirectories(dir.resolve("path"));
    Path java = path.resolve("java");
    Files.createSymbolicLink(java, old.resolve("bin/java"));
    Path bare = Files.createDirectories(dir.resolve("bare")); // bash and nothing else: no readlink, no stat
    Files.createSymbolicLink(bare.resolve("java"), java);
    Files.createSymbolicLink(bare.resolve("bash"), OnPath.find("bash"));
    String tooOld = "java is Java 11.0.2; orchestrate needs Java 17 or newer: set JAVA_HOME to one";

    assertOneErrorLine(onPath(home, path + ":" + System.getenv("PATH")), tooOld);
    assertEquals(old.toString(), Files.readString(home.resolve("target/java-home")).strip(), "noted");
    assertOneErrorLine(onPath(home, bare.toString()), tooOld); // found by the note alone

    Files.delete(java);
    Files.createSymbolicLink(java, recent.resolve("bin/java"));
    assertEquals("fake java ran\n", onPath(home, path + ":" + System.getenv("PATH")).out(), "the new link, at once");
    assertEquals(recent.toString(), Files.readString(home.resolve("target/java-home")).strip());

    // A note naming another java than PATH's is not believed.
    Files.writeString(home.resolve("target/java-home"), recent + "\n");
    Files.delete(java);
    Files.createSymbolicLink(java, old.resolve("bin/java"));
    assertOneErrorLine(onPath(home, path + ":" + System.getenv("PATH")), tooOld);
  }

  private Launcher.Result onPath(Path home, String path) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/orchestrate").toString(), "status").directory(dir.toFile())
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
    pb.environment().keySet().removeIf(k -> k.equals("JAVA_HOME") || k.startsWith("ORCHESTRATE_"));
    pb.environment().put("PATH", path);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher finished");
    return new Launcher.Result(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
  }

  /**
   * Options are tried once, then remembered: a JVM that logs its arguments is started twice (a
   * {@code -version} probe, then the command) the first time, and once (the command) after.
   */
  @Test
  void java_options_that_start_are_tried_once_and_later_starts_run_the_jvm_alone() throws Exception {
    Path home = fakeJdk("21.0.1");
    Path calls = dir.resolve("calls.txt");
    Files.writeString(home.resolve("bin/java"), "#!/bin/sh\necho \"$*\" >> '" + calls + "'\necho fake java ran\n");
    java.util.Map<String, String> env = java.util.Map.of("JAVA_HOME", home.toString(), "ORCHESTRATE_JAVA_OPTS",
        "-Xmx200m -Dprobe.mark=" + home.getFileName());
    assertEquals("fake java ran\n", run(env, "status").out());
    List<String> first = Files.readAllLines(calls);
    assertEquals(2, first.size(), "a probe, then the command: " + first);
    assertTrue(first.get(0).endsWith("-Dprobe.mark=" + home.getFileName() + " -version"), first.get(0));
    assertTrue(first.get(1).endsWith("status"), first.get(1));
    assertEquals("fake java ran\n", run(env, "status").out());
    assertEquals(3, Files.readAllLines(calls).size(), "no probe the second time: " + Files.readAllLines(calls));
  }

  @Test
  void a_20_megabyte_backlog_is_refused_by_its_size_at_once() throws Exception {
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - id: A\n    title: " + "x".repeat(20_000_000) + "\n");
    Launcher.Result r = run(java.util.Map.of(), "--state", dir.resolve("state").toString(), "run", "--dry-run",
        backlog.toString());
    assertOneErrorLine(r, backlog + ": file is 20000029 bytes, over the limit of 16MiB (16777216 bytes); split the "
        + "backlog, shorten the longest descriptions, or raise backlog.max_bytes in the config");
    assertFalse(Files.exists(dir.resolve("state")));
  }

  @Test
  void a_15_megabyte_title_and_one_error_validates_in_seconds() throws Exception {
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - id: A\n    title: " + "x".repeat(15_000_000)
        + "\n  - {id: B, title: t, depends_on: [Z]}\n");
    Launcher.Result r = run(java.util.Map.of(), "--state", dir.resolve("state").toString(), "run", backlog.toString());
    assertOneErrorLine(r, backlog + ":4:36: item B depends on unknown item 'Z'");
    assertFalse(Files.exists(dir.resolve("state")));
  }

  @Test
  void a_state_path_naming_a_file_is_refused_by_every_command() throws Exception {
    Path file = dir.resolve("not-a-dir");
    Files.writeString(file, "x");
    for (List<String> args : List.of(List.of("status"), List.of("compact"), List.of("memory", "add", "--kind",
        "semantic", "note"), List.of("stats", "--check"))) {
      Launcher.Result r = run(java.util.Map.of("ORCHESTRATE_STATE", file.toString()), args.toArray(String[]::new));
      assertOneErrorLine(r, file + " is not a directory; move the file away or use another state "
          + "directory (--state or ORCHESTRATE_STATE)");
    }
    assertEquals("x", Files.readString(file));
  }
}
