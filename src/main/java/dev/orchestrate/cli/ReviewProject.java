package dev.orchestrate.cli;

import dev.orchestrate.app.Reviewing;

/** What {@code approve} and {@code reject} need of the project: its config, and the directory of the user's checkout, found as {@code run} finds it. */
final class ReviewProject {
  private ReviewProject() {
  }

  static Reviewing.Project of(Root root) {
    return new Reviewing.Project(root.command().loadConfig(null), root.command().checkoutDirectory());
  }
}
