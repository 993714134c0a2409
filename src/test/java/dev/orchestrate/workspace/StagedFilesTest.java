package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an agent hides from git with index bits is cleared once its attempt ends
 * ({@link StagedFiles#unhide}): the index read in Java (versions 2 and 3), or, for one it does not
 * read, as git lists it.
 */
class StagedFilesTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private Git.Place place;

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("repo"));
    repo.write("a.txt", "a\n");
    repo.write("b.txt", "b\n");
    repo.write("c.txt", "c\n");
    repo.write("d.txt", "d\n");
    repo.commitAll("four files");
    Path git = repo.dir.resolve(".git");
    place = new Git.Place(repo.dir, git, git, repo.dir);
  }

  /**
   * An edit behind an assume-unchanged bit, one behind a skip-worktree bit and one behind both:
   * `git status` sees none of them until the bits are cleared, and then all three. Version 4 is
   * the index this does not read (its paths are prefix-compressed): git lists the bits there.
   */
  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4})
  void bits_that_hide_an_edit_from_git_are_cleared_and_the_edits_show(int version) {
    repo.git("update-index", "--assume-unchanged", "a.txt", "c.txt");
    repo.git("update-index", "--skip-worktree", "b.txt", "c.txt");
    repo.git("update-index", "--index-version", String.valueOf(version));
    repo.write("a.txt", "changed a\n");
    repo.write("b.txt", "changed b\n");
    repo.write("c.txt", "changed c\n");
    assertEquals("", repo.git("status", "--porcelain"), "hidden from git");
    List<String> hidden = SpareWorktrees.IndexModes.hidden(place.gitDir().resolve("index"), 20);
    if (version == 4) {
      assertNull(hidden, "version 4 is left to git");
    } else {
      assertEquals(List.of("a.txt", "b.txt", "c.txt"), hidden);
    }
    List<String> unhidden = StagedFiles.unhide(new Git(), place, 20);
    assertEquals(List.of("a.txt", "b.txt", "c.txt"), unhidden.stream().sorted().toList());
    assertEquals(List.of(), repo.git("ls-files", "-v").lines().filter(l -> !l.startsWith("H ")).toList(),
        "no bit left");
    assertEquals("M a.txt\n M b.txt\n M c.txt", repo.git("status", "--porcelain"),
        "all three show (the output stripped)");
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void an_index_without_hidden_files_is_left_as_it_is(int version) {
    repo.git("update-index", "--index-version", String.valueOf(version));
    assertEquals(List.of(), StagedFiles.unhide(new Git(), place, 20));
    assertEquals("", repo.git("status", "--porcelain"));
  }
}
