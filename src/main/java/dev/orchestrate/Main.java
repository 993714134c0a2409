package dev.orchestrate;

import dev.orchestrate.cli.Cli;
import dev.orchestrate.cli.DeferredLogback;

/** Entry point: builds the command line, executes it, exits. Nothing else calls System.exit. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    if (!Cli.printsVersionOnly(args)) { // which logs nothing: binding SLF4J would be its largest cost
      DeferredLogback.select(); // before anything looks a logger up: logback starts only if something logs
    }
    System.exit(Cli.execute(args, System.getenv()));
  }
}
