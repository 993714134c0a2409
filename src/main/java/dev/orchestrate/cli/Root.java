package dev.orchestrate.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The root command ({@code orchestrate}, with the global options) as a mixin, for a command at any
 * depth ({@code status}, {@code memory list}): declared once instead of a {@code @ParentCommand}
 * per command. picocli gives it the command it is mixed into, whose root it is; {@link FastPath}
 * sets the root itself. No picocli class is loaded unless picocli built the command.
 */
@Command // a mixin needs one; it adds nothing to the help
final class Root {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  private OrchestrateCommand command;

  /** Filled by picocli. */
  Root() {
  }

  /** For {@link FastPath}, which builds the commands without picocli. */
  Root(OrchestrateCommand command) {
    this.command = command;
  }

  /** The root command, its global options set. */
  OrchestrateCommand command() {
    if (command == null) {
      command = (OrchestrateCommand) mixee.root().userObject();
    }
    return command;
  }
}
