package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Agents in {@code execution.workspace: worktree} that try to reach the user's repository through
 * orchestrate's own git commands (issue 27): a worktree swapped for a link, a replaced {@code .git},
 * planted filters, drivers and includes, a moved base branch, a linked backlog directory, stale
 * locks. Each runs the real launcher on a real repository and asserts that the user's checkout is
 * untouched except by orchestrate's integration, that no planted command ran (a marker file), that
 * the base branch was never moved by an agent, that the run ends, and that the outcome is named.
 */
class WorktreeHostileAgentsIT {
  @TempDir
  Path dir;

  private GitRepo repo;
  private Path marker;
  private Path victim;

  @BeforeEach
  void setUp() throws IOException {
    repo = GitRepo.init(dir.resolve("checkout"));
    repo.write("src/app.txt", "the user's code\n");
    repo.commitAll("the user's work");
    marker = dir.resolve("MARKER");
    victim = dir.resolve("victim");
    Files.createDirectories(victim.resolve("deep"));
    Files.writeString(victim.resolve("precious.txt"), "keep me\n");
    Files.writeString(victim.resolve("deep/also.txt"), "and me\n");
  }

  /** Writes the agent (outside the repository) and the project's config, and commits the backlog. */
  private void project(String agent, String backlog, int retries) throws IOException {
    project(agent, backlog, retries, 1);
  }

  private void project(String agent, String backlog, int retries, int concurrent) throws IOException {
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, "#!/usr/bin/env bash\nset -u\nMARKER='" + marker + "'\nVICTIM='" + victim
        + "'\nCHECKOUT='" + repo.dir + "'\n" + agent);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
          kill_grace: 1s
        execution: {workspace: worktree, max_retries: %d, max_concurrent: %d, max_wip: %d}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(script, retries, concurrent, concurrent));
    repo.write("backlog.yaml", backlog);
    repo.commitAll("orchestrate project");
  }

  private Launcher.Result run() throws Exception {
    return Launcher.run(repo.dir, "run", "--no-live");
  }

  private String status() throws Exception {
    Launcher.Result r = Launcher.run(repo.dir, "status", "--json");
    assertEquals(0, r.exitCode(), r.err());
    return r.out();
  }

  /** Every file of the checkout outside .git and the state, with a digest of its bytes. */
  private Map<String, String> files(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        String rel = root.relativize(p).toString();
        if (rel.startsWith(".git") || rel.startsWith(".orchestrate")
            || Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        out.put(rel, digest(p));
      }
    }
    return out;
  }

  private static String digest(Path p) throws IOException {
    try {
      byte[] bytes = Files.isSymbolicLink(p) ? Files.readSymbolicLink(p).toString().getBytes(StandardCharsets.UTF_8)
          : Files.readAllBytes(p);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The user's repository is whole: .git a directory with its objects, nothing staged or changed in the checkout. */
  private void assertCheckoutIntact(Map<String, String> filesBefore) throws IOException {
    assertTrue(Files.isDirectory(repo.dir.resolve(".git"), LinkOption.NOFOLLOW_LINKS),
        "the checkout's .git is a directory");
    assertTrue(Files.isRegularFile(repo.dir.resolve(".git/HEAD")), ".git/HEAD is there");
    assertEquals(filesBefore, files(repo.dir), "the checkout's files are byte for byte what they were");
    assertEquals("", repo.git("status", "--porcelain"), "nothing staged or changed in the user's checkout");
  }

  private void assertVictimIntact() throws IOException {
    assertEquals("keep me\n", Files.readString(victim.resolve("precious.txt")));
    assertEquals("and me\n", Files.readString(victim.resolve("deep/also.txt")));
  }

  @Test
  void a_worktree_swapped_for_a_link_to_the_checkout_never_makes_orchestrate_touch_the_checkout() throws Exception {
    project("""
        mv "$ORCHESTRATE_WORKSPACE" "$ORCHESTRATE_WORKSPACE.moved"
        ln -s "$CHECKOUT" "$ORCHESTRATE_WORKSPACE"
        exit 1
        """, "items:\n  - {id: A, title: a}\n", 1);
    String main = repo.head("main");
    Map<String, String> before = files(repo.dir);

    Launcher.Result r = run();

    assertEquals(1, r.exitCode(), r.err());
    assertCheckoutIntact(before);
    assertEquals(main, repo.head("main"));
    String status = status();
    assertTrue(status.contains("\"status\" : \"blocked\""), status);
    assertTrue(status.contains("was replaced"), status);
    assertTrue(status.contains("symbolic link to " + repo.dir), status);
  }

  @Test
  void a_worktree_swapped_for_a_link_after_a_successful_phase_commits_nothing_from_the_link_target() throws Exception {
    project("""
        echo work > work.txt
        mv "$ORCHESTRATE_WORKSPACE" "$ORCHESTRATE_WORKSPACE.moved"
        ln -s "$VICTIM" "$ORCHESTRATE_WORKSPACE"
        exit 0
        """, "items:\n  - {id: A, title: a}\n", 1);
    String main = repo.head("main");
    Map<String, String> before = files(repo.dir);
    Map<String, String> victimBefore = files(victim);

    Launcher.Result r = run();

    assertEquals(1, r.exitCode(), r.err());
    assertCheckoutIntact(before);
    assertEquals(victimBefore, files(victim), "the directory the link points at is untouched");
    assertVictimIntact();
    assertEquals(main, repo.head("main"), "nothing integrated");
    String log = repo.git("log", "--all", "--name-only", "--format=");
    assertFalse(log.contains("precious.txt"), "the link target's files were never committed: " + log);
    assertTrue(status().contains("was replaced"));
  }

  @Test
  void a_replaced_dot_git_file_directory_or_link_is_repaired_and_the_checkout_is_untouched() throws Exception {
    project("""
        echo "$ORCHESTRATE_ITEM_ID" > "$ORCHESTRATE_ITEM_ID.txt"
        case "$ORCHESTRATE_ITEM_ID" in
          F) rm -f .git; echo "gitdir: $CHECKOUT/.git" > .git ;;
          D) rm -f .git; git init -q . ;;
          L) rm -f .git; ln -s "$CHECKOUT/.git" .git ;;
        esac
        exit 0
        """, "items:\n  - {id: F, title: f}\n  - {id: D, title: d}\n  - {id: L, title: l}\n", 0);
    Map<String, String> before = files(repo.dir);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.err());
    String status = status();
    assertFalse(status.contains("\"status\" : \"blocked\""), status);
    // the three items' work is integrated, and nothing else changed in the checkout
    before.put("F.txt", digestOf("F\n"));
    before.put("D.txt", digestOf("D\n"));
    before.put("L.txt", digestOf("L\n"));
    assertCheckoutIntact(before);
  }

  private String digestOf(String text) throws IOException {
    Path p = dir.resolve("digest.tmp");
    Files.writeString(p, text);
    return digest(p);
  }

  @Test
  void filters_drivers_fsmonitor_and_includes_an_agent_plants_never_run_inside_orchestrates_git() throws Exception {
    // A and B change the same file, so the second one's rebase needs the merge driver; the first
    // one's .gitattributes reaches main and the user's checkout by integration.
    project("""
        touch_marker="touch '$MARKER'; cat"
        git config filter.evil.clean "$touch_marker"
        git config filter.evil.smudge "$touch_marker"
        git config filter.evil.process "sh -c 'touch $MARKER'"
        git config filter.evil.required true
        git config merge.evil.driver "touch '$MARKER'; false"
        git config diff.evil.textconv "touch '$MARKER'; cat"
        git config diff.external "touch '$MARKER'"
        git config core.fsmonitor "touch '$MARKER'"
        git config core.pager "touch '$MARKER'"
        git config credential.helper "!touch '$MARKER'"
        printf '[filter "more"]\\n\\tclean = touch %s; cat\\n' "$MARKER" > "$VICTIM/included.cfg"
        git config include.path "$VICTIM/included.cfg"
        printf '* filter=evil merge=evil diff=evil\\n*.md filter=more\\n' > .gitattributes
        printf '* filter=evil merge=evil diff=evil\\n' > "$(git rev-parse --git-common-dir)/info/attributes"
        echo "$ORCHESTRATE_ITEM_ID was here" >> shared.txt
        echo "$ORCHESTRATE_ITEM_ID" > "$ORCHESTRATE_ITEM_ID.md"
        sleep 1
        exit 0
        """, "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n", 0, 2);
    mkdirs(repo.dir.resolve(".git/info"));

    Launcher.Result r = run();

    assertFalse(Files.exists(marker), "a command the agent planted ran inside orchestrate's git: " + r.err());
    String status = status();
    assertTrue(status.contains("\"done\""), status);
    // Whichever lands second conflicts with the first in shared.txt (the two run side by side,
    // so either may land first): the planted merge driver is not used, git reports the conflict
    assertTrue(status.contains("conflicts in shared.txt"), status);
    String landed = Files.readString(repo.dir.resolve("shared.txt"));
    assertTrue(landed.equals("A was here\n") || landed.equals("B was here\n"), landed);
  }

  private static void mkdirs(Path p) throws IOException {
    Files.createDirectories(p);
  }

  @Test
  void an_agent_that_commits_on_the_base_branch_is_blocked_and_the_branch_is_put_back() throws Exception {
    project("""
        git switch -q --ignore-other-worktrees main
        echo "mine now" > agent.txt
        git rm -q src/app.txt
        git add -A && git -c user.name=a -c user.email=a@b commit -qm "agent on main"
        exit 0
        """, "items:\n  - {id: A, title: a}\n", 0);
    String main = repo.head("main");
    Map<String, String> before = files(repo.dir);

    Launcher.Result r = run();

    assertEquals(main, repo.head("main"), "main is back where it was");
    assertCheckoutIntact(before);
    assertEquals(1, r.exitCode(), r.err());
    String status = status();
    assertTrue(status.contains("moved the base branch main"), status);
    assertTrue(status.contains("put it back"), status);
    assertTrue(status.contains("orchestrate blocked it after phase"), "orchestrate's decision, named: " + status);
    assertFalse(status.contains("agent reported blocked"), "the agent never said so: " + status);
  }

  @Test
  void an_agent_that_moves_the_base_branch_with_update_ref_is_blocked_and_the_branch_is_put_back() throws Exception {
    project("""
        echo "sneaky" > agent.txt
        git add -A && git -c user.name=a -c user.email=a@b commit -qm "agent work"
        git update-ref refs/heads/main HEAD
        exit 0
        """, "items:\n  - {id: A, title: a}\n  - {id: B, title: b, depends_on: [A]}\n", 0);
    String main = repo.head("main");
    Map<String, String> before = files(repo.dir);

    Launcher.Result r = run();

    assertEquals(main, repo.head("main"));
    assertCheckoutIntact(before);
    assertEquals(1, r.exitCode(), r.err());
    assertTrue(status().contains("moved the base branch main"));
  }

  @Test
  void a_commit_of_the_base_branch_by_the_user_during_the_run_is_kept() throws Exception {
    project("""
        if [ "$ORCHESTRATE_ITEM_ID" = A ]; then
          (cd "$CHECKOUT" && echo "the user's commit" > user.txt && git add user.txt \\
            && git -c user.name=u -c user.email=u@b commit -qm "user meanwhile")
        fi
        echo "$ORCHESTRATE_ITEM_ID" > "$ORCHESTRATE_ITEM_ID.txt"
        exit 0
        """, "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n", 0);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.err());
    assertTrue(repo.subjects("main").contains("user meanwhile"), repo.subjects("main").toString());
    assertEquals("", repo.git("status", "--porcelain"));
    assertTrue(Files.exists(repo.dir.resolve("A.txt")) && Files.exists(repo.dir.resolve("B.txt")));
  }

  @Test
  void a_backlog_directory_committed_as_a_link_never_becomes_the_next_agents_working_directory() throws Exception {
    repo.write("tools/keep.txt", "tools\n");
    Path cwds = dir.resolve("cwds.txt");
    Files.writeString(dir.resolve("agent.sh"), "");
    String agent = """
        pwd -P >> '%s'
        if [ "$ORCHESTRATE_PHASE" = build ]; then
          cd .. && rm -rf tools && ln -s "$VICTIM" tools
        fi
        exit 0
        """.formatted(cwds);
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, "#!/usr/bin/env bash\nVICTIM='" + victim + "'\n" + agent);
    repo.write("tools/orchestrate.yaml", """
        agent: {command: ["bash", "%s"], timeout: 60s}
        execution: {workspace: worktree, max_retries: 1}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """.formatted(script));
    repo.write("tools/backlog.yaml", "items:\n  - {id: A, title: a}\n");
    repo.commitAll("project in tools/");

    Launcher.Result r = Launcher.run(repo.dir.resolve("tools"), "run", "--no-live");

    assertVictimIntact();
    for (String cwd : Files.readAllLines(cwds)) {
      assertTrue(cwd.contains("/.orchestrate/worktrees/A"), "an agent ran outside its worktree: " + cwd);
    }
    assertEquals(1, r.exitCode(), r.err());
    Launcher.Result status = Launcher.run(repo.dir.resolve("tools"), "status", "--json");
    assertTrue(status.out().contains("replaced the backlog's directory tools with a symbolic link"), status.out());
    assertFalse(repo.git("ls-tree", "-r", "orchestrate/A").contains("120000"), "no link was committed");
  }

  @Test
  void stale_locks_in_the_items_own_git_state_are_removed_and_the_item_lands() throws Exception {
    project("""
        echo work > work.txt
        touch "$(git rev-parse --git-dir)/index.lock" "$(git rev-parse --git-dir)/HEAD.lock"
        mkdir -p "$(git rev-parse --git-common-dir)/refs/heads/orchestrate"
        touch "$(git rev-parse --git-common-dir)/refs/heads/orchestrate/$ORCHESTRATE_ITEM_ID.lock"
        exit 0
        """, "items:\n  - {id: A, title: a}\n", 0);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.err());
    assertTrue(status().contains("\"done\""));
    assertEquals("work\n", Files.readString(repo.dir.resolve("work.txt")), "integrated");
  }

  @ParameterizedTest
  @ValueSource(strings = {"index.lock", "refs/heads/main.lock"})
  void a_stale_lock_in_the_users_repository_defers_integration_with_a_note_that_names_it(String name)
      throws Exception {
    project("""
        echo work > work.txt
        touch "$(git rev-parse --git-common-dir)/%s"
        exit 0
        """.formatted(name), "items:\n  - {id: A, title: a}\n", 0);
    Map<String, String> before = files(repo.dir);

    Launcher.Result r = run();

    assertEquals(0, r.exitCode(), r.err());
    Path lock = repo.dir.resolve(".git/" + name);
    assertTrue(Files.exists(lock), "orchestrate never deletes a lock in the user's repository");
    String status = status();
    assertTrue(status.contains("lock file " + lock), status);
    assertFalse(status.contains("local changes"), status);
    assertEquals(before, files(repo.dir), "nothing half-merged into the checkout");

    Files.delete(lock);
    assertEquals(0, run().exitCode());
    assertEquals("work\n", Files.readString(repo.dir.resolve("work.txt")), "integrated once the lock is gone");
  }

  @Test
  void a_link_planted_in_the_worktree_registry_is_never_followed_by_orchestrates_prune() throws Exception {
    project("""
        ln -s "$VICTIM" "$(git rev-parse --git-common-dir)/worktrees/zz-planted"
        echo work > work.txt
        exit 1
        """, "items:\n  - {id: A, title: a}\n", 1);

    run();
    run(); // a run starts by pruning the worktree registry

    assertVictimIntact();
    assertFalse(Files.exists(repo.dir.resolve(".git/worktrees/zz-planted"), LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void a_program_named_git_on_a_relative_path_entry_is_never_run() throws Exception {
    project("echo work > work.txt\nexit 0\n", "items:\n  - {id: A, title: a}\n", 0);
    Path fake = repo.dir.resolve("bin/git");
    Files.createDirectories(fake.getParent());
    Files.writeString(fake, "#!/bin/sh\ntouch '" + marker + "'\nexit 1\n");
    fake.toFile().setExecutable(true);
    ProcessBuilder pb = Launcher.builder(repo.dir, "run", "--no-live");
    pb.environment().put("PATH", "bin:" + System.getenv("PATH"));
    Process p = pb.redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
    assertFalse(Files.exists(marker), Files.readString(dir.resolve("out.txt")));
    assertEquals(0, p.exitValue(), Files.readString(dir.resolve("out.txt")));
  }
}
