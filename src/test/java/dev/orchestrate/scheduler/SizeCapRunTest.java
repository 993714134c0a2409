package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Size caps through a real run: bash agents, the real store, the truncated-write counters {@code stats} reads. */
class SizeCapRunTest {
  @TempDir
  Path dir;

  private RunReport run(Config config, List<BacklogItem> items) {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC()).build();
      return scheduler.run(100);
    }
  }

  private long truncatedWrites(String structure) {
    return TestStores.read(dir.resolve("state"), store -> store.stats().read(Instant.now())).structures().stream()
        .filter(s -> s.name().equals(structure)).findFirst().orElseThrow().truncatedWrites();
  }

  @Test
  void a_huge_result_file_summary_is_stored_capped_and_its_job_counted_once() throws Exception {
    // Only the scope phase reports a huge summary; the design phase's prompt shows it capped.
    Config config = config(agent(script(dir, "agent.sh", """
        cat > "prompt-$ORCHESTRATE_PHASE.md"
        if [ "$ORCHESTRATE_PHASE" = scope ]; then
          big=$(head -c 30000 /dev/zero | tr '\\0' 'x')
          printf '{"result": "phase_complete", "summary": "BEGIN%sEND"}' "$big" > "$ORCHESTRATE_RESULT_FILE"
        fi
        """)), 2);
    RunReport report = run(config, List.of(item("A")));

    assertEquals(1, report.done());
    assertEquals(1, truncatedWrites("jobs"), "one job end whose result-file summary was cut");
    assertEquals(0, truncatedWrites("items"), "the item stored the already capped summary as it was");
    String prompt = java.nio.file.Files.readString(dir.resolve("prompt-design.md"));
    int start = prompt.indexOf("BEGIN");
    int end = prompt.indexOf("END", start) + 3;
    String summary = prompt.substring(start, end);
    assertTrue(summary.length() <= AgentOutcome.TEXT_MAX_CHARS, summary.length() + "");
    assertTrue(summary.contains("…[truncated "), summary.substring(0, 100));
  }

  @Test
  void a_chatty_agent_without_a_result_file_counts_one_truncated_job_per_phase_and_short_output_none()
      throws Exception {
    Config config = config(agent(script(dir, "agent.sh", """
        cat > /dev/null
        if [ "$ORCHESTRATE_PHASE" = build ]; then
          head -c 100000 /dev/zero | tr '\\0' 'y'
        else
          echo "did $ORCHESTRATE_PHASE"
        fi
        """)), 2);
    RunReport report = run(config, List.of(item("A")));

    assertEquals(1, report.done());
    assertEquals(4, report.phasesRun());
    assertEquals(1, truncatedWrites("jobs"), "only the build phase printed more than agent.output_tail_chars");
  }
}
