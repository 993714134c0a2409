package dev.orchestrate.workspace;

import dev.orchestrate.item.WorkspaceUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The files and directories {@code workspace.setup} created in a worktree that git neither tracks nor
 * ignores (an {@code .egg-info}, a marker file), recorded between the set-up and the agent, in a file of
 * orchestrate's beside the worktrees ({@code <state>/worktrees/+setup-<ID>}): never part of a phase
 * commit, even when the agent staged it, and kept by the reset before each attempt as ignored files
 * are. Bounded: a set-up that leaves more than {@link #MAX_PATHS} such paths (untracked directories
 * count once) fails, naming the fix (ignore them in git).
 */
final class SetUpOutput {
  static final int MAX_PATHS = 1000;
  private static final long MAX_FILE_BYTES = 4L * 1024 * 1024;
  private static final int BATCH = 200;

  private SetUpOutput() {
  }

  /** Records what the set-up left at {@code place} into {@code file}. */
  static void record(Git git, Git.Place place, Path file) {
    List<String> paths = new ArrayList<>();
    for (String entry : StagedFiles.nulSeparated(git.ok(place, "status", "--porcelain", "-z",
        "--untracked-files=normal", "--no-renames", "--ignore-submodules=all", "--", ".").out())) {
      if (entry.length() > 3 && entry.startsWith("??")) {
        String path = entry.substring(3);
        paths.add(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
      }
    }
    if (paths.size() > MAX_PATHS) {
      throw new WorkspaceUnavailableException("workspace.setup left " + paths.size() + " files or directories "
          + "that git does not ignore (at most " + MAX_PATHS + " are kept out of the phase commits): add what it "
          + "creates to .gitignore");
    }
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.deleteIfExists(tmp);
      Files.writeString(tmp, String.join("\0", paths), StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record what workspace.setup left in " + file, e);
    }
  }

  /** The paths recorded in {@code file}; none when there is no such regular file. */
  static List<String> read(Path file) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES);
      return StagedFiles.nulSeparated(new String(bytes, StandardCharsets.UTF_8)).stream().limit(MAX_PATHS)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static void forget(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + file, e);
    }
  }

  /** Takes {@code paths} out of the index being committed at {@code place}. */
  static void unstage(Git git, Git.Place place, List<String> paths) {
    for (int i = 0; i < paths.size(); i += BATCH) {
      List<String> args = new ArrayList<>(List.of("reset", "--quiet", "--"));
      paths.subList(i, Math.min(paths.size(), i + BATCH)).forEach(p -> args.add(":(top,literal)" + p));
      git.ok(place, args.toArray(String[]::new));
    }
  }

  /** {@code git clean}'s arguments that keep {@code paths} (so {@code git status}'s too). */
  static List<String> keptByClean(List<String> paths) {
    List<String> args = new ArrayList<>();
    if (!paths.isEmpty()) {
      args.add("--");
      paths.forEach(p -> args.add(":(exclude,top,literal)" + p));
    }
    return args;
  }
}
