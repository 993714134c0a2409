package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What users bring from git and kubectl: did-you-mean, {@code help [COMMAND]}, {@code version}. */
class CliHabitsTest {
  @TempDir
  Path dir;

  private static void assertUsageError(CliRunner.Result r, String message) {
    assertEquals(2, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertEquals(List.of("orchestrate: error: " + message), r.err().lines().toList());
  }

  @Test
  void a_mistyped_command_gets_one_line_with_the_closest_command_and_exit_2() {
    assertUsageError(CliRunner.run("stauts"),
        "unknown command 'stauts'; did you mean 'status'? (see 'orchestrate --help')");
    assertUsageError(CliRunner.run("memory", "lsit"),
        "unknown command 'lsit'; did you mean 'list'? (see 'orchestrate memory --help')");
    assertUsageError(CliRunner.run("frobnicate"), "unknown command 'frobnicate' (see 'orchestrate --help')");
  }

  @Test
  void a_mistyped_option_gets_one_line_with_the_closest_option_and_exit_2() {
    assertUsageError(CliRunner.run("--state", dir.toString(), "status", "--jsno"),
        "unknown option '--jsno'; did you mean '--json'? (see 'orchestrate status --help')");
    assertUsageError(CliRunner.run("compact", "--keep-recnet=3"),
        "unknown option '--keep-recnet'; did you mean '--keep-recent'? (see 'orchestrate compact --help')");
    assertUsageError(CliRunner.run("status", "-x"), "unknown option '-x' (see 'orchestrate status --help')");
  }

  @Test
  void help_and_help_command_print_the_usage_and_version_prints_the_version() {
    CliRunner.Result help = CliRunner.run("help");
    assertEquals(0, help.exitCode(), help.err());
    assertTrue(help.out().startsWith("Usage: orchestrate "), help.out());
    CliRunner.Result status = CliRunner.run("help", "status");
    assertEquals(0, status.exitCode(), status.err());
    assertTrue(status.out().startsWith("Usage: orchestrate status "), status.out());
    CliRunner.Result version = CliRunner.run("version");
    assertEquals(0, version.exitCode(), version.err());
    assertEquals(CliRunner.run("--version").out(), version.out());
    assertTrue(version.out().startsWith("orchestrate "), version.out());
  }

  @Test
  void only_the_commands_that_read_a_config_show_config_in_their_help() {
    CommandLine root = Cli.commandLine(java.util.Map.of());
    for (String name : List.of("init", "status", "unblock", "jobs", "logs", "memory", "stats", "version")) {
      String help = root.getSubcommands().get(name).getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertFalse(help.contains("--config"), name + " never reads a config:\n" + help);
    }
    String list = root.getSubcommands().get("memory").getSubcommands().get("list")
        .getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertFalse(list.contains("--config"), list);
    for (String name : List.of("run", "compact")) {
      String help = root.getSubcommands().get(name).getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertTrue(help.contains("--config=FILE"), name + ":\n" + help);
    }
  }

  @Test
  void config_is_still_accepted_after_a_command_that_does_not_read_it() {
    CliRunner.Result r = CliRunner.run("status", "--state", dir.resolve("state").toString(), "--config",
        dir.resolve("unused.yaml").toString());
    assertEquals(0, r.exitCode(), r.err());
  }
}
