package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.limits.LoopThread;
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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execution.merge: push} end to end, in-process, with real git: a bare repository as
 * {@code origin}, four items two at a time, and a pull-request script that records each call and
 * prints a URL.
 */
class PushRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path state;

  private ProjectCli project;

  private CliRunner.Result cli(String... args) {
    return project.cli(args);
  }

  private void project(String remote) throws Exception {
    project = ProjectCli.init(tmp.resolve("project"));
    repo = project.repo;
    state = project.state;
    Path origin = tmp.resolve("origin.git");
    repo.addBareOrigin(origin);
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        echo "work of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"
        sleep 0.3
        echo "wrote item-$ORCHESTRATE_ITEM_ID.txt"
        """);
    Path pr = tmp.resolve("pr.sh");
    Files.writeString(pr, """
        #!/bin/sh
        { printf 'call'; for a in "$@"; do printf ' [%%s]' "$a"; done; echo; } >> "%s"
        echo "Creating pull request for $1 into $2"
        echo "https://forge.example/acme/app/pull/$3"
        """.formatted(tmp.resolve("calls.txt")));
    repo.write("backlog.yaml", """
        schema_version: 1
        items:
          - id: A
            title: Item A
          - id: B
            title: 'Fix "it"; $(touch %s) `touch %s` & echo pwned'
          - id: C
            title: Item C
          - id: D
            title: Item D
        """.formatted(tmp.resolve("injected"), tmp.resolve("injected")));
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          max_wip: 4
          max_concurrent: 2
          workspace: worktree
          merge: push
          remote: %s
          pull_request: "sh %s {branch} {base} {item} {title} {body_file}"
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: build
                instructions: "Build it."
        """.formatted(agent, remote, pr));
    repo.commitAll("backlog and config");
  }

  @Test
  void four_items_two_at_a_time_are_pushed_with_their_pull_requests_and_the_base_branch_stays() throws Exception {
    project("origin");
    String main = repo.head("main");

    long onLoop = LoopThread.slowWorkOnLoop();
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());

    assertEquals(0, run.exitCode(), run.err() + run.out());
    // issue 46: the worktrees' git, the landing's and the push's ran off the scheduler thread
    assertEquals(0, LoopThread.slowWorkOnLoop() - onLoop, "git on the scheduler thread, the first: "
        + LoopThread.firstSlowWorkOnLoop());
    assertEquals(main, repo.head("main"), "merge: push never moves the base branch");
    CliRunner.Result status = cli("status", "--json");
    JsonNode items = JSON.readTree(status.out()).get("items");
    assertEquals(4, items.size());
    String remote = repo.git("ls-remote", tmp.resolve("origin.git").toString());
    for (JsonNode item : items) {
      String id = item.get("id").asText();
      assertEquals("done", item.get("status").asText(), id);
      JsonNode ws = item.get("workspace");
      assertEquals("pushed", ws.get("integration").asText(), id + ": " + ws);
      assertEquals("https://forge.example/acme/app/pull/" + id, ws.get("pull_request").asText());
      String sha = repo.head("orchestrate/" + id);
      assertEquals(sha, ws.get("pushed_commit").asText());
      assertTrue(remote.contains(sha + "\trefs/heads/orchestrate/" + id), remote);
    }
    List<String> calls = Files.readAllLines(tmp.resolve("calls.txt"));
    assertEquals(4, calls.size(), String.join("\n", calls));
    assertTrue(calls.contains("call [orchestrate/B] [main] [B] [Fix \"it\"; $(touch " + tmp.resolve("injected")
        + ") `touch " + tmp.resolve("injected") + "` & echo pwned] [" + state.resolve("jobs/B/pull-request.md") + "]"),
        String.join("\n", calls));
    assertFalse(Files.exists(tmp.resolve("injected")), "a title ran as shell");
    String text = cli("status").out();
    assertTrue(text.contains("https://forge.example/acme/app/pull/C"), text);
    String detail = cli("status", "A").out();
    assertTrue(detail.contains("pushed at " + repo.head("orchestrate/A").substring(0, 12)
        + ": https://forge.example/acme/app/pull/A"), detail);
    JsonNode jobs = JSON.readTree(cli("jobs", "--json").out()).get("jobs");
    assertEquals(4, jobs.size());
    for (JsonNode job : jobs) {
      assertEquals(repo.head("orchestrate/" + job.get("item_id").asText()), job.get("landed_commit").asText(),
          "the phase commit as the pushed branch has it");
      assertEquals("https://forge.example/acme/app/pull/" + job.get("item_id").asText(),
          job.get("pull_request").asText(), job.toString());
    }
    String jobsText = cli("jobs").out();
    assertTrue(jobsText.contains("pull request: https://forge.example/acme/app/pull/D"), jobsText);

    try (DashboardServer server = DashboardServer.start(TestStores.backend(state),
        new InetSocketAddress("127.0.0.1", 0), null, Clock.systemUTC())) {
      HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/item?id=B")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, page.statusCode());
      assertTrue(page.body().contains("<dt>Pull request</dt><dd><a href=\"https://forge.example/acme/app/pull/B\" "
          + "rel=\"noreferrer noopener\">"),
          page.body());
      assertTrue(page.body().contains("<dt>Pushed</dt><dd>" + repo.head("orchestrate/B") + "</dd>"), page.body());
    }
  }

  @Test
  void a_remote_the_repository_lacks_is_a_usage_error_before_the_run() throws Exception {
    project("upstream");
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(2, run.exitCode(), run.err() + run.out());
    assertTrue(run.err().contains("execution.remote 'upstream' is not a remote"), run.err());
    assertFalse(Files.exists(state.resolve("worktrees")), "nothing started");
  }

  @Test
  void landing_on_a_remote_the_repository_lacks_is_a_usage_error_before_the_run() throws Exception {
    project("upstream");
    repo.write("orchestrate.yaml", GitRepo.read(repo.dir.resolve("orchestrate.yaml"))
        .replace("merge: push", "merge: rebase\n  landing: remote"));
    repo.commitAll("land on the remote");
    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(2, run.exitCode(), run.err() + run.out());
    assertTrue(run.err().contains("execution.remote 'upstream' is not a remote")
        && run.err().contains("execution.landing: remote pushes every phase commit there"), run.err());
    assertFalse(Files.exists(state.resolve("worktrees")), "nothing started");
  }
}
