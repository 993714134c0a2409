package dev.orchestrate.store;

import java.nio.file.Files;
import java.nio.file.Path;

/** The layout of the state directory ({@code .orchestrate/} by default). */
public record StateDirectory(Path root) {
  /** Absolute, because agents run in the backlog's directory and get paths inside this one. */
  public StateDirectory {
    root = root.toAbsolutePath().normalize();
  }

  public Path database() {
    return root.resolve("state.db");
  }

  public Path jobs() {
    return root.resolve("jobs");
  }

  public Path lockFile() {
    return root.resolve("run.lock");
  }

  public boolean hasDatabase() {
    return Files.isRegularFile(database());
  }
}
