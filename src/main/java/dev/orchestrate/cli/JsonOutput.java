package dev.orchestrate.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code --json} as a mixin, for the commands that print one JSON document of their own kind
 * ({@code jobs}, {@code stats}, {@code compact}, {@code unblock}): the help names the kind from the
 * command's name. A command whose {@code --json} says more ({@code status}: "item" with ID; the
 * {@code memory} subcommands; {@code run}) declares its own, so that its help stays as it is.
 */
@Command // a mixin needs one; it adds nothing to the help
final class JsonOutput {
  @Option(names = "--json", description = "Print one JSON document (kind \"${COMMAND-NAME}\") on stdout")
  boolean json;
}
