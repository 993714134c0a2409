package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.Fixtures;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated completion scripts, sourced in a real bash (and checked by a real fish when one
 * is installed); item ids come from a real state through {@code orchestrate __complete ids}, run
 * as a real JVM on the test classpath.
 */
class CompletionTest {
  @TempDir
  Path dir;

  private Path launcher;
  private Path script;

  @BeforeEach
  void launcherAndScript() throws Exception {
    launcher = dir.resolve("orchestrate");
    Files.writeString(launcher, "#!/usr/bin/env bash\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java")
        + "' -cp '" + System.getProperty("java.class.path") + "' dev.orchestrate.Main \"$@\"\n");
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    CliRunner.Result bash = CliRunner.run("completion", "bash");
    assertEquals(0, bash.exitCode(), bash.err());
    script = Files.writeString(dir.resolve("orchestrate.bash"), bash.out());
  }

  /** The candidates bash offers for the command line {@code words}, the last word being completed. */
  private List<String> complete(Path cwd, String... words) throws Exception {
    StringBuilder array = new StringBuilder("'" + launcher + "'");
    for (String w : words) {
      array.append(" '").append(w).append("'");
    }
    String program = "source '" + script + "'; COMP_WORDS=(" + array + "); COMP_CWORD=" + words.length
        + "; _orchestrate; printf '%s\\n' \"${COMPREPLY[@]}\"";
    Process p = new ProcessBuilder("bash", "-c", program).directory(cwd.toFile()).redirectErrorStream(true).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "bash completion did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out.lines().filter(l -> !l.isEmpty()).sorted().toList();
  }

  private Path projectWithItems(String... ids) throws IOException {
    Path project = Files.createDirectories(dir.resolve("project"));
    Path state = Files.createDirectories(project.resolve(".orchestrate"));
    try (StateStore store = TestStores.open(state)) {
      store.items().sync(Arrays.stream(ids).map(id -> Fixtures.item(id)).toList(),
          Instant.parse("2026-11-23T10:00:00Z"));
    }
    return project;
  }

  @Test
  void bash_completes_commands_subcommands_and_options() throws Exception {
    assertEquals(List.of("stats", "status"), complete(dir, "sta"));
    assertEquals(List.of("list"), complete(dir, "memory", "l"));
    assertEquals(List.of("--json"), complete(dir, "status", "--js"));
    assertEquals(List.of("--keep-recent"), complete(dir, "--quiet", "compact", "--keep"));
    assertEquals(List.of("bash"), complete(dir, "completion", "b"));
  }

  @Test
  void bash_completes_the_item_ids_of_the_project_for_status_unblock_and_logs() throws Exception {
    Path project = projectWithItems("API-1", "API-2", "DB-7");
    Path deeper = Files.createDirectories(project.resolve("src/main"));
    assertEquals(List.of("API-1", "API-2"), complete(deeper, "status", "AP"));
    assertEquals(List.of("API-1", "API-2", "DB-7"), complete(project, "unblock", "API-1", ""));
    assertEquals(List.of("DB-7"), complete(project, "logs", "D"));
    assertEquals(List.of(), complete(project, "jobs", "AP"), "jobs takes no id");
  }

  @Test
  void bash_asks_the_state_the_command_line_names() throws Exception {
    Path project = projectWithItems("X-1");
    assertEquals(List.of("X-1"),
        complete(dir, "--state", project.resolve(".orchestrate").toString(), "status", "X"));
  }

  @Test
  void complete_ids_prints_nothing_and_creates_nothing_without_a_state() throws Exception {
    CliRunner.Result r = CliRunner.run("--state", dir.resolve("none").toString(), "__complete", "ids");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertTrue(Files.notExists(dir.resolve("none")));
    CliRunner.Result help = CliRunner.run("--help");
    assertTrue(!help.out().contains("__complete"), "hidden from the help");
  }

  @Test
  void zsh_wraps_the_bash_script_and_fish_gets_its_own() throws Exception {
    String zsh = CliRunner.run("completion", "zsh").out();
    assertTrue(zsh.contains("bashcompinit") && zsh.contains("complete -o default -F _orchestrate orchestrate"), zsh);
    String fish = CliRunner.run("completion", "fish").out();
    assertTrue(fish.contains("complete -c orchestrate -n '__fish_use_subcommand' -a 'init run status"), fish);
    assertTrue(fish.contains("-a '(orchestrate __complete ids 2>/dev/null)'"), fish);
    assertTrue(fish.contains("complete -c orchestrate -n '__fish_seen_subcommand_from status' -l json"), fish);
    if (new ProcessBuilder("sh", "-c", "command -v fish").start().waitFor() == 0) {
      Path file = Files.writeString(dir.resolve("orchestrate.fish"), fish);
      Process p = new ProcessBuilder("fish", "--no-execute", file.toString()).redirectErrorStream(true).start();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
