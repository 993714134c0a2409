package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.testing.Db;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * approve and reject beside a running {@code run} (issue 32): a real run in a process of its own,
 * kept alive by a slow agent on item S while A and B await review. The commands queue their
 * decisions, the run applies them on a tick: the approved item lands on main, the rejected one's
 * next prompt carries the notes. On the local (SQLite) state and on PostgreSQL; a queued decision
 * survives a kill -9 of the run and the next run applies it once; hostile notes are capped.
 */
class ReviewBesideRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Keeps each prompt it was given and writes work-ID.txt; on S it waits for the release file
   * first, so that the run stays alive.
   */
  private static final String AGENT = """
      #!/usr/bin/env bash
      set -u
      n=$(ls "%1$s" | grep -c "^$ORCHESTRATE_ITEM_ID-" || true)
      cat > "%1$s/$ORCHESTRATE_ITEM_ID-$n.md"
      if [ "$ORCHESTRATE_ITEM_ID" = S ]; then
        for i in $(seq 1200); do [ -e "%2$s" ] && break; sleep 0.1; done
      fi
      echo "attempt $n of $ORCHESTRATE_ITEM_ID" >> "work-$ORCHESTRATE_ITEM_ID.txt"
      echo "work done"
      """;

  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path prompts;
  private Path release;
  private String state;
  private Process run;

  @AfterEach
  void stopRun() throws Exception {
    if (release != null) {
      Files.writeString(release, "");
    }
    if (run != null && run.isAlive()) {
      new ProcessBuilder("kill", "-CONT", Long.toString(run.pid())).start().waitFor();
      run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private void project(String stateLocation) throws Exception {
    repo = GitRepo.init(tmp.resolve("repo"));
    prompts = Files.createDirectories(tmp.resolve("prompts"));
    release = tmp.resolve("release");
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, AGENT.formatted(prompts, release));
    repo.write("backlog.yaml", """
        items:
          - {id: A, title: item a}
          - {id: B, title: item b}
          - {id: S, title: slow item}
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 120s
        execution: {workspace: worktree, max_retries: 0, max_concurrent: 3}
        default_pipeline: p
        pipelines:
          p:
            review: required
            phases:
              - {name: plan, instructions: "Plan."}
              - {name: work, instructions: "Work."}
        """.formatted(agent));
    repo.commitAll("project");
    state = stateLocation == null ? repo.dir.resolve(".orchestrate").toString() : stateLocation;
  }

  private List<String> args(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state, "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return all;
  }

  private CliRunner.Result cli(String... args) {
    return CliRunner.runIn(repo.dir, Map.of(), args(args).toArray(String[]::new));
  }

  /** {@code orchestrate run} in a JVM of its own, as a user starts it in another terminal. */
  private Process startRun() throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), dev.orchestrate.Main.class.getName()));
    command.addAll(args("run", "--no-live", repo.dir.resolve("backlog.yaml").toString()));
    return new ProcessBuilder(command).directory(repo.dir.toFile())
        .redirectOutput(tmp.resolve("run.out").toFile()).redirectError(tmp.resolve("run.err").toFile()).start();
  }

  private String runOutput() throws Exception {
    return Files.readString(tmp.resolve("run.out")) + Files.readString(tmp.resolve("run.err"));
  }

  private String status(String id) throws Exception {
    CliRunner.Result r = cli("status", id, "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    return (doc.has("item") ? doc.path("item") : doc).path("status").asText();
  }

  private void await(String what, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what + "; the run said: " + runOutput());
      assertTrue(run == null || run.isAlive() || condition.getAsBoolean(), "the run ended before " + what + ": "
          + runOutput());
      Thread.sleep(200);
    }
  }

  private boolean is(String id, String status) {
    try {
      return status(id).equals(status);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private int prompts(String id) {
    try (Stream<Path> files = Files.list(prompts)) {
      return (int) files.filter(f -> f.getFileName().toString().startsWith(id + "-")).count();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private String lastPrompt(String id) throws Exception {
    return Files.readString(prompts.resolve(id + "-" + (prompts(id) - 1) + ".md"));
  }

  private List<String> onMain() {
    return repo.git("ls-tree", "--name-only", "main").lines().filter(f -> f.startsWith("work-")).toList();
  }

  /** A run is alive, S in its first phase, A and B awaiting review. */
  private void runWithTwoAwaitingReview() throws Exception {
    run = startRun();
    await("S is being worked on", () -> prompts("S") == 1);
    await("A and B await review", () -> is("A", "awaiting_review") && is("B", "awaiting_review"));
    assertTrue(run.isAlive(), runOutput());
  }

  private void approveAndRejectBesideTheRun() throws Exception {
    String start = repo.head("main");
    runWithTwoAwaitingReview();
    assertEquals(start, repo.head("main"));

    CliRunner.Result approve = cli("approve", "A");
    assertEquals(0, approve.exitCode(), approve.out() + approve.err());
    String line = approve.out().lines().findFirst().orElseThrow();
    assertTrue(line.startsWith("Approved A: done (") || line.startsWith("Approved A: landing (")
        || line.equals("Queued A: the running run applies it"), line);
    String notes = "Use tabs, not spaces, in work-B.txt";
    CliRunner.Result reject = cli("reject", "B", "--notes", notes);
    assertEquals(0, reject.exitCode(), reject.out() + reject.err());
    assertTrue(reject.out().startsWith("Rejected B: ") || reject.out().startsWith("Queued B: "), reject.out());
    // Refusals beside the run are as before: exit 2, nothing queued.
    CliRunner.Result unknown = cli("approve", "C", "X");
    assertEquals(2, unknown.exitCode(), unknown.out() + unknown.err());
    assertTrue(unknown.err().contains("unknown item 'C', 'X'"), unknown.err());

    await("A is on main", () -> onMain().equals(List.of("work-A.txt")));
    assertEquals("done", status("A"));
    await("B ran its last phase again", () -> prompts("B") == 3);
    await("B awaits review again", () -> is("B", "awaiting_review"));
    String prompt = lastPrompt("B");
    assertTrue(prompt.contains(notes), prompt);
    assertTrue(prompt.contains("Work."), "the rejected item went back to its last phase");
    assertTrue(run.isAlive(), "all of it beside the running run: " + runOutput());

    Files.writeString(release, "");
    assertTrue(run.waitFor(90, TimeUnit.SECONDS), runOutput());
    assertEquals(0, run.exitValue(), runOutput());
    assertEquals(List.of("work-A.txt"), onMain(), "main holds only approved work");
    assertEquals("attempt 0 of A\nattempt 1 of A", repo.git("show", "main:work-A.txt"));
    assertEquals("awaiting_review", status("S"));
  }

  @Test
  void approve_and_reject_beside_a_running_run_on_a_local_state() throws Exception {
    project(null);
    approveAndRejectBesideTheRun();
    assertEquals(List.of("0"), Db.column(new StateDirectory(repo.dir.resolve(".orchestrate")).database(),
        "SELECT count(*) FROM review_decisions"), "the run deleted what it applied");
  }

  @Test
  void approve_and_reject_beside_a_running_runner_on_postgresql() throws Exception {
    String schema = EmbeddedPostgresServer.freshSchema("review_cli");
    project(EmbeddedPostgresServer.location(schema));
    approveAndRejectBesideTheRun();
    assertEquals("0", EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM review_decisions"));
  }

  /**
   * The run is frozen (SIGSTOP) so that it cannot apply the decisions, then killed (SIGKILL): the
   * queued decisions survive, and the next run applies each exactly once at its start. The notes
   * are hostile (escape sequences, far over the cap): the prompt gets them cut as unblock's are.
   */
  @Test
  void queued_decisions_survive_a_killed_run_and_the_next_run_applies_them_once() throws Exception {
    project(null);
    runWithTwoAwaitingReview();
    Path db = new StateDirectory(repo.dir.resolve(".orchestrate")).database();
    assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(run.pid())).start().waitFor());

    CliRunner.Result approve = cli("approve", "A");
    assertEquals(0, approve.exitCode(), approve.out() + approve.err());
    assertEquals("Queued A: the running run applies it", approve.out().lines().findFirst().orElseThrow());
    String notes = "\u001b]0;pwned\u0007\u001b[2J\u001b[31mredo it\n" + "x".repeat(50_000);
    CliRunner.Result reject = cli("reject", "B", "--notes", notes, "--json");
    assertEquals(0, reject.exitCode(), reject.err());
    JsonNode rejected = JSON.readTree(reject.out()).path("items").get(0);
    assertEquals("queued", rejected.path("outcome").asText(), reject.out());
    assertEquals("awaiting_review", rejected.path("status").asText());
    assertFalse(reject.out().contains("\u001b"), "no raw escape: " + reject.out());

    run.destroyForcibly(); // kill -9 of a stopped process
    assertTrue(run.waitFor(30, TimeUnit.SECONDS));
    assertEquals(List.of("approve", "reject"), Db.column(db, "SELECT decision FROM review_decisions ORDER BY id"));
    List<String> stored = Db.column(db, "SELECT notes FROM review_decisions WHERE decision = 'reject'");
    assertTrue(stored.get(0).length() <= dev.orchestrate.item.Transitions.UNBLOCK_NOTES_MAX_CHARS,
        "queued capped: " + stored.get(0).length());
    assertEquals("awaiting_review", status("A"), "not applied by the killed run");
    assertEquals("awaiting_review", status("B"));

    Files.writeString(release, "");
    run = null;
    CliRunner.Result next = cli("run", "--no-live", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, next.exitCode(), next.out() + next.err());
    assertEquals(List.of("work-A.txt"), onMain());
    assertEquals("done", status("A"));
    assertEquals("awaiting_review", status("B"), "rejected, worked again, and awaiting review again");
    String prompt = lastPrompt("B");
    assertTrue(prompt.contains("redo it"), prompt);
    assertTrue(prompt.contains("x".repeat(5_000)) && !prompt.contains("x".repeat(10_000)), "cut as unblock notes are");
    assertEquals(List.of("0"), Db.column(db, "SELECT count(*) FROM review_decisions"));
    assertEquals(List.of("1"), Db.column(db, "SELECT count(*) FROM events WHERE item_id = 'A'"
        + " AND payload LIKE '%\"reason\":\"approved\"%'"), "approved once");
    assertEquals(List.of("1"), Db.column(db, "SELECT count(*) FROM events WHERE item_id = 'B'"
        + " AND payload LIKE '%rejected with notes%'"), "rejected once");
  }
}
