package dev.orchestrate.cli;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verified-work records of jobs (issue 29) as the commands show them: each job's session and
 * the set-up steps and gates it ran, in {@code jobs}, {@code status ID} (text and JSON) and
 * {@code logs ID --gate NAME} / {@code --setup NAME}. The jobs are written through the real
 * repository, as a run records them.
 */
class VerifiedJobsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String GATE_LOG = "\u001b[31mFAILED\u001b[0m test_export (expected 3, got 2)\n1 failed\n";

  @TempDir
  Path dir;

  private Path state;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state.toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  private Path jobDir(String name) {
    return state.resolve("jobs").resolve(name);
  }

  /**
   * Job 1: A build attempt 1, a resumed session, set-up {@code deps} passed, gate {@code tests}
   * failed (exit 1): verify_failed. Job 2: A build attempt 2, fresh, gate {@code tests} passed.
   * Job 3: B build attempt 1, no session recorded, no checks: no_changes.
   */
  @BeforeEach
  void jobs() throws Exception {
    state = dir.resolve("state");
    try (StateStore store = TestStores.open(state)) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      long run = items.runStarted(T0, 4242);
      long first = items.jobStarted(new JobStart(run, "A", "build", 1, T0, jobDir("a-build-1").resolve("output.log")));
      items.jobEnded(first, new JobEnd(JobState.FAILED, "failed", 0, "gate 'tests' failed (exit 1) after 3.2s",
          T0.plusSeconds(30), 0, Usage.UNKNOWN, OutcomeClass.VERIFY_FAILED)
          .with(new AgentSession("sess-1", AgentSession.Start.RESUMED), List.of(
              new CommandRun(CommandRun.Kind.SETUP, "deps", 0, CommandRun.Ending.PASSED, Duration.ofMillis(1500),
                  jobDir("a-build-1").resolve("setup-deps.log"), "installed"),
              new CommandRun(CommandRun.Kind.GATE, "tests", 1, CommandRun.Ending.FAILED, Duration.ofMillis(3200),
                  jobDir("a-build-1").resolve("gate-tests.log"), "1 failed"))),
          null, List.of(), T0.plusSeconds(30));
      long second = items.jobStarted(
          new JobStart(run, "A", "build", 2, T0.plusSeconds(40), jobDir("a-build-2").resolve("output.log")));
      items.jobEnded(second, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0.plusSeconds(60), 0,
          Usage.UNKNOWN, OutcomeClass.SUCCEEDED)
          .with(new AgentSession("sess-2", AgentSession.Start.FRESH), List.of(
              new CommandRun(CommandRun.Kind.GATE, "tests", 0, CommandRun.Ending.PASSED, Duration.ofMillis(2000),
                  jobDir("a-build-2").resolve("gate-tests.log"), ""))),
          null, List.of(), T0.plusSeconds(60));
      long third = items.jobStarted(
          new JobStart(run, "B", "build", 1, T0.plusSeconds(70), jobDir("b-build-1").resolve("output.log")));
      items.jobEnded(third, new JobEnd(JobState.FAILED, "failed", 0, "nothing changed", T0.plusSeconds(80), 0,
          Usage.UNKNOWN, OutcomeClass.NO_CHANGES), null, List.of(), T0.plusSeconds(80));
      items.runEnded(run, T0.plusSeconds(90), "all_done");
    }
    for (String job : List.of("a-build-1", "a-build-2", "b-build-1")) {
      Files.createDirectories(jobDir(job));
      Files.writeString(jobDir(job).resolve("output.log"), "agent output of " + job + "\n");
    }
    Files.writeString(jobDir("a-build-1").resolve("gate-tests.log"), GATE_LOG);
    Files.writeString(jobDir("a-build-1").resolve("setup-deps.log"), "added 12 packages\n");
    Files.writeString(jobDir("a-build-2").resolve("gate-tests.log"), "3 passed\n");
  }

  /** The lines right under the table row that starts with {@code rowStart}, up to the next row. */
  private static List<String> under(String out, String rowRegex) {
    List<String> lines = out.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).matches(rowRegex)) {
        List<String> notes = new ArrayList<>();
        for (int j = i + 1; j < lines.size() && lines.get(j).startsWith("  "); j++) {
          notes.add(lines.get(j));
        }
        return notes;
      }
    }
    throw new AssertionError("no row " + rowRegex + " in:\n" + out);
  }

  @Test
  void jobs_shows_a_resumed_session_and_every_set_up_step_and_gate_under_its_job() {
    CliRunner.Result r = cli("jobs");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("  session: resumed sess-1",
        "  setup deps: passed after 1.5s, log jobs/a-build-1/setup-deps.log",
        "  gate tests: failed (exit 1) after 3.2s, log jobs/a-build-1/gate-tests.log"),
        under(r.out(), "1\\s+A\\s+build\\s+1\\s+failed\\s+failed\\s+verify_failed\\s.*"));
    assertEquals(List.of("  gate tests: passed after 2.0s, log jobs/a-build-2/gate-tests.log"),
        under(r.out(), "2\\s+A\\s+build\\s+2\\s+completed\\s+phase_complete\\s+succeeded\\s.*"),
        "a fresh session is left to status ID and --json");
    assertEquals(List.of(), under(r.out(), "3\\s+B\\s+build\\s+1\\s+failed\\s+failed\\s+no_changes\\s.*"));
  }

  @Test
  void jobs_json_ends_each_job_with_its_session_and_checks() throws Exception {
    CliRunner.Result r = cli("jobs", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode jobs = JSON.readTree(r.out()).get("jobs");
    assertEquals(List.of(3L, 2L, 1L), List.of(jobs.get(0).get("id").asLong(), jobs.get(1).get("id").asLong(),
        jobs.get(2).get("id").asLong()));
    JsonNode first = jobs.get(2);
    assertEquals(List.of("id", "run_id", "item_id", "phase", "attempt", "state", "result", "outcome", "agent",
        "started_at", "ended_at", "duration_ms", "exit_code", "log_path", "reason", "session_id", "session_start",
        "checks", "commit", "landed_commit", "pull_request", "usage"), fields(first));
    assertEquals("verify_failed", first.get("outcome").asText());
    assertEquals("sess-1", first.get("session_id").asText());
    assertEquals("resumed", first.get("session_start").asText());
    assertEquals(JSON.readTree("""
        [ {"kind": "setup", "name": "deps", "ending": "passed", "exit_code": 0, "duration_ms": 1500,
           "log_path": "jobs/a-build-1/setup-deps.log"},
          {"kind": "gate", "name": "tests", "ending": "failed", "exit_code": 1, "duration_ms": 3200,
           "log_path": "jobs/a-build-1/gate-tests.log"} ]"""), first.get("checks"));
    assertEquals(List.of("kind", "name", "ending", "exit_code", "duration_ms", "log_path"),
        fields(first.get("checks").get(0)));
    JsonNode noChanges = jobs.get(0);
    assertEquals("no_changes", noChanges.get("outcome").asText());
    assertTrue(noChanges.get("session_id").isNull()); // its agent printed no session id: a plain fresh start
    assertEquals("fresh", noChanges.get("session_start").asText());
    assertEquals(0, noChanges.get("checks").size());
  }

  @Test
  void status_id_shows_every_jobs_session_and_checks_in_text_and_json() throws Exception {
    CliRunner.Result text = cli("status", "A");
    assertEquals(0, text.exitCode(), text.err());
    assertEquals(List.of("  session: resumed sess-1",
        "  setup deps: passed after 1.5s, log jobs/a-build-1/setup-deps.log",
        "  gate tests: failed (exit 1) after 3.2s, log jobs/a-build-1/gate-tests.log"),
        under(text.out(), "1\\s+build\\s+1\\s+failed\\s+failed\\s+verify_failed\\s.*"));
    assertEquals(List.of("  session: fresh sess-2",
        "  gate tests: passed after 2.0s, log jobs/a-build-2/gate-tests.log"),
        under(text.out(), "2\\s+build\\s+2\\s+completed\\s+phase_complete\\s+succeeded\\s.*"));

    CliRunner.Result json = cli("status", "A", "--json");
    assertEquals(0, json.exitCode(), json.err());
    JsonNode jobs = JSON.readTree(json.out()).get("jobs");
    assertEquals("resumed", jobs.get(0).get("session_start").asText());
    assertEquals("tests", jobs.get(0).get("checks").get(1).get("name").asText());
    assertEquals("failed", jobs.get(0).get("checks").get(1).get("ending").asText());
    assertEquals("fresh", jobs.get(1).get("session_start").asText());
    assertEquals("sess-2", jobs.get(1).get("session_id").asText());
    assertEquals(JSON.readTree("""
        [ {"kind": "gate", "name": "tests", "ending": "passed", "exit_code": 0, "duration_ms": 2000,
           "log_path": "jobs/a-build-2/gate-tests.log"} ]"""), jobs.get(1).get("checks"));
  }

  @Test
  void logs_gate_prints_that_gates_log_and_names_it_on_stderr() {
    CliRunner.Result r = cli("logs", "A", "--attempt", "1", "--gate", "tests");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("\\x1b[31mFAILED\\x1b[0m test_export (expected 3, got 2)\n1 failed\n", r.out());
    assertEquals("job 1: A build attempt 1, failed, outcome verify_failed; gate tests failed (exit 1) after 3.2s\n",
        r.err());

    CliRunner.Result setup = cli("logs", "A", "--attempt", "1", "--setup", "deps");
    assertEquals(0, setup.exitCode(), setup.err());
    assertEquals("added 12 packages\n", setup.out());

    CliRunner.Result latest = cli("logs", "A", "--gate", "tests");
    assertEquals(0, latest.exitCode(), latest.err());
    assertEquals("3 passed\n", latest.out(), "the latest job's gate by default");
  }

  @Test
  void an_unknown_gate_or_step_exits_2_with_one_line_naming_the_jobs_own() {
    CliRunner.Result gate = cli("logs", "A", "--attempt", "1", "--gate", "lint");
    assertEquals(2, gate.exitCode());
    assertEquals("", gate.out());
    assertEquals(List.of("orchestrate: error: job 1 of A (build attempt 1) ran no gate 'lint'; its gates: tests"),
        gate.err().lines().toList());

    CliRunner.Result step = cli("logs", "A", "--setup", "deps");
    assertEquals(2, step.exitCode());
    assertEquals(List.of("orchestrate: error: job 2 of A (build attempt 2) ran no workspace.setup step 'deps'; "
        + "it ran none"), step.err().lines().toList());

    CliRunner.Result none = cli("logs", "B", "--gate", "tests");
    assertEquals(2, none.exitCode());
    assertEquals(List.of("orchestrate: error: job 3 of B (build attempt 1) ran no gate 'tests'; it ran none"),
        none.err().lines().toList());

    CliRunner.Result both = cli("logs", "A", "--gate", "tests", "--setup", "deps");
    assertEquals(2, both.exitCode(), "--gate and --setup are exclusive");
  }

  @Test
  void a_gate_log_that_is_a_link_is_not_followed_and_a_deleted_one_exits_1() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret.txt"), "the user's secret\n");
    Path log = jobDir("a-build-2").resolve("gate-tests.log");
    Files.delete(log);
    Files.createSymbolicLink(log, secret);
    CliRunner.Result link = cli("logs", "A", "--gate", "tests");
    assertEquals(1, link.exitCode());
    assertEquals("", link.out());
    assertEquals(1, link.err().lines().count(), link.err());
    assertTrue(link.err().contains("gate-tests.log is not a regular file (a link or a special file): not shown"),
        link.err());

    Files.delete(log);
    CliRunner.Result gone = cli("logs", "A", "--gate", "tests");
    assertEquals(1, gone.exitCode());
    assertEquals(List.of("orchestrate: error: the log of gate tests of job 2 (jobs/a-build-2/gate-tests.log) is gone: "
        + "retention deletes old jobs' logs (retention.jobs), or it was deleted by hand"), gone.err().lines().toList());
  }

  @Test
  void an_output_log_an_agent_replaced_with_a_link_is_not_followed() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret.txt"), "the user's secret\n");
    Path log = jobDir("b-build-1").resolve("output.log");
    Files.delete(log);
    Files.createSymbolicLink(log, secret);
    CliRunner.Result r = cli("logs", "B");
    assertEquals(1, r.exitCode());
    assertEquals("", r.out());
  }

  private static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext();) {
      names.add(it.next());
    }
    return names;
  }
}
