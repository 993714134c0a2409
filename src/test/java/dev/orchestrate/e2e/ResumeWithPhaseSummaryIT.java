package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.JobRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run stopped in its second phase (Ctrl-C, or kill -9), then a new run: the stopped phase
 * starts over with the summary the first phase left, and nothing completed runs again.
 */
class ResumeWithPhaseSummaryIT {
  private static final String DESIGN_SUMMARY_OF_A = "design of A: decision D-17, touch src/a/Login.java";

  @TempDir
  Path dir;

  @BeforeEach
  void writeProject() throws Exception {
    // Each call is numbered and saves its prompt (stdin); "build" hangs on its first call only.
    // Each phase reports a summary of its own, so the prompt shows which one it was given.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        n=$(( $(cat calls.txt 2>/dev/null | wc -l) + 1 ))
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
        cat > "prompt-$n-$ORCHESTRATE_ITEM_ID-$ORCHESTRATE_PHASE.md"
        if [ "$ORCHESTRATE_PHASE" = build ] && [ ! -f build-started ]; then
          touch build-started
          exec sleep 300
        fi
        printf '{"result": "phase_complete", "summary": "%s of %s: decision D-17, touch src/%s/Login.java"}' \\
          "$ORCHESTRATE_PHASE" "$ORCHESTRATE_ITEM_ID" "$(echo "$ORCHESTRATE_ITEM_ID" | tr A-Z a-z)" \\
          > "$ORCHESTRATE_RESULT_FILE"
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          kill_grace: 1s
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
  }

  @Test
  void a_run_after_ctrl_c_reruns_the_cancelled_phase_with_the_previous_phase_summary() throws Exception {
    Process runner = startAndAwaitTheFirstBuild();
    Processes.signal(runner, "INT");
    assertTrue(runner.waitFor(30, TimeUnit.SECONDS), "the runner exits after cancelling its agent");
    assertEquals(130, runner.exitValue(), Files.readString(dir.resolve("first-run.txt")));

    assertTheSecondRunCompletesEverythingOnce("cancelled");
  }

  @Test
  void a_run_after_kill_9_reruns_the_interrupted_phase_with_the_previous_phase_summary() throws Exception {
    Process runner = startAndAwaitTheFirstBuild();
    Processes.crash(runner);

    assertTheSecondRunCompletesEverythingOnce("interrupted");
  }

  private Process startAndAwaitTheFirstBuild() throws Exception {
    Process runner = Launcher.builder(dir, "--state", "state", "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    if (!Processes.await(Duration.ofSeconds(60), () -> Files.exists(dir.resolve("build-started")))) {
      runner.destroyForcibly();
      throw new AssertionError("the first run did not reach the build phase:\n"
          + Files.readString(dir.resolve("first-run.txt")));
    }
    // The stopped build was given the design summary too: what the next run must restore.
    assertEquals(DESIGN_SUMMARY_OF_A, section(Files.readString(dir.resolve("prompt-2-A-build.md")),
        "Previous Phase Summary"));
    return runner;
  }

  private void assertTheSecondRunCompletesEverythingOnce(String stoppedJobState) throws Exception {
    Launcher.Result second = Launcher.run(dir, "--state", "state", "run");
    assertEquals(0, second.exitCode(), second.err());
    assertTrue(second.out().contains("2 done"), second.out());

    assertEquals(List.of("A design 1", "A build 1", "A build 1", "A review 1", "B design 1", "B build 1",
        "B review 1"), Files.readAllLines(dir.resolve("calls.txt")));
    String rerunPrompt = Files.readString(dir.resolve("prompt-3-A-build.md"));
    assertEquals(DESIGN_SUMMARY_OF_A, section(rerunPrompt, "Previous Phase Summary"), rerunPrompt);

    Path state = dir.resolve("state");
    assertEquals(List.of(stoppedJobState, "completed"), Stored.states(Stored.jobs(state, "A", "build")));
    assertEquals(List.of("A|build|1", "A|design|1", "A|review|1", "B|build|1", "B|design|1", "B|review|1"),
        Stored.completedPerPhase(Stored.jobs(state),
            Comparator.comparing(JobRecord::itemId).thenComparing(JobRecord::phase)).entrySet().stream()
            .map(e -> e.getKey() + "|" + e.getValue()).toList());
    assertEquals(List.of("A|done", "B|done"),
        Stored.items(state).stream().map(i -> i.id() + "|" + i.status().key()).toList());
  }

  /** The text of a prompt's {@code ## title} section, or null if the prompt has none. */
  private static String section(String prompt, String title) {
    String heading = "\n## " + title + "\n\n";
    int start = prompt.indexOf(heading);
    if (start < 0) {
      return null;
    }
    start += heading.length();
    int end = prompt.indexOf("\n## ", start);
    return prompt.substring(start, end < 0 ? prompt.length() : end).strip();
  }
}
