package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short commands as a script meets them through bin/orchestrate: answered without picocli
 * (not one of its classes is loaded), without starting logback (nothing is logged) and without
 * sqlite-jdbc's date format, while a mistyped flag or help still gets picocli's messages and -vv
 * its debug lines.
 */
class ShortCommandsLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void the_short_commands_answer_without_picocli_and_a_typo_still_gets_its_suggestion() throws Exception {
    Path state = dir.resolve("state");
    Files.writeString(dir.resolve("orchestrate.yaml"), "agent:\n  command: [\"true\"]\n");
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - id: T-1\n    title: one\n");
    Launcher.Result run = Launcher.run(dir, "--quiet", "--state", state.toString(), "run");
    assertEquals(0, run.exitCode(), run.err());

    for (List<String> args : List.of(List.of("status", "--json"), List.of("stats", "--json"),
        List.of("jobs", "--json"), List.of("memory", "list", "--json"), List.of("compact", "--json"))) {
      Path classes = dir.resolve("classes.txt");
      Launcher.Result r = withClassLog(classes, state, args);
      assertEquals(0, r.exitCode(), args + ": " + r.err());
      assertEquals("", r.err(), args.toString());
      JsonNode doc = JSON.readTree(r.out());
      assertEquals(1, doc.get("schema_version").asInt(), args.toString());
      String loaded = Files.readString(classes, StandardCharsets.UTF_8);
      assertTrue(loaded.contains("dev.orchestrate.cli.FastPath "), args + ": the class log is read");
      // Not one picocli class: its Java 5 classes (and those implementing their interfaces) would
      // be read from the jar, outside a JDK 25 AOT cache.
      assertFalse(loaded.contains(" picocli."), args + " loaded a picocli class");
      // Nothing is logged at the default level, so logback is never started.
      assertFalse(loaded.contains(" ch.qos.logback.classic.LoggerContext "), args + " started logback");
      // No date is read or written through JDBC, so sqlite-jdbc's date format (and with it the
      // JDK's locale and time-zone data) is never built: orchestrate's SQLiteConnectionConfig.
      assertFalse(loaded.contains(" org.sqlite.date.FastDateFormat "), args + " built sqlite-jdbc's date format");
      assertFalse(loaded.contains(" java.text.DateFormatSymbols "), args + " loaded the JDK's locale data");
      // A record's generated equals, hashCode or toString is bootstrapped through method handles on
      // its first call, spinning classes at run time that the start-up archive cannot hold.
      assertFalse(loaded.contains(" java.lang.runtime.ObjectMethods "), args + " called a record's generated method");
    }
    Launcher.Result done = Launcher.run(dir, "--state", state.toString(), "status", "--json");
    assertEquals("done", JSON.readTree(done.out()).get("items").get(0).get("status").asText());

    Launcher.Result debug = Launcher.run(dir, "--state", state.toString(), "-vv", "stats", "--json");
    assertEquals(0, debug.exitCode(), debug.err());
    assertTrue(debug.err().matches("(?s)\\d\\d:\\d\\d:\\d\\d\\.\\d{3} DEBUG StatsCommand: stats sample recorded.*"),
        debug.err());
    assertEquals("stats", JSON.readTree(debug.out()).get("kind").asText());

    Launcher.Result typo = Launcher.run(dir, "--state", state.toString(), "status", "--jsno");
    assertEquals(2, typo.exitCode());
    assertEquals("", typo.out());
    assertEquals(List.of("orchestrate: error: unknown option '--jsno'; did you mean '--json'? "
        + "(see 'orchestrate status --help')"), typo.err().lines().toList());

    Launcher.Result help = Launcher.run(dir, "stats", "--help");
    assertEquals(0, help.exitCode(), help.err());
    assertTrue(help.out().startsWith("Usage: orchestrate stats"), help.out());

    Launcher.Result bad = Launcher.run(dir, "--state", state.toString(), "compact", "--keep-recent", "-1");
    assertEquals(2, bad.exitCode());
    assertEquals(List.of("orchestrate: error: --keep-recent must be 0 or more, got -1"), bad.err().lines().toList());
  }

  /** The launcher with its JVM's class loading logged to {@code classes}. */
  private Launcher.Result withClassLog(Path classes, Path state, List<String> args) throws Exception {
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    String[] all = new String[args.size() + 2];
    all[0] = "--state";
    all[1] = state.toString();
    for (int i = 0; i < args.size(); i++) {
      all[i + 2] = args.get(i);
    }
    ProcessBuilder pb = Launcher.builder(dir, all).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("ORCHESTRATE_JAVA_OPTS", "-Xlog:class+load=info:file=" + classes);
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(args + " did not finish in 120 s");
    }
    return new Launcher.Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
