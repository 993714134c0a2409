package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code logs ID [--phase P] [--attempt N] [--follow]}: a job's output without copying paths. */
class LogsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path config;
  private Path backlog;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /**
   * A fails its first attempt of phase first ("flaky network") then succeeds; E writes an escape
   * sequence; W prints "started", waits for the file release (at most 60 s), prints "finished".
   */
  @BeforeEach
  void project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = first ] && [ ! -e '%1$s' ]; then
          touch '%1$s'; echo 'flaky network' >&2; exit 3
        fi
        if [ "$ORCHESTRATE_ITEM_ID" = E ]; then printf 'red \\033[31mtext\\n'; exit 0; fi
        if [ "$ORCHESTRATE_ITEM_ID" = W ]; then
          echo started
          for i in $(seq 600); do [ -e '%2$s' ] && break; sleep 0.1; done
          echo finished
          exit 0
        fi
        echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID done"
        """.formatted(dir.resolve("a-failed-once"), dir.resolve("release")));
    config = TwoPhaseProject.config(dir, agent);
    backlog = dir.resolve("backlog.yaml");
  }

  private void run(String items) throws Exception {
    Files.writeString(backlog, "items:\n" + items);
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
  }

  @Test
  void logs_prints_the_latest_job_or_the_one_of_a_phase_and_attempt() throws Exception {
    run("  - {id: A, title: a}\n");
    CliRunner.Result latest = cli("logs", "A");
    assertEquals(0, latest.exitCode(), latest.err());
    assertTrue(latest.out().contains("second of A done"), latest.out());

    CliRunner.Result failed = cli("logs", "A", "--phase", "first", "--attempt", "1");
    assertEquals(0, failed.exitCode(), failed.err());
    assertTrue(failed.out().contains("flaky network"), failed.out());
    assertTrue(failed.err().matches("job \\d+: A first attempt 1, failed, outcome failed\\R"), failed.err());
    assertTrue(latest.err().matches("job \\d+: A second attempt 1, completed, outcome succeeded\\R"), latest.err());
    assertTrue(!failed.out().contains("outcome"), "stdout is the log alone");
    assertTrue(cli("logs", "A", "--phase", "first").out().contains("first of A done"));
  }

  @Test
  void logs_of_an_unknown_item_or_a_missing_job_exits_2_with_one_line() throws Exception {
    run("  - {id: A, title: a}\n");
    CliRunner.Result unknown = cli("logs", "a");
    assertEquals(2, unknown.exitCode());
    assertEquals(List.of("orchestrate: error: unknown item 'a'; did you mean 'A'? (orchestrate status lists them)"),
        unknown.err().lines().toList());
    CliRunner.Result noPhase = cli("logs", "A", "--phase", "third");
    assertEquals(2, noPhase.exitCode());
    assertEquals(List.of("orchestrate: error: item A has no job in phase third; its jobs: first#1, first#2, second#1"),
        noPhase.err().lines().toList());
  }

  @Test
  void escape_sequences_an_agent_wrote_are_shown_not_sent_to_the_terminal() throws Exception {
    run("  - {id: E, title: e}\n");
    String out = cli("logs", "E").out();
    assertTrue(out.contains("red \\x1b[31mtext"), out);
    assertFalse(out.contains("\u001b"), out);
  }

  @Test
  void follow_prints_new_output_while_the_job_runs_and_stops_when_it_ends() throws Exception {
    Files.writeString(backlog, "items:\n  - {id: W, title: w}\n");
    CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(
        () -> cli("--config", config.toString(), "--quiet", "run", backlog.toString()));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (!cli("logs", "W").out().contains("started")) {
      assertTrue(Instant.now().isBefore(deadline), "the job never started: " + cli("jobs").out());
      Thread.sleep(100);
    }
    CompletableFuture<CliRunner.Result> follow = CompletableFuture.supplyAsync(() -> cli("logs", "W", "--follow"));
    Thread.sleep(500);
    assertFalse(follow.isDone(), "following goes on while the job runs");

    Files.writeString(dir.resolve("release"), "");
    CliRunner.Result followed = follow.get(60, TimeUnit.SECONDS);
    assertEquals(0, followed.exitCode(), followed.err());
    assertTrue(followed.out().contains("started\n"), followed.out());
    assertTrue(followed.out().contains("finished"), followed.out());
    assertEquals(0, run.get(60, TimeUnit.SECONDS).exitCode());
  }
}
