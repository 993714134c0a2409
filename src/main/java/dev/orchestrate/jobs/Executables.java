package dev.orchestrate.jobs;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finding a program on {@code PATH} the way {@code execvp} does. */
final class Executables {

  private Executables() {}

  /** The first executable file called {@code name} in the directories of {@code path}. */
  static Optional<Path> find(String name, String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate.toAbsolutePath());
      }
    }
    return Optional.empty();
  }

  /**
   * The program an argv's first word names: a path (with a '/') relative to {@code workDir}, or a
   * name looked up on {@code path}.
   *
   * @throws IOException worded as the OS would ("No such file or directory", "Permission denied")
   */
  static Path resolve(String program, Path workDir, String path) throws IOException {
    if (program.contains("/")) {
      Path file = workDir.resolve(program);
      if (!Files.exists(file)) {
        throw new IOException("No such file or directory");
      }
      if (!Files.isRegularFile(file) || !Files.isExecutable(file)) {
        throw new IOException("Permission denied");
      }
      return file.toAbsolutePath();
    }
    Optional<Path> found = find(program, path);
    if (found.isPresent()) {
      return found.get();
    }
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        if (!dir.isEmpty() && Files.exists(Path.of(dir, program))) {
          throw new IOException("Permission denied");
        }
      }
    }
    throw new IOException("No such file or directory");
  }
}
