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
 */
public record BranchSummary(String baseBranch, String branch, int filesChanged, long added, long removed,
    List<FileChange> files, int commitCount, List<Commit> commits) {
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
      Git.Result log = git.run(place, "log", "--no-color", "--format=%h%x09%s", "-n", String.valueOf(MAX_COMMITS),
          base + ".." + branch, "--");
      if (!diff.ok() || !count.ok() || !log.ok()) {
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
          commitCount, commits));
    } catch (GitException | NumberFormatException e) {
      return Optional.empty();
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
