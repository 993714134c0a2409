package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import dev.orchestrate.workspace.BaseRefs;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitRepo;
import dev.orchestrate.workspace.PushRecord;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceSetupException;
import dev.orchestrate.workspace.WorkspaceStore;
import dev.orchestrate.workspace.WorktreeGuard;
import dev.orchestrate.workspace.WorktreeRetention;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * execution.merge: push with real git: a bare repository as the remote, a pull-request script that
 * records its arguments and prints a URL, failures retried on the backoff's schedule.
 */
class PushTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(Worktrees.class, Landing.class, BaseRefs.class, WorktreeGuard.class,
      WorktreeRetention.class);

  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path origin;
  private StateStore state;
  private WorkspaceStore store;
  private final Moving clock = new Moving(T0);

  /** A clock the test moves. */
  static final class Moving extends Clock {
    Instant now;

    Moving(Instant now) {
      this.now = now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    origin = tmp.resolve("origin.git");
    repo.addBareOrigin(origin);
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    store = state.workspaces();
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private WorktreeSite worktrees(ProjectCommand pullRequest) {
    WorkspaceConfig config = ConfigWithers
        .withMerge(ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
            WorkspaceConfig.Merge.PUSH)
        .withPush("origin", pullRequest);
    return WorktreeSite.open(repo.dir, config, store, clock);
  }

  private void work(WorktreeSite w, String id, String file) {
    Path ws = w.prepare(id, repo.dir).workspace();
    GitRepo.write(ws, file, id + "\n");
    w.commit(id, "build", 1, 1, "built " + id + "\nwith care");
    w.committed(id);
  }

  /** A script that appends its arguments (one per line, then a separator) to calls.txt and prints a URL. */
  private ProjectCommand script(String url) throws Exception {
    Path script = tmp.resolve("pr.sh");
    Files.writeString(script, """
        #!/bin/sh
        for a in "$@"; do printf '%%s\\n' "$a" >> "%s"; done
        echo --- >> "%s"
        echo "Creating pull request for $ORCHESTRATE_PR_BRANCH into $ORCHESTRATE_PR_BASE"
        echo "%s"
        """.formatted(tmp.resolve("calls.txt"), tmp.resolve("calls.txt"), url));
    script.toFile().setExecutable(true);
    return new ProjectCommand("pull_request", List.of(script.toString(), "--head", "{branch}", "--base", "{base}",
        "--title", "{title}", "--body-file", "{body_file}", "--item={item}"), script.toString(),
        Duration.ofSeconds(30));
  }

  private String remoteHead(String branch) {
    String line = repo.git("ls-remote", origin.toString(), "refs/heads/" + branch);
    return line.isEmpty() ? null : line.split("\\s+")[0];
  }

  @Test
  void a_done_item_is_rebased_pushed_and_its_pull_request_opened_once_the_base_branch_left_alone() throws Exception {
    WorktreeSite w = worktrees(script("https://forge.example/acme/app/pull/7"));
    work(w, "A", "a.txt");
    repo.write("other.txt", "meanwhile\n");
    repo.commitAll("user commit meanwhile");
    String main = repo.head("main");

    IntegrationResult result = w.integrate("A", "Item A");

    assertEquals("pushed", result.kind(), result.message());
    assertEquals(main, repo.head("main"), "the base branch does not move under merge: push");
    String branch = repo.head("orchestrate/A");
    assertEquals(branch, remoteHead("orchestrate/A"));
    assertEquals(List.of("A build: built A", "user commit meanwhile", "init"), repo.subjects("orchestrate/A"),
        "rebased onto the base's tip before the push");
    WorkspaceRecord ws = store.workspace("A").orElseThrow();
    assertEquals(WorkspaceRecord.Integration.PUSHED, ws.integration());
    assertEquals(branch, ws.push().sha());
    assertEquals("https://forge.example/acme/app/pull/7", ws.push().url());
    assertEquals(branch, ws.headCommit());
    Path body = repo.dir.resolve(".orchestrate/jobs/A/pull-request.md");
    List<String> calls = Files.readAllLines(tmp.resolve("calls.txt"));
    assertEquals(List.of("--head", "orchestrate/A", "--base", "main", "--title", "Item A", "--body-file",
        body.toString(), "--item=A", "---"), calls);
    String text = Files.readString(body);
    assertTrue(text.contains("A build: built A"), text);
    assertFalse(text.contains("Orchestrate-Job"), text);

    // done again later (unblocked, more work): pushed again with the lease, the pull request not opened twice
    w.prepare("A", repo.dir);
    work(w, "A", "a2.txt");
    assertEquals("pushed", w.integrate("A", "Item A").kind());
    assertEquals(repo.head("orchestrate/A"), remoteHead("orchestrate/A"));
    assertEquals(1, Files.readAllLines(tmp.resolve("calls.txt")).stream().filter("---"::equals).count());
  }

  @Test
  void a_failed_push_is_retried_after_its_backoff_and_then_succeeds() throws Exception {
    WorktreeSite w = worktrees(null);
    work(w, "A", "a.txt");
    Path away = tmp.resolve("away.git");
    Files.move(origin, away);

    IntegrationResult first = w.integrate("A", "Item A");

    assertEquals("deferred", first.kind(), first.message());
    assertTrue(first.message().contains("git push of orchestrate/A to origin"), first.message());
    assertTrue(first.message().contains("tried again in 30 s"), first.message());
    assertEquals(1, store.workspace("A").orElseThrow().push().failures());
    assertEquals(List.of(), w.integrationPending(), "not before its backoff");
    clock.now = T0.plusSeconds(29);
    assertEquals(List.of(), w.integrationPending());
    assertEquals(List.of(), w.retriesDue(), "a run's tick does not retry it before its backoff either");
    clock.now = T0.plusSeconds(30);
    assertEquals(List.of("A"), w.integrationPending());
    assertEquals(List.of("A"), w.retriesDue());

    Files.move(away, origin);
    IntegrationResult second = w.integrate("A", "Item A");
    assertEquals("pushed", second.kind(), second.message());
    assertEquals(repo.head("orchestrate/A"), remoteHead("orchestrate/A"));
    assertEquals(0, store.workspace("A").orElseThrow().push().failures());
    assertEquals(List.of(), w.integrationPending());
    assertEquals(List.of(), w.retriesDue());
    assertTrue(String.join("\n", logs.warnings()).contains("not integrated"), "the failure was logged");
  }

  @Test
  void the_last_failure_in_a_row_blocks_the_item_after_backoffs_doubling_up_to_their_cap() throws Exception {
    WorktreeSite w = worktrees(null);
    work(w, "A", "a.txt");
    Files.move(origin, tmp.resolve("away.git"));
    Instant start = clock.now;
    for (int i = 1; i < Pusher.MAX_FAILURES; i++) {
      assertEquals("deferred", w.integrate("A", "Item A").kind());
      PushRecord push = store.workspace("A").orElseThrow().push();
      assertEquals(i, push.failures());
      Duration wait = Pusher.FIRST_RETRY.multipliedBy(1L << (i - 1));
      assertEquals(clock.now.plus(wait.compareTo(Pusher.LAST_RETRY) > 0 ? Pusher.LAST_RETRY : wait),
          Pusher.nextTry(push));
      clock.now = Pusher.nextTry(push);
    }
    assertEquals(start.plus(Duration.ofSeconds(30 + 60 + 120 + 240 + 480 + 960 + 1800)), clock.now,
        "30 s doubling, the last wait capped at 30 min");
    IntegrationResult last = w.integrate("A", "Item A");
    assertEquals("push_failed", last.kind());
    assertTrue(last.blocks());
    assertTrue(last.message().contains("failed " + Pusher.MAX_FAILURES + " times in a row"), last.message());
    assertEquals(WorkspaceRecord.Integration.CONFLICT, store.workspace("A").orElseThrow().integration());
  }

  @Test
  void a_title_with_shell_metacharacters_reaches_a_shell_command_as_one_value() throws Exception {
    Path out = tmp.resolve("title.txt");
    Path marker = tmp.resolve("injected");
    ProjectCommand shell = ProjectCommand.shell("pull_request",
        "printf '%s' {title} > " + out + "; echo https://forge.example/pr/{item}", Duration.ofSeconds(30));
    WorktreeSite w = worktrees(shell);
    work(w, "A", "a.txt");
    String title = "Fix it\"; touch " + marker + "; echo '$(touch " + marker + ")' `touch " + marker + "`";

    IntegrationResult result = w.integrate("A", title);

    assertEquals("pushed", result.kind(), result.message());
    assertFalse(Files.exists(marker), "the title ran as shell");
    assertEquals(title, Files.readString(out));
    assertEquals("https://forge.example/pr/A", store.workspace("A").orElseThrow().push().url());
  }

  @Test
  void a_failing_pull_request_command_is_reported_masked_and_retried_without_pushing_again() throws Exception {
    Path count = tmp.resolve("count");
    ProjectCommand flaky = ProjectCommand.shell("pull_request", "if [ -e " + count + " ]; then echo done: "
        + "https://forge.example/pr/1.; else touch " + count
        + "; echo 'remote: https://bot:s3cr3t-t0ken@forge.example/x"
        + " refused' >&2; exit 1; fi", Duration.ofSeconds(30));
    WorktreeSite w = worktrees(flaky);
    work(w, "A", "a.txt");

    IntegrationResult first = w.integrate("A", "Item A");

    assertEquals("deferred", first.kind());
    assertTrue(first.message().contains("https://***@forge.example/x"), first.message());
    assertFalse(first.message().contains("s3cr3t"), first.message());
    assertFalse(store.workspace("A").orElseThrow().note().contains("s3cr3t"));
    assertFalse(String.join("\n", logs.warnings()).contains("s3cr3t"), "never logged");
    assertEquals(repo.head("orchestrate/A"), remoteHead("orchestrate/A"), "the push itself succeeded");
    clock.now = T0.plusSeconds(30);
    assertEquals("pushed", w.integrate("A", "Item A").kind());
    assertEquals("https://forge.example/pr/1", store.workspace("A").orElseThrow().push().url());
  }

  @Test
  void a_remote_the_repository_lacks_is_refused_before_anything_runs() {
    WorkspaceConfig config = ConfigWithers
        .withMerge(ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
            WorkspaceConfig.Merge.PUSH)
        .withPush("upstream", null);
    Repository repository = Repository.discover(new Git(), repo.dir, null);
    WorkspaceSetupException e = assertThrows(WorkspaceSetupException.class,
        () -> Landing.checkRemote(new Git(), repository, config));
    assertTrue(e.getMessage().contains("execution.remote 'upstream' is not a remote"), e.getMessage());
    assertThrows(WorkspaceSetupException.class, () -> WorktreeSite.open(repo.dir, config, store, clock));
  }

  @Test
  void a_remote_url_an_agent_rewrote_during_the_run_is_not_pushed_to() throws Exception {
    WorktreeSite w = worktrees(null);
    work(w, "A", "a.txt");
    Path elsewhere = tmp.resolve("elsewhere.git");
    repo.git(tmp, "init", "--quiet", "--bare", elsewhere.toString());
    repo.git("config", "remote.origin.url", elsewhere.toString());

    IntegrationResult result = w.integrate("A", "Item A");

    assertEquals("deferred", result.kind());
    assertTrue(result.message().contains("changed since the run started"), result.message());
    assertEquals("", repo.git("ls-remote", elsewhere.toString()));
    assertNull(remoteHead("orchestrate/A"));
  }

  @Test
  void a_url_rewrite_an_agent_planted_during_the_run_is_refused() throws Exception {
    WorktreeSite w = worktrees(null);
    work(w, "A", "a.txt");
    Path elsewhere = tmp.resolve("elsewhere.git");
    repo.git(tmp, "init", "--quiet", "--bare", elsewhere.toString());
    repo.git("config", "url." + elsewhere + ".pushInsteadOf", origin.toString());

    IntegrationResult result = w.integrate("A", "Item A");

    assertEquals("deferred", result.kind());
    assertTrue(result.message().contains("configuration changed since the run started"), result.message());
    assertEquals("", repo.git("ls-remote", elsewhere.toString()));
    assertNull(remoteHead("orchestrate/A"));
  }

  @Test
  void a_push_the_remote_rejects_once_is_recorded_masked_then_pushed_on_its_retry() throws Exception {
    Path hook = origin.resolve("hooks/pre-receive");
    Path once = tmp.resolve("rejected-once");
    Files.writeString(hook, """
        #!/bin/sh
        if [ ! -e "%s" ]; then
          touch "%s"
          echo "denied: see https://ci:hunter2-secret@ci.example/job/1" >&2
          exit 1
        fi
        """.formatted(once, once));
    hook.toFile().setExecutable(true);
    WorktreeSite w = worktrees(null);
    work(w, "A", "a.txt");

    IntegrationResult first = w.integrate("A", "Item A");

    assertEquals("deferred", first.kind(), first.message());
    String note = store.workspace("A").orElseThrow().note();
    assertTrue(note.contains("pre-receive hook declined"), note);
    assertTrue(note.contains("https://***@ci.example/job/1"), note);
    assertFalse(note.contains("hunter2"), note);
    assertNull(remoteHead("orchestrate/A"));
    clock.now = T0.plusSeconds(30);
    assertEquals(List.of("A"), w.retriesDue());
    assertEquals("pushed", w.integrate("A", "Item A").kind());
    assertEquals(repo.head("orchestrate/A"), remoteHead("orchestrate/A"));
  }
}
