package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * FastPath's tables of options are picocli's: an option added to, renamed in or removed from a
 * short command must be changed in both, or this test fails (an option FastPath does not know
 * would only fall through to picocli; one it knows that picocli lost would be accepted wrongly).
 */
class FastPathModelTest {
  private final CommandLine root = Cli.commandLine(Map.of());

  @Test
  void each_short_commands_options_are_those_picocli_declares() {
    for (String command : FastPath.VALUED.keySet()) {
      CommandSpec spec = spec(command);
      Set<String> valued = new TreeSet<>();
      Set<String> flags = new TreeSet<>();
      for (OptionSpec option : spec.options()) {
        if (option.usageHelp() || option.versionHelp() || option.inherited()) {
          continue;
        }
        (option.arity().max() > 0 ? valued : flags).add(option.longestName());
      }
      assertEquals(valued, new TreeSet<>(FastPath.VALUED.get(command)), command + ": options with a value");
      assertEquals(flags, new TreeSet<>(FastPath.FLAGS.get(command)), command + ": flags");
    }
  }

  @Test
  void the_global_options_with_a_value_are_those_picocli_declares() {
    Set<String> valued = new TreeSet<>();
    Set<String> flags = new TreeSet<>();
    for (OptionSpec option : root.getCommandSpec().options()) {
      if (option.usageHelp() || option.versionHelp()) {
        continue;
      }
      (option.arity().max() > 0 ? valued : flags).add(option.longestName());
    }
    assertEquals(valued, new TreeSet<>(FastPath.GLOBAL_VALUED));
    assertEquals(Set.of("--quiet", "--verbose"), flags, "the flags FastPath reads: -q/--quiet, -v/--verbose");
  }

  @Test
  void every_command_name_is_known_as_one() {
    Set<String> names = new HashSet<>();
    collect(root, names);
    names.remove("orchestrate");
    assertTrue(FastPath.COMMAND_WORDS.containsAll(names), "missing: " + difference(names, FastPath.COMMAND_WORDS));
  }

  private CommandSpec spec(String command) {
    CommandLine line = root;
    for (String word : command.split(" ")) {
      line = line.getSubcommands().get(word);
    }
    return line.getCommandSpec();
  }

  private static void collect(CommandLine line, Set<String> names) {
    names.add(line.getCommandName());
    names.addAll(Set.of(line.getCommandSpec().aliases()));
    for (CommandLine sub : line.getSubcommands().values()) {
      collect(sub, names);
    }
  }

  private static Set<String> difference(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.removeAll(b);
    return out;
  }
}
