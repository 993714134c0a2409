package dev.orchestrate;

import dev.orchestrate.cli.Cli;

/** Entry point: builds the command line, executes it, exits. Nothing else calls System.exit. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    System.exit(Cli.execute(args, System.getenv()));
  }
}
