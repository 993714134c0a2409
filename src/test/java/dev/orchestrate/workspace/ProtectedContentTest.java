package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.ProtectedFilesCommitted;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gate's script rewritten behind an index the agent wrote is caught all the same: in the worktree
 * by its bytes ({@link ProtectedContent}), in the phase commit by its tree
 * ({@link StagedFiles#committedAmong}). git status trusts the index's stat data, and git commit the
 * index's cache of trees; an agent can write both.
 */
class ProtectedContentTest {
  private static final String GATE = "#!/bin/sh\ntest -f ok.txt\n";

  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorktreeSite w;
  private Path ws;
  private Path index;

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    repo.write("gates/check.sh", GATE);
    repo.write("fixtures/expected.txt", "expected\n");
    repo.commitAll("the gate");
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    w = WorktreeSite.open(repo.dir, repo.dir.resolve(".orchestrate"),
        ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
        RetentionConfig.WorktreePolicy.DEFAULT, state.workspaces(),
        Clock.fixed(Instant.parse("2026-11-01T00:00:00Z"), ZoneOffset.UTC), new Git());
    ws = w.prepare("A", repo.dir).workspace();
    Path named = Path.of(repo.git(ws, "rev-parse", "--git-path", "index"));
    index = named.isAbsolute() ? named : ws.resolve(named);
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private List<String> changed() {
    return w.worktrees.changedAmong("A", List.of("gates/check.sh"), List.of("fixtures/"));
  }

  /**
   * The rewrite staged, then the index entry given the original blob id back while keeping the
   * rewritten file's stat data: `git status` reports nothing, the bytes do.
   */
  @Test
  void a_rewrite_behind_an_entry_with_its_stat_data_and_the_old_blob_is_caught_in_the_worktree() throws Exception {
    String original = repo.git(ws, "rev-parse", "HEAD:gates/check.sh");
    GitRepo.write(ws, "gates/check.sh", "#!/bin/sh\nexit 0\n");
    // older than the index git writes next, so that git does not look again at a racily clean file
    Files.setLastModifiedTime(ws.resolve("gates/check.sh"), FileTime.fromMillis(1_700_000_000_000L));
    repo.git(ws, "add", "gates/check.sh");
    setBlob("gates/check.sh", original);
    assertEquals("", repo.git(ws, "status", "--porcelain", "--", "gates/"), "git is fooled");
    assertEquals(List.of("gates/check.sh"), changed());
  }

  /**
   * The rewrite staged and written as a tree (the index's cache of trees then holds it), the
   * original file put back, and the entry given the original blob and that file's stat data: the
   * worktree and `git status` look untouched, and `git commit` builds its tree from the cache,
   * with the rewrite. The commit is undone and refused.
   */
  @Test
  void a_rewrite_kept_in_the_index_cache_of_trees_is_caught_in_the_phase_commit() throws Exception {
    String original = repo.git(ws, "rev-parse", "HEAD:gates/check.sh");
    String head = repo.git(ws, "rev-parse", "HEAD");
    GitRepo.write(ws, "gates/check.sh", "#!/bin/sh\nexit 0\n");
    repo.git(ws, "add", "gates/check.sh");
    repo.git(ws, "write-tree");
    GitRepo.write(ws, "gates/check.sh", GATE);
    Files.setLastModifiedTime(ws.resolve("gates/check.sh"), FileTime.fromMillis(1_700_000_000_000L));
    setBlob("gates/check.sh", original);
    setStat("gates/check.sh");
    GitRepo.write(ws, "ok.txt", "ok\n");
    assertEquals("?? ok.txt", repo.git(ws, "status", "--porcelain"), "git sees the new file only");
    assertEquals(List.of(), changed(), "the worktree holds the original");

    ProtectedFilesCommitted refused = assertThrows(ProtectedFilesCommitted.class,
        () -> w.commit("A", "build", 1, 1, "built"));
    assertEquals(List.of("gates/check.sh"), refused.paths());
    assertEquals(head, repo.git(ws, "rev-parse", "HEAD"), "the commit is undone");
    assertEquals(GATE, repo.git("show", "orchestrate/A:gates/check.sh") + "\n");
  }

  /**
   * The rewrite made to read as the original through a replace ref of the commit's tree, switched
   * on in the repository's configuration (which wins over GIT_NO_REPLACE_OBJECTS): orchestrate's
   * git reads no replace ref, and the rewrite is caught.
   */
  @Test
  void a_rewrite_dressed_as_the_commit_by_a_replace_ref_is_caught() throws Exception {
    GitRepo.write(ws, "gates/check.sh", "#!/bin/sh\nexit 0\n");
    List<String> plainGit = List.of("git", "-C", ws.toString());
    run(plainGit, "add", "-A");
    String tree = run(plainGit, "write-tree");
    run(plainGit, "replace", "-f", run(plainGit, "rev-parse", "HEAD^{tree}"), tree);
    run(plainGit, "config", "core.useReplaceRefs", "true");
    run(plainGit, "reset", "--quiet");
    assertEquals("", run(plainGit, "status", "--porcelain"), "a git that reads replace refs is fooled");
    assertEquals(List.of("gates/check.sh"), changed());
  }

  /** {@code base} and {@code args}, run as the agent would run them (its own environment, no options of ours); stdout. */
  private static String run(List<String> base, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(base);
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertEquals(0, process.waitFor(), command + ": " + out);
    return out;
  }

  /**
   * The gate's directory replaced by a link to one holding the original script (the agent's copy
   * elsewhere, where the gate's command could reach it): no link is followed, the file counts as
   * changed.
   */
  @Test
  void a_gate_directory_replaced_by_a_link_counts_as_changed() throws Exception {
    Path elsewhere = tmp.resolve("elsewhere/gates");
    Files.createDirectories(elsewhere);
    Files.writeString(elsewhere.resolve("check.sh"), GATE);
    Files.delete(ws.resolve("gates/check.sh"));
    Files.delete(ws.resolve("gates"));
    Files.createSymbolicLink(ws.resolve("gates"), elsewhere);
    assertEquals(List.of("gates/check.sh"), changed());
  }

  /** Without a check before it (a phase with changes_gates: true), the commit is not looked at. */
  @Test
  void a_commit_without_the_check_before_it_is_not_looked_at() throws Exception {
    GitRepo.write(ws, "gates/check.sh", "#!/bin/sh\nexit 0\n");
    String commit = w.commit("A", "gates", 1, 1, "improved the gate");
    assertEquals("#!/bin/sh\nexit 0", repo.git("show", commit + ":gates/check.sh"));
  }

  /** An honest attempt: nothing protected changed, nothing found, and its commit stands. */
  @Test
  void an_attempt_that_left_them_alone_commits() throws Exception {
    GitRepo.write(ws, "ok.txt", "ok\n");
    assertEquals(List.of(), changed());
    String commit = w.commit("A", "build", 1, 1, "built");
    assertEquals("ok", repo.git("show", commit + ":ok.txt"));
  }

  /** The index entry of {@code path}: its offset in the index file (versions 2 and 3, SHA-1). */
  private int entry(byte[] bytes, String path) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    int at = 12;
    for (int i = 0; i < in.getInt(8); i++) {
      int flags = Short.toUnsignedInt(in.getShort(at + 60));
      int name = at + 62 + ((flags & 0x4000) != 0 ? 2 : 0);
      String found = new String(bytes, name, flags & 0xFFF, StandardCharsets.UTF_8);
      if (found.equals(path)) {
        return at;
      }
      at += ((name + (flags & 0xFFF) - at) + 8) & ~7;
    }
    throw new AssertionError(path + " is not in the index");
  }

  private void setBlob(String path, String blob) throws Exception {
    byte[] bytes = Files.readAllBytes(index);
    System.arraycopy(HexFormat.of().parseHex(blob), 0, bytes, entry(bytes, path) + 40, 20);
    Files.write(index, bytes); // its trailer no longer matches: git does not check it when it reads
  }

  /** Gives the entry of {@code path} the stat data of the file the worktree has there now. */
  private void setStat(String path) throws Exception {
    Map<String, Object> stat = Files.readAttributes(ws.resolve(path), "unix:*", LinkOption.NOFOLLOW_LINKS);
    byte[] bytes = Files.readAllBytes(index);
    ByteBuffer out = ByteBuffer.wrap(bytes);
    int at = entry(bytes, path);
    FileTime ctime = (FileTime) stat.get("ctime");
    FileTime mtime = (FileTime) stat.get("lastModifiedTime");
    out.putInt(at, (int) ctime.to(java.util.concurrent.TimeUnit.SECONDS));
    out.putInt(at + 4, (int) (ctime.to(java.util.concurrent.TimeUnit.NANOSECONDS) % 1_000_000_000L));
    out.putInt(at + 8, (int) mtime.to(java.util.concurrent.TimeUnit.SECONDS));
    out.putInt(at + 12, (int) (mtime.to(java.util.concurrent.TimeUnit.NANOSECONDS) % 1_000_000_000L));
    out.putInt(at + 16, (int) (long) (Long) stat.get("dev"));
    out.putInt(at + 20, (int) (long) (Long) stat.get("ino"));
    out.putInt(at + 28, (Integer) stat.get("uid"));
    out.putInt(at + 32, (Integer) stat.get("gid"));
    out.putInt(at + 36, (int) (long) (Long) stat.get("size"));
    Files.write(index, bytes);
  }
}
