package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short commands parsed without picocli ({@link FastPath}) print the same stdout and stderr
 * and exit with the same code as picocli with every command's model, for each argument list of a
 * table; and what the fast path does not recognise exactly is left to picocli.
 */
class FastPathTest {
  @TempDir
  static Path root;

  /** The project both paths run in, each in a copy of its own: root/project. */
  static Path project;

  /** A state with done, blocked and waiting items, jobs, events and memories of every kind. */
  @BeforeAll
  static void aStateWithSomethingInIt() throws IOException {
    project = Files.createDirectories(root.resolve("project"));
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "-c", "cat >/dev/null; [ \\"$ORCHESTRATE_ITEM_ID\\" != B-2 ]"]
          timeout: 20s
        execution:
          max_retries: 1
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: only
                instructions: "Do it."
        memory:
          keep_recent: 1
        """);
    Files.writeString(project.resolve("backlog.yaml"), """
        schema_version: 1
        items:
          - id: A-1
            title: First
          - id: B-2
            title: Fails every time
          - id: C-3
            title: Waits on the first
            depends_on: [A-1]
            tags: [x]
        """);
    Path state = project.resolve("state");
    Map<String, String> env = Map.of();
    CliRunner.Result run = CliRunner.runIn(project, env, "--quiet", "--state", state.toString(), "run",
        project.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err()); // A-1 and C-3 done, B-2 blocked
    for (String[] add : List.of(new String[] {"--kind", "semantic", "--tag", "db", "We use SQLite"},
        new String[] {"--kind", "procedural", "--title", "Build", "./mvnw package"},
        new String[] {"--kind", "episodic", "--tag", "rejected-path", "Tried a cache; too slow"})) {
      List<String> args = new ArrayList<>(List.of("--state", state.toString(), "memory", "add"));
      args.addAll(List.of(add));
      assertEquals(0, CliRunner.runIn(project, env, args.toArray(String[]::new)).exitCode());
    }
    Files.writeString(project.resolve("not-a-dir"), "x");
  }

  @AfterEach
  void defaultLogLevel() {
    LogConfigurator.setLevel(Level.WARN); // -q and --log-level set it for the whole JVM
  }

  /** Argument lists the fast path runs (each with the state given after "--state" unless it names one). */
  static final List<List<String>> RECOGNISED = List.of(
      List.of("status"), List.of("status", "--json"), List.of("status", "A-1"), List.of("status", "--json", "B-2"),
      List.of("status", "NOPE"), List.of("status", "NOPE", "--json"), List.of("--quiet", "status", "--json"),
      List.of("status", "-q", "--json"), List.of("--log-level", "error", "status"),
      List.of("--log-level=bogus", "status", "--json"), List.of("status", "--log-level", "ERROR"),
      List.of("stats"), List.of("stats", "--json"), List.of("stats", "--check"), List.of("stats", "--check", "--json"),
      List.of("stats", "--no-sample"), List.of("stats", "--json", "--no-sample", "--check"),
      List.of("jobs"), List.of("jobs", "--json"), List.of("jobs", "--limit", "2"),
      List.of("jobs", "--limit=1", "--json"),
      List.of("jobs", "--limit", "0"), List.of("jobs", "--limit", "999999999"), List.of("jobs", "--limit", "007"),
      List.of("memory", "list"), List.of("memory", "list", "--json"), List.of("memory", "list", "--kind", "semantic"),
      List.of("memory", "list", "--kind=episodic", "--json"), List.of("memory", "list", "--kind", "bogus"),
      List.of("memory", "list", "--tag", "db"), List.of("memory", "-q", "list", "--tag", "none", "--json"),
      List.of("compact", "--config", "orchestrate.yaml"), List.of("compact", "--json"), List.of("compact", "--dry-run"),
      List.of("compact", "--dry-run", "--json", "--keep-recent", "0"), List.of("compact", "--keep-recent=999999999"),
      List.of("compact", "--incremental", "--json"), List.of("compact", "--incremental", "--dry-run"),
      List.of("compact", "--keep-recent", "1", "--vacuum", "--json"), List.of("-q", "compact", "--dry-run"),
      List.of("compact", "--config", "missing.yaml"), List.of("--config=orchestrate.yaml", "compact", "--json"),
      List.of("--state", "nowhere", "status", "--json"), List.of("--state", "nowhere", "stats", "--check"),
      List.of("--state", "nowhere", "stats"), List.of("--state", "nowhere", "jobs", "--json"),
      List.of("--state", "nowhere", "memory", "list"), List.of("--state", "nowhere", "status", "A-1"),
      List.of("--state", "not-a-dir", "status"), List.of("--state=not-a-dir", "compact", "--json"),
      List.of("--state", "postgresql://u:secret@host/db", "status"), List.of("status", "--logs", "joblogs"));

  /** Argument lists the fast path leaves to picocli. */
  static final List<List<String>> LEFT_TO_PICOCLI = List.of(
      List.of(), List.of("--help"), List.of("-h"), List.of("version"), List.of("--version", "--version"),
      List.of("-V", "status"), List.of("--quiet", "--version"),
      List.of("status", "--help"), List.of("status", "-h"), List.of("stats", "-V"), List.of("help", "status"),
      List.of("completion", "bash"), List.of("stauts"), List.of("stats", "--jsn"),
      List.of("status", "--json", "--json"),
      List.of("--state", "a", "--state", "b", "status"), List.of("status", "A-1", "B-2"), List.of("--json", "status"),
      List.of("memory", "--json", "list"), List.of("memory"), List.of("memory", "list", "extra"),
      List.of("memory", "add", "--kind", "semantic", "x"), List.of("compact", "--keep-recent", "-1"),
      List.of("compact", "--keep-recent", "+5"), List.of("compact", "--keep-recent", "x"),
      List.of("compact", "--keep-recent="), List.of("compact", "--keep-recent", "1234567890"),
      List.of("jobs", "--limit"),
      List.of("status", "--"), List.of("@args"), List.of("-vq", "status"), List.of("-q", "-q", "status"),
      List.of("--state", "", "status"), List.of("stats", "--json=true"), List.of("status", "stats"),
      List.of("--state", "status", "status"), List.of("--state", "-x", "status"), List.of("run"),
      List.of("unblock", "A-1"),
      List.of("status", "--check"), List.of("stats", "--keep-recent", "1"), List.of("--limit", "1", "jobs"),
      List.of("memory", "list", "--kind"), List.of("status", "--state"), List.of("--log-level"),
      List.of("memory", "list", "--tag", "a", "--tag", "b"), List.of("compact", "--dry-run", "--dry-run"));

  @Test
  void every_recognised_argument_list_prints_and_exits_as_picocli_does() throws IOException {
    int n = 0;
    for (List<String> args : RECOGNISED) {
      List<String> all = withState(args);
      assertTrue(FastPath.parse(all.toArray(String[]::new), Map.of(), project).isPresent(), "not recognised: " + all);
      assertSame(all, n++);
    }
  }

  @Test
  void the_verbosity_flags_and_the_state_from_the_environment_are_read_as_picocli_reads_them() throws IOException {
    int n = 1000; // each test its own copies: RECOGNISED takes 2 per entry from 0
    for (List<String> args : List.of(List.of("-v", "status", "--json"), List.of("status", "-vv", "--verbose"),
        List.of("--verbose", "memory", "list", "--json"))) {
      assertTrue(FastPath.parse(args.toArray(String[]::new), Map.of(), project).isPresent(), args.toString());
      assertSame(withState(args), n++);
    }
    for (String command : List.of("status", "stats", "jobs")) {
      Path copy = copyProject(n++);
      CliRunner.Result picocli = CliRunner.picocli(copy, Map.of("ORCHESTRATE_STATE", "state"), command, "--json");
      Path other = copyProject(n++);
      CliRunner.Result fast = CliRunner.runIn(other, Map.of("ORCHESTRATE_STATE", "state"), command, "--json");
      assertEquals(normalised(picocli, copy), normalised(fast, other), command);
    }
  }

  @Test
  void version_alone_prints_as_picocli_does_without_it() throws IOException {
    int n = 3000;
    for (List<String> args : List.of(List.of("--version"), List.of("-V"), List.of("--state", "state", "--version"))) {
      assertTrue(FastPath.isVersion(args.toArray(String[]::new)), args.toString());
      assertSame(args, n++);
    }
  }

  @Test
  void anything_else_is_left_to_picocli_unchanged() throws IOException {
    int n = 2000;
    for (List<String> args : LEFT_TO_PICOCLI) {
      List<String> all = withState(args);
      assertTrue(FastPath.parse(all.toArray(String[]::new), Map.of(), project).isEmpty(), "recognised: " + all);
      assertFalse(FastPath.isVersion(all.toArray(String[]::new)), "recognised as --version: " + all);
      assertSame(all, n++);
    }
  }

  /** The arguments with "--state state" in front, unless they name the state themselves. */
  private static List<String> withState(List<String> args) {
    if (args.stream().anyMatch(a -> a.startsWith("--state"))) {
      return args;
    }
    List<String> all = new ArrayList<>(List.of("--state", "state"));
    all.addAll(args);
    return all;
  }

  /**
   * Runs the arguments through picocli alone and through {@link Cli#execute}, each in its own copy
   * of the project (stats and compact write to the state), and compares what they print.
   */
  private static void assertSame(List<String> args, int n) throws IOException {
    String[] array = args.toArray(String[]::new);
    Path a = copyProject(2 * n);
    CliRunner.Result picocli = CliRunner.picocli(a, Map.of(), array);
    LogConfigurator.setLevel(Level.WARN);
    Path b = copyProject(2 * n + 1);
    CliRunner.Result fast = CliRunner.runIn(b, Map.of(), array);
    LogConfigurator.setLevel(Level.WARN);
    assertEquals(normalised(picocli, a), normalised(fast, b), String.join(" ", args));
  }

  /** The result with the copy's directory and the clock's readings made alike. */
  private static CliRunner.Result normalised(CliRunner.Result r, Path copy) {
    return new CliRunner.Result(r.exitCode(), normalised(r.out(), copy), normalised(r.err(), copy));
  }

  private static String normalised(String text, Path copy) {
    return text.replace(copy.toString(), "<project>")
        .replaceAll("\"generated_at\" : \"[^\"]*\"", "\"generated_at\" : \"<now>\"")
        .replaceAll("\"pass_ms\" : [0-9]+", "\"pass_ms\" : <ms>");
  }

  private static Path copyProject(int n) throws IOException {
    Path copy = root.resolve("copy-" + n);
    try (Stream<Path> paths = Files.walk(project)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = copy.resolve(project.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    return copy;
  }
}
