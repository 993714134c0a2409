package dev.orchestrate.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a project lives, found the way git finds a repository: the nearest directory, from a
 * starting directory upwards, that holds {@code orchestrate.yaml} (a file) or {@code .orchestrate/}
 * (a directory). The starting directory is the backlog's for {@code run BACKLOG}, the current
 * directory for every other command. Only reads the file system: finding nothing creates nothing.
 */
final class ProjectLocation {
  private ProjectLocation() {
  }

  /** The project directory at or above {@code start}, if any. */
  static Optional<Path> find(Path start) {
    for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      if (isProject(dir)) {
        return Optional.of(dir);
      }
    }
    return Optional.empty();
  }

  static boolean isProject(Path dir) {
    return Files.isRegularFile(dir.resolve(OrchestrateCommand.DEFAULT_CONFIG))
        || Files.isDirectory(dir.resolve(OrchestrateCommand.DEFAULT_STATE_DIR));
  }
}
