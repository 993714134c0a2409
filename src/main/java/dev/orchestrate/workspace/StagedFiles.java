package dev.orchestrate.workspace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an attempt changed in its worktree, for {@link Worktrees}: the files the gates run (and the
 * protected paths) it touched, what never goes into a phase commit even when staged, and the
 * commits an agent made itself, taken off the item's branch.
 */
final class StagedFiles {
  private static final Logger log = LoggerFactory.getLogger(Worktrees.class);

  private StagedFiles() {
  }

  /**
   * The files among {@code scripts} (relative to the backlog's directory, {@code subdirectory} of the
   * repository) and {@code paths} (relative to the repository's top) that differ at {@code place} from
   * its HEAD, staged or not, sorted, at most 50.
   */
  static List<String> changedAmong(Git git, Git.Place place, ProtectedContent.Listing tracked) {
    List<String> pathspecs = tracked.pathspecs();
    if (pathspecs.isEmpty()) {
      return List.of(); // nothing to look at (git status with no pathspec would list every change)
    }
    List<String> args = new ArrayList<>(List.of("status", "--porcelain", "-z", "--untracked-files=all",
        "--no-renames", "--ignore-submodules=all", "--"));
    args.addAll(pathspecs);
    List<String> changed = new ArrayList<>();
    for (String entry : nulSeparated(git.ok(place, args.toArray(String[]::new)).out())) {
      if (entry.length() > 3) {
        changed.add(entry.substring(3));
      }
    }
    // git status trusts the index's stat data and the worktree's attributes, both the agent's to
    // write: the tracked files among them are also compared byte for byte with the commit
    changed.addAll(ProtectedContent.differing(place.workTree(), tracked));
    return changed.stream().distinct().sorted().limit(50).toList();
  }

  /**
   * The pathspecs of {@code scripts} (relative to the backlog's directory, {@code subdirectory} of
   * the repository) and {@code paths} (relative to the repository's top; a directory ends in
   * {@code /}), as {@link #changedAmong} and the phase commit's check take them.
   */
  static List<String> protectedPathspecs(Path subdirectory, List<String> scripts, List<String> paths) {
    List<String> out = new ArrayList<>();
    for (String script : scripts) {
      Path top = subdirectory.resolve(script).normalize();
      if (!top.startsWith("..") && !top.isAbsolute() && !top.toString().isEmpty()) {
        out.add(":(top,literal)" + top);
      }
    }
    paths.forEach(path -> out.add(":(top)" + path));
    return out;
  }

  /**
   * The protected files {@code commit} changed against {@code parent}, compared as trees (what the
   * commit holds, whatever the index or the worktree said), sorted, at most 50.
   */
  static List<String> committedAmong(Git git, Git.Place place, String parent, String commit, List<String> pathspecs) {
    List<String> args = new ArrayList<>(List.of("diff-tree", "-r", "-z", "--name-only", "--no-renames",
        "--no-ext-diff", parent, commit, "--"));
    args.addAll(pathspecs);
    return nulSeparated(git.ok(place, args.toArray(String[]::new)).out()).stream().distinct().sorted().limit(50)
        .toList();
  }

  /**
   * What never goes into a phase commit, even when the agent staged it ({@code git add -f}, or a
   * commit of its own that the phase commit folds in): the {@code workspace.copy} files (secrets
   * like {@code .env}), and any file git ignores that the last phase commit did not have (build
   * output, installed dependencies). A file git ignores that the branch already tracks stays: the
   * user committed it on purpose.
   */
  static void unstageIgnored(Git git, Git.Place place, List<String> copy) {
    // The files git ignores that the index holds first: `git add --all` adds none, so there are
    // usually none, and with no workspace.copy files either nothing can be unstaged and the added
    // files are not listed (one process where the added files and then the ignored ones were two).
    java.util.Set<String> ignored = new java.util.HashSet<>(nulSeparated(git.ok(place, "ls-files", "-z", "--cached",
        "--ignored", "--exclude-standard").out()));
    if (ignored.isEmpty() && copy.isEmpty()) {
      return;
    }
    List<String> added = nulSeparated(git.ok(place, "diff", "--cached", "--name-only", "-z", "--no-renames",
        "--diff-filter=A", "--no-ext-diff").out());
    java.util.Set<String> copies = new java.util.HashSet<>(copy);
    List<String> out = added.stream().filter(f -> ignored.contains(f) || copies.contains(f)).toList();
    for (int i = 0; i < out.size(); i += 200) {
      List<String> args = new ArrayList<>(List.of("rm", "--cached", "--quiet", "--ignore-unmatch", "--"));
      args.addAll(out.subList(i, Math.min(out.size(), i + 200)));
      git.ok(place, args.toArray(String[]::new));
    }
  }

  /**
   * Clears every assume-unchanged and skip-worktree bit in the worktree's index. With either, git
   * stops looking at the file: {@code status} (and so the check that the attempt left the gates'
   * scripts and the protected paths alone), {@code add} and the reset before the next attempt all
   * take it as the commit has it, whatever the agent wrote there. Cleared, the file is what it is
   * again. The index is read in Java (no process when no bit is set, the usual case); one git
   * orchestrate cannot read ({@code IndexFile.hidden} gives up) is asked with
   * {@code ls-files -v}.
   *
   * @return the paths that were hidden
   */
  static List<String> unhide(Git git, Git.Place place, int hashLength) {
    List<String> hidden = IndexFile.hidden(place.gitDir().resolve("index"), hashLength);
    List<String> assumed = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    if (hidden == null) {
      for (String entry : nulSeparated(git.ok(place, "ls-files", "-v", "-z").out())) {
        if (entry.length() > 2 && (Character.isLowerCase(entry.charAt(0)) || entry.charAt(0) == 'S')) {
          (entry.charAt(0) == 'S' || entry.charAt(0) == 's' ? skipped : assumed).add(entry.substring(2));
          if (entry.charAt(0) == 's') {
            assumed.add(entry.substring(2));
          }
        }
      }
    } else if (!hidden.isEmpty()) {
      // the parse does not say which bit each has: both are cleared (a no-op where one is not set)
      assumed.addAll(hidden);
      skipped.addAll(hidden);
    }
    // one mark a command: update-index applies the first of --no-assume-unchanged and --no-skip-worktree only
    clear(git, place, "--no-assume-unchanged", assumed);
    clear(git, place, "--no-skip-worktree", skipped);
    java.util.Set<String> out = new java.util.LinkedHashSet<>(assumed);
    out.addAll(skipped);
    return List.copyOf(out);
  }

  private static void clear(Git git, Git.Place place, String mark, List<String> paths) {
    for (int i = 0; i < paths.size(); i += 200) {
      List<String> args = new ArrayList<>(List.of("update-index", "-q", mark, "--"));
      args.addAll(paths.subList(i, Math.min(paths.size(), i + 200)));
      git.ok(place, args.toArray(String[]::new));
    }
  }

  static List<String> nulSeparated(String text) {
    return java.util.Arrays.stream(text.split("\0")).filter(s -> !s.isEmpty()).toList();
  }

  /**
   * The item's branch is orchestrate's: a commit the agent made on it (which may hold a
   * {@code workspace.copy} secret it staged) is taken off the branch as soon as the attempt ends,
   * not only at the next phase commit or reset, so that an attempt that failed for good (the item
   * blocked, the run stopped) leaves no commit of the agent's on {@code orchestrate/<ID>}, nor on
   * the worktree's HEAD (which {@code git log --all} walks too). {@code tip} is the branch's tip, read
   * by the caller with the base branches in one process. A soft
   * reset: the attempt's files stay in the worktree and the index, for the phase commit, the
   * resumed session, or a person to look at.
   */
  static boolean dropAgentCommits(Git git, WorkspaceRecord ws, Git.Place place, String tip) {
    try {
      // HEAD back on the branch (the worktree was just verified): a detached commit of the agent's is on no ref
      if (!WorktreeGuard.headOn(place.gitDir(), ws.branch())) {
        git.ok(place, "symbolic-ref", "HEAD", "refs/heads/" + ws.branch());
      }
      if (tip != null && !tip.equals(ws.headCommit())) {
        git.ok(place, "reset", "--quiet", "--soft", ws.headCommit());
      }
      return tip != null;
    } catch (GitException e) {
      log.warn("{}: could not take the agent's commits off {}: {}", ws.itemId(), ws.branch(), e.getMessage());
      return false;
    }
  }
}
