package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a landing reads of the base and HEAD before it integrates is read from git's files only
 * where that gives exactly what {@code git log} gives (real git, real commits), and is left to
 * git's log otherwise.
 */
class HeadInFilesTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private Git.Place place;
  private final Git git = new Git();

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    repo.git("checkout", "--quiet", "-b", "orchestrate/A");
    Path common = repo.dir.resolve(".git");
    place = new Git.Place(repo.dir, common, common, repo.dir);
  }

  /** A commit on the item's branch with {@code message}, as {@code git commit -F} writes it. */
  private void commit(String message) throws Exception {
    String file = "f" + Integer.toHexString(message.hashCode()) + ".txt"; // its own: merges never conflict
    GitRepo.write(repo.dir, file, message + "\n");
    repo.git("add", file);
    Path text = tmp.resolve("message.txt");
    Files.writeString(text, message);
    repo.git("commit", "--quiet", "--cleanup=verbatim", "-F", text.toString());
  }

  private void sameAsGit(String message, String jobs) throws Exception {
    commit(message);
    Integrator.Head read = Integrator.headInFiles(git, place, "main");
    assertNotNull(read, "read from the files: " + message);
    assertEquals(Integrator.headFromLog(git, place, "main"), read, message);
    assertEquals(jobs, read.trailers());
    assertEquals(repo.head("main"), read.base());
    assertEquals(repo.head("orchestrate/A"), read.tip());
  }

  private void leftToGit(String message) throws Exception {
    commit(message);
    assertNull(Integrator.headInFiles(git, place, "main"), message);
    assertNotNull(Integrator.headFromLog(git, place, "main"));
  }

  @Test
  void a_phase_commit_and_a_squashed_one_are_read_from_the_files_as_git_reads_them() throws Exception {
    sameAsGit("A build: built a\n\nOrchestrate-Job: 7\nOrchestrate-Attempt: 2\n", "7");
    sameAsGit("A: the item\n\n- A design: x\n- A build: y\n\nOrchestrate-Job: 7\nOrchestrate-Job: 8", "7,8");
    sameAsGit("A build: ünïcode ✓\n\nOrchestrate-Job: 123456789012345678\nOrchestrate-Attempt: 1\n",
        "123456789012345678");
    sameAsGit("A build: more\n\nbody\n\nmore body\n\nOrchestrate-Attempt: 1\nOrchestrate-Job: 9\n", "9");
  }

  @Test
  void a_message_git_could_read_otherwise_is_left_to_git() throws Exception {
    leftToGit("Orchestrate-Job: 7\n"); // one paragraph: a subject, not trailers
    leftToGit("A build: x\n\nOrchestrate-Job: 7\nSigned-off-by: someone <s@example.com>\n");
    leftToGit("A build: x\n\n---\nOrchestrate-Job: 7\n"); // git stops at a patch's start
    leftToGit("A build: x\n\n# a comment\n\nOrchestrate-Job: 7\n");
    leftToGit("A build: x\n\nOrchestrate-Job: 7\r\nOrchestrate-Attempt: 1\r\n");
    leftToGit("A build: x\n\norchestrate-job: 7\n");
    leftToGit("A build: x\n\nOrchestrate-Job: 7Orchestrate-Attempt: 1\n");
    leftToGit("A build: x\n\nOrchestrate-Job: 1234567890123456789\n");
    leftToGit("A build: x\n");
  }

  /** What the landing's log after a rebase gives: each commit above the base, newest first, with its jobs. */
  private Map<Long, String> logged() {
    Git.Result log = git.run(place, "log",
        "--format=%H%x1f%(trailers:key=Orchestrate-Job,valueonly,separator=%x2C)%x1e", "main..HEAD");
    return Integrator.jobs(log.out());
  }

  @Test
  void the_log_of_an_items_commits_above_the_base_is_read_from_the_files_as_git_gives_it() throws Exception {
    commit("A design: d\n\nOrchestrate-Job: 1\nOrchestrate-Attempt: 1\n");
    commit("A build: b\n\nOrchestrate-Job: 2\nOrchestrate-Attempt: 3\n");
    commit("A: squashed\n\n- x\n\nOrchestrate-Job: 3\nOrchestrate-Job: 4\n");
    String read = Integrator.logInFiles(git, place, repo.head("main"));
    assertNotNull(read);
    assertEquals(logged(), Integrator.jobs(read));
    assertEquals(java.util.Set.of(1L, 2L, 3L, 4L), Integrator.jobs(read).keySet());
    assertEquals(repo.head("orchestrate/A"), read.split("\u001f", 2)[0], "the tip first");

    commit("A review: r\n\nReviewed-by: someone\n"); // git reads this one
    assertNull(Integrator.logInFiles(git, place, repo.head("main")));
    assertNull(Integrator.logInFiles(git, place, repo.head("orchestrate/A")), "HEAD is the base: git says");
  }

  @Test
  void a_log_past_a_merge_or_longer_than_an_items_commits_is_left_to_git() throws Exception {
    commit("A build: b\n\nOrchestrate-Job: 1\n");
    repo.git("checkout", "--quiet", "-b", "side", "main");
    commit("side: s\n\nOrchestrate-Job: 2\n");
    repo.git("checkout", "--quiet", "orchestrate/A");
    repo.git("merge", "--quiet", "--no-edit", "-m", "merge\n\nOrchestrate-Job: 3", "side");
    assertNull(Integrator.logInFiles(git, place, repo.head("main")), "a merge: git walks both sides");

    repo.git("checkout", "--quiet", "-b", "long", "main");
    for (int i = 0; i <= Integrator.ITEM_MAX_COMMITS; i++) {
      commit("A build: " + i + "\n\nOrchestrate-Job: " + (10 + i) + "\n");
    }
    assertNull(Integrator.logInFiles(git, place, repo.head("main")), "past the walk's length");
  }

  @Test
  void a_head_off_a_branch_or_in_a_pack_is_left_to_git() throws Exception {
    commit("A build: x\n\nOrchestrate-Job: 7\n");
    repo.git("checkout", "--quiet", "--detach");
    assertNull(Integrator.headInFiles(git, place, "main"), "detached");
    repo.git("checkout", "--quiet", "orchestrate/A");
    repo.git("gc", "--quiet");
    assertNull(Integrator.headInFiles(git, place, "main"), "packed");
    assertEquals(List.of(repo.head("main")), Integrator.headFromLog(git, place, "main").parents());
    assertNull(Integrator.headInFiles(git, place, "none"), "no such base");
  }
}
