package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A process builds the model of the command it runs only, unless help or a mistake needs them all. */
class LazyCommandModelTest {
  @TempDir
  Path dir;

  private static Optional<String> invoked(String... args) {
    return Cli.invoked(args);
  }

  @Test
  void the_command_after_the_root_options_is_the_only_one_built() {
    assertEquals(Optional.of("status"), invoked("status", "--json"));
    assertEquals(Optional.of("stats"), invoked("--state", "s", "--config=c.yaml", "-vv", "--quiet", "stats"));
    assertEquals(Optional.of("memory"), invoked("--log-level", "debug", "memory", "list", "--json"));
    assertEquals(Optional.of("compact"), invoked("--state=x", "compact", "--help"));
    assertEquals(List.of("status"), List.copyOf(
        Cli.commandLine(Map.of(), dir, invoked("status", "--json")).getSubcommands().keySet()));
  }

  @Test
  void help_completion_a_mistyped_command_or_an_unknown_root_option_build_every_command() {
    for (String[] args : List.of(new String[] {}, new String[] {"--help"}, new String[] {"help", "status"},
        new String[] {"completion", "bash"}, new String[] {"__complete", "ids"}, new String[] {"stauts"},
        new String[] {"--stat", "x", "status"}, new String[] {"-V"}, new String[] {"--state"})) {
      assertEquals(Optional.empty(), invoked(args), String.join(" ", args));
    }
    assertEquals(19, Cli.commandLine(Map.of(), dir, invoked("stauts")).getSubcommands().size()); // approve, reject, agents, diff, mcp too
  }

  @Test
  void a_command_built_alone_behaves_as_in_the_whole_model() throws Exception {
    String state = dir.resolve("state").toString();
    CliRunner.Result alone = CliRunner.run("--state", state, "stats", "--json");
    assertEquals(0, alone.exitCode(), alone.err());
    assertEquals("", alone.err());
    assertEquals("stats", new ObjectMapper().readTree(alone.out()).get("kind").asText());
    CliRunner.Result typo = CliRunner.run("--state", state, "stats", "--jsno");
    assertEquals(List.of("orchestrate: error: unknown option '--jsno'; did you mean '--json'? "
        + "(see 'orchestrate stats --help')"), typo.err().lines().toList());
  }
}
