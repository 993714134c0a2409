package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a person acts on, as a real local webhook endpoint receives it (issue 45, item 4), with real
 * git, a bare {@code origin} and a scripted pull-request command: item A is pushed and its checks
 * are red once, then green; B is blocked; R awaits review. Every item event of an item with a pull
 * request carries its URL ({@code checks_red}, {@code item_done}), a red CI round is never called a
 * conflict, and {@code run_finished} counts what waits for a person and names it.
 */
class MorningNotificationsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private HttpServer server;
  private final List<JsonNode> received = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private String listen() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/hook", exchange -> {
      received.add(JSON.readTree(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  private ProjectCli project() throws Exception {
    ProjectCli project = ProjectCli.init(tmp.resolve("project"));
    GitRepo repo = project.repo;
    repo.addBareOrigin(tmp.resolve("origin.git"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        [ "$ORCHESTRATE_ITEM_ID" = B ] && { echo "B cannot be done" >&2; exit 1; }
        echo "work of $ORCHESTRATE_ITEM_ID $RANDOM" > "item-$ORCHESTRATE_ITEM_ID.txt"
        echo "wrote it"
        """);
    Path pr = tmp.resolve("pr.sh");
    Files.writeString(pr, "#!/bin/sh\necho \"https://forge.example/acme/app/pull/$1\"\n");
    Path checks = tmp.resolve("checks.sh");
    Files.writeString(checks, """
        #!/bin/sh
        f="%1$s/checks-$1"
        n=$(cat "$f" 2>/dev/null || echo 0)
        n=$((n + 1))
        echo "$n" > "$f"
        [ "$n" = 1 ] && { echo "FAILED test_login"; exit 1; }
        echo "all checks passed"
        """.formatted(tmp));
    repo.write("backlog.yaml", """
        items:
          - {id: A, title: Item A}
          - {id: B, title: Item B}
          - {id: R, title: Item R, pipeline: reviewed}
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          max_retries: 0
          workspace: worktree
          merge: push
          pull_request: "sh %s {item}"
          checks: "sh %s {item}"
          checks_interval: 1s
        default_pipeline: one
        pipelines:
          one:
            phases:
              - {name: build, instructions: "Build it."}
          reviewed:
            review: required
            phases:
              - {name: build, instructions: "Build it."}
        notify:
          - type: webhook
            url: %s
            events: [item_done, item_blocked, awaiting_review, checks_red, run_finished, run_halted]
        """.formatted(agent, pr, checks, listen()));
    repo.commitAll("backlog and config");
    return project;
  }

  private List<JsonNode> events(String kind, String item) {
    return received.stream().filter(e -> e.path("kind").asText().equals(kind))
        .filter(e -> item == null || e.path("item_id").asText().equals(item)).toList();
  }

  @Test
  void every_item_event_carries_its_pull_request_and_the_run_end_counts_what_waits_for_a_person() throws Exception {
    ProjectCli project = project();

    CliRunner.Result run = project.cli("run", project.repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.out() + run.err());

    List<JsonNode> red = events("checks_red", "A");
    assertEquals(1, red.size(), received.toString());
    assertEquals("https://forge.example/acme/app/pull/A", red.get(0).path("details").path("pull_request").asText());
    assertFalse(red.get(0).toString().contains("conflict"), "a red CI round is no conflict: " + red.get(0));
    List<JsonNode> done = events("item_done", "A");
    assertEquals(1, done.size(), "one item_done for A: " + received);
    assertEquals("https://forge.example/acme/app/pull/A", done.get(0).path("details").path("pull_request").asText());
    List<JsonNode> blocked = events("item_blocked", "B");
    assertEquals(1, blocked.size(), received.toString());
    assertTrue(blocked.get(0).path("details").path("pull_request").isMissingNode(),
        "B was never pushed: no pull request to name: " + blocked.get(0));
    assertEquals(1, events("awaiting_review", "R").size(), received.toString());

    List<JsonNode> ends = events("run_finished", null);
    assertEquals(1, ends.size(), received.toString());
    assertEquals(List.of(), events("run_halted", null));
    JsonNode d = ends.get(0).path("details");
    assertEquals("1", d.path("done").asText(), d.toString());
    assertEquals("1", d.path("blocked").asText(), d.toString());
    assertEquals("1", d.path("awaiting_review").asText(), d.toString());
    assertEquals("0", d.path("awaiting_checks").asText(), d.toString());
    assertEquals("0", d.path("paused").asText(), d.toString());
    assertEquals("1", d.path("done_this_run").asText(), "A counted once, not per round: " + d);
    assertEquals("B", d.path("blocked_ids").asText(), d.toString());
    assertEquals("R", d.path("awaiting_review_ids").asText(), d.toString());
  }
}
