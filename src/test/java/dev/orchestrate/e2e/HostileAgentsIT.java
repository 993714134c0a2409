package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agents that try to hang the run, outlive it, leak secrets or write outside the state (issue 13). */
class HostileAgentsIT {

  @TempDir
  Path dir;

  @AfterEach
  void killLeftovers() throws IOException {
    Path pids = dir.resolve("pids");
    if (Files.exists(pids)) {
      for (String line : Files.readAllLines(pids)) {
        if (!line.isBlank()) {
          ProcessHandle.of(Long.parseLong(line.strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    }
  }

  private void project(String agent, String config) throws IOException {
    Files.writeString(dir.resolve("agent.sh"), "#!/usr/bin/env bash\n" + agent);
    Files.writeString(dir.resolve("orchestrate.yaml"), config);
  }

  private static String config(String agentExtra, String phases) {
    return """
        agent:
          command: ["bash", "agent.sh"]
          kill_grace: 1s
        %s
        execution: {max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            phases:
        %s
        """.formatted(agentExtra, phases);
  }

  private static final String ONE_PHASE = "      - {name: build, instructions: \"Build.\"}";
  private static final String TWO_PHASES = ONE_PHASE + "\n      - {name: review, instructions: \"Review.\"}";

  private List<Long> pids() throws IOException {
    return Files.readAllLines(dir.resolve("pids")).stream().filter(l -> !l.isBlank())
        .map(l -> Long.parseLong(l.strip())).toList();
  }

  @Test
  void fifty_sleepers_per_job_are_gone_when_run_ends() throws Exception {
    project("""
        for i in $(seq 50); do sleep 300 & echo $! >> pids; done
        [ "$ORCHESTRATE_ITEM_ID" = B ] && exit 3
        exit 0
        """, config("", ONE_PHASE));
    Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a, status: ready}\n  - {id: B, title: b, status: ready}\n");

    Launcher.Result result = Launcher.run(dir, "--state", "state", "run");

    assertEquals(0, result.exitCode(), result.err());
    List<Long> pids = pids();
    assertEquals(100, pids.size(), "50 for the item that succeeded, 50 for the one that failed");
    for (long pid : pids) {
      assertFalse(Processes.running(pid), "sleeper " + pid + " outlived its job");
    }
  }

  @Test
  void a_fifo_result_file_fails_the_attempt_and_the_run_still_ends_and_still_obeys_sigterm() throws Exception {
    project("""
        if [ "$ORCHESTRATE_ITEM_ID" = A ]; then mkfifo "$ORCHESTRATE_RESULT_FILE"; exit 0; fi
        echo $$ >> pids
        while true; do sleep 1; done
        """, config("", ONE_PHASE));
    Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a, status: ready}\n  - {id: B, title: b, status: ready}\n");
    Process runner = Launcher.builder(dir, "--state", "state", "run")
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    try {
      // A is over (its FIFO refused) once B, which runs after it, has started.
      assertTrue(Processes.await(Duration.ofSeconds(60), () -> Files.exists(dir.resolve("pids"))), "B started");
      assertTrue(Processes.await(Duration.ofSeconds(30), () -> blockedReason(dir.resolve("state")).contains("FIFO")),
          "A is blocked with a reason naming the FIFO");

      runner.destroy(); // SIGTERM
      assertTrue(runner.waitFor(30, TimeUnit.SECONDS), "SIGTERM still ends the run");
      assertEquals(130, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
      assertFalse(Processes.running(pids().get(0)), "B's agent is gone");
    } finally {
      runner.destroyForcibly();
    }
  }

  /** A's blocked reason as the state holds it now, or "" (none yet, or no state to read yet). */
  private static String blockedReason(Path state) {
    try {
      return Stored.items(state).stream().filter(i -> i.id().equals("A")).map(i -> i.progress().blockedReason())
          .filter(Objects::nonNull).findFirst().orElse("");
    } catch (RuntimeException e) {
      return "";
    }
  }

  @Test
  void secrets_the_agent_prints_reach_no_file_no_row_no_prompt_and_no_terminal() throws Exception {
    List<String> secrets = List.of("sk-openai-E2E-SECRET-1", "summarizer-E2E-SECRET-2", "deploy-E2E-SECRET-3",
        "listed-E2E-SECRET-4", "hook-E2E-SECRET-5", "header-E2E-SECRET-6");
    project("""
        [ "$ORCHESTRATE_ITEM_ID" = A ] || exit 0
        env
        env >&2
        grep Bearer orchestrate.yaml
        echo "OPENAI_API_KEY=$OPENAI_API_KEY" >&2
        if [ "$ORCHESTRATE_PHASE" = build ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then exit 1; fi
        if [ "$ORCHESTRATE_PHASE" = build ]; then
          cat > "$ORCHESTRATE_RESULT_FILE" <<EOF
        {"result": "phase_complete", "summary": "used $OPENAI_API_KEY and $DEPLOY_TOKEN",
         "context": "listed $LISTED_VALUE",
         "memories": [{"kind": "semantic", "content": "the key is $OPENAI_API_KEY"}],
         "follow_ups": [{"title": "rotate $DEPLOY_TOKEN", "description": "$LISTED_VALUE"}]}
        EOF
        fi
        exit 0
        """, """
        agent:
          command: ["bash", "agent.sh"]
          env: {DEPLOY_TOKEN: deploy-E2E-SECRET-3}
          secret_env: [LISTED_VALUE]
        execution: {max_retries: 1}
        context:
          summarizer: {kind: openai, base_url: "http://127.0.0.1:9", model: m, api_key_env: SUMMARIZER_KEY}
        notify:
          - {type: webhook, name: hook, url: "http://127.0.0.1:9/hook", secret_env: HOOK_SIGNING,
             headers: {Authorization: "Bearer header-E2E-SECRET-6"}, events: [item_done]}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a, status: ready}\n");
    ProcessBuilder builder = Launcher.builder(dir, "--state", "state", "-v", "run");
    builder.environment().put("OPENAI_API_KEY", secrets.get(0));
    builder.environment().put("SUMMARIZER_KEY", secrets.get(1));
    builder.environment().put("LISTED_VALUE", secrets.get(3));
    builder.environment().put("HOOK_SIGNING", secrets.get(4)); // a name no suffix rule knows (issue 43)
    Process runner = builder.redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile()).start();
    assertTrue(runner.waitFor(120, TimeUnit.SECONDS));

    String err = Files.readString(dir.resolve("err.txt"));
    assertEquals(0, runner.exitValue(), err);
    Path state = dir.resolve("state");
    Path db = state.resolve("state.db");
    assertEquals(List.of("done", "done"), Stored.items(state).stream().map(i -> i.status().key()).toList(),
        "A and its follow-up ran");
    String everything = err + Files.readString(dir.resolve("out.txt")) + allText(db) + allFiles(state);
    for (String secret : secrets) {
      assertFalse(everything.contains(secret), secret + " leaked");
    }
    Path review = onlyJob(state, "-A-review-1");
    String prompt = Files.readString(review.resolve("prompt.md"));
    assertTrue(prompt.contains("used *** and ***"), prompt);
    Path retry = onlyJob(state, "-A-build-2");
    assertTrue(Files.readString(retry.resolve("prompt.md")).contains("OPENAI_API_KEY=***"),
        "the failure context of attempt 1 reached attempt 2 masked");
    assertTrue(Files.readString(retry.resolve("output.log")).contains("DEPLOY_TOKEN=***"));
    assertTrue(Files.readString(retry.resolve("result.json")).contains("\"summary\": \"used *** and ***\""));
    assertFalse(Files.readString(retry.resolve("output.log")).contains("SUMMARIZER_KEY="),
        "the summarizer's key is not passed to the agent");
    assertFalse(Files.readString(retry.resolve("output.log")).contains("HOOK_SIGNING="),
        "the webhook's signing secret is not passed to the agent");
    assertTrue(Files.readString(retry.resolve("output.log")).contains("Authorization: \"***\""),
        "a header's value is masked");
  }

  @Test
  void a_summarizer_key_a_401_echoes_back_reaches_no_event_no_log_line_and_no_terminal() throws Exception {
    String key = "sk-summarizer-E2E-SECRET-5";
    String other = "sk-openai-E2E-SECRET-6";
    // The endpoint refuses the key and quotes the Authorization header back, as some proxies do,
    // and names another secret of the runner's environment too.
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    List<String> authorizations = new CopyOnWriteArrayList<>();
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      String authorization = String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"));
      authorizations.add(authorization);
      byte[] body = ("{\"error\":{\"message\":\"Incorrect API key provided: " + authorization + " (account "
          + other + ")\",\"type\":\"invalid_request_error\"}}").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(401, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    try {
      project("echo \"did $ORCHESTRATE_PHASE\"\nexit 0\n", """
          agent:
            command: ["bash", "agent.sh"]
          context:
            window_size: 1
            summarizer: {kind: openai, base_url: "http://127.0.0.1:%d/v1", model: m, api_key_env: SUMMARIZER_KEY,
                         timeout: 10s}
          default_pipeline: p
          pipelines:
            p:
              phases:
                - {name: build, instructions: "Build."}
                - {name: review, instructions: "Review."}
          """.formatted(server.getAddress().getPort()));
      Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a, status: ready}\n");
      ProcessBuilder builder = Launcher.builder(dir, "--state", "state", "-v", "run");
      builder.environment().put("SUMMARIZER_KEY", key);
      builder.environment().put("OPENAI_API_KEY", other);
      Process runner = builder.redirectOutput(dir.resolve("out.txt").toFile())
          .redirectError(dir.resolve("err.txt").toFile()).start();
      assertTrue(runner.waitFor(120, TimeUnit.SECONDS));

      String err = Files.readString(dir.resolve("err.txt"));
      assertEquals(0, runner.exitValue(), err);
      assertTrue(!authorizations.isEmpty() && authorizations.stream().allMatch(("Bearer " + key)::equals),
          "the summarizer was asked, with the key: " + authorizations.size());
      Path state = dir.resolve("state");
      String events = eventsText(state.resolve("state.db"));
      assertTrue(events.contains("summarization:failed") && events.contains("HTTP 401")
          && events.contains("Incorrect API key provided: Bearer *** (account ***)"), events);
      assertTrue(err.contains("summarization of item A failed") && err.contains("Bearer ***"), err);
      String everything = err + Files.readString(dir.resolve("out.txt")) + allText(state.resolve("state.db"))
          + allFiles(state);
      for (String secret : List.of(key, other)) {
        assertFalse(everything.contains(secret), secret + " leaked");
      }
    } finally {
      server.stop(0);
    }
  }

  /** Every row of the events table: kind and payload. */
  private static String eventsText(Path db) throws Exception {
    StringBuilder text = new StringBuilder();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT kind, payload FROM events ORDER BY id")) {
      while (rs.next()) {
        text.append(rs.getString(1)).append(' ').append(rs.getString(2)).append('\n');
      }
    }
    return text.toString();
  }

  private static Path onlyJob(Path state, String suffix) throws IOException {
    try (Stream<Path> jobs = Files.list(state.resolve("jobs"))) {
      List<Path> found = jobs.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
      assertEquals(1, found.size(), "job directories ending in " + suffix);
      return found.get(0);
    }
  }

  /**
   * Every text of every row of every table: the whole file is searched for a secret, tables no port
   * method reads included, so this reads SQLite's own catalogue on purpose.
   */
  private static String allText(Path db) throws Exception {
    StringBuilder text = new StringBuilder();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      assertTrue(tables.containsAll(List.of("items", "jobs", "turns", "events", "memories")), tables.toString());
      for (String table : tables) {
        try (ResultSet rs = st.executeQuery("SELECT * FROM \"" + table + "\"")) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            for (int i = 1; i <= columns; i++) {
              text.append(rs.getString(i)).append('\n');
            }
          }
        }
      }
    }
    return text.toString();
  }

  /** The bytes of every file in the state directory (database, WAL, logs, prompts, results). */
  private static String allFiles(Path state) throws IOException {
    StringBuilder text = new StringBuilder();
    try (Stream<Path> files = Files.walk(state)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        text.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
      }
    }
    return text.toString();
  }

  @Test
  void links_planted_at_the_next_jobs_paths_leave_the_file_outside_unchanged() throws Exception {
    Path outside = dir.resolve("outside.txt");
    Files.writeString(outside, "precious\n");
    project("""
        job=$(dirname "$ORCHESTRATE_RESULT_FILE"); jobs=$(dirname "$job")
        case "$ORCHESTRATE_PHASE" in
          build) next=$(basename "$job" | sed 's/-0001-A-build-1$/-0002-A-review-1/') ;;
          *) next=$(basename "$job" | sed 's/-0002-A-review-1$/-0003-A-check-1/') ;;
        esac
        if [ "$ORCHESTRATE_PHASE" = build ]; then
          ln -s "$OUTSIDE_DIR" "$jobs/$next"
        elif [ "$ORCHESTRATE_PHASE" = review ]; then
          mkdir "$jobs/$next"
          for f in prompt.md output.log result.json; do ln -s "$OUTSIDE_DIR/outside.txt" "$jobs/$next/$f"; done
        fi
        echo "agent output"
        exit 0
        """, config("  env: {OUTSIDE_DIR: \"" + dir + "\"}", TWO_PHASES
        + "\n      - {name: check, instructions: \"Check.\"}"));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a, status: ready}\n");

    Launcher.Result result = Launcher.run(dir, "--state", "state", "run");

    assertEquals(0, result.exitCode(), result.err());
    assertEquals("precious\n", Files.readString(outside));
    assertFalse(Files.exists(dir.resolve("prompt.md")), "nothing was written through the planted directory link");
    assertFalse(Files.exists(dir.resolve("output.log")));
    assertEquals(List.of("done"), Stored.items(dir.resolve("state")).stream().map(i -> i.status().key()).toList());
    assertFalse(Files.isSymbolicLink(onlyJob(dir.resolve("state"), "-A-review-1")));
    Path check = onlyJob(dir.resolve("state"), "-A-check-1");
    assertFalse(Files.isSymbolicLink(check.resolve("prompt.md")));
    assertEquals("agent output\n", Files.readString(check.resolve("output.log")));
  }

  @Test
  void a_run_ended_by_an_error_stops_its_other_agent_and_exits_1() throws Exception {
    // B swaps jobs/ for a link out of the state directory: its next phase cannot be prepared and
    // the run ends with an error while A (which ignores TERM, with a child) still works.
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    project("""
        if [ "$ORCHESTRATE_ITEM_ID" = A ]; then
          trap '' TERM
          sleep 300 & echo $! >> pids
          echo $$ >> pids
          while true; do sleep 1; done
        fi
        [ "$ORCHESTRATE_PHASE" = review ] && exit 0
        for i in $(seq 200); do [ "$(wc -l < pids 2>/dev/null)" = 2 ] && break; sleep 0.05; done
        jobs=$(dirname "$(dirname "$ORCHESTRATE_RESULT_FILE")")
        mv "$jobs" "$jobs.moved" && ln -s "$ELSEWHERE" "$jobs"
        exit 0
        """, config("  env: {ELSEWHERE: \"" + elsewhere + "\"}\nexecution: {max_wip: 2, max_concurrent: 2}",
        TWO_PHASES).replace("execution: {max_retries: 0}\n", ""));
    Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a, status: ready}\n  - {id: B, title: b, status: ready}\n");

    Launcher.Result result = Launcher.run(dir, "--state", "state", "run");

    assertEquals(1, result.exitCode(), result.err());
    List<String> lines = result.err().strip().lines().toList();
    assertTrue(lines.get(lines.size() - 1).startsWith("orchestrate: error: could not prepare job directory"),
        result.err());
    assertTrue(result.err().contains("is a symbolic link"), result.err());
    List<Long> pids = pids();
    assertEquals(2, pids.size());
    for (long pid : pids) {
      assertFalse(Processes.running(pid), "agent process " + pid + " outlived the run");
    }
    try (Stream<Path> files = Files.list(elsewhere)) {
      assertEquals(0, files.count(), "nothing was written through the link");
    }
  }

  @Test
  void a_hangup_stops_the_agents_which_no_longer_share_the_terminals_session() throws Exception {
    project("""
        sleep 300 & echo $! >> pids
        echo $$ >> pids
        while true; do sleep 1; done
        """, config("", ONE_PHASE));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a, status: ready}\n");
    ProcessBuilder launch = Launcher.builder(dir, "--state", "state", "run");
    // As from a terminal: SIGHUP at its default. A build started under nohup would pass its
    // ignored SIGHUP on to the runner, which then (rightly) keeps ignoring it.
    launch.command().addAll(0, List.of("env", "--default-signal=HUP"));
    Process runner = launch.redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile()).start();
    try {
      assertTrue(Processes.await(Duration.ofSeconds(60), () -> lines(dir.resolve("pids")) == 2), "the agent started");
      Processes.signal(runner, "HUP");
      if (!runner.waitFor(30, TimeUnit.SECONDS)) {
        // Say what the runner was doing instead of a bare "expected true".
        fail("the runner did not end within 30 s of SIGHUP; its stderr:\n" + Files.readString(dir.resolve("err.txt"))
            + "\nits threads:\n" + Processes.threadDump(runner));
      }
      assertEquals(130, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
      for (long pid : pids()) {
        assertFalse(Processes.running(pid), "agent process " + pid + " outlived the hangup");
      }
      assertEquals(List.of("cancelled"), Stored.states(Stored.jobs(dir.resolve("state"))));
    } finally {
      runner.destroyForcibly();
    }
  }

  private static long lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (IOException e) {
      return 0;
    }
  }
}
