package dev.orchestrate.backlog;

import java.nio.file.Path;
import java.util.List;

/** A validated backlog: items in file order. */
public record Backlog(Path file, List<BacklogItem> items) {
  public Backlog {
    items = List.copyOf(items);
  }

  /** The directory agents run in. */
  public Path directory() {
    Path parent = file.toAbsolutePath().getParent();
    return parent == null ? Path.of(".").toAbsolutePath() : parent;
  }
}
