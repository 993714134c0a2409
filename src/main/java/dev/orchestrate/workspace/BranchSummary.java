package dev.orchestrate.workspace;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What an item's branch holds against its base branch, for a reviewer ({@code status ID}, the
 * dashboard): the files changed with lines added and removed ({@code git diff --numstat
 * base...branch}, from where the branch forked) and its commits ({@code base..branch}), each list
 * bounded, the rest counted. Read through {@link Git}, the repository pinned, never the user's git
 * configuration.
 *
 * @param filesChanged  every file the diff names
 * @param added         lines added over every file (binary files count none)
 * @param removed       lines removed over every file
 * @param files         the first {@link #MAX_FILES} of them
 * @param commitCount   every commit of the branch not on its base
 * @param commits       the newest {@link #MAX_COMMITS} of them, newest first
 * @param baseAhead     commits of the base branch the branch does not hold ({@code branch..base}):
 *                      what landed there since it forked; a blocked item's next attempt starts
 *                      without them unless {@code unblock --rebase} brings them in
 */
public record BranchSummary(String baseBranch, String branch, int filesChanged, long added, long removed,
    List<FileChange> files, int commitCount, List<Commit> commits, int baseAhead) {
  public static final int MAX_FILES = 50;
  public static final int MAX_COMMITS = 50;

  public BranchSummary {
    files = List.copyOf(files);
    commits = List.copyOf(commits);
  }

  /** One file of the diff; {@code added} and {@code removed} are null for a binary file. */
  public record FileChange(String path, Long added, Long removed) {
  }

  /** One commit: its short id and subject line. */
  public record Commit(String id, String subject) {
  }

  /** Files the diff names beyond {@link #files}. */
  public int filesNotListed() {
    return filesChanged - files.size();
  }

  /** Commits beyond {@link #commits}. */
  public int commitsNotListed() {
    return commitCount - commits.size();
  }

  /**
   * The summary of the item's branch, or empty when it cannot be read (the repository or one of
   * the branches is gone, git failed): a reviewer's aid is never an error.
   */
  public static Optional<BranchSummary> of(Git git, WorkspaceRecord ws) {
    Path common = Worktrees.commonDir(ws);
    if (!Files.isDirectory(common, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    Git.Place place = Git.Place.repository(common);
    String base = "refs/heads/" + ws.baseBranch();
    String branch = "refs/heads/" + ws.branch();
    try {
      Git.Result diff = git.run(place, "diff", "--numstat", "--no-renames", "--no-color", base + "..." + branch,
          "--");
      Git.Result count = git.run(place, "rev-list", "--count", base + ".." + branch, "--");
      Git.Result ahead = git.run(place, "rev-list", "--count", branch + ".." + base, "--");
      Git.Result log = git.run(place, "log", "--no-color", "--format=%h%x09%s", "-n", String.valueOf(MAX_COMMITS),
          base + ".." + branch, "--");
      if (!diff.ok() || !count.ok() || !ahead.ok() || !log.ok()) {
        return Optional.empty();
      }
      List<FileChange> files = new ArrayList<>();
      int changed = 0;
      long added = 0;
      long removed = 0;
      for (String line : diff.out().split("\n")) {
        String[] parts = line.split("\t", 3);
        if (parts.length < 3) {
          continue;
        }
        Long a = number(parts[0]);
        Long r = number(parts[1]);
        changed++;
        added += a == null ? 0 : a;
        removed += r == null ? 0 : r;
        if (files.size() < MAX_FILES) {
          files.add(new FileChange(parts[2], a, r));
        }
      }
      List<Commit> commits = new ArrayList<>();
      for (String line : log.out().split("\n")) {
        String[] parts = line.split("\t", 2);
        if (parts.length == 2) {
          commits.add(new Commit(parts[0], parts[1]));
        }
      }
      int commitCount = Math.max(commits.size(), Integer.parseInt(count.line()));
      return Optional.of(new BranchSummary(ws.baseBranch(), ws.branch(), changed, added, removed, files,
          commitCount, commits, Integer.parseInt(ahead.line())));
    } catch (GitException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * How many commits the base branch has that the item's branch does not ({@code branch..base}):
   * what landed on the base since the branch forked (or was last rebased), which a plain {@code
   * unblock} leaves out of the item's next attempt. Empty when it cannot be read; a hint, never an
   * error.
   */
  public static java.util.OptionalInt baseAhead(Git git, WorkspaceRecord ws) {
    Path common = Worktrees.commonDir(ws);
    if (!Files.isDirectory(common, LinkOption.NOFOLLOW_LINKS)) {
      return java.util.OptionalInt.empty();
    }
    try {
      Git.Result count = git.run(Git.Place.repository(common), "rev-list", "--count",
          "refs/heads/" + ws.branch() + "..refs/heads/" + ws.baseBranch(), "--");
      return count.ok() ? java.util.OptionalInt.of(Integer.parseInt(count.line())) : java.util.OptionalInt.empty();
    } catch (GitException | NumberFormatException e) {
      return java.util.OptionalInt.empty();
    }
  }

  /** A numstat figure; {@code -} (a binary file) is null. */
  private static Long number(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
