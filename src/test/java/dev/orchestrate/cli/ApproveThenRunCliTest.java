package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing waits silently: an item approved while no run is active is pushed and awaits its checks,
 * and the next run polls them at once, says what it waits for, and ends with the item done.
 */
class ApproveThenRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private ProjectCli project;
  private GitRepo repo;

  private CliRunner.Result cli(String... args) {
    return project.cli(args);
  }

  @Test
  void an_item_approved_outside_a_run_is_pushed_and_the_next_run_polls_its_checks_at_once_and_ends_it_done()
      throws Exception {
    project = ProjectCli.init(tmp.resolve("project"));
    repo = project.repo;
    repo.addBareOrigin(tmp.resolve("origin.git"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\necho work > item-$ORCHESTRATE_ITEM_ID.txt\necho built\n");
    Path checks = tmp.resolve("checks.sh");
    // pending at the first poll, green at the second
    Files.writeString(checks, """
        #!/bin/sh
        n=$(cat "%1$s/polls" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "%1$s/polls"
        [ "$n" -ge 2 ] && { echo "all green"; exit 0; }
        echo "checks running"; exit 75
        """.formatted(tmp));
    repo.write("backlog.yaml", "schema_version: 1\nitems:\n  - {id: A, title: Item A}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          workspace: worktree
          merge: push
          checks: "sh %s {item}"
          checks_interval: 1s
          checks_timeout: 5m
        default_pipeline: one
        pipelines:
          one:
            review: required
            phases:
              - {name: build, instructions: "Build it."}
        """.formatted(agent, checks));
    repo.commitAll("backlog and config");

    CliRunner.Result first = project.run();
    assertEquals(0, first.exitCode(), first.err());
    assertEquals(1, JSON.readTree(first.out()).at("/items/awaiting_review").asInt(), first.out());

    CliRunner.Result approve = cli("approve", "A");
    assertEquals(0, approve.exitCode(), approve.err());
    JsonNode afterApprove = JSON.readTree(cli("status", "--json").out()).at("/items/0");
    assertEquals("awaiting_checks", afterApprove.at("/status").asText(), "pushed, its checks not yet polled");
    assertTrue(Files.notExists(tmp.resolve("polls")), "approve pushes; it does not wait for checks");

    long started = System.nanoTime();
    CliRunner.Result second = project.run();
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    assertEquals(0, second.exitCode(), second.err());
    JsonNode report = JSON.readTree(second.out());
    assertEquals(1, report.at("/items/done").asInt(), second.out() + second.err());
    assertEquals("2", Files.readString(tmp.resolve("polls")).strip(), "polled at once, then once more");
    assertTrue(second.err().contains("waiting: the checks of A"), "says what it waits for: " + second.err());
    assertTrue(seconds < 30, "no silent ten-minute wait: " + seconds + " s");
  }
}
