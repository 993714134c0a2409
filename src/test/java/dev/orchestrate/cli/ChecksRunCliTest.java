package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.serve.DashboardServer;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.workspace.GitRepo;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execution.checks} end to end, in-process, with real git: a bare {@code origin}, four items
 * two at a time, and a checks script that answers pending, then red with a failing test's name for
 * item B (green for the others), then green. B goes back to its phase with the report in its prompt,
 * is pushed again, and all four end done with their branches on origin.
 */
class ChecksRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path state;

  private ProjectCli project;

  private CliRunner.Result cli(String... args) {
    return project.cli(args);
  }

  private void project(String checksPhase) throws Exception {
    project = ProjectCli.init(tmp.resolve("project"));
    repo = project.repo;
    state = project.state;
    Path origin = tmp.resolve("origin.git");
    repo.addBareOrigin(origin);
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        n=$(ls "%1$s"/prompt-$ORCHESTRATE_ITEM_ID-* 2>/dev/null | wc -l)
        cp "$ORCHESTRATE_PROMPT_FILE" "%1$s/prompt-$ORCHESTRATE_ITEM_ID-$n.md"
        if grep -q test_login "$ORCHESTRATE_PROMPT_FILE"; then
          echo "fixed test_login" > "fix-$ORCHESTRATE_ITEM_ID.txt"
        fi
        echo "work of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"
        echo "wrote item-$ORCHESTRATE_ITEM_ID.txt"
        """.formatted(tmp));
    Path checks = tmp.resolve("checks.sh");
    Files.writeString(checks, """
        #!/bin/sh
        f="%1$s/checks-$1"
        n=$(cat "$f" 2>/dev/null || echo 0)
        n=$((n + 1))
        echo "$n" > "$f"
        echo "$1 $2 $3" >> "%1$s/checks-calls.txt"
        case "$n" in
          1) echo "checks running"; exit 75 ;;
          2) if [ "$1" = B ]; then echo "running tests"; echo "FAILED test_login (assert 401 == 200)"; exit 1; fi ;;
        esac
        echo "all checks passed"
        exit 0
        """.formatted(tmp));
    repo.write("backlog.yaml", """
        schema_version: 1
        items:
          - id: A
            title: Item A
          - id: B
            title: Item B
          - id: C
            title: Item C
          - id: D
            title: Item D
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          max_wip: 4
          max_concurrent: 2
          workspace: worktree
          merge: push
          checks: "sh %s {item} {branch} {base}"
          checks_interval: 1s
          checks_timeout: 5m
        %s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: build
                instructions: "Build it."
              - name: polish
                instructions: "Polish it."
        """.formatted(agent, checks, checksPhase == null ? "" : "  checks_phase: " + checksPhase));
    repo.commitAll("backlog and config");
  }

  @Test
  void a_red_check_sends_its_item_back_with_the_report_and_all_four_end_done_on_origin() throws Exception {
    project(null);

    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());

    assertEquals(0, run.exitCode(), run.err() + run.out());
    JsonNode items = JSON.readTree(cli("status", "--json").out()).get("items");
    assertEquals(4, items.size());
    String remote = repo.git("ls-remote", tmp.resolve("origin.git").toString());
    for (JsonNode item : items) {
      String id = item.get("id").asText();
      assertEquals("done", item.get("status").asText(), id + ": " + item);
      String sha = repo.head("orchestrate/" + id);
      assertTrue(remote.contains(sha + "\trefs/heads/orchestrate/" + id), remote);
      assertEquals(id.equals("B") ? "3" : "2", Files.readString(tmp.resolve("checks-" + id)).strip(), id);
    }
    // B: build, polish, then polish again after the red report (its last phase, checks_phase unset)
    assertTrue(Files.exists(tmp.resolve("prompt-B-2.md")), "B's agent ran again");
    assertFalse(Files.exists(tmp.resolve("prompt-B-3.md")));
    String again = Files.readString(tmp.resolve("prompt-B-2.md"));
    assertTrue(again.contains("## Previous Failure"), again);
    assertTrue(again.contains("FAILED test_login"), again);
    assertTrue(again.contains("Polish it."), again);
    assertFalse(Files.exists(tmp.resolve("prompt-A-2.md")), "A ran its two phases once");
    assertTrue(repo.git("show", "orchestrate/B:fix-B.txt").contains("fixed test_login"),
        "the fix is on the branch pushed again");
    assertTrue(remote.contains(repo.head("orchestrate/B") + "\trefs/heads/orchestrate/B"), remote);
    assertTrue(Files.readString(tmp.resolve("checks-calls.txt")).contains("B orchestrate/B main"));
    for (JsonNode item : items) {
      JsonNode checks = item.get("workspace").get("checks");
      assertEquals(item.get("id").asText().equals("B") ? 1 : 0, checks.get("rounds").asInt(), item.toString());
      assertTrue(checks.get("since").isNull() && checks.get("next_poll").isNull(), item.toString());
    }
    try (DashboardServer server = DashboardServer.start(TestStores.backend(state),
        new InetSocketAddress("127.0.0.1", 0), null, Clock.systemUTC())) {
      HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/item?id=B")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertTrue(page.body().contains("<dt>Checks</dt><dd>1 red round</dd>"), page.body());
      HttpResponse<String> list = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/items?status=awaiting_checks"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, list.statusCode(), "the dashboard filters by awaiting_checks");
    }
  }

  @Test
  void checks_without_merge_push_are_a_load_error_naming_the_fix() throws Exception {
    project(null);
    repo.write("orchestrate.yaml",
        GitRepo.read(repo.dir.resolve("orchestrate.yaml")).replace("merge: push", "merge: rebase"));
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(2, run.exitCode(), run.err() + run.out());
    assertTrue(run.err().contains("execution.checks needs execution.merge: push"), run.err());
  }
}
