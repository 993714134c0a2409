package dev.orchestrate.backlog;

import dev.orchestrate.config.Config;
import java.nio.file.Path;

/**
 * Loads a backlog file in the JVM this main runs in and prints {@code loaded N}: started by
 * {@link HeapPerItemTest} with a heap too small for the file's parsed nodes held all at once.
 *
 * <p>Usage: {@code BacklogLoadProbe FILE}
 */
public final class BacklogLoadProbe {
  private BacklogLoadProbe() {
  }

  public static void main(String[] args) {
    Backlog backlog = BacklogLoader.load(Path.of(args[0]), Config.defaults());
    System.out.println("loaded " + backlog.items().size());
  }
}
