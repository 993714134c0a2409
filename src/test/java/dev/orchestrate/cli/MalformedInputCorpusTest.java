package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.TreeSnapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The malformed-input corpus: backlogs, configs, JSON Lines imports, flags, environment variables
 * and state files that are wrong in every way we could think of, each run through the in-process
 * CLI. For every case: the documented exit code; stderr only lines of the form
 * {@code orchestrate: error: ...} (one, unless the case lists several validation problems, each
 * on its own line) naming what is wrong; no stack trace; nothing on stdout; the project directory
 * (inputs and state) unchanged, byte for byte; and the whole case within a generous preemptive
 * timeout, in the 512 MB heap the tests run with (the big inputs are big but under the caps).
 */
class MalformedInputCorpusTest {
  private static final Duration BOUND = Duration.ofSeconds(90);
  private static final String VALID_BACKLOG = "items:\n  - id: A\n    title: a\n  - id: B\n    title: b\n";
  private static final String VALID_CONFIG = """
      agent:
        command: ["bash", "-c", "exit 0"]
        timeout: 20s
      """;

  @TempDir
  Path dir;

  /** Writes a case's files into the project directory. */
  @FunctionalInterface
  interface Setup {
    void apply(Path dir) throws Exception;
  }

  /**
   * One malformed input. {@code args} may use {@code {dir}} for the project directory; unless the
   * case sets ORCHESTRATE_STATE, {@code --state {dir}/state} comes first. {@code lines} is how many
   * error lines stderr has (0: between 2 and the 51 a long list is cut to).
   */
  record Case(String name, int exit, String fragment, int lines, Setup setup, Map<String, String> env,
      List<String> args) {
    @Override
    public String toString() {
      return name;
    }

    Case lines(int n) {
      return new Case(name, exit, fragment, n, setup, env, args);
    }

    Case env(String key, String value) {
      Map<String, String> more = new LinkedHashMap<>(env);
      more.put(key, value);
      return new Case(name, exit, fragment, lines, setup, more, args);
    }

    Case exit(int code) {
      return new Case(name, code, fragment, lines, setup, env, args);
    }
  }

  private static Case make(String name, String fragment, Setup setup, String... args) {
    return new Case(name, 2, fragment, 1, setup, Map.of(), List.of(args));
  }

  private static Setup files(Object... nameAndContent) {
    return dir -> {
      for (int i = 0; i < nameAndContent.length; i += 2) {
        Path file = dir.resolve((String) nameAndContent[i]);
        Files.createDirectories(file.getParent());
        Object content = nameAndContent[i + 1];
        if (content instanceof byte[] bytes) {
          Files.write(file, bytes);
        } else {
          Files.writeString(file, (String) content);
        }
      }
    };
  }

  private static Setup both(Setup first, Setup second) {
    return dir -> {
      first.apply(dir);
      second.apply(dir);
    };
  }

  private static final String[] RUN = {"--config", "{dir}/orchestrate.yaml", "run", "{dir}/backlog.yaml"};

  private static Case backlog(String name, Object content, String fragment) {
    return make("backlog: " + name, fragment, files("backlog.yaml", content, "orchestrate.yaml", VALID_CONFIG), RUN);
  }

  private static Case config(String name, Object content, String fragment) {
    return make("config: " + name, fragment, files("orchestrate.yaml", content, "backlog.yaml", VALID_BACKLOG), RUN);
  }

  private static Case jsonl(String name, Object content, String fragment) {
    return make("memory import: " + name, fragment, files("import.jsonl", content), "memory", "import",
        "{dir}/import.jsonl");
  }

  private static Case flags(String name, String fragment, String... args) {
    return make("flags: " + name, fragment, files("backlog.yaml", VALID_BACKLOG, "orchestrate.yaml", VALID_CONFIG),
        args);
  }

  private static Case state(String name, Setup setup, String fragment, String... args) {
    return make("state: " + name, fragment, both(files("backlog.yaml", VALID_BACKLOG, "orchestrate.yaml",
        VALID_CONFIG), setup), args);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) {
    int length = Arrays.stream(parts).mapToInt(p -> p.length).sum();
    byte[] out = new byte[length];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static String billionLaughs() {
    StringBuilder yaml = new StringBuilder(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (char c = 'b'; c <= 'i'; c++) {
      char p = (char) (c - 1);
      yaml.append(c).append(": &").append(c).append(" [");
      for (int i = 0; i < 9; i++) {
        yaml.append(i == 0 ? "" : ",").append('*').append(p);
      }
      yaml.append("]\n");
    }
    return yaml.append("items:\n  - {id: A, title: *i}\n").toString();
  }

  private static String manyItems(int n, String last) {
    StringBuilder yaml = new StringBuilder("items:\n");
    for (int i = 0; i < n; i++) {
      yaml.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    return yaml.append(last).toString();
  }

  private static byte[] garbage(int n, long seed) {
    byte[] bytes = new byte[n];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /** A real state database (made by {@code memory add}), with {@code sql} run on it. */
  private static Setup database(String sql) {
    return dir -> {
      Path state = dir.resolve("state");
      CliRunner.Result r = CliRunner.run(Map.of(), "--state", state.toString(), "memory", "add", "--kind", "semantic",
          "a note");
      assertEquals(0, r.exitCode(), r.err());
      if (!sql.isEmpty()) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + state.resolve("state.db"));
            Statement st = c.createStatement()) {
          st.execute(sql);
        }
      }
    };
  }

  /** A real state database (made by {@code memory add}), with {@code change} written to it through the port. */
  private static Setup database(java.util.function.Consumer<StateStore> change) {
    return dir -> {
      database("").apply(dir);
      try (StateStore store = TestStores.open(dir.resolve("state"))) {
        change.accept(store);
      }
    };
  }

  private static Setup stateDb(Setup make) {
    return dir -> {
      Files.createDirectories(dir.resolve("state"));
      make.apply(dir.resolve("state").resolve("state.db"));
    };
  }

  private static void mkfifo(Path path) throws Exception {
    Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertTrue(p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo");
  }

  private static final List<List<String>> STATE_COMMANDS = List.of(
      List.of("status"), List.of("compact"), List.of("--config", "{dir}/orchestrate.yaml", "run",
          "{dir}/backlog.yaml"),
      List.of("memory", "add", "--kind", "semantic", "a note"), List.of("jobs"),
      List.of("stats"), List.of("stats", "--check"), List.of("unblock", "A", "--notes", "n"), List.of("memory",
          "list"));

  static Stream<Case> corpus() {
    String big = "x".repeat(1_000_000);
    List<Case> cases = new ArrayList<>(List.of(
        // --- backlog YAML ---
        backlog("empty file", "", "backlog.yaml: file is empty"),
        backlog("only comments", "# nothing\n", "file is empty"),
        backlog("only a document marker", "---\n", "file is empty"),
        backlog("items is a number", "items: 5\n", "items must be a list of items, got '5'"),
        backlog("root is a list", "- a\n- b\n", "a backlog file must be a map with an items list, got a list"),
        backlog("root is a scalar", "hello\n", "must be a map with an items list, got 'hello'"),
        backlog("no items key", "things: []\n", "missing key 'items'").lines(2),
        backlog("an item is a string", "items: [a]\n", "items[0] must be a map with id and title, got 'a'"),
        backlog("an item without id", "items:\n  - title: t\n", "items[0] has no id"),
        backlog("an id that is a list", "items:\n  - {id: [A], title: t}\n", "id in items[0] must be an id"),
        backlog("an id that is a map", "items:\n  - {id: {a: 1}, title: t}\n", "got a map"),
        backlog("an id with a space", "items:\n  - {id: A B, title: t}\n", "bad id 'A B'"),
        backlog("an id with a newline", "items:\n  - {id: \"A\\nB\", title: t}\n", "bad id 'A\\nB'"),
        backlog("an id with an escape sequence", "items:\n  - {id: \"A\\e[2J\", title: t}\n", "bad id 'A\\x1b[2J'"),
        backlog("an id of 101 characters", "items:\n  - {id: " + "a".repeat(101) + ", title: t}\n",
            "(101 characters) is longer than 100 characters"),
        backlog("an id of 300 characters", "items:\n  - {id: " + "a".repeat(300) + ", title: t}\n",
            "(300 characters) is longer than 100 characters"),
        backlog("a bad id of a megabyte", "items:\n  - {id: \"" + "x ".repeat(500_000) + "\", title: t}\n",
            "(1000000 characters)"),
        backlog("a duplicate id", "items:\n  - {id: A, title: a}\n  - {id: A, title: b}\n",
            "duplicate id 'A' (first defined at line 2)"),
        backlog("no title", "items:\n  - id: A\n", "item A has no title"),
        backlog("a blank title", "items:\n  - {id: A, title: \"  \"}\n", "item A has a blank title"),
        backlog("a title that is a list", "items:\n  - {id: A, title: [a]}\n", "title in item A must be text"),
        backlog("an unknown field", "items:\n  - {id: A, title: a, depends: [B]}\n", "did you mean 'depends_on'?"),
        backlog("an unknown top-level key", "itmes: []\nitems: []\n", "unknown key 'itmes' in the backlog"),
        backlog("an unknown key of a megabyte", "k" + big + ": 1\nitems: []\n", "invalid YAML"),
        backlog("an unknown priority", "items:\n  - {id: A, title: a, priority: urgent}\n",
            "priority in item A must be high, medium or low, got 'urgent'"),
        backlog("an unknown status", "items:\n  - {id: A, title: a, status: finished}\n", "status in item A"),
        backlog("an unknown pipeline", "items:\n  - {id: A, title: a, pipeline: nope}\n", "unknown pipeline 'nope'"),
        backlog("depends_on a string", "items:\n  - {id: A, title: a}\n  - {id: B, title: b, depends_on: A}\n",
            "e.g. [A]"),
        backlog("depends_on an unknown item", "items:\n  - {id: A, title: a, depends_on: [Z]}\n",
            "item A depends on unknown item 'Z'"),
        backlog("depends_on itself", "items:\n  - {id: A, title: a, depends_on: [A]}\n", "item A depends on itself"),
        backlog("a dependency cycle", "items:\n  - {id: A, title: a, depends_on: [B]}\n"
            + "  - {id: B, title: b, depends_on: [A]}\n", "dependency cycle: A -> B -> A"),
        backlog("tags a map", "items:\n  - {id: A, title: a, tags: {x: 1}}\n", "tags in item A must be a list"),
        backlog("a description that is a list", "items:\n  - {id: A, title: a, description: [x]}\n",
            "description in item A must be text"),
        backlog("a newer schema_version", "schema_version: 2\nitems: []\n", "unsupported schema_version 2"),
        backlog("a schema_version that is a word", "schema_version: one\nitems: []\n", "unsupported schema_version"),
        backlog("a duplicate key in an item", "items:\n  - id: A\n    title: a\n    title: b\n",
            "duplicate key 'title'"),
        backlog("an alias", "x: &t hello\nitems:\n  - {id: A, title: *t}\n", "YAML aliases are not supported").lines(2),
        backlog("a billion laughs", billionLaughs(), "YAML aliases are not supported").lines(0),
        backlog("a tab for indentation", "items:\n\t- id: A\n", "(TAB)"),
        backlog("CRLF line ends and a bad id", "items:\r\n  - id: A B\r\n    title: t\r\n", "backlog.yaml:2:9: bad id"),
        backlog("a byte order mark and a bad id", "\uFEFFitems:\n  - {id: A B, title: t}\n", "backlog.yaml:2:10:"),
        backlog("UTF-16",
            concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, "items: []\n".getBytes(StandardCharsets.UTF_16LE)),
            "file is UTF-16 text"),
        backlog("invalid UTF-8", concat(bytes("items:\n  - {id: A, title: "), new byte[] {(byte) 0xC3, (byte) 0x28},
            bytes("}\n")), "backlog.yaml:2:20: not valid UTF-8 (byte 0xC3)"),
        backlog("a NUL byte", "items:\n  - {id: A, title: a\u0000b}\n", "backlog.yaml:2:21: character U+0000"),
        backlog("binary garbage", garbage(4096, 42), "backlog.yaml:"),
        backlog("a gzip header", concat(new byte[] {0x1f, (byte) 0x8b, 8, 0}, garbage(100, 7)), "backlog.yaml:"),
        backlog("two documents", "items: []\n---\nitems: []\n", "more than one YAML document"),
        backlog("an unclosed flow list", "items: [{id: A, title: a}\n", "invalid YAML"),
        backlog("a million open brackets", "items: " + "[".repeat(1_000_000) + "\n", "nested more than 32 levels"),
        backlog("block maps 40 deep", nestedMaps(40), "nested more than 32 levels"),
        backlog("over the size limit", "items:\n  - id: A\n    title: " + "x".repeat(17 * 1024 * 1024) + "\n",
            "over the limit of 16MiB"),
        backlog("a 15 MB title and one error", "items:\n  - id: A\n    title: " + "x".repeat(15_000_000)
            + "\n  - {id: B, title: t, depends_on: [Z]}\n", "backlog.yaml:4:36: item B depends on unknown item 'Z'"),
        backlog("100,000 items and one error", manyItems(100_000, "  - {id: I0, title: again}\n"),
            "duplicate id 'I0'"),
        backlog("four million values", "items:\n" + "- x\n".repeat(4_000_000), "more than 1000000 values"),
        backlog("3,000 bad items", "items:\n" + "- x\n".repeat(3000), "2950 more problems not shown").lines(51),
        backlog("sixty errors", manyItems(0, "  - {id: A B, title: t}\n".repeat(60)), "bad id").lines(51),
        backlog("a number of 100,000 digits as priority", "items:\n  - {id: A, title: a, priority: "
            + "9".repeat(100_000) + "}\n", "(100000 characters)"),
        backlog("a list as a key", "items:\n  - ? [a]\n    : 1\n", "mapping keys must be plain values"),
        backlog("mapping values on one line", "items: a: b\n", "mapping values are not allowed here"),
        backlog("a title that is a map", "items:\n  - {id: A, title: {a: 1}}\n", "got a map"),
        backlog("a boolean id", "items:\n  - {id: A, title: a}\n  - {id: [true], title: b}\n", "got a list"),
        make("backlog: a directory", "backlog.yaml is a directory, not a file",
            files("backlog.yaml/x", "", "orchestrate.yaml", VALID_CONFIG),
            RUN),
        make("backlog: missing", "does not exist", files("orchestrate.yaml", VALID_CONFIG), RUN),
        make("backlog: a FIFO", "backlog.yaml is not a regular file (a pipe, a device or a socket)",
            both(files("orchestrate.yaml", VALID_CONFIG),
                d -> mkfifo(d.resolve("backlog.yaml"))),
            RUN),

        // --- config YAML ---
        config("empty", "", "orchestrate.yaml: file is empty"),
        config("root is a list", "- a\n", "a config file must be a map of settings"),
        config("a misspelt section", "agnet: {}\n", "did you mean 'agent'?"),
        config("command as a string", "agent:\n  command: bash agent.sh\n", "write it as [\"bash\", \"agent.sh\"]"),
        config("command as a long string", "agent:\n  command: \"" + "a ".repeat(100_000) + "\"\n",
            "agent.command must be a list"),
        config("an empty command", "agent:\n  command: []\n", "agent.command is empty"),
        config("a timeout in words", "agent:\n  timeout: soon\n", "bad duration 'soon'"),
        config("a zero timeout", "agent:\n  timeout: 0s\n", "must be more than zero"),
        config("a timeout over the range", "agent:\n  timeout: 8d\n", "agent.timeout must be at most 7d"),
        config("a kill_grace over the range", "agent:\n  kill_grace: 2h\n", "agent.kill_grace must be at most 1h"),
        config("a log_max_bytes over the range", "agent:\n  log_max_bytes: 2GiB\n", "must be at most 1GiB"),
        config("a log_max_bytes in words", "agent:\n  log_max_bytes: ten\n", "bad size 'ten'"),
        config("output_tail_chars 2147483647", "agent:\n  output_tail_chars: 2147483647\n",
            "agent.output_tail_chars must be at most 100000, got 2147483647"),
        config("output_tail_chars below the range", "agent:\n  output_tail_chars: 99\n", "must be at least 100"),
        config("output_tail_chars a float", "agent:\n  output_tail_chars: 1e3\n", "must be an integer"),
        config("an env name with a digit first", "agent:\n  env: {1X: a}\n", "bad environment variable name '1X'"),
        config("an env value that is a map", "agent:\n  env: {X: {a: 1}}\n", "agent.env.X must be a string"),
        config("an unknown result_fallback", "agent:\n  result_fallback: maybe\n", "agent.result_fallback"),
        config("max_wip 0", "execution:\n  max_wip: 0\n", "execution.max_wip must be at least 1"),
        config("max_concurrent over the range", "execution:\n  max_concurrent: 65\n", "must be at most 64"),
        config("max_retries negative", "execution:\n  max_retries: -1\n", "must be at least 0"),
        config("circuit_breaker a word", "execution:\n  circuit_breaker: x\n", "must be an integer, got 'x'"),
        config("phase_cap of twenty digits", "execution:\n  phase_cap: 99999999999999999999\n",
            "must be at most 1000000"),
        config("execution a list", "execution: [1]\n", "execution must be a map, got a list"),
        config("empty pipelines", "pipelines: {}\n", "pipelines is empty"),
        config("a pipeline without phases", "default_pipeline: p\npipelines:\n  p: {}\n", "has no phases"),
        config("a phase without a name", "default_pipeline: p\npipelines:\n  p:\n    phases:\n"
            + "      - instructions: x\n", "has no name"),
        config("a bad phase name", "default_pipeline: p\npipelines:\n  p:\n    phases:\n"
            + "      - {name: a b, instructions: x}\n", "bad phase name 'a b'"),
        config("a phase name of 65 characters", "default_pipeline: p\npipelines:\n  p:\n    phases:\n"
            + "      - {name: " + "n".repeat(65) + ", instructions: x}\n", "at most 64 characters"),
        config("a duplicate phase", "default_pipeline: p\npipelines:\n  p:\n    phases:\n"
            + "      - {name: a, instructions: x}\n      - {name: a, instructions: y}\n", "duplicate phase 'a'"),
        config("instructions and a workflow", "default_pipeline: p\npipelines:\n  p:\n    phases:\n"
            + "      - {name: a, instructions: x, workflow: w.md}\n", "has both instructions and workflow").lines(2),
        config("a missing workflow file", "default_pipeline: p\npipelines:\n  p:\n    phases:\n"
            + "      - {name: a, workflow: nowhere.md}\n", "workflow file 'nowhere.md' not found"),
        config("an undefined default_pipeline", "default_pipeline: nope\n", "default_pipeline 'nope'"),
        config("window_size over the range", "context:\n  window_size: 51\n", "must be at most 50"),
        config("turn_max_chars below the range", "context:\n  turn_max_chars: 199\n", "must be at least 200"),
        config("an unknown summarizer", "context:\n  summarizer: {kind: magic}\n", "context.summarizer.kind"),
        config("an openai summarizer without a model", "context:\n  summarizer: {kind: openai, base_url: "
            + "\"https://x\"}\n", "needs model"),
        config("an ftp base_url", "context:\n  summarizer: {kind: openai, base_url: \"ftp://x\", model: m}\n",
            "must be an http(s) URL"),
        config("keep_recent negative", "memory:\n  keep_recent: -5\n", "memory.keep_recent must be at least 0"),
        config("a retention budget over the range", "retention:\n  budget: 10001\n", "must be at most 10000"),
        config("a max_age in words", "retention:\n  jobs: {max_age: forever}\n", "bad duration 'forever'"),
        config("max_rows a float", "retention:\n  events: {max_rows: 1.0e12}\n", "must be an integer"),
        config("a key under limits", "limits: {foo: 1}\n", "limits takes no keys"),
        config("over the size limit", "# " + "x".repeat(1024 * 1024) + "\nagent: {}\n", "over the limit of 1MiB"),
        config("a NUL byte", "agent:\n  timeout: 1\u0000s\n", "orchestrate.yaml:2:13: character U+0000"),
        config("a tab for indentation", "agent:\n\ttimeout: 1s\n", "(TAB)"),
        config("a duplicate key", "agent:\n  timeout: 1s\n  timeout: 2s\n", "duplicate key 'timeout'"),
        config("an alias", "agent:\n  timeout: &t 1s\n  kill_grace: *t\n", "YAML aliases are not supported").lines(0),
        config("invalid UTF-8", concat(bytes("agent:\n  env: {A: \""), new byte[] {(byte) 0xFF}, bytes("\"}\n")),
            "orchestrate.yaml:2:13: not valid UTF-8"),
        config("deep nesting", "agent:\n  env: " + "{a: ".repeat(100) + "1" + "}".repeat(100) + "\n",
            "nested more than 32 levels"),
        make("config: a directory named by --config", "orchestrate.yaml is a directory, not a file",
            files("orchestrate.yaml/x", "",
                "backlog.yaml", VALID_BACKLOG),
            RUN),
        make("config: a missing file named by --config", "does not exist", files("backlog.yaml", VALID_BACKLOG), RUN),

        // --- JSON Lines for memory import ---
        jsonl("not JSON", "hello\n", "import.jsonl:1:"),
        jsonl("a JSON array", "[1, 2]\n", "expected a JSON object"),
        jsonl("no content", "{\"kind\": \"semantic\"}\n", "import.jsonl:1:"),
        jsonl("an unknown field", "{\"kind\": \"semantic\", \"content\": \"c\", \"colour\": 1}\n", "unknown field"),
        jsonl("an unknown kind", "{\"kind\": \"dream\", \"content\": \"c\"}\n", "import.jsonl:1:"),
        jsonl("two values on a line", "{\"kind\": \"semantic\", \"content\": \"c\"} {}\n", "more than one JSON value"),
        jsonl("tags a string", "{\"kind\": \"semantic\", \"content\": \"c\", \"tags\": \"a\"}\n", "import.jsonl:1:"),
        jsonl("a field name of a megabyte", "{\"" + big + "\": 1}\n", "import.jsonl:1:"),
        jsonl("an unclosed object on line 3", "{\"kind\": \"semantic\", \"content\": \"a\"}\n\n{\"kind\": \n",
            "import.jsonl:3:"),
        jsonl("deep nesting", "{\"kind\": \"semantic\", \"content\": " + "[".repeat(5000) + "\n", "import.jsonl:1:"),
        make("memory import: a directory", "import.jsonl is a directory, not a file", files("import.jsonl/x", ""),
            "memory", "import",
            "{dir}/import.jsonl"),
        make("memory import: a missing file", "does not exist", files(), "memory", "import", "{dir}/import.jsonl"),

        // --- flags ---
        flags("an unknown option", "unknown option '--bogus'", "status", "--bogus"),
        flags("an unknown command", "unknown command 'frobnicate'", "frobnicate"),
        flags("an unknown option of a megabyte", "(see 'orchestrate status --help')", "status", "--" + big),
        flags("an unknown command of a megabyte with a newline", "(see 'orchestrate --help')", "x\n" + big),
        flags("--cap 0", "--cap must be at least 1, got 0", "--config", "{dir}/orchestrate.yaml", "run", "--cap", "0",
            "{dir}/backlog.yaml"),
        flags("--cap over the range", "--cap must be at most 1000000", "--config", "{dir}/orchestrate.yaml", "run",
            "--cap", "1000001", "{dir}/backlog.yaml"),
        flags("--cap a word", "--cap", "run", "--cap", "lots", "{dir}/backlog.yaml"),
        flags("--cap of a megabyte", "--cap", "run", "--cap", big, "{dir}/backlog.yaml"),
        flags("--max-wip over the range", "--max-wip must be at most 10000", "run", "--max-wip", "10001",
            "{dir}/backlog.yaml"),
        flags("--max-concurrent over the range", "--max-concurrent must be at most 64", "run", "--max-concurrent",
            "65", "{dir}/backlog.yaml"),
        flags("--max-concurrent 0", "--max-concurrent must be at least 1", "run", "--max-concurrent", "0",
            "{dir}/backlog.yaml"),
        flags("jobs --limit 0", "--limit must be at least 1", "jobs", "--limit", "0"),
        flags("jobs --limit over the range", "--limit must be at most 100000", "jobs", "--limit", "100001"),
        flags("compact --keep-recent -1", "--keep-recent must be 0 or more", "compact", "--keep-recent", "-1"),
        flags("compact --keep-recent over the range", "--keep-recent must be at most 1000000", "compact",
            "--keep-recent", "1000001"),
        flags("--log-level loud", "unknown level 'loud'", "--log-level", "loud", "status"),
        flags("--log-level of a megabyte", "(1000000 characters)", "--log-level", big, "status"),
        flags("unblock without notes", "--notes", "unblock", "A"),
        flags("unblock with blank notes", "--notes must not be empty", "unblock", "A", "--notes", " "),
        flags("unblock of a megabyte id with a newline", "(1000002 characters)", "unblock", "A\n" + big, "--notes",
            "n"),
        flags("run --target of an unknown item", "--target: unknown item 'Z'", "--config", "{dir}/orchestrate.yaml",
            "run", "--target", "Z", "{dir}/backlog.yaml"),
        flags("run --only of an unknown key", "--only: unknown key 'colour'", "--config", "{dir}/orchestrate.yaml",
            "run", "--only", "colour=red", "{dir}/backlog.yaml"),
        flags("memory add of an unknown kind", "unknown memory kind 'dream'", "memory", "add", "--kind", "dream", "x"),
        flags("memory add of empty text", "TEXT is empty", "memory", "add", "--kind", "semantic", ""),
        flags("memory supersede without a state", "no memory with id 'x'", "memory", "supersede", "x", "--by", "y"),

        make("flags: init over existing files", "init would overwrite", files("d/backlog.yaml", "x"), "init",
            "{dir}/d"),
        make("flags: init into a file", "d is not a directory", files("d", "x"), "init", "{dir}/d"),
        make("flags: init where agents is a file", "agents is not a directory", files("d/agents", "x"), "init",
            "{dir}/d"),
        make("flags: init with --state a file", "s is not a directory", files("s", "x"), "--state", "{dir}/s",
            "init", "{dir}/d"),
        state("an existing state, memory supersede of an unknown id", database(""), "x", "memory", "supersede",
            "x", "--by", "y"),

        make("flags: --state empty", "--state is empty", files(), "--state", "", "status"),
        make("flags: --state empty for run", "--state is empty", files("backlog.yaml", VALID_BACKLOG,
            "orchestrate.yaml", VALID_CONFIG), "--state", "", "--config", "{dir}/orchestrate.yaml", "run",
            "{dir}/backlog.yaml"),

        // --- environment ---
        make("env: ORCHESTRATE_STATE a file, status", "is not a directory", files("f", "x"), "status")
            .env("ORCHESTRATE_STATE", "{dir}/f"),
        make("env: ORCHESTRATE_STATE a file, compact", "is not a directory", files("f", "x"), "compact")
            .env("ORCHESTRATE_STATE", "{dir}/f"),
        make("env: ORCHESTRATE_STATE under a file", "f is not a directory", files("f", "x"), "status")
            .env("ORCHESTRATE_STATE", "{dir}/f/state"),
        make("env: ORCHESTRATE_CONFIG a directory", "cfg is a directory, not a file",
            files("cfg/x", "", "backlog.yaml", VALID_BACKLOG),
            "run", "{dir}/backlog.yaml").env("ORCHESTRATE_CONFIG", "{dir}/cfg"),
        make("env: ORCHESTRATE_CONFIG missing", "does not exist", files("backlog.yaml", VALID_BACKLOG), "run",
            "{dir}/backlog.yaml").env("ORCHESTRATE_CONFIG", "{dir}/nope.yaml"),
        make("env: ORCHESTRATE_CONFIG malformed", "orchestrate.yaml:1:1: unknown key 'agnet'", files("backlog.yaml",
            VALID_BACKLOG, "orchestrate.yaml", "agnet: {}\n"), "run", "{dir}/backlog.yaml")
            .env("ORCHESTRATE_CONFIG", "{dir}/orchestrate.yaml"),
        backlog("ORCHESTRATE_NO_LIVE set to a word, and a bad backlog", "items: 5\n", "items must be a list")
            .env("ORCHESTRATE_NO_LIVE", "perhaps"),
        backlog("TERM and NO_COLOR odd, and a bad backlog", "items: 5\n", "items must be a list")
            .env("TERM", "\u001b]0;pwned\u0007").env("NO_COLOR", "\n"),

        // --- state files ---
        state("state.db a text file", stateDb(db -> Files.writeString(db, "hello, I am not a database\n")),
            "state.db is not a database file (it does not start with the SQLite header)", "status"),
        state("state.db ten bytes", stateDb(db -> Files.write(db, bytes("SQLite for"))), "is not a database file",
            "status"),
        state("state.db binary garbage", stateDb(db -> Files.write(db, garbage(8192, 3))), "is not a database file",
            "compact"),
        state("state.db a symbolic link to a directory", stateDb(db -> Files.createSymbolicLink(db, db.getParent())),
            "is not a database file (a symbolic link)", "status"),
        state("state.db of a newer schema", database("PRAGMA user_version = " + (TestStores.latestSchemaVersion() + 1)),
            "newer than this orchestrate knows", "status").exit(1),
        state("state.db truncated after its header", dir -> {
          database("").apply(dir);
          Path db = dir.resolve("state/state.db");
          byte[] head = Arrays.copyOf(Files.readAllBytes(db), 100);
          Files.write(db, head);
        }, "state.db", "status").exit(1),
        // A refused run leaves no run.lock behind ("nothing written").
        state("state.db of a newer schema, run", database("PRAGMA user_version = "
            + (TestStores.latestSchemaVersion() + 1)), "newer than this orchestrate knows", RUN).exit(1),
        state("state.db truncated after its header, run", dir -> {
          database("").apply(dir);
          Path db = dir.resolve("state/state.db");
          Files.write(db, Arrays.copyOf(Files.readAllBytes(db), 100));
        }, "state.db", RUN).exit(1),
        state("state.db the SQLite header and garbage, run", stateDb(db -> Files.write(db, concat(
            bytes("SQLite format 3\0"), garbage(8192, 5)))), "is not a SQLite database", RUN).exit(1),
        state("zero-byte state.db, unblock of an unknown id", stateDb(db -> Files.write(db, new byte[0])),
            "unknown item 'Z'", "unblock", "Z", "--notes", "n"),
        state("run.lock a directory", dir -> Files.createDirectories(dir.resolve("state/run.lock")),
            "run.lock is not a regular file (a directory)", "--config", "{dir}/orchestrate.yaml", "run",
            "{dir}/backlog.yaml"),
        state("run.lock a symbolic link", dir -> {
          Files.createDirectories(dir.resolve("state"));
          Files.createSymbolicLink(dir.resolve("state/run.lock"), dir.resolve("orchestrate.yaml"));
        }, "run.lock is not a regular file (a symbolic link)", "--config", "{dir}/orchestrate.yaml", "run",
            "{dir}/backlog.yaml"),
        state("run.lock full of garbage, unblock of an unknown id", both(database(""),
            files("state/run.lock", garbage(300, 9))), "unknown item 'Z'", "unblock", "Z", "--notes", "n"),
        state("an existing state, unblock of an unknown id", database(""), "unknown item 'Z'", "unblock", "Z",
            "--notes", "n"),
        state("an existing state, unblock of an item not blocked", database(store -> store.items().sync(
            List.of(new BacklogItem("A", "a", "feature", Priority.MEDIUM, List.of(), List.of(), "", InitialStatus.NEW)),
            Instant.EPOCH)),
            "not blocked", "unblock", "A", "--notes", "n"),
        state("jobs a file", files("state/jobs", "x"), "jobs is not a directory", "status"),
        state("the state's parent a file", files("p", "x"), "p is not a directory", "--state", "{dir}/p/state",
            "status")));
    for (List<String> command : STATE_COMMANDS) {
      cases.add(state("--state a file: " + String.join(" ", command), files("state", "x"), "state is not a directory",
          command.toArray(String[]::new)));
      cases.add(state("state.db a directory: " + String.join(" ", command), dir -> Files.createDirectories(
          dir.resolve("state/state.db")), "state.db is not a database file (a directory)",
          command.toArray(String[]::new)));
    }
    return cases.stream();
  }

  private static String nestedMaps(int depth) {
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      yaml.append("  ".repeat(i)).append("k").append(i).append(":\n");
    }
    return yaml.append("  ".repeat(depth)).append("v: 1\n").toString();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void each_malformed_input_is_refused_with_its_exit_code_error_lines_only_and_nothing_written(Case c)
      throws Exception {
    c.setup().apply(dir);
    List<String> args = new ArrayList<>();
    if (!c.env().containsKey("ORCHESTRATE_STATE") && !c.args().contains("--state")) {
      args.addAll(List.of("--state", dir.resolve("state").toString()));
    }
    c.args().forEach(a -> args.add(a.replace("{dir}", dir.toString())));
    Map<String, String> env = new LinkedHashMap<>();
    c.env().forEach((k, v) -> env.put(k, v.replace("{dir}", dir.toString())));
    TreeSnapshot before = TreeSnapshot.of(dir);

    CliRunner.Result r = assertTimeoutPreemptively(BOUND, () -> CliRunner.run(env, args.toArray(String[]::new)));

    String head = r.err().length() > 2000 ? r.err().substring(0, 2000) + "…" : r.err();
    assertEquals(c.exit(), r.exitCode(), head);
    assertEquals("", r.out(), "nothing on stdout");
    List<String> lines = r.err().lines().toList();
    if (c.lines() > 0) {
      assertEquals(c.lines(), lines.size(), head);
    } else {
      assertTrue(lines.size() >= 2 && lines.size() <= ErrorHandler.MAX_PROBLEMS + 1, head);
    }
    for (String line : lines) {
      assertTrue(line.startsWith("orchestrate: error: "), line);
      assertTrue(line.length() <= ErrorHandler.MAX_LINE_CHARS + 200, "a bounded line: " + line.length());
    }
    assertTrue(r.err().contains(c.fragment()), "'" + c.fragment() + "' in " + head);
    assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace: " + head);
    assertEquals(before, TreeSnapshot.of(dir), "nothing written");
  }
}
