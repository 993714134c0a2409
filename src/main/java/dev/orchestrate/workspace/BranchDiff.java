package dev.orchestrate.workspace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An item's change against its base, for {@code orchestrate diff}: the branch's tip against where it
 * forked from the base branch (the merge base, as {@code git diff base...branch}), as a file
 * summary and as a patch streamed with a cap. Read through {@link Git}, the repository pinned and
 * every program its configuration names switched off; the options that would let the
 * repository's configuration reshape the output (an order file, a relative diff, prefixes, an
 * external diff or text conversion) are fixed here.
 */
public final class BranchDiff {
  /** The files a summary lists; the rest are counted. */
  public static final int MAX_FILES = 1000;
  /** The longest path kept of one file (bytes); a longer one is cut. */
  static final int MAX_PATH_BYTES = 4096;
  /** What every diff here is made with, whatever the repository's configuration says. */
  private static final List<String> FIXED = List.of("--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
      "-M", "-O/dev/null", "--src-prefix=a/", "--dst-prefix=b/");

  private BranchDiff() {
  }

  /**
   * The two commits of an item's diff: {@code base}, where {@code branch} forked from
   * {@code baseBranch}, and {@code head}, the branch's tip.
   */
  public record Range(Git.Place place, String baseBranch, String branch, String base, String head) {
  }

  /** One file of the diff; {@code additions} and {@code deletions} are null for a binary file. */
  public record FileDiff(String path, String oldPath, String status, Long additions, Long deletions) {
    public boolean binary() {
      return additions == null;
    }
  }

  /** Every file the diff names ({@code files}), the lines over all of them, the first {@link #MAX_FILES}. */
  public record Stat(int files, long additions, long deletions, List<FileDiff> listed) {
    public Stat {
      listed = List.copyOf(listed);
    }
  }

  /** What {@link #patch} wrote: {@code bytes} of git's output, and whether there was more. */
  public record Patch(long bytes, boolean cut) {
  }

  /**
   * The range of {@code ws}'s diff: the branch's tip (the last recorded phase commit if the branch
   * is gone) against its merge base with the base branch (the recorded start if that is gone).
   *
   * @throws GitException when the repository, the item's commits or their merge base cannot be found
   */
  public static Range range(Git git, WorkspaceRecord ws) {
    Path common = Worktrees.commonDir(ws);
    if (!Files.isDirectory(common, LinkOption.NOFOLLOW_LINKS)) {
      throw new GitException("the repository of " + ws.branch() + " is gone (" + common + ")");
    }
    Git.Place place = Git.Place.repository(common);
    String head = commit(git, place, "refs/heads/" + ws.branch(), ws.headCommit());
    String baseTip = commit(git, place, "refs/heads/" + ws.baseBranch(), ws.baseCommit());
    if (head == null || baseTip == null) {
      throw new GitException("branch " + (head == null ? ws.branch() : ws.baseBranch())
          + " and its recorded commit are not in the repository " + common);
    }
    Git.Result base = git.run(place, "merge-base", baseTip, head);
    if (!base.ok()) {
      throw new GitException(ws.branch() + " and " + ws.baseBranch() + " have no common commit: " + base.reason());
    }
    return new Range(place, ws.baseBranch(), ws.branch(), base.line(), head);
  }

  /** The commit {@code ref} names, else {@code recorded} if the repository has it, else null. */
  private static String commit(Git git, Git.Place place, String ref, String recorded) {
    String found = git.commit(place, ref);
    if (found == null && recorded != null && recorded.matches("[0-9a-f]{40,64}")) {
      found = git.commit(place, recorded);
    }
    return found;
  }

  /** The files of the diff with their lines added and removed, streamed: any number costs {@link #MAX_FILES}. */
  public static Stat stat(Git git, Range range) {
    List<FileDiff> listed = new ArrayList<>();
    int[] files = {0};
    run(git, range, "--name-status", new NameStatus(f -> {
      files[0]++;
      if (listed.size() < MAX_FILES) {
        listed.add(f);
      }
    }));
    long[] totals = {0, 0};
    int[] index = {0};
    run(git, range, "--numstat", new NumStat((added, removed) -> {
      totals[0] += added == null ? 0 : added;
      totals[1] += removed == null ? 0 : removed;
      int i = index[0]++;
      if (i < listed.size()) {
        FileDiff f = listed.get(i);
        listed.set(i, new FileDiff(f.path(), f.oldPath(), f.status(), added, removed));
      }
    }));
    return new Stat(files[0], totals[0], totals[1], listed);
  }

  private static void run(Git git, Range range, String format, OutputStream parser) {
    List<String> args = new ArrayList<>(List.of("diff", format, "-z"));
    args.addAll(FIXED);
    args.addAll(List.of(range.base(), range.head(), "--"));
    try {
      Git.Streamed r = git.stream(range.place(), args, Long.MAX_VALUE, parser);
      if (!r.ok()) {
        throw new GitException("git diff " + format + " failed: " + r.reason());
      }
    } catch (IOException e) {
      throw new GitException("could not read git diff " + format + ": " + e.getMessage(), e);
    }
  }

  /**
   * The patch ({@code git diff} in unified form) written to {@code sink} as git makes it, at most
   * {@code maxBytes} of it: git's raw bytes, for the caller to make safe for where they go.
   *
   * @throws IOException when {@code sink} failed (git is stopped)
   */
  public static Patch patch(Git git, Range range, long maxBytes, OutputStream sink) throws IOException {
    List<String> args = new ArrayList<>(List.of("diff", "-p"));
    args.addAll(FIXED);
    args.addAll(List.of(range.base(), range.head(), "--"));
    Git.Streamed r = git.stream(range.place(), args, maxBytes, sink);
    if (!r.ok()) {
      throw new GitException("git diff failed: " + r.reason());
    }
    return new Patch(r.bytes(), r.cut());
  }

  /** The NUL-terminated fields of a {@code -z} listing, each handed on as read; a long one is cut. */
  private abstract static class Fields extends OutputStream {
    private final ByteArrayOutputStream field = new ByteArrayOutputStream();

    @Override
    public void write(int b) {
      if (b == 0) {
        String text = field.toString(StandardCharsets.UTF_8);
        field.reset();
        field(text);
      } else if (field.size() < MAX_PATH_BYTES) {
        field.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    abstract void field(String text);
  }

  /** {@code --name-status -z}: a status, then one path, or two (from, to) for a rename or a copy. */
  static final class NameStatus extends Fields {
    private final Consumer<FileDiff> each;
    private String status;
    private String from;

    NameStatus(Consumer<FileDiff> each) {
      this.each = each;
    }

    @Override
    void field(String text) {
      if (status == null) {
        status = text;
      } else if ((status.startsWith("R") || status.startsWith("C")) && from == null) {
        from = text;
      } else {
        each.accept(new FileDiff(text, from, statusName(status), null, null));
        status = null;
        from = null;
      }
    }
  }

  /** What a file's line counts are: added and removed lines, both null for a binary file. */
  interface Counts {
    void accept(Long added, Long removed);
  }

  /** {@code --numstat -z}: {@code added\tremoved\tpath}, or with an empty path two more fields (a rename). */
  static final class NumStat extends Fields {
    private final Counts each;
    private int pathsToSkip;

    NumStat(Counts each) {
      this.each = each;
    }

    @Override
    void field(String text) {
      if (pathsToSkip > 0) {
        pathsToSkip--;
        return;
      }
      String[] parts = text.split("\t", 3);
      if (parts.length < 3) {
        return;
      }
      each.accept(number(parts[0]), number(parts[1]));
      pathsToSkip = parts[2].isEmpty() ? 2 : 0;
    }
  }

  private static Long number(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** git's one-letter status (with a rename's score) as a word. */
  static String statusName(String status) {
    return switch (status.isEmpty() ? ' ' : status.charAt(0)) {
      case 'A' -> "added";
      case 'M' -> "modified";
      case 'D' -> "deleted";
      case 'R' -> "renamed";
      case 'C' -> "copied";
      case 'T' -> "type_changed";
      case 'U' -> "unmerged";
      default -> "unknown";
    };
  }
}
