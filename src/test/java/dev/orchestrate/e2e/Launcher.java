package dev.orchestrate.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the built launcher, bin/orchestrate, as a real process. */
final class Launcher {
  static final Path HOME = Path.of("").toAbsolutePath();
  static final Path BIN = HOME.resolve("bin/orchestrate");

  record Result(int exitCode, String out, String err) {
  }

  /**
   * The runner starts with SIGINT, SIGQUIT and SIGHUP at their defaults, as from a terminal, where
   * a user presses Ctrl-C: a suite started as a script's background job or under nohup (cron, CI
   * wrappers) passes them on ignored, and a runner started so ignores the Ctrl-C the tests send
   * (README, Troubleshooting). {@code env --default-signal} (coreutils 8.31) resets them.
   */
  private static final List<String> AS_FROM_A_TERMINAL = defaultSignals();

  private static List<String> defaultSignals() {
    List<String> env = List.of("env", "--default-signal=INT,QUIT,HUP");
    try {
      Process probe = new ProcessBuilder(concat(env, List.of("true"))).redirectErrorStream(true).start();
      probe.getInputStream().readAllBytes();
      return probe.waitFor() == 0 ? env : List.of();
    } catch (IOException e) {
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** How a script's background job starts it: SIGINT ignored, which it cannot undo. */
  static ProcessBuilder builderWithInterruptIgnored(Path cwd, String... args) {
    List<String> command = new ArrayList<>(List.of("sh", "-c", "trap '' INT; exec \"$0\" \"$@\"", BIN.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    pb.environment().remove("ORCHESTRATE_STATE");
    pb.environment().remove("ORCHESTRATE_CONFIG");
    return compiledLightly(pb, args);
  }

  /**
   * A {@code run} of these tests with C1 alone, as the launcher starts every other command: the
   * launcher gives {@code run} C2 for a large backlog's first seconds (bin/orchestrate), and for
   * the runs here, of a few items, its compilations were 0.5-0.9 s of CPU a run (the example's run:
   * 4.2-5.0 s of CPU with C2, 3.7-4.1 with C1 alone), on a suite that is CPU-bound on 2 cores.
   * Through ORCHESTRATE_JAVA_OPTS, as a user would; a test that sets its own keeps it
   * (LauncherHostileInputIT's option tests). StartupArchiveIT starts its launchers itself, without it.
   */
  private static ProcessBuilder compiledLightly(ProcessBuilder pb, String... args) {
    if (List.of(args).contains("run") && !pb.environment().containsKey("ORCHESTRATE_JAVA_OPTS")) {
      pb.environment().put("ORCHESTRATE_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
    }
    return pb;
  }

  static ProcessBuilder builder(Path cwd, String... args) {
    List<String> command = new ArrayList<>(AS_FROM_A_TERMINAL);
    command.add(BIN.toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    pb.environment().remove("ORCHESTRATE_STATE");
    pb.environment().remove("ORCHESTRATE_CONFIG");
    return compiledLightly(pb, args);
  }

  static Result run(Path cwd, String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile("orchestrate-out", ".txt");
    Path err = Files.createTempFile("orchestrate-err", ".txt");
    try {
      Process p = builder(cwd, args).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("orchestrate " + String.join(" ", args) + " did not finish in 120 s");
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          if (p.getFileName().toString().equals(".orchestrate")) {
            continue;
          }
          Files.createDirectories(target);
        } else if (!p.toString().contains("/.orchestrate/")) {
          Files.copy(p, target);
        }
      }
    }
  }

  private Launcher() {
  }
}
