package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Branch tips read from git's files ({@link RefFiles}) are what git says, and everything the
 * files leave in doubt (packed objects, a tag, a blob, a symbolic ref, a link, a FIFO, a reftable)
 * is left to git, which {@link Git#tips} and {@link Git#commit} then ask as before; on the usual
 * path (loose refs of loose commits) no git process runs at all.
 */
class RefFilesTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path common;
  private Path calls;
  private Git git;
  private Git.Place place;

  @BeforeEach
  void setUp() throws IOException {
    repo = GitRepo.init(tmp.resolve("project"));
    common = repo.dir.resolve(".git");
    // a git that records each command, then runs the real one: what Git started is counted
    calls = tmp.resolve("calls.log");
    Path recorder = tmp.resolve("git");
    Files.writeString(recorder, "#!/bin/sh\necho \"$*\" >> '" + calls + "'\nexec '"
        + Git.resolve("git", System.getenv("PATH")) + "' \"$@\"\n");
    Files.setPosixFilePermissions(recorder, PosixFilePermissions.fromString("rwx------"));
    git = new Git(recorder.toString(), Git.DEFAULT_TIMEOUT);
    place = new Git.Place(repo.dir, common, common, repo.dir);
  }

  private List<String> commands() throws IOException {
    if (!Files.exists(calls)) {
      return List.of();
    }
    // the configuration listing precedes the first command at a place: only the commands count
    return Files.readAllLines(calls).stream().filter(l -> !l.contains("--show-scope")).toList();
  }

  /** What git itself says each ref's commit is (null: none), by its own for-each-ref: one process. */
  private Map<String, String> gitSays(List<String> refs) {
    Map<String, String> says = new LinkedHashMap<>();
    refs.forEach(ref -> says.put(ref, null));
    List<String> args = new ArrayList<>(List.of("for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)",
        "--"));
    args.addAll(refs);
    for (String line : repo.git(args.toArray(String[]::new)).split("\n")) {
      String[] parts = line.split("\0", -1);
      if (parts.length == 3 && says.containsKey(parts[0]) && parts[2].equals("commit")) {
        says.put(parts[0], parts[1]);
      }
    }
    return says;
  }

  @Test
  void loose_refs_of_loose_commits_are_read_without_a_process() throws IOException {
    repo.git("branch", "feature");
    repo.write("a.txt", "a\n");
    repo.commitAll("on main");
    List<String> refs = List.of("refs/heads/main", "refs/heads/feature", "refs/heads/missing");

    assertEquals(gitSays(refs), git.tips(place, refs));
    assertEquals(repo.git("rev-parse", "main"), git.commit(place, "refs/heads/main"));
    assertEquals(new Git.Head(repo.git("rev-parse", "main"), "refs/heads/main"), git.headFromFiles(place));
    assertEquals(List.of(), commands(), "no git process for loose refs");

    Map<String, Optional<String>> read = RefFiles.tips(common, refs);
    assertEquals(Optional.empty(), read.get("refs/heads/missing"), "no such ref is an answer for exact names");
  }

  @Test
  void packed_refs_are_read_and_packed_objects_are_left_to_git() throws IOException {
    repo.git("branch", "feature");
    repo.git("pack-refs", "--all");
    assertFalse(Files.exists(common.resolve("refs/heads/feature")), "the ref is packed");
    List<String> refs = List.of("refs/heads/main", "refs/heads/feature", "refs/heads/missing");
    assertEquals(3, RefFiles.tips(common, refs).size(), "packed refs of loose commits are read");
    assertTrue(RefFiles.absent(common, "refs/heads/missing"), "in neither the loose nor the packed refs");
    assertFalse(RefFiles.absent(common, "refs/heads/feature"), "packed");
    assertEquals(gitSays(refs), git.tips(place, refs));
    assertEquals(List.of(), commands());

    repo.git("gc", "--quiet", "--prune=now"); // every object in a pack: the type is not read here
    assertEquals(Map.of("refs/heads/missing", Optional.empty()), RefFiles.tips(common, refs));
    assertEquals(gitSays(refs), git.tips(place, refs));
    assertEquals(1, commands().stream().filter(c -> c.contains("for-each-ref")).count(), "one process for all");
  }

  @Test
  void what_the_files_leave_in_doubt_is_left_to_git() throws Exception {
    String main = repo.git("rev-parse", "main");
    String blob = repo.git("hash-object", "-w", "README.md");
    repo.git("tag", "-a", "-m", "a tag", "v1");
    String tag = repo.git("rev-parse", "v1");
    Path heads = common.resolve("refs/heads");
    // an agent writes files, not only through git: a branch at a blob, at an annotated tag, one
    // symbolic, one a link, one a FIFO, one with more than an id
    Files.writeString(heads.resolve("blob"), blob + "\n");
    Files.writeString(heads.resolve("tag"), tag + "\n");
    Files.writeString(heads.resolve("symbolic"), "ref: refs/heads/main\n");
    Files.createSymbolicLink(heads.resolve("link"), heads.resolve("main"));
    Process mkfifo = new ProcessBuilder("mkfifo", heads.resolve("fifo").toString()).start();
    assertEquals(0, mkfifo.waitFor());
    Files.writeString(heads.resolve("junk"), main + " trailing\n");
    Files.writeString(heads.resolve("unterminated"), main);
    Files.writeString(common.resolve("refs/escape"), main + "\n"); // what "refs/heads/../escape" would read
    // per-worktree refs live in each worktree's own directory, not the common one read here
    Files.createDirectories(common.resolve("refs/bisect"));
    Files.writeString(common.resolve("refs/bisect/bad"), main + "\n");
    Files.createDirectories(common.resolve("refs/worktree"));
    Files.writeString(common.resolve("refs/worktree/mine"), main + "\n");
    List<String> refs = List.of("refs/heads/blob", "refs/heads/tag", "refs/heads/symbolic", "refs/heads/link",
        "refs/heads/fifo", "refs/heads/junk", "refs/heads/unterminated", "refs/heads/../escape", "refs/heads/x.lock",
        "refs/heads/x.lock/y", "refs/bisect/bad", "refs/worktree/mine",
        "HEAD", "main");

    Map<String, Optional<String>> read = assertTimeoutPreemptively(Duration.ofSeconds(20),
        () -> RefFiles.tips(common, refs));
    assertEquals(Map.of(), read, "nothing in doubt is answered from the files");
    for (String ref : refs) {
      assertFalse(RefFiles.absent(common, ref), ref + " is in doubt, not absent");
    }
    assertNull(git.commit(place, "refs/heads/blob"), "git peels a blob to no commit, as before");
    assertEquals(main, git.commit(place, "refs/heads/tag"), "git peels the tag to its commit");
    assertEquals(main, git.commit(place, "refs/heads/symbolic"));
    List<String> asked = commands();
    assertEquals(3, asked.size(), "each of the three asked git: " + asked);
  }

  /**
   * A ref file swapped for a FIFO between the look and the open (the race itself cannot be timed in
   * a test, so the open is made on the FIFO directly): the caller has its "ask git" within the
   * timeout, and the reading thread is released rather than left blocked for good.
   */
  @Test
  void a_read_blocked_on_a_fifo_gives_no_answer_in_time_and_its_thread_is_released() throws Exception {
    Path fifo = tmp.resolve("swapped");
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
    long start = System.nanoTime();
    byte[] read = ReadsOffThread.read(() -> ReadsOffThread.opened(fifo, 66), null, Duration.ofMillis(300));
    assertNull(read);
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(3).toNanos(), "answered within the timeout");
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (ReadsOffThread.OPENING.containsValue(fifo) && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertFalse(ReadsOffThread.OPENING.containsValue(fifo), "the blocked open was released");
  }

  @Test
  void a_head_on_a_branch_is_read_and_any_other_head_is_left_to_git() throws IOException {
    repo.git("checkout", "--quiet", "--detach");
    assertNull(git.headFromFiles(place), "detached: git says");
    repo.git("checkout", "--quiet", "--orphan", "unborn");
    assertEquals("refs/heads/unborn", RefFiles.headRef(common));
    assertNull(git.headFromFiles(place), "an unborn branch names no commit");
    assertNull(RefFiles.headRef(repo.dir.resolve("no-such-git-dir")));
    Files.writeString(common.resolve("HEAD"), "ref: refs/heads/../../config\n");
    assertNull(RefFiles.headRef(common), "a name that is not plain");
    assertEquals(List.of(), commands());
  }

  /** Writes {@code content} as loose object {@code id}, as git would store an object, whatever its real hash. */
  private void plant(String id, byte[] content) throws IOException {
    Path file = common.resolve("objects").resolve(id.substring(0, 2)).resolve(id.substring(2));
    Files.createDirectories(file.getParent());
    Files.deleteIfExists(file);
    java.io.ByteArrayOutputStream deflated = new java.io.ByteArrayOutputStream();
    try (java.util.zip.DeflaterOutputStream out = new java.util.zip.DeflaterOutputStream(deflated)) {
      out.write(content);
    }
    Files.write(file, deflated.toByteArray());
  }

  /**
   * An id git would not take as the ref's commit is not taken from the files either: a commit file
   * planted under a blob's id (its bytes hash to something else), and a SHA-256 id with a real
   * SHA-256 commit object in a SHA-1 repository (git reads 40 digits there).
   */
  @Test
  void an_object_that_is_not_what_its_id_says_is_left_to_git() throws Exception {
    String tree = repo.git("rev-parse", "HEAD^{tree}");
    byte[] body = ("tree " + tree + "\nauthor a <a@x> 0 +0000\ncommitter a <a@x> 0 +0000\n\nplanted\n")
        .getBytes(StandardCharsets.UTF_8);
    byte[] commit = concat(("commit " + body.length + "\0").getBytes(StandardCharsets.UTF_8), body);
    String blob = repo.git("hash-object", "-w", "README.md");
    plant(blob, commit);
    String sha256 = java.util.HexFormat.of()
        .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(commit));
    plant(sha256, commit);
    String sha1 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(commit));
    plant(sha1, commit);
    Path heads = common.resolve("refs/heads");
    Files.writeString(heads.resolve("planted"), blob + "\n");
    Files.writeString(heads.resolve("long"), sha256 + "\n");
    Files.writeString(heads.resolve("genuine"), sha1 + "\n");

    Map<String, Optional<String>> read = RefFiles.tips(common,
        List.of("refs/heads/planted", "refs/heads/long", "refs/heads/genuine"));
    assertEquals(Map.of("refs/heads/genuine", Optional.of(sha1)), read, "only the object whose bytes are its id");
    assertEquals(sha1, git.commit(place, "refs/heads/genuine"));

    // bytes after the zlib stream (git: "garbage at end of loose object"); a commit header over a
    // body with no tree line, its hash right (git: "bogus commit object")
    Path genuineFile = common.resolve("objects").resolve(sha1.substring(0, 2)).resolve(sha1.substring(2));
    byte[] stored = Files.readAllBytes(genuineFile);
    Files.write(genuineFile, concat(stored, new byte[] {1, 2, 3}));
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/genuine")), "garbage after the object");
    Files.write(genuineFile, stored);
    byte[] bogusBody = "no tree here\n".getBytes(StandardCharsets.UTF_8);
    byte[] bogus = concat(("commit " + bogusBody.length + "\0").getBytes(StandardCharsets.UTF_8), bogusBody);
    String bogusId = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(bogus));
    plant(bogusId, bogus);
    Files.writeString(heads.resolve("bogus"), bogusId + "\n");
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/bogus")), "a commit git's parser refuses");

    // an object format named where git does not read it: nothing is answered from the files
    Files.writeString(common.resolve("config"), Files.readString(common.resolve("config"))
        + "[core]\n\tobjectformat = sha256\n");
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/genuine", "refs/heads/long")));
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  /** A packed-refs file git would refuse or search differently is not read: git answers. */
  @Test
  void a_packed_refs_file_not_as_git_writes_it_gives_no_answer() throws IOException {
    repo.git("branch", "a");
    repo.git("branch", "b");
    repo.git("pack-refs", "--all");
    Path packed = common.resolve("packed-refs");
    String text = Files.readString(packed);
    List<String> refs = List.of("refs/heads/a", "refs/heads/b");
    assertEquals(2, RefFiles.tips(common, refs).size(), "as git wrote it: read");
    String main = repo.git("rev-parse", "main");
    String header = text.lines().findFirst().orElseThrow();
    for (String odd : List.of(
        text.substring(header.length() + 1), // no header
        header + "\n" + main + " refs/heads/b\n" + main + " refs/heads/a\n", // unsorted
        header + "\n" + main + " refs/heads/a\n" + main + " refs/heads/a\n", // repeated
        header + "\n^" + main + "\n" + main + " refs/heads/a\n", // a peeled line after no ref
        header + "\n" + main + " refs/heads/a\n# another comment\n" + main + " refs/heads/b\n",
        header + "\n" + main + " refs/heads/a\n" + main + " refs/heads/b\n\n", // a blank line
        header + "\n" + main + " refs/heads/a\n" + "0".repeat(64) + " refs/heads/m\n" + main + " refs/heads/z\n")) {
      Files.writeString(packed, odd);
      assertEquals(Map.of(), RefFiles.tips(common, refs), odd);
    }
    Files.writeString(packed, "");
    assertEquals(Map.of("refs/heads/a", Optional.empty(), "refs/heads/b", Optional.empty()),
        RefFiles.tips(common, refs), "an empty packed-refs holds no ref");
  }

  /**
   * Reads still stuck past their wait (a FIFO an agent renamed away before its release) are
   * bounded: at {@link ReadsOffThread#MAX_STUCK} nothing more is read from the files until one ends.
   */
  @Test
  void reads_stuck_past_their_wait_stop_further_reads_until_they_end() throws InterruptedException {
    java.util.concurrent.atomic.AtomicBoolean go = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.Callable<String> stuck = () -> {
      while (!go.get()) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // deaf to the interrupt, as an open is
      }
      return "late";
    };
    try {
      for (int i = 0; i < ReadsOffThread.MAX_STUCK; i++) {
        assertEquals("unknown", ReadsOffThread.read(stuck, "unknown", Duration.ofMillis(50)));
      }
      java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
      assertEquals("unknown", ReadsOffThread.read(() -> {
        ran.set(true);
        return "read";
      }, "unknown", Duration.ofSeconds(5)));
      assertFalse(ran.get(), "not read while " + ReadsOffThread.MAX_STUCK + " reads are stuck");
    } finally {
      go.set(true);
    }
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (ReadsOffThread.STUCK.get() > 0 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertEquals("read", ReadsOffThread.read(() -> "read", "unknown", Duration.ofSeconds(5)),
        "read again once they ended");
  }

  @Test
  void a_walk_is_no_answer_where_grafts_a_shallow_file_alternates_replace_refs_or_a_commit_graph_give_the_parents()
      throws IOException {
    String first = repo.git("rev-parse", "HEAD");
    repo.git("commit", "--quiet", "--allow-empty", "-m", "second");
    String second = repo.git("rev-parse", "HEAD");
    assertTrue(RefFiles.ancestors(common, second, 8).contains(first));
    Files.createDirectories(common.resolve("info"));
    Files.writeString(common.resolve("info/grafts"), second + "\n");
    assertFalse(RefFiles.ancestors(common, second, 8).contains(first), "grafts: git's parents are not the object's");
    Files.delete(common.resolve("info/grafts"));
    Files.writeString(common.resolve("shallow"), first + "\n");
    assertFalse(RefFiles.ancestors(common, second, 8).contains(first));
    Files.delete(common.resolve("shallow"));
    Files.createDirectories(common.resolve("objects/info"));
    Files.writeString(common.resolve("objects/info/alternates"), tmp.resolve("elsewhere") + "\n");
    assertFalse(RefFiles.ancestors(common, second, 8).contains(first), "alternates: their graphs count too");
    Files.delete(common.resolve("objects/info/alternates"));
    repo.git("replace", "--graft", second); // second, as git sees it, has no parent
    assertFalse(RefFiles.ancestors(common, second, 8).contains(first), "a replace ref: git reads the replacement");
    repo.git("pack-refs", "--all");
    assertFalse(Files.exists(common.resolve("refs/replace/" + second)));
    assertFalse(RefFiles.ancestors(common, second, 8).contains(first), "a packed replace ref too");
    repo.git("replace", "-d", second);
    repo.git("pack-refs", "--all");
    DiskUsage.delete(common.resolve("refs/replace"));
    assertTrue(RefFiles.ancestors(common, second, 8).contains(first), "no replace ref left");
    repo.git("commit-graph", "write", "--reachable");
    assertFalse(RefFiles.ancestors(common, second, 8).contains(first),
        "a commit-graph lists it: git takes its parents from the graph");
    assertNull(RefFiles.parents(common, second));
  }

  /**
   * A commit no commit-graph lists (one made since the graph was written, as a landing's are) has
   * its parents from its object, as git reads them; one a graph lists, or any commit when a graph
   * is not as git's format says, is left to git. Single graphs and split chains alike.
   */
  @Test
  void a_commit_no_graph_lists_has_its_parents_from_its_object_one_a_graph_lists_is_left_to_git() throws Exception {
    String first = repo.git("rev-parse", "HEAD");
    repo.git("commit", "--quiet", "--allow-empty", "-m", "second");
    String second = repo.git("rev-parse", "HEAD");
    repo.git("commit-graph", "write", "--reachable");
    repo.git("commit", "--quiet", "--allow-empty", "-m", "third");
    String third = repo.git("rev-parse", "HEAD");
    assertEquals(List.of(second), RefFiles.parents(common, third), "made since the graph: its object says");
    assertNull(RefFiles.parents(common, second), "in the graph: git says");
    Set<String> reached = RefFiles.ancestors(common, third, 8);
    assertTrue(reached.contains(second));
    assertFalse(reached.contains(first), "the walk stops at a commit the graph lists");

    for (int i = 0; i < 40; i++) { // enough ids for every fanout slot's neighbours to be searched
      repo.git("commit", "--quiet", "--allow-empty", "-m", "more " + i);
    }
    repo.git("commit-graph", "write", "--reachable", "--split");
    Path single = common.resolve("objects/info/commit-graph");
    assertFalse(Files.exists(single), "a split graph replaces the single one");
    repo.git("commit", "--quiet", "--allow-empty", "-m", "after the chain");
    String after = repo.git("rev-parse", "HEAD");
    String listed = repo.git("rev-parse", "HEAD~1");
    assertEquals(List.of(listed), RefFiles.parents(common, after));
    assertNull(RefFiles.parents(common, listed), "in the chain's graph");
    for (String line : repo.git("rev-list", "HEAD~1").split("\n")) {
      assertNull(RefFiles.parents(common, line), "every commit the chain lists: " + line);
    }

    Path chain = common.resolve("objects/info/commit-graphs/commit-graph-chain");
    Files.writeString(chain, "not a hash\n");
    assertNull(RefFiles.parents(common, after), "a chain not as git writes it: git says");
    Files.delete(chain);
    assertNull(RefFiles.parents(common, after), "graphs without their chain: git says");
    DiskUsage.delete(common.resolve("objects/info/commit-graphs"));
    assertEquals(List.of(listed), RefFiles.parents(common, after), "no graph at all");
    Files.write(single, new byte[] {'C', 'G', 'P', 'H', 1, 1, 3, 0, 0});
    assertNull(RefFiles.parents(common, after), "a graph cut short: git says");
    Files.delete(single);
    Files.createSymbolicLink(single, tmp.resolve("nowhere"));
    assertNull(RefFiles.parents(common, after), "a link: git says");
  }

  @Test
  void a_reftable_repository_is_left_to_git_entirely() throws IOException {
    Files.createDirectories(common.resolve("reftable"));
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/main", "refs/heads/missing")));
  }

  @Test
  void a_packed_refs_file_too_large_or_not_as_git_writes_it_is_left_to_git() throws IOException {
    repo.git("branch", "feature");
    repo.git("pack-refs", "--all");
    Path packed = common.resolve("packed-refs");
    String text = Files.readString(packed);
    Files.writeString(packed, text.substring(0, text.length() - 1)); // cut: no final newline
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/feature")));
    Files.writeString(packed, text + "not a ref line\n");
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/feature")));
    StringBuilder big = new StringBuilder(text);
    while (big.length() <= RefFiles.PACKED_REFS_MAX_BYTES) {
      big.append("0".repeat(40)).append(" refs/tags/t").append(big.length()).append('\n');
    }
    Files.writeString(packed, big);
    assertEquals(Map.of(), RefFiles.tips(common, List.of("refs/heads/feature")));
    assertEquals(gitSays(List.of("refs/heads/feature")), git.tips(place, List.of("refs/heads/feature")));
  }

  /** Random histories of branches made, moved, packed and deleted: the files say what git says, or nothing. */
  @Test
  void over_many_changes_the_files_agree_with_git() throws IOException {
    Random random = new Random(46);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      names.add("refs/heads/b" + i);
    }
    names.add("refs/heads/dir/leaf");
    List<String> queried = new ArrayList<>(names);
    queried.add("refs/heads/dir"); // never written: a directory of refs, no ref
    int answered = 0;
    for (int round = 0; round < 40; round++) {
      String name = names.get(random.nextInt(names.size())).substring("refs/heads/".length());
      switch (random.nextInt(5)) {
        case 0 -> {
          repo.write("f" + round + ".txt", round + "\n");
          repo.commitAll("round " + round);
        }
        case 1 -> repo.git("update-ref", "refs/heads/" + name, "HEAD");
        case 2 -> repo.git("update-ref", "-d", "refs/heads/" + name);
        case 3 -> repo.git("pack-refs", "--all");
        default -> repo.git("update-ref", "refs/heads/" + name, "HEAD~" + Math.min(round, 1));
      }
      Map<String, Optional<String>> read = RefFiles.tips(common, queried);
      Map<String, String> says = gitSays(queried);
      for (Map.Entry<String, Optional<String>> e : read.entrySet()) {
        assertEquals(says.get(e.getKey()), e.getValue().orElse(null), e.getKey() + " in round " + round);
        answered++;
      }
      assertEquals(says, git.tips(place, queried), "round " + round);
    }
    assertTrue(answered > 40 * queried.size() / 2, "most answers came from the files: " + answered);
  }

  @Test
  void a_walk_by_parents_finds_an_ancestor_in_loose_commits_and_nothing_else() throws IOException {
    String first = repo.git("rev-parse", "HEAD");
    List<String> chain = new ArrayList<>(List.of(first));
    for (int i = 0; i < 24; i++) {
      repo.git("commit", "--quiet", "--allow-empty", "-m", "commit " + i);
      chain.add(repo.git("rev-parse", "HEAD"));
    }
    String tip = chain.get(chain.size() - 1);
    assertEquals(List.of(chain.get(23)), RefFiles.parents(common, tip));
    assertEquals(List.of(), RefFiles.parents(common, first), "a root commit");
    assertTrue(RefFiles.ancestors(common, tip, 16).contains(chain.get(10)));
    assertFalse(RefFiles.ancestors(common, tip, 16).contains(first), "further back than the limit: no answer");
    assertTrue(RefFiles.ancestors(common, tip, 64).contains(first));
    assertFalse(RefFiles.ancestors(common, chain.get(10), 64).contains(tip), "a descendant is not an ancestor");
    assertFalse(RefFiles.ancestors(common, tip, 64).contains(repo.git("hash-object", "-w", "README.md")));

    // a merge: both parents, in order, and the walk goes through either
    repo.git("checkout", "--quiet", "-b", "side", chain.get(5));
    repo.write("side.txt", "side\n");
    repo.commitAll("on the side");
    String side = repo.git("rev-parse", "HEAD");
    repo.git("checkout", "--quiet", "main");
    repo.git("merge", "--quiet", "--no-ff", "-m", "merge side", "side");
    String merge = repo.git("rev-parse", "HEAD");
    assertEquals(List.of(tip, side), RefFiles.parents(common, merge));
    assertTrue(RefFiles.ancestors(common, merge, 64).contains(side));
    assertTrue(RefFiles.ancestors(common, merge, 64).contains(chain.get(20)));

    // the same commits packed: nothing is read, no answer
    repo.git("gc", "--quiet", "--prune=now");
    assertNull(RefFiles.parents(common, merge));
    assertFalse(RefFiles.ancestors(common, merge, 64).contains(side));
    // a loose object that is no commit, or an id that is not one
    assertNull(RefFiles.parents(common, repo.git("hash-object", "-w", "side.txt")));
    assertNull(RefFiles.parents(common, "../../config"));
  }

  @Test
  void a_sha256_repository_reads_as_well() throws IOException {
    GitRepo sha = GitRepo.at(tmp.resolve("sha256"));
    Files.createDirectories(sha.dir);
    sha.git("init", "--quiet", "--initial-branch=main", "--object-format=sha256");
    sha.write("a.txt", "a\n");
    sha.commitAll("first");
    String tip = sha.git("rev-parse", "main");
    assertEquals(64, tip.length());
    assertEquals(Map.of("refs/heads/main", Optional.of(tip)),
        RefFiles.tips(sha.dir.resolve(".git"), List.of("refs/heads/main")));
    assertEquals("refs/heads/main", RefFiles.headRef(sha.dir.resolve(".git")));
    assertTrue(new String(Files.readAllBytes(sha.dir.resolve(".git/HEAD")), StandardCharsets.UTF_8)
        .startsWith("ref: "));
  }
}
