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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review gate (issue 32, item 3), end to end with real git and a script agent: items of a
 * {@code review: required} pipeline stop in awaiting_review with the base branch untouched;
 * {@code approve} integrates one, {@code reject --notes} sends one back and its next prompt carries
 * the notes; the base branch holds only approved work.
 */
class ReviewGateCliTest {
  @org.junit.jupiter.api.extension.RegisterExtension
  final dev.orchestrate.testing.CapturedLogs logs = dev.orchestrate.testing.CapturedLogs.of(
      dev.orchestrate.scheduler.Scheduler.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Writes work-ID.txt (one more line per attempt) and keeps each prompt it was given in the prompts directory. */
  private static final String AGENT = """
      #!/usr/bin/env bash
      set -u
      n=$(ls "%1$s" | grep -c "^$ORCHESTRATE_ITEM_ID-" || true)
      cat > "%1$s/$ORCHESTRATE_ITEM_ID-$n.md"
      echo "attempt $n of $ORCHESTRATE_ITEM_ID" >> "work-$ORCHESTRATE_ITEM_ID.txt"
      echo "work done"
      """;

  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path prompts;

  private void project() throws Exception {
    project(AGENT);
  }

  private void project(String agentScript) throws Exception {
    repo = GitRepo.init(tmp.resolve("repo"));
    prompts = Files.createDirectories(tmp.resolve("prompts"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, agentScript.formatted(prompts));
    repo.write("backlog.yaml", """
        items:
          - {id: A, title: item a}
          - {id: B, title: item b}
          - {id: C, title: item c}
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            review: required
            phases:
              - {name: plan, instructions: "Plan."}
              - {name: work, instructions: "Work."}
        """.formatted(agent));
    repo.commitAll("project");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", repo.dir.resolve(".orchestrate").toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.runIn(repo.dir, Map.of(), all.toArray(String[]::new));
  }

  private CliRunner.Result run() {
    return cli("run", "--no-live", repo.dir.resolve("backlog.yaml").toString());
  }

  private JsonNode item(String id) throws Exception {
    CliRunner.Result r = cli("status", id, "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    return doc.has("item") ? doc.path("item") : doc;
  }

  private List<String> onMain() {
    return repo.git("ls-tree", "--name-only", "main").lines().filter(f -> f.startsWith("work-")).toList();
  }

  private String lastPrompt(String id) throws Exception {
    try (Stream<Path> files = Files.list(prompts)) {
      int n = (int) files.filter(f -> f.getFileName().toString().startsWith(id + "-")).count();
      return Files.readString(prompts.resolve(id + "-" + (n - 1) + ".md"));
    }
  }

  /**
   * The config file kept outside the repository (issue 45): {@code run} takes the checkout from the
   * backlog's directory, and {@code approve} finds it the same way, from the current directory, not
   * from the config file's directory (which is in no repository).
   */
  @Test
  void approve_finds_the_checkout_as_run_does_with_the_config_outside_the_repository() throws Exception {
    project();
    Path config = Files.createDirectories(tmp.resolve("elsewhere")).resolve("orchestrate.yaml");
    Files.move(repo.dir.resolve("orchestrate.yaml"), config);
    repo.commitAll("the config is kept outside");
    List<String> flags = List.of("--state", repo.dir.resolve(".orchestrate").toString(), "--config",
        config.toString());
    List<String> run = new ArrayList<>(flags);
    run.addAll(List.of("run", "--no-live", repo.dir.resolve("backlog.yaml").toString()));
    CliRunner.Result first = CliRunner.runIn(repo.dir, Map.of(), run.toArray(String[]::new));
    assertEquals(0, first.exitCode(), first.out() + first.err());

    List<String> approve = new ArrayList<>(flags);
    approve.addAll(List.of("approve", "A"));
    CliRunner.Result approved = CliRunner.runIn(repo.dir, Map.of(), approve.toArray(String[]::new));
    assertEquals(0, approved.exitCode(), approved.out() + approved.err());
    assertEquals(List.of("work-A.txt"), onMain());
  }

  /**
   * A hostile agent names its file and words its summary (a phase commit's subject) to reach the
   * reviewer's terminal or browser: escape sequences and markup. The reviewer's views show them
   * inert: `status ID` escaped, the dashboard's page as text.
   */
  @Test
  void a_hostile_agents_file_names_and_summary_reach_the_reviewer_inert() throws Exception {
    project("""
        #!/usr/bin/env bash
        cat > /dev/null
        printf 'x\n' > "$(printf '<img src=x onerror=alert(1)>\033[31mred.txt')"
        printf '\033]0;pwned\007\033[2J<script>alert(2)</script> done\n'
        """);

    CliRunner.Result first = run();
    assertEquals(0, first.exitCode(), first.out() + first.err());

    CliRunner.Result text = cli("status", "C");
    assertEquals(0, text.exitCode(), text.err());
    assertTrue(text.out().contains("1 file, +1 -0 lines against main"), text.out());
    assertFalse(text.out().contains("\u001b") || text.out().contains("\u0007"), "no raw escape: " + text.out());
    JsonNode summary = item("C").path("branch_summary");
    assertEquals(1, summary.path("files_changed").asInt(), summary.toString());
    try (DashboardServer server = DashboardServer.start(TestStores.backend(repo.dir.resolve(".orchestrate")),
        new InetSocketAddress("127.0.0.1", 0), null, Clock.systemUTC())) {
      String page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/item?id=C")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(page.contains("<h2>Changes against main</h2>"), page);
      assertFalse(page.contains("<img") || page.contains("<script>alert"), "markup shown as text: " + page);
      assertFalse(page.contains("\u001b"), "no raw escape in the page");
    }
  }

  @Test
  void items_wait_for_review_approve_integrates_reject_sends_back_with_notes_and_main_holds_only_approved_work()
      throws Exception {
    project();
    String start = repo.head("main");

    CliRunner.Result first = run();
    assertEquals(0, first.exitCode(), first.out() + first.err());
    assertTrue(first.out().contains("awaiting review (orchestrate approve ID, or reject ID --notes TEXT): A, B, C"),
        first.out());
    for (String id : List.of("A", "B", "C")) {
      assertEquals("awaiting_review", item(id).path("status").asText(), id);
    }
    assertEquals(start, repo.head("main"), "nothing is integrated before a human approves it");
    CliRunner.Result table = cli("status");
    assertTrue(table.out().contains("awaiting review: approve B, or reject B --notes TEXT"), table.out());
    assertTrue(table.out().contains("3 items: 3 awaiting_review"), table.out());

    // The reviewer's view: the branch's diff against its base, and its commits.
    JsonNode summary = item("C").path("branch_summary");
    assertEquals("main", summary.path("base_branch").asText(), summary.toString());
    assertEquals("orchestrate/C", summary.path("branch").asText());
    assertEquals(1, summary.path("files_changed").asInt());
    assertEquals(2, summary.path("lines_added").asInt());
    assertEquals(0, summary.path("lines_removed").asInt());
    assertEquals("work-C.txt", summary.path("files").get(0).path("path").asText());
    assertEquals(2, summary.path("commit_count").asInt(), "one commit per phase");
    assertEquals(repo.git("log", "-1", "--format=%s", "orchestrate/C"),
        summary.path("commits").get(0).path("subject").asText());
    assertEquals(repo.git("rev-parse", "--short", "orchestrate/C"), summary.path("commits").get(0).path("id").asText());
    CliRunner.Result text = cli("status", "C");
    assertTrue(text.out().contains("1 file, +2 -0 lines against main, in 2 commits"), text.out());
    assertTrue(text.out().contains("+2 -0  work-C.txt"), text.out());
    try (DashboardServer server = DashboardServer.start(TestStores.backend(repo.dir.resolve(".orchestrate")),
        new InetSocketAddress("127.0.0.1", 0), null, Clock.systemUTC())) {
      String page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/item?id=C")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(page.contains("<h2>Changes against main</h2><p>1 file, +2 −0 lines, in 2 commits on orchestrate/C"),
          page);
      assertTrue(page.contains("<tr><td>work-C.txt</td><td>2</td><td>0</td></tr>"), page);
    }

    // Refusals change nothing: an unknown id, an item not awaiting review, an unknown phase, empty notes.
    CliRunner.Result unknown = cli("approve", "A", "X");
    assertEquals(2, unknown.exitCode(), unknown.out() + unknown.err());
    assertTrue(unknown.err().contains("unknown item 'X'"), unknown.err());
    assertEquals("awaiting_review", item("A").path("status").asText());
    CliRunner.Result badPhase = cli("reject", "B", "--notes", "n", "--phase", "deploy");
    assertEquals(2, badPhase.exitCode(), badPhase.err());
    assertTrue(badPhase.err().contains("has no phase 'deploy': its phases are plan, work"), badPhase.err());
    assertEquals(2, cli("reject", "B", "--notes", " ").exitCode());

    // While a run holds the local state (here: its lease, and nothing applies the queue), a decision
    // is queued for the run, and it claims the item: a second decision is refused (exit 2), beside the
    // run and after it, until a run applies the queued one (issue 43).
    try (dev.orchestrate.state.RunLease held = TestStores.backend(repo.dir.resolve(".orchestrate"))
        .acquireLease(java.time.Instant.now())) {
      CliRunner.Result queued = cli("reject", "A", "--notes", "n");
      assertEquals(0, queued.exitCode(), queued.out() + queued.err());
      assertTrue(queued.out().startsWith("Queued A: the running run applies it\n"), queued.out());
      CliRunner.Result second = cli("approve", "A");
      assertEquals(2, second.exitCode(), second.out() + second.err());
      assertEquals("orchestrate: error: item A is no longer awaiting review: it was rejected by another command,"
          + " queued for the running run to apply\n", second.err());
    }
    assertEquals("awaiting_review", item("A").path("status").asText());
    CliRunner.Result afterRun = cli("approve", "A");
    assertEquals(2, afterRun.exitCode(), afterRun.out() + afterRun.err());
    assertTrue(afterRun.err().contains("it was rejected by another command, queued for a run to apply (the next run"
        + " applies it at its start)"), afterRun.err());
    // No command withdraws a queued decision: through the port, so that the reviewer's approval goes on.
    try (dev.orchestrate.state.StateStore store = TestStores.open(repo.dir.resolve(".orchestrate"))) {
      for (dev.orchestrate.item.ReviewDecision d : store.items().reviewDecisions(10)) {
        store.items().dropDecision(d, "withdrawn", java.time.Instant.now());
      }
    }

    CliRunner.Result approve = cli("approve", "A", "--json");
    assertEquals(0, approve.exitCode(), approve.out() + approve.err());
    JsonNode approved = JSON.readTree(approve.out());
    assertEquals("approve", approved.path("kind").asText());
    assertEquals("done", approved.path("items").get(0).path("status").asText());
    assertEquals("integrated", approved.path("items").get(0).path("integration").asText(), approve.out());
    assertEquals("done", item("A").path("status").asText());
    assertEquals(List.of("work-A.txt"), onMain());
    CliRunner.Result again = cli("approve", "A");
    assertEquals(2, again.exitCode(), "a done item is not approved (nor integrated) twice");
    assertTrue(again.err().contains("item A is done, not awaiting_review"), again.err());

    String notes = "Use tabs, not spaces, in work-B.txt";
    CliRunner.Result reject = cli("reject", "B", "--notes", notes);
    assertEquals(0, reject.exitCode(), reject.out() + reject.err());
    assertEquals("Rejected B: in_progress at phase work", reject.out().lines().findFirst().orElseThrow());
    assertEquals("in_progress", item("B").path("status").asText());
    assertFalse(lastPrompt("B").contains(notes));

    CliRunner.Result second = run();
    assertEquals(0, second.exitCode(), second.out() + second.err());
    List<String> warnings = logs.warnings();
    assertTrue(warnings.stream().noneMatch(w -> w.startsWith("A: the reviewer's")), warnings.toString());
    String prompt = lastPrompt("B");
    assertTrue(prompt.contains(notes), prompt);
    assertTrue(prompt.contains("Work."), "the rejected item went back to its last phase");
    assertEquals("awaiting_review", item("B").path("status").asText(), "after its phase it waits for review again");
    assertEquals("awaiting_review", item("C").path("status").asText());
    assertEquals(List.of("work-A.txt"), onMain(), "main holds only approved work");
    assertEquals("attempt 0 of A\nattempt 1 of A", repo.git("show", "main:work-A.txt"));
    assertTrue(item("A").path("branch_summary").isNull(), "an integrated item has nothing left to review");
  }
}
