package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many git processes a worktree phase starts on the normal path (issue 46, item 2), counted by
 * a program named {@code git} first on the launcher's {@code PATH} that records each start and runs
 * the real git: orchestrate resolves {@code git} once, from the {@code PATH}, so the recorder is
 * what it runs. A count, never a time.
 */
class GitProcessesPerPhaseIT {
  /**
   * Items of one phase each: the first also pays the run's start (discovery, a prune), a tenth of it
   * each. Since worktrees are made, and landings run, off the scheduler thread (issue 46, item 1),
   * the next item's worktree is made while the one before it lands, from the tip before that
   * landing: its own landing then rebases (the rebase, merge-base, HEAD and the log of landed jobs,
   * about four commands a phase that the serial loop did not need, because it waited for each
   * landing before it made the next worktree).
   */
  private static final int ITEMS = 10;
  /**
   * The commands other than the configuration check, three under the 15 (13.5 measured with
   * the serial loop, 17.1 with workers, 14.2 since, 10.3 since branch tips, the checkout's HEAD and
   * whether the base moved on from HEAD's parent are read from git's files where they leave no
   * doubt; whether an item rebases depends on whether the one before it landed first; 11.9 since a
   * landed worktree is kept for a later item's, whose take is three commands where a new
   * worktree's add is one, 12.1 when all but the first take one: the price of writing only the
   * files that differ instead of every file of a checkout, and deleting none; 10.9 since the
   * landing reads the base and HEAD from git's files, 11.1 when all but the first item take a kept
   * worktree).
   */
  static final int MAX_COMMANDS_PER_PHASE = 12;
  /**
   * The configuration check among them (30.5 a phase when it listed before every command, 0.6
   * measured): a kept listing lasts 2 s at most, so a run lists about once more each 2 s it takes
   * whatever its phases do; {@link #listingsAllowed} adds those.
   */
  static final int MAX_LISTINGS_PER_PHASE = 2;
  /*
   * Every git process of a phase, its integration and its worktree's removal included, was 14.1
   * measured with the serial loop, 17.6 and 17.8 with worktrees and landings on workers, 14.8 since
   * the phase commit after an inspection needs no reset and no rev-parse and a rebase's tip and
   * landed jobs are one log, 12.4 with kept worktrees, 11.4 since the landing reads the base and
   * HEAD from git's files: the two bounds above together, 14, under the 15 on a quiet machine. Their sum is no bound of its own: a loaded machine (three test JVMs at a load of 7)
   * listed 14 times in 10 phases beside 147 commands, 161, with each part within its own bound.
   */

  /**
   * The same with {@code execution.landing: remote}: each phase commit pushed to the remote, the
   * base fetched from it, the landing a push with a lease, the item's remote ref deleted. 28.8
   * commands a phase when a {@code config --get-regexp} of the configuration that steers pushes ran
   * before every fetch and push; 20.6 since it comes from the configuration check's listing and the
   * usual checks read ref files (docs/benchmarks.md, "With `landing: remote`").
   */
  static final int MAX_REMOTE_COMMANDS_PER_PHASE = 22;

  /** {@code ConfigListings.MAX_AGE} (package-private in {@code workspace}): how long a kept listing is used at most. */
  static final Duration LISTING_MAX_AGE = Duration.ofSeconds(2);

  /** How long the last {@link #run} took, from the launch to its end. */
  private Duration wall;

  @TempDir
  Path dir;

  @Test
  void a_worktree_phase_starts_a_bounded_number_of_git_processes() throws Exception {
    List<String> started = run(false);
    long listings = listings(started);
    String summary = summary(started, listings);
    assertTrue(started.size() - listings <= (long) MAX_COMMANDS_PER_PHASE * ITEMS, summary);
    assertTrue(listings <= listingsAllowed(), summary);
  }

  @Test
  void a_phase_landing_on_a_shared_remote_starts_a_bounded_number_of_git_processes() throws Exception {
    List<String> started = run(true);
    long listings = listings(started);
    String summary = summary(started, listings);
    assertTrue(started.stream().noneMatch(l -> l.contains("--get-regexp")), summary);
    assertTrue(started.stream().filter(l -> l.contains(" push ")).count() >= 2L * ITEMS,
        "each phase pushed and landed: "
            + summary);
    assertTrue(started.size() - listings <= (long) MAX_REMOTE_COMMANDS_PER_PHASE * ITEMS, summary);
    assertTrue(listings <= listingsAllowed(), summary);
  }

  /**
   * {@link #MAX_LISTINGS_PER_PHASE} a phase, and one more for each {@link
   * #LISTING_MAX_AGE} the run took: the kept listing's age limit makes listings follow the
   * wall time, so a loaded machine lists more for the same phases (CI, three test JVMs busy: 22 in
   * a remote run of 10 phases, 2026-11-30). A listing before every command is still about ten a
   * phase, far over either part.
   */
  private long listingsAllowed() {
    long windows = (wall.toMillis() + LISTING_MAX_AGE.toMillis() - 1) / LISTING_MAX_AGE.toMillis();
    return (long) MAX_LISTINGS_PER_PHASE * ITEMS + windows;
  }

  private static long listings(List<String> started) {
    return started.stream().filter(l -> l.contains(" config --show-scope --show-origin --null --list")).count();
  }

  private static String summary(List<String> started, long listings) {
    return started.size() + " git processes for " + ITEMS + " phases, " + listings
        + " of them the configuration check:\n" + String.join("\n", started);
  }

  /** Runs {@link #ITEMS} one-phase items in worktree mode, landing on a bare remote when {@code remote}; the git processes it started. */
  private List<String> run(boolean remote) throws Exception {
    Path git = OnPath.find("git");
    assertNotNull(git, "git on the PATH");
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path log = dir.resolve("git.log");
    Path recorder = bin.resolve("git");
    // one line per process (a commit message's newlines are folded), then the real git
    Files.writeString(recorder, "#!/usr/bin/env bash\nline=\"$*\"\nprintf '%s\\n' \"${line//$'\\n'/ }\" >> '" + log
        + "'\nexec '" + git.toRealPath() + "' \"$@\"\n");
    assertTrue(recorder.toFile().setExecutable(true));

    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= ITEMS; i++) {
      backlog.append("  - {id: I").append(i).append(", title: t}\n");
    }
    repo.write("backlog.yaml", backlog.toString());
    repo.write("agent.sh", "echo \"$ORCHESTRATE_ITEM_ID\" > \"$ORCHESTRATE_ITEM_ID.txt\"\n");
    repo.write("orchestrate.yaml", """
        agent: {command: ["bash", "agent.sh"]}
        execution: {workspace: worktree%s}
        default_pipeline: p
        pipelines: {p: {phases: [{name: build, instructions: "Build."}]}}
        """.formatted(remote ? ", landing: remote" : ""));
    repo.commitAll("project");
    if (remote) {
      repo.addBareOrigin(dir.resolve("origin.git")); // main pushed there
    }

    ProcessBuilder pb = Launcher.builder(repo.dir, "run", "--no-live");
    pb.environment().put("PATH", bin + java.io.File.pathSeparator + System.getenv("PATH"));
    pb.redirectErrorStream(true).redirectOutput(dir.resolve("run.out").toFile());
    long started = System.nanoTime();
    Process run = pb.start();
    assertTrue(run.waitFor(5, TimeUnit.MINUTES), "the run ended");
    wall = Duration.ofNanos(System.nanoTime() - started);
    String out = Files.readString(dir.resolve("run.out"));
    assertEquals(0, run.exitValue(), out);
    assertTrue(out.contains(ITEMS + " done"), out);
    if (remote) {
      assertTrue(repo.git(dir, "--git-dir=" + dir.resolve("origin.git"), "log", "--format=%s", "main")
          .contains("I" + ITEMS), "every item landed on the remote's main");
    }
    return Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
  }
}
