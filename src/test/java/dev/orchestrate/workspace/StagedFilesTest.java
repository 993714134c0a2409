package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
   * the index this does not read (its paths are prefix-compressed): git lists the bits there. (Asked
   * for version 2, git writes 3 all the same: a skip-worktree bit needs its extended flags.)
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
    List<String> hidden = IndexFile.hidden(place.gitDir().resolve("index"), 20);
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

  /**
   * An index written by hand: an extension whose size would go back over itself, and an entry whose
   * name is not as long as its flags say (git reads the length; a scan for the NUL would read
   * another name). Neither is read, and neither hangs: git's own listing answers for the bits.
   */
  @Test
  void an_index_not_as_the_format_says_is_left_to_git_and_never_read_forever() throws Exception {
    repo.git("update-index", "--assume-unchanged", "a.txt");
    repo.write("a.txt", "changed a\n");
    Path index = place.gitDir().resolve("index");
    byte[] good = Files.readAllBytes(index);
    byte[] looping = ByteBuffer.allocate(good.length + 8).put(good, 0, good.length - 20).put("ABCD".getBytes())
        .putInt(-8).put(good, good.length - 20, 20).array();
    Files.write(index, looping);
    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      assertNull(IndexFile.hidden(index, 20));
      assertFalse(IndexFile.filesAndLinksOnly(index, 20));
      assertNull(IndexFile.digest(index, 20));
    });

    byte[] shortName = good.clone();
    int flags = 12 + 40 + 20; // the first entry's flags
    shortName[flags + 1] = (byte) 2; // its name: 2 bytes long, says the flags, where ".gitignore" is 10
    Files.write(index, shortName);
    assertNull(IndexFile.hidden(index, 20));

    Files.write(index, good);
    assertEquals(List.of("a.txt"), StagedFiles.unhide(new Git(), place, 20));
    assertEquals("M a.txt", repo.git("status", "--porcelain"));
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void an_index_without_hidden_files_is_left_as_it_is(int version) {
    repo.git("update-index", "--index-version", String.valueOf(version));
    assertEquals(List.of(), StagedFiles.unhide(new Git(), place, 20));
    assertEquals("", repo.git("status", "--porcelain"));
  }
}
