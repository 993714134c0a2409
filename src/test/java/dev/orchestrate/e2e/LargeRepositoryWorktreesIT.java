package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run on a repository large enough (an index over 512 KiB) that landed items' worktrees are kept
 * and moved into place as the next items' rather than deleted and checked out anew (issue 46), with
 * the real launcher and a recorder named {@code git} first on its {@code PATH}: which worktrees
 * were made new and which moved, every item's work on {@code main}, nothing kept once the run ends,
 * and after a {@code kill -9} with a worktree kept, the next run deletes it and finishes.
 */
class LargeRepositoryWorktreesIT {
  private static final int ITEMS = 6;
  /** Files whose long paths make an index of about 650 KiB, without thousands of files more. */
  private static final int FILES = 2_200;

  @TempDir
  Path dir;

  private GitRepo repo;
  private Path bin;
  private Path log;

  private void project(String agent) throws IOException {
    Path git = OnPath.find("git");
    assertNotNull(git, "git on the PATH");
    bin = Files.createDirectories(dir.resolve("bin"));
    log = dir.resolve("git.log");
    Path recorder = bin.resolve("git");
    Files.writeString(recorder, "#!/usr/bin/env bash\nline=\"$*\"\nprintf '%s\\n' \"${line//$'\\n'/ }\" >> '" + log
        + "'\nexec '" + git.toRealPath() + "' \"$@\"\n");
    assertTrue(recorder.toFile().setExecutable(true));

    repo = GitRepo.init(dir.resolve("repo"));
    String longName = "a-directory-whose-long-name-makes-each-entry-of-the-index-large-".repeat(3);
    for (int i = 0; i < FILES; i++) {
      GitRepo.write(repo.dir, "src/" + longName + (i % 20) + "/" + longName + i + ".txt", "file " + i + "\n");
    }
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= ITEMS; i++) {
      backlog.append("  - {id: I").append(i).append(", title: t}\n");
    }
    repo.write("backlog.yaml", backlog.toString());
    repo.write("agent.sh", agent);
    repo.write("orchestrate.yaml", """
        agent: {command: ["bash", "agent.sh"]}
        execution: {workspace: worktree, max_wip: 1, max_concurrent: 1}
        default_pipeline: p
        pipelines: {p: {phases: [{name: build, instructions: "Build."}]}}
        """);
    repo.commitAll("project");
    assertTrue(Files.size(repo.dir.resolve(".git/index")) > 512 * 1024, "the index is over 512 KiB");
  }

  private Process start(String name) throws IOException {
    ProcessBuilder pb = Launcher.builder(repo.dir, "run", "--no-live");
    pb.environment().put("PATH", bin + java.io.File.pathSeparator + System.getenv("PATH"));
    return pb.redirectErrorStream(true).redirectOutput(dir.resolve(name).toFile()).start();
  }

  private String finish(Process run, String name) throws Exception {
    assertTrue(run.waitFor(5, TimeUnit.MINUTES), "the run ended");
    String out = Files.readString(dir.resolve(name));
    assertEquals(0, run.exitValue(), out);
    return out;
  }

  private List<String> kept() throws IOException {
    Path root = repo.dir.resolve(".orchestrate/worktrees");
    try (Stream<Path> entries = Files.list(root)) {
      return entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("+spare-") && !n.endsWith(".lock"))
          .toList();
    }
  }

  private List<String> keptNow() {
    try {
      return kept();
    } catch (IOException e) {
      return List.of(); // the worktrees' directory not made yet
    }
  }

  /** Every item's one commit on main, once each, and no work tree but the user's checkout. */
  private void everyItemLandedAndNothingKept() throws IOException {
    List<String> subjects = repo.subjects("main");
    for (int i = 1; i <= ITEMS; i++) {
      String subject = "I" + i + " build: built I" + i;
      assertEquals(1, subjects.stream().filter(subject::equals).count(), subject + " in " + subjects);
      assertEquals("I" + i + "\n", GitRepo.read(repo.dir.resolve("I" + i + ".txt")));
    }
    assertEquals(List.of(), kept(), "nothing kept once the run ended");
    assertEquals(1, repo.git("worktree", "list", "--porcelain").lines().filter(l -> l.startsWith("worktree "))
        .count(), repo.git("worktree", "list"));
  }

  @Test
  void landed_worktrees_become_the_next_items_and_the_run_leaves_none() throws Exception {
    // item k ends once item k-1's worktree has left its directory (landed and kept), so that item
    // k+1, made after k ends, finds it kept however slow the machine's landings are (30 s at most)
    project("n=${ORCHESTRATE_ITEM_ID#I}; i=0\n"
        + "while [ -d \"../I$((n - 1))\" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done\n"
        + "echo \"$ORCHESTRATE_ITEM_ID\" > \"$ORCHESTRATE_ITEM_ID.txt\"; echo \"built $ORCHESTRATE_ITEM_ID\"\n");

    String out = finish(start("run.out"), "run.out");
    assertTrue(out.contains(ITEMS + " done"), out);

    everyItemLandedAndNothingKept();
    List<String> started = Files.readAllLines(log);
    long made = started.stream().filter(l -> l.contains(" worktree add ")).count();
    // a kept worktree is moved without git (a rename and its registry entry); its take ends in this checkout
    long moved = started.stream().filter(l -> l.contains(" checkout --quiet --force -B orchestrate/")).count();
    String summary = made + " made, " + moved + " taken from kept ones:\n" + String.join("\n", started);
    // the next item's worktree is made while the one before it lands: the first two may be new
    assertTrue(moved >= ITEMS - 2, summary);
    assertEquals(ITEMS, made + moved, summary);
  }

  @Test
  void a_worktree_kept_by_a_killed_run_is_deleted_by_the_next_which_finishes() throws Exception {
    // I1 and I2 end at once; the others wait until the test lets them go, so that one is kept meanwhile
    Path gate = dir.resolve("go");
    Path waiting = dir.resolve("waiting");
    project("[ \"$ORCHESTRATE_ITEM_ID\" = I1 ] || [ \"$ORCHESTRATE_ITEM_ID\" = I2 ] || { touch '" + waiting
        + "'; while [ ! -e '" + gate + "' ]; do sleep 0.1; done; }\n"
        + "echo \"$ORCHESTRATE_ITEM_ID\" > \"$ORCHESTRATE_ITEM_ID.txt\"; echo \"built $ORCHESTRATE_ITEM_ID\"\n");

    Process first = start("first.out");
    // I3 has its worktree and waits: no item takes a kept one now, and I2's landing keeps its own
    assertTrue(Processes.await(Duration.ofSeconds(120), () -> Files.exists(waiting)),
        "I3 started: " + Files.readString(dir.resolve("first.out")));
    assertTrue(Processes.await(Duration.ofSeconds(120), () -> !keptNow().isEmpty()),
        "a landed worktree was kept: " + Files.readString(dir.resolve("first.out")));
    Processes.crash(first);
    assertTrue(!kept().isEmpty(), "the killed run left what it kept");

    Files.createFile(gate);
    String out = finish(start("second.out"), "second.out");
    assertTrue(out.contains("done"), out);
    everyItemLandedAndNothingKept();
  }
}
