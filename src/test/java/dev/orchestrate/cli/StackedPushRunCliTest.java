package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dependent items under {@code merge: push}, with a local bare remote and a scripted checks command:
 * the dependent starts only once its dependency's checks are green, and from a worktree that has its
 * dependency's work (its pushed branch), though the base branch never moves.
 */
class StackedPushRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  @Test
  void a_dependent_starts_after_its_dependencys_checks_are_green_from_a_tree_with_its_work() throws Exception {
    ProjectCli project = ProjectCli.init(tmp.resolve("project"));
    GitRepo repo = project.repo;
    Path origin = tmp.resolve("origin.git");
    repo.addBareOrigin(origin);
    Path events = tmp.resolve("events.txt");
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        id=$ORCHESTRATE_ITEM_ID
        echo "start $id" >> "%1$s"
        if [ "$id" = E ] && [ ! -f d.txt ]; then echo "E's worktree lacks D's d.txt" >&2; exit 1; fi
        echo "work of $id" > "$(echo "$id" | tr A-Z a-z).txt"
        echo "built $id"
        """.formatted(events));
    Path checks = tmp.resolve("checks.sh");
    // each item's checks: pending at the first poll, green at the second
    Files.writeString(checks, """
        #!/bin/sh
        f="%1$s/polls-$1"; n=$(cat "$f" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$f"
        if [ "$n" -ge 2 ]; then echo "checks $1 green" >> "%2$s"; exit 0; fi
        exit 75
        """.formatted(tmp, events));
    repo.write("backlog.yaml", """
        schema_version: 1
        items:
          - {id: D, title: the dependency}
          - {id: E, title: the dependent, depends_on: [D]}
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          max_wip: 2
          max_concurrent: 2
          max_retries: 0
          workspace: worktree
          merge: push
          checks: "sh %s {item}"
          checks_interval: 1s
          checks_timeout: 5m
        default_pipeline: one
        pipelines:
          one:
            phases:
              - {name: build, instructions: "Build it."}
        """.formatted(agent, checks));
    repo.commitAll("backlog and config");
    String main = repo.head("main");

    CliRunner.Result run = project.run();

    List<String> order = Files.readAllLines(events);
    assertEquals(0, run.exitCode(), run.err() + order);
    assertEquals(2, JSON.readTree(run.out()).at("/items/done").asInt(), run.out() + order);
    assertTrue(order.indexOf("checks D green") >= 0 && order.indexOf("checks D green") < order.indexOf("start E"),
        "E started only after D's checks were green: " + order);
    assertEquals(main, repo.head("main"), "merge: push never moves the base");
    String pushed = repo.git("--git-dir=" + origin, "ls-tree", "--name-only", "refs/heads/orchestrate/E");
    assertTrue(pushed.contains("d.txt") && pushed.contains("e.txt"), "E's pushed branch has D's work and its own: "
        + pushed);
  }
}
