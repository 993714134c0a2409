package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.InProcessLauncher.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.landing.Landing;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.RunOptions;
import dev.orchestrate.scheduler.RunReport;
import dev.orchestrate.scheduler.Scheduler;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitRepo;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.Worktrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runners on one PostgreSQL state, each with its own worktrees manager, beside one item that
 * awaits its checks (execution.checks, real git, a bare origin, a scripted checks command): only the
 * runner holding the item's lease polls it, so the command runs once per poll round, never twice at
 * once, and the item ends done.
 */
class ChecksBesideRunnerTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  @TempDir
  Path dir;

  @Test
  void two_runners_poll_an_items_checks_once_per_round_under_its_lease() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("project"));
    Path origin = dir.resolve("origin.git");
    repo.addBareOrigin(origin);
    Path marks = Files.createDirectories(dir.resolve("marks"));
    // each poll: a lock that a second poll at the same time finds taken, its start time; green at the 3rd; a poll takes longer than the interval, so a runner that
    // polled beside the one holding the lease would find the lock taken
    Path checks = dir.resolve("checks.sh");
    Files.writeString(checks, """
        #!/bin/sh
        mkdir "%1$s/lock" 2>/dev/null || echo "$1" >> "%1$s/overlaps"
        date +%%s%%N >> "%1$s/polls"
        n=$(wc -l < "%1$s/polls")
        sleep 1.5
        rmdir "%1$s/lock" 2>/dev/null
        [ "$n" -ge 3 ] && { echo passed; exit 0; }
        echo running; exit 75
        """.formatted(marks));
    Path yaml = repo.dir.resolve("orchestrate.yaml");
    Files.writeString(yaml, """
        agent:
          command: ["true"]
        execution:
          workspace: worktree
          merge: push
          checks: ["sh", "%s", "{item}"]
          checks_interval: 2s
        default_pipeline: feature
        pipelines:
          feature:
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(checks));
    Config config = ConfigLoader.load(yaml);
    Backlog backlog = new Backlog(repo.dir.resolve("backlog.yaml"), List.of(item("A")));

    String schema = EmbeddedPostgresServer.freshSchema("checks");
    PostgresBackend backend = TestBackend.on(schema, "host-a", dir);
    backend.open(StateStore.Mode.READ_WRITE).close();
    InProcessLauncher agents = new InProcessLauncher(request -> {
      try {
        Files.writeString(request.workDir().resolve("A.txt"), "work of A\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return outcome(AgentResult.PHASE_COMPLETE, "built A");
    });
    // the second runner starts once the item awaits its checks: it finds the wait, not the item's work
    List<CompletableFuture<RunReport>> runs = new ArrayList<>();
    runs.add(runner(backend, repo, config, backlog, agents));
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (store.items().item("A").map(i -> i.status() != ItemStatus.AWAITING_CHECKS).orElse(true)) {
        assertTrue(System.nanoTime() < deadline, "A awaits its checks");
        Thread.sleep(50);
      }
    }
    runs.add(runner(backend, repo, config, backlog, agents));
    for (CompletableFuture<RunReport> run : runs) {
      RunReport report = run.get(2, TimeUnit.MINUTES);
      assertEquals(HaltReason.ALL_DONE, report.haltReason(), report.toString());
    }

    assertEquals(1, agents.started(), "one attempt");
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      assertEquals(ItemStatus.DONE, store.items().item("A").orElseThrow().status());
    }
    assertFalse(Files.exists(marks.resolve("overlaps")), "never two polls at once");
    List<Long> polls = Files.readAllLines(marks.resolve("polls")).stream().map(Long::parseLong).toList();
    assertEquals(3, polls.size(), "one poll per round: " + polls);
    for (int i = 1; i < polls.size(); i++) {
      long gapMs = (polls.get(i) - polls.get(i - 1)) / 1_000_000;
      assertTrue(gapMs >= 2_000, "each poll one interval after the last one ended: " + gapMs + " ms");
    }
    assertTrue(repo.git("ls-remote", origin.toString()).contains("refs/heads/orchestrate/A"));
  }

  private CompletableFuture<RunReport> runner(PostgresBackend backend, GitRepo repo, Config config, Backlog backlog,
      InProcessLauncher agents) {
    return CompletableFuture.supplyAsync(() -> {
      try (RunLease lease = backend.acquireLease(T0, Duration.ofSeconds(30));
          StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
        ItemLeases leases = store.leases(lease.runnerId(), lease.host(), Duration.ofSeconds(30));
        Git git = new Git();
        Repository repository = Repository.discover(git, repo.dir, null);
        Worktrees worktrees = new Worktrees(git, repository, config.execution().workspace(),
            config.retention().worktrees(), store.workspaces(), dir.resolve("state/worktrees"), Clock.systemUTC())
            .open();
        Landing landing = new Landing(git, worktrees, config.execution().workspace(), store.workspaces(),
            Clock.systemUTC(), dir.resolve("state/jobs")).open();
        return Scheduler.builder(store.items(), config, backlog, dir.resolve("state/jobs"), agents,
            Clock.systemUTC()).leases(leases).build().workspaces(worktrees, landing).run(RunOptions.cap(100));
      }
    });
  }
}
