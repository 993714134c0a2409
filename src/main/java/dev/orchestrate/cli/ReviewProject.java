package dev.orchestrate.cli;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.config.Config;
import java.nio.file.Path;

/** What {@code approve} and {@code reject} need of the project: its config, and the directory of the user's checkout. */
final class ReviewProject {
  private ReviewProject() {
  }

  static Reviewing.Project of(Root root) {
    Config config = root.command().loadConfig(null);
    Path dir = config.source()
        .map(f -> root.command().workingDirectory().resolve(f).toAbsolutePath().normalize().getParent())
        .orElse(root.command().workingDirectory());
    return new Reviewing.Project(config, dir);
  }
}
