package dev.orchestrate.cli;

import dev.orchestrate.yaml.DidYouMean;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Did-you-mean for a mistyped command or option, with the same closeness rule the backlog and
 * config errors use ({@link DidYouMean}): {@code unknown command 'stauts'; did you mean 'status'?}.
 */
final class Suggestions {
  private Suggestions() {
  }

  /** The message for the first unmatched argument, or empty to keep picocli's. */
  static Optional<String> describe(CommandLine.UnmatchedArgumentException ex) {
    List<String> unmatched = ex.getUnmatched();
    if (unmatched.isEmpty()) {
      return Optional.empty();
    }
    String given = unmatched.get(0);
    CommandSpec spec = ex.getCommandLine().getCommandSpec();
    if (given.startsWith("-")) {
      String option = given.contains("=") ? given.substring(0, given.indexOf('=')) : given;
      return Optional.of("unknown option '" + option + "'" + suggestion(option, optionNames(spec)));
    }
    if (!spec.subcommands().isEmpty() && spec.positionalParameters().isEmpty()) {
      return Optional.of("unknown command '" + given + "'" + suggestion(given, commandNames(spec)));
    }
    return Optional.empty();
  }

  private static String suggestion(String given, List<String> candidates) {
    if (given.length() < 3) {
      return ""; // -x: any one-letter option is as close as another
    }
    return DidYouMean.closest(given, candidates).map(s -> "; did you mean '" + s + "'?").orElse("");
  }

  private static List<String> optionNames(CommandSpec spec) {
    List<String> names = new ArrayList<>();
    for (OptionSpec option : spec.options()) {
      if (!option.hidden()) {
        names.addAll(List.of(option.names()));
      }
    }
    return names;
  }

  private static List<String> commandNames(CommandSpec spec) {
    List<String> names = new ArrayList<>();
    spec.subcommands().forEach((name, sub) -> {
      if (!sub.getCommandSpec().usageMessage().hidden()) {
        names.add(name);
      }
    });
    return names;
  }
}
