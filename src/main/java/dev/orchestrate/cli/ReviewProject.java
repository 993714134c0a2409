package dev.orchestrate.cli;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.config.Config;

/** What {@code approve} and {@code reject} need of the project: its config, and the directory of the user's checkout, found as {@code run} finds it. */
final class ReviewProject {
  private ReviewProject() {
  }

  static Reviewing.Project of(Root root) {
    Config config = root.command().loadConfig(null);
    return new Reviewing.Project(config, root.command().checkoutDirectory(config));
  }
}
