package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.ConfigWithers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared remote of several clones and the identity of a checkout, on real repositories. */
class SharedRemoteTest {
  @TempDir
  Path dir;

  private GitRepo withOrigin() {
    GitRepo repo = GitRepo.init(dir.resolve("mine"));
    repo.addBareOrigin(dir.resolve("origin.git"));
    return repo;
  }

  private static Repository repository(GitRepo repo) {
    return Repository.discover(new Git(), repo.dir, "main");
  }

  /** What {@code ref} is on origin; "" when origin has no such ref. */
  private String onOrigin(GitRepo repo, String ref) {
    return repo.git(dir, "--git-dir=" + dir.resolve("origin.git"), "for-each-ref", "--format=%(objectname)", ref);
  }

  /** A clone whose config lands on its origin ({@code landing: remote}), main pushed there. */
  private GitRepo landingOnOrigin() {
    GitRepo mine = withOrigin();
    mine.write("orchestrate.yaml", "execution: {workspace: worktree, landing: remote}\n");
    mine.commitAll("config");
    mine.git("push", "--quiet", "origin", "main");
    return mine;
  }

  /** The worktrees of {@code mine} with a shared remote, their state in {@code store}. */
  private static Worktrees remoteWorktrees(GitRepo mine, dev.orchestrate.state.StateStore store) {
    return new Worktrees(new Git(), repository(mine),
        ConfigWithers
            .withMode(dev.orchestrate.config.WorkspaceConfig.defaults(),
                dev.orchestrate.config.WorkspaceConfig.Mode.WORKTREE)
            .withLandOn(dev.orchestrate.config.WorkspaceConfig.LandOn.REMOTE),
        dev.orchestrate.config.RetentionConfig.WorktreePolicy.DEFAULT,
        store.workspaces(), mine.dir.resolve(".orchestrate").resolve("worktrees"), java.time.Clock.systemUTC()).open();
  }

  @Test
  void a_phase_commit_is_published_under_refs_orchestrate_and_fetched_by_another_clone() {
    GitRepo mine = withOrigin();
    SharedRemote remote = SharedRemote.pin(new Git(), repository(mine), "origin");
    mine.write("a.txt", "one\n");
    mine.commitAll("A design");
    String first = mine.head("HEAD");
    remote.publish("A", first, null);
    assertEquals(first, onOrigin(mine, "refs/orchestrate/A"));
    assertEquals(first, mine.head(SharedRemote.itemRef("A")), "this clone keeps what it published");

    mine.write("a.txt", "two\n");
    mine.commitAll("A build");
    String second = mine.head("HEAD");
    remote.publish("A", second, "0".repeat(40).replace('0', 'f')); // a lease that is wrong: read, then pushed over
    assertEquals(second, onOrigin(mine, "refs/orchestrate/A"));

    GitRepo other = GitRepo.at(dir.resolve("other"));
    other.git(dir, "clone", "--quiet", "--no-local", "-b", "main", dir.resolve("origin.git").toString(),
        other.dir.toString());
    SharedRemote theirs = SharedRemote.pin(new Git(), repository(other), "origin");
    assertFalse(theirs.has(second));
    assertEquals(second, theirs.fetchItem("A"));
    assertTrue(theirs.has(second));
    assertNull(theirs.fetchItem("NOPE"), "no such ref on the remote");
    assertNull(new Git().commit(Repository.discover(new Git(), other.dir, "main").checkout(), "refs/orchestrate/A"),
        "a fetch leaves refs/orchestrate/<ID> to what this clone published itself");

    theirs.drop("A");
    assertEquals("", onOrigin(mine, "refs/orchestrate/A"));
    assertEquals("", other.git("for-each-ref", "refs/orchestrate-remote/"), "what it fetched is deleted with it");
  }

  /** A git that records each command it is asked for in {@code calls}, then runs the real one. */
  private Git recording(Path calls) throws Exception {
    Path recorder = dir.resolve("recording-git");
    Files.writeString(recorder, "#!/bin/sh\necho \"$*\" >> '" + calls + "'\nexec '"
        + Git.resolve("git", System.getenv("PATH")) + "' \"$@\"\n");
    Files.setPosixFilePermissions(recorder, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    // an hour ahead: the files written just now are not too recent for a listing to be kept
    return new Git(recorder.toString(), Git.DEFAULT_TIMEOUT,
        java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(1)));
  }

  private static long lines(Path calls, String containing) throws Exception {
    return Files.exists(calls) ? Files.readAllLines(calls).stream().filter(l -> l.contains(containing)).count() : 0;
  }

  @Test
  void the_steering_check_before_each_push_starts_no_git_of_its_own_and_sees_only_what_steers()
      throws Exception {
    GitRepo mine = withOrigin();
    Path calls = dir.resolve("calls.log");
    Git git = recording(calls);
    SharedRemote remote = SharedRemote.pin(git, Repository.discover(git, mine.dir, "main"), "origin");
    String previous = null;
    for (int i = 0; i < 3; i++) {
      mine.write("a.txt", i + "\n");
      mine.commitAll("A " + i);
      remote.publish("A", mine.head("HEAD"), previous);
      previous = mine.head("HEAD");
    }
    assertEquals(previous, onOrigin(mine, "refs/orchestrate/A"));
    assertEquals(3, lines(calls, "push --porcelain"));
    assertEquals(0, lines(calls, "--get-regexp"),
        "the url.*, http.* and remote.origin.* settings come from the configuration check's listing");

    // what does not steer a push to origin changes nothing: another remote, the author
    mine.git("remote", "add", "other", dir.resolve("elsewhere.git").toString());
    mine.git("config", "user.name", "Someone Else");
    mine.write("a.txt", "more\n");
    mine.commitAll("A more");
    remote.publish("A", mine.head("HEAD"), previous);
    assertEquals(mine.head("HEAD"), onOrigin(mine, "refs/orchestrate/A"));

    // a drop of an item whose work was never fetched here deletes no copy of it that is not there
    remote.drop("A");
    assertEquals("", onOrigin(mine, "refs/orchestrate/A"));
    assertEquals(1, lines(calls, "update-ref -d refs/orchestrate/A"));
    assertEquals(0, lines(calls, "update-ref -d refs/orchestrate-remote/A"));

    // a key of http.* given no value (true) where it had an empty one is a change
    mine.git("config", "http.sslVerify", "");
    SharedRemote pinned = SharedRemote.pin(git, Repository.discover(git, mine.dir, "main"), "origin");
    Path config = mine.dir.resolve(".git").resolve("config");
    Files.writeString(config, Files.readString(config).replace("sslverify = \n", "sslverify\n")
        .replace("sslVerify = \n", "sslVerify\n"));
    assertTrue(Files.readString(config).lines().anyMatch(l -> l.strip().equalsIgnoreCase("sslverify")),
        Files.readString(config));
    GitException refused = assertThrows(GitException.class, () -> pinned.publish("A", mine.head("HEAD"), null));
    assertTrue(refused.getMessage().contains("configuration changed since the run started"), refused.getMessage());
    assertEquals(0, lines(calls, "--get-regexp"));
  }

  @Test
  void a_listing_that_failed_without_a_word_gives_no_steering_entries_and_git_is_asked() throws Exception {
    GitRepo mine = withOrigin();
    Path failing = dir.resolve("listing-fails");
    Path script = dir.resolve("silent-git");
    // the configuration listing exits 1 with nothing on stderr while the marker is there
    Files.writeString(script, "#!/bin/sh\ncase \"$*\" in *--show-scope*) [ -e '" + failing
        + "' ] && exit 1;; esac\nexec '" + Git.resolve("git", System.getenv("PATH")) + "' \"$@\"\n");
    Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    java.util.concurrent.atomic.AtomicReference<java.time.Instant> now = new java.util.concurrent.atomic.AtomicReference<>(
        java.time.Instant.now().plus(java.time.Duration.ofHours(1)));
    java.time.Clock clock = new java.time.Clock() {
      @Override
      public java.time.ZoneId getZone() {
        return java.time.ZoneOffset.UTC;
      }

      @Override
      public java.time.Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public java.time.Instant instant() {
        return now.get();
      }
    };
    Git git = new Git(script.toString(), Git.DEFAULT_TIMEOUT, clock);
    Repository repository = Repository.discover(git, mine.dir, "main");
    Files.writeString(failing, "");
    SharedRemote remote = SharedRemote.pin(git, repository, "origin");
    Files.delete(failing);
    now.set(now.get().plus(ConfigListings.MAX_AGE).plusSeconds(1)); // the next command lists afresh
    remote.publish("A", mine.head("HEAD"), null); // not refused: nothing changed
    assertEquals(mine.head("HEAD"), onOrigin(mine, "refs/orchestrate/A"));
  }

  @Test
  void a_steering_configuration_too_large_to_keep_is_read_from_git_and_still_checked() throws Exception {
    GitRepo mine = withOrigin();
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 400; i++) { // ~24,000 characters of url.* entries: over ConfigListings.STEERING_MAX_CHARS
      many.append("[url \"https://mirror-").append(i).append(".example.com/some/path/\"]\n\tinsteadOf = https://h")
          .append(i).append(".example.com/\n");
    }
    Path config = mine.dir.resolve(".git").resolve("config");
    Files.writeString(config, Files.readString(config) + many);
    Path calls = dir.resolve("calls.log");
    Git git = recording(calls);
    SharedRemote remote = SharedRemote.pin(git, Repository.discover(git, mine.dir, "main"), "origin");
    remote.publish("A", mine.head("HEAD"), null);
    assertEquals(mine.head("HEAD"), onOrigin(mine, "refs/orchestrate/A"));
    assertEquals(2, lines(calls, "--get-regexp"), "read from git at the pin and before the push");

    mine.git("config", "url.https://evil.example/.insteadOf", dir.resolve("origin.git").toString());
    GitException refused = assertThrows(GitException.class, () -> remote.drop("A"));
    assertTrue(refused.getMessage().contains("configuration changed since the run started"), refused.getMessage());
  }

  @Test
  void landing_moves_the_remote_base_only_from_the_tip_it_tested() {
    GitRepo mine = withOrigin();
    SharedRemote remote = SharedRemote.pin(new Git(), repository(mine), "origin");
    String base = remote.fetchBase("main");
    assertEquals(mine.head("main"), base);
    mine.write("b.txt", "mine\n");
    mine.commitAll("mine");
    String tip = mine.head("HEAD");

    // another runner lands first
    GitRepo other = GitRepo.at(dir.resolve("other"));
    other.git(dir, "clone", "--quiet", "--no-local", "-b", "main", dir.resolve("origin.git").toString(),
        other.dir.toString());
    other.write("c.txt", "theirs\n");
    other.git("add", "c.txt");
    other.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "theirs");
    other.git("push", "--quiet", "origin", "main");
    String theirs = other.head("HEAD");

    assertEquals(SharedRemote.Landed.MOVED, remote.land("main", base, tip));
    assertEquals(theirs, onOrigin(mine, "refs/heads/main"), "their landing stays");
    String now = remote.fetchBase("main");
    assertEquals(theirs, now);
    mine.git("rebase", "--quiet", now);
    String rebased = mine.head("HEAD");
    assertEquals(SharedRemote.Landed.DONE, remote.land("main", now, rebased));
    assertEquals(rebased, onOrigin(mine, "refs/heads/main"));
    assertEquals(rebased, mine.head("refs/remotes/origin/main"));
  }

  @Test
  void a_configuration_that_steers_pushes_changed_after_the_pin_is_refused_and_credentials_are_masked() {
    GitRepo mine = withOrigin();
    SharedRemote remote = SharedRemote.pin(new Git(), repository(mine), "origin");
    mine.git("config", "url.https://evil.example/.insteadOf", dir.resolve("origin.git").toString());
    GitException refused = assertThrows(GitException.class, () -> remote.publish("A", mine.head("HEAD"), null));
    assertTrue(refused.getMessage().contains("configuration changed since the run started"), refused.getMessage());

    mine.git("config", "--unset", "url.https://evil.example/.insteadOf");
    mine.git("remote", "add", "far", "https://user:s3cr3t@127.0.0.1:9/repo.git");
    SharedRemote far = SharedRemote.pin(new Git(), repository(mine), "far");
    assertEquals("https://***@127.0.0.1:9/repo.git", far.where());
    GitException unreachable = assertThrows(GitException.class, () -> far.publish("A", mine.head("HEAD"), null));
    assertFalse(unreachable.getMessage().contains("s3cr3t"), unreachable.getMessage());

    WorkspaceSetupException missing = assertThrows(WorkspaceSetupException.class,
        () -> SharedRemote.pin(new Git(), repository(mine), "nowhere"));
    assertTrue(missing.getMessage().contains("git remote add nowhere URL"), missing.getMessage());
  }

  @Test
  void a_checkout_keeps_one_identity_two_clones_have_two_and_runners_starting_at_once_agree() throws Exception {
    GitRepo mine = withOrigin();
    Repository repo = repository(mine);
    Checkout first = Checkout.of(repo, "host-a");
    assertEquals(first.id(), Checkout.of(repo, "host-b").id(), "the identity is the checkout's, not the host's");
    assertEquals("host-a:" + repo.top(), first.where());

    GitRepo other = GitRepo.at(dir.resolve("other"));
    other.git(dir, "clone", "--quiet", "--no-local", "-b", "main", dir.resolve("origin.git").toString(),
        other.dir.toString());
    assertNotEquals(first.id(), Checkout.of(repository(other), "host-a").id());

    Repository fresh = repository(GitRepo.init(dir.resolve("fresh")));
    Set<String> ids = ConcurrentHashMap.newKeySet();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Thread t = new Thread(() -> ids.add(Checkout.of(fresh, "h").id()));
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(1, ids.size(), "one id however many start at once: " + ids);

    Files.writeString(fresh.commonDir().resolve("orchestrate-checkout"), "not an id\n");
    WorkspaceSetupException bad = assertThrows(WorkspaceSetupException.class, () -> Checkout.of(fresh, "h"));
    assertTrue(bad.getMessage().contains("delete it"), bad.getMessage());
  }

  @Test
  void a_clean_up_removes_a_phase_commit_never_pushed_and_keeps_any_other_commit_the_remote_lacks() throws Exception {
    GitRepo mine = landingOnOrigin();
    var store = dev.orchestrate.testing.TestStores.open(mine.dir.resolve(".orchestrate"));
    Worktrees worktrees = remoteWorktrees(mine, store);
    for (String id : List.of("K", "P")) {
      // then this runner died in the next phase, after a commit it never pushed: K's by orchestrate
      // (its trailer), P's by someone (a person's fix, an agent's commit), which only this clone has
      diedAfterACommit(mine, store, worktrees, id, id.equals("K"));
    }

    List<String> lines = worktrees.cleanUp();

    assertTrue(lines.stream().anyMatch(l -> l.startsWith("K: removed this clone's worktree and branch")),
        lines.toString());
    assertEquals("", mine.git("branch", "--list", "orchestrate/K").trim());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("P: kept the worktree")), lines.toString());
    assertFalse(mine.git("branch", "--list", "orchestrate/P").isBlank(), "a commit orchestrate did not make is kept");
    store.close();
  }

  /**
   * Item {@code id} published its design phase from this clone, then this runner died after one more
   * commit there (orchestrate's phase commit when {@code orchestrates}, else a person's), and another
   * runner took the item over: the record names its clone's worktree.
   */
  private void diedAfterACommit(GitRepo mine, dev.orchestrate.state.StateStore store, Worktrees worktrees, String id,
      boolean orchestrates) throws Exception {
    Path tree = worktrees.prepare(id, mine.dir, false).workspace();
    Files.writeString(tree.resolve(id + ".txt"), "design\n");
    assertTrue(worktrees.commit(id, "design", 1, 1, "designed") != null);
    worktrees.committed(id); // published: on origin's refs/orchestrate/<ID>
    Files.writeString(tree.resolve(id + ".txt"), "design\nbuild\n");
    mine.git(tree, "add", "-A");
    mine.git(tree, "-c", "user.name=o", "-c", "user.email=o@e", "commit", "--quiet", "-m",
        orchestrates ? id + " build: phase complete\n\nOrchestrate-Job: 9\nOrchestrate-Attempt: 1" : "my fix");
    WorkspaceRecord ws = store.workspaces().workspace(id).orElseThrow();
    store.workspaces().save(new WorkspaceRecord(id, dir.resolve("theirs/" + id), ws.branch(), ws.baseBranch(),
        dir.resolve("theirs/.git/worktrees/" + id), ws.baseCommit(), ws.headCommit(), null, null, ws.integration(),
        null, 1, ws.createdAt(), null, null), java.time.Instant.now());
  }

  @Test
  void a_branch_locked_by_a_killed_git_is_kept_with_the_lock_named_and_removed_once_it_is_gone() throws Exception {
    GitRepo mine = landingOnOrigin();
    var store = dev.orchestrate.testing.TestStores.open(mine.dir.resolve(".orchestrate"));
    Worktrees worktrees = remoteWorktrees(mine, store);
    diedAfterACommit(mine, store, worktrees, "K", true);
    // the git that was moving the branch when the runner's processes were killed left its lock
    Path lock = Files.writeString(mine.dir.resolve(".git/refs/heads/orchestrate/K.lock"), "");

    List<String> lines = worktrees.cleanUp();

    String line = lines.stream().filter(l -> l.startsWith("K: ")).findFirst().orElseThrow();
    assertTrue(line.startsWith("K: could not clean up this clone's worktree and branch orchestrate/K"), line);
    assertTrue(line.contains("delete " + lock) && line.endsWith("the next run deletes the branch"), line);
    assertTrue(Files.exists(lock), "orchestrate never deletes a lock in the user's repository");
    assertFalse(mine.git("branch", "--list", "orchestrate/K").isBlank(), "the branch is kept");

    Files.delete(lock);
    List<String> again = worktrees.cleanUp();
    assertTrue(again.stream().anyMatch(l -> l.startsWith("K: removed this clone's")), again.toString());
    assertEquals("", mine.git("branch", "--list", "orchestrate/K").trim());
    store.close();
  }

  @Test
  void a_clean_up_never_deletes_through_a_branch_and_a_link_an_agent_planted() throws Exception {
    GitRepo mine = landingOnOrigin();
    Path outside = Files.createDirectories(dir.resolve("outside/victim"));
    Files.writeString(outside.resolve("keep.txt"), "the user's\n");
    var store = dev.orchestrate.testing.TestStores.open(mine.dir.resolve(".orchestrate"));
    Worktrees worktrees = remoteWorktrees(mine, store);
    // what an agent can do from its worktree: a branch with a '/' and a link beside the worktrees
    mine.git("branch", "orchestrate/a/victim", "main");
    Files.createSymbolicLink(mine.dir.resolve(".orchestrate/worktrees/a"), outside.getParent());
    List<String> lines = worktrees.cleanUp();
    assertTrue(Files.exists(outside.resolve("keep.txt")), "nothing deleted through the link: " + lines);
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("a/victim: left alone")), lines.toString());
    store.close();
  }
}
