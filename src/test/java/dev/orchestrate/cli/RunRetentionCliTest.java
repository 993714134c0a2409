package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a {@code run} leaves behind under a retention policy, in-process, with a real agent. */
class RunRetentionCliTest {
  @TempDir
  Path dir;

  @Test
  void a_run_leaves_every_structure_within_its_policy_however_small_the_budget() throws Exception {
    Files.writeString(dir.resolve("agent.sh"), "#!/bin/sh\ncat >/dev/null\necho done\n");
    // One pass at the first tick, none after it for an hour: without the run's last passes, 60 of
    // the 61 jobs would stay, three times max_rows; a budget of 5 needs several passes to fix that.
    Path config = Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent: {command: ["sh", "agent.sh"]}
        retention:
          maintenance_interval: 1h
          budget: 5
          jobs: {max_rows: 20}
        pipelines:
          feature:
            phases:
              - {name: build, instructions: "Build it."}
        """);
    StringBuilder items = new StringBuilder("items:\n");
    for (int i = 1; i <= 61; i++) {
      items.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"), items);
    String state = dir.resolve("state").toString();

    CliRunner.Result run = CliRunner.run("--quiet", "--state", state, "--config", config.toString(), "run",
        backlog.toString());
    assertEquals(0, run.exitCode(), run.err());

    long jobs = TestStores.read(dir.resolve("state"), store -> TestStores.jobs(store).size());
    assertTrue(jobs <= 12, "60 % of max_rows 20 after the run, not " + jobs);
    CliRunner.Result check = CliRunner.run("--state", state, "stats", "--check");
    assertEquals(0, check.exitCode(), check.out());
  }
}
