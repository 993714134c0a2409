package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestAgents;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stalled attempt is stopped, recorded as failed with reason "stalled", and the retry's prompt says so. */
class StallRetryTest {

  @TempDir
  Path dir;

  @Test
  void a_stalled_attempt_fails_as_stalled_and_the_next_prompt_says_so() throws Exception {
    // The first build attempt goes quiet; every other attempt finishes at once.
    Path agentScript = script(dir, "agent.sh", """
        cat > "prompt-$ORCHESTRATE_PHASE-$ORCHESTRATE_ATTEMPT.md"
        if [ "$ORCHESTRATE_PHASE" = build ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
          echo "thinking..."
          sleep 60
        fi
        echo ok
        """);
    Config config = TestAgents.config(ConfigWithers.withStallTimeout(agent(agentScript), Duration.ofSeconds(1)), 2);
    RunReport report;
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      report = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC()).build().run(100);
    }
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    List<String> reasons = StateRows.jobs(dir.resolve("state")).stream()
        .filter(j -> j.phase().equals("build") && j.attempt() == 1)
        .map(j -> j.state().key() + ": " + j.reason()).toList();
    assertEquals(1, reasons.size());
    assertTrue(
        reasons.get(0).startsWith("failed: stalled: no output for 1s (agent.stall_timeout); terminated the agent"),
        reasons.get(0));
    String retry = Files.readString(dir.resolve("prompt-build-2.md"));
    assertTrue(retry.contains("## Previous Failure") && retry.contains("stalled: no output for 1s"), retry);
  }
}
