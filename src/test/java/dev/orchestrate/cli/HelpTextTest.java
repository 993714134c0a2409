package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's {@code --help}, as a user sees it at picocli's default width of 80 columns:
 * picocli formats each description and footer line with {@code String.format}, so a bare
 * {@code %} ("85 %") made it print a warning instead of the help; and a hand-wrapped line wider than
 * the screen was broken again mid-phrase.
 */
class HelpTextTest {
  private static List<CommandLine> everyCommand(CommandLine root) {
    List<CommandLine> all = new ArrayList<>();
    all.add(root);
    for (CommandLine sub : root.getSubcommands().values()) {
      if (!all.contains(sub)) {
        all.addAll(everyCommand(sub));
      }
    }
    return all;
  }

  @Test
  void every_commands_help_renders_without_a_picocli_warning() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<String> names = new ArrayList<>();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (CommandLine command : everyCommand(Cli.commandLine(Map.of()))) {
        names.add(command.getCommandSpec().qualifiedName());
        String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertTrue(!help.isBlank(), command.getCommandSpec().qualifiedName());
      }
    } finally {
      System.setErr(stderr);
    }
    assertEquals("", captured.toString(StandardCharsets.UTF_8), "warnings while rendering " + names);
    assertTrue(names.size() >= 12, "every command and subcommand: " + names);
  }

  @Test
  void the_percent_signs_of_the_help_come_out_as_written() {
    String root = Cli.commandLine(Map.of()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertTrue(root.contains("(>= 85% of its limit)"), root);
    String stats = Cli.commandLine(Map.of()).getSubcommands().get("stats").getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertTrue(stats.contains("critical (>= 95%)"), stats);
  }

  @Test
  void table_and_example_lines_fit_80_columns_so_picocli_never_breaks_them() {
    for (CommandLine command : everyCommand(Cli.commandLine(Map.of()))) {
      CommandLine.Model.UsageMessageSpec usage = command.getCommandSpec().usageMessage();
      List<String> lines = new ArrayList<>(List.of(usage.description()));
      lines.addAll(List.of(usage.footer()));
      for (String line : lines) {
        // Lines that start with a space are laid out by hand (tables, examples); prose is wrapped by picocli.
        if (line.startsWith(" ")) {
          String shown = line.replace("%%", "%");
          assertTrue(shown.length() <= 80, command.getCommandSpec().qualifiedName() + ": " + shown.length()
              + " columns: " + shown);
        }
      }
    }
  }
}
