package dev.orchestrate.landing;

import dev.orchestrate.workspace.DiskUsage;
import dev.orchestrate.workspace.Git;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fast-forward of the user's checkout ({@link Integrator#advanceBase}) marked while it runs,
 * and what a run that died inside it left there put back. git writes the new tip's files before
 * its index and the branch: cut short (a kill, a crash), it leaves those files changed over the old
 * tip, with git's {@code index.lock} (which orchestrate never deletes: the person does, as the
 * refusal says), and the next fast-forward refuses them as local changes. With the mark, a change
 * whose content is exactly what the cut-short fast-forward was writing (the marked tip's version
 * of that path, or its absence) is the landing's own and is put back (restored from the index, or
 * the new file deleted), and the landing goes on; any other change is the person's, and stays, with
 * the refusal as before.
 *
 * <p>The mark is {@code <state>/worktrees/+fast-forward} (never an item's: ids hold no {@code +}),
 * holding the branch, the commit the checkout was at and the tip it was moving to.
 */
final class CutShortFastForward {
  /** More changed paths than this are not looked at one by one: the refusal stands. */
  static final int MAX_PATHS = 1_000;

  private final Git git;
  private final Git.Place checkout;
  private final Path top;
  private final Path mark;

  /** What the mark says: the fast-forward of {@code branch} from {@code from} to {@code to}. */
  record Marked(String branch, String from, String to) {
  }

  /**
   * @param top  the checkout's top directory (the paths git names are under it)
   * @param root the worktrees' directory, where the mark goes
   */
  CutShortFastForward(Git git, Git.Place checkout, Path top, Path root) {
    this.git = git;
    this.checkout = checkout;
    this.top = top.toAbsolutePath().normalize();
    this.mark = root.resolve("+fast-forward");
  }

  /** The mark a run left, or null (none, or not one orchestrate wrote). */
  Marked read() {
    try {
      if (!Files.isRegularFile(mark, LinkOption.NOFOLLOW_LINKS) || Files.size(mark) > 1024) {
        return null;
      }
      String[] parts = Files.readString(mark, StandardCharsets.UTF_8).strip().split(" ");
      if (parts.length != 3 || !parts[0].startsWith("refs/heads/") || !parts[1].matches("[0-9a-f]{40,64}")
          || !parts[2].matches("[0-9a-f]{40,64}")) {
        return null;
      }
      return new Marked(parts[0], parts[1], parts[2]);
    } catch (IOException | UncheckedIOException e) {
      return null;
    }
  }

  /** Marks the fast-forward about to run. */
  void mark(Marked next) {
    try {
      DiskUsage.delete(mark); // whatever was planted there (a link, a directory) goes, never written through
      Files.writeString(mark, next.branch() + " " + next.from() + " " + next.to() + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("could not mark the fast-forward of " + next.branch() + " in " + mark, e);
    }
  }

  void drop() {
    try {
      DiskUsage.delete(mark);
    } catch (IOException | UncheckedIOException e) {
      // the next landing reads a stale mark and finds nothing of its own to put back
    }
  }

  /**
   * Puts back, in the checkout, the changes the fast-forward {@code marked} was writing when its run
   * died: returns the paths put back, or null when some change is not one of them (staged, or a
   * content that is not the marked tip's), and then touches nothing.
   */
  List<String> undo(Marked marked) {
    Changes changes = changes();
    if (changes == null) {
      return null;
    }
    List<String> all = concat(changes.modified(), changes.deleted(), changes.added());
    if (all.isEmpty()) {
      return all;
    }
    List<Path> added = changes.added().stream().map(path -> top.resolve(path).normalize()).toList();
    if (all.size() > MAX_PATHS || added.stream().anyMatch(file -> !file.startsWith(top) || file.equals(top))
        || !theTips(marked.to(), changes)) {
      return null;
    }
    List<String> restore = concat(changes.modified(), changes.deleted(), List.of());
    if (!restore.isEmpty()) {
      List<String> args = new ArrayList<>(List.of("--literal-pathspecs", "checkout", "--quiet", "--"));
      args.addAll(restore);
      git.ok(checkout, args.toArray(String[]::new));
    }
    for (Path file : added) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("could not delete " + file, e);
      }
    }
    return all;
  }

  /** The checkout's changes, by kind: files changed (or retyped), deleted, new. */
  private record Changes(List<String> modified, List<String> deleted, List<String> added) {
  }

  /** The checkout's changes, or null when git cannot say or one is staged (the index untouched is the rule). */
  private Changes changes() {
    Git.Result status = git.run(checkout, "status", "--porcelain", "-z", "--untracked-files=all",
        "--ignore-submodules=all");
    if (!status.ok()) {
      return null;
    }
    Changes changes = new Changes(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (String entry : status.out().split("\0")) {
      if (entry.isEmpty()) {
        continue;
      }
      if (entry.length() < 4 || entry.charAt(2) != ' ') {
        return null;
      }
      String path = entry.substring(3);
      switch (entry.substring(0, 2)) {
        case " M", " T" -> changes.modified().add(path);
        case " D" -> changes.deleted().add(path);
        case "??" -> changes.added().add(path);
        default -> {
          return null; // staged, renamed, unmerged: not what a cut-short fast-forward leaves
        }
      }
    }
    return changes;
  }

  /**
   * Whether every change is what the fast-forward to {@code tip} writes: a changed or new file with
   * exactly the tip's content at that path, a deleted file the tip does not have.
   */
  private boolean theTips(String tip, Changes changes) {
    Map<String, String> inTip = blobs(tip, concat(changes.modified(), changes.deleted(), changes.added()));
    if (inTip == null || changes.deleted().stream().anyMatch(inTip::containsKey)) {
      return false; // a file the tip has, deleted: not the fast-forward's
    }
    List<String> written = concat(changes.modified(), changes.added(), List.of());
    if (written.isEmpty()) {
      return true;
    }
    List<String> args = new ArrayList<>(List.of("hash-object", "--"));
    args.addAll(written);
    Git.Result hashes = git.run(checkout, args.toArray(String[]::new));
    List<String> ids = hashes.ok() ? hashes.out().lines().toList() : List.of();
    if (ids.size() != written.size()) {
      return false;
    }
    for (int i = 0; i < written.size(); i++) {
      if (!ids.get(i).equals(inTip.get(written.get(i)))) {
        return false; // not the tip's content: someone's change
      }
    }
    return true;
  }

  /** The blob of each of {@code paths} in {@code commit} (a path it lacks: no entry); null if git fails. */
  private Map<String, String> blobs(String commit, List<String> paths) {
    List<String> args = new ArrayList<>(List.of("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--"));
    args.addAll(paths);
    Git.Result tree = git.run(checkout, args.toArray(String[]::new));
    if (!tree.ok()) {
      return null;
    }
    Map<String, String> blobs = new HashMap<>();
    for (String entry : tree.out().split("\0")) {
      int tab = entry.indexOf('\t');
      String[] head = tab < 0 ? new String[0] : entry.substring(0, tab).split(" ");
      if (head.length == 3 && head[1].equals("blob")) {
        blobs.put(entry.substring(tab + 1), head[2]);
      }
    }
    return blobs;
  }

  private static List<String> concat(List<String> a, List<String> b, List<String> c) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    all.addAll(c);
    return all;
  }
}
