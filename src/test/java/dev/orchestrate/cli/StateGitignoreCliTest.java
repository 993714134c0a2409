package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state directory is git-ignored from the moment orchestrate creates it, in the default
 * shared workspace too: a {@code git add -A} by the user or an agent never commits the database
 * and the job logs (issue 30, item 4).
 */
class StateGitignoreCliTest {
  @TempDir
  Path dir;

  private static List<String> ignoreLines(Path state) throws Exception {
    return Files.readAllLines(state.resolve(".gitignore")).stream().filter(l -> !l.startsWith("#")).toList();
  }

  private Path project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, "echo done > \"$ORCHESTRATE_ITEM_ID.txt\"\n");
    TwoPhaseProject.config(dir, agent);
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - {id: A, title: a}\n");
    return backlog;
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> argv = new java.util.ArrayList<>(List.of("git", "-c", "user.name=t", "-c", "user.email=t@t"));
    argv.addAll(List.of(args));
    Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    return out;
  }

  @Test
  void init_writes_a_gitignore_of_everything_into_the_new_state_directory() throws Exception {
    CliRunner.Result r = CliRunner.run("init", dir.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("*"), ignoreLines(dir.resolve(".orchestrate")));
    assertTrue(r.out().contains(".orchestrate/ with a .gitignore of *"), r.out());
  }

  @Test
  void the_first_shared_workspace_run_in_a_git_checkout_leaves_the_state_out_of_git_add() throws Exception {
    Path backlog = project();
    git(dir, "init", "-q");
    CliRunner.Result r = CliRunner.runIn(dir, Map.of(), "run", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("*"), ignoreLines(dir.resolve(".orchestrate")));
    git(dir, "add", "-A");
    String staged = git(dir, "diff", "--cached", "--name-only");
    assertFalse(staged.contains(".orchestrate"), staged);
    assertTrue(staged.contains("A.txt"), staged);
  }

  @Test
  void a_users_gitignore_is_never_overwritten_nor_written_through_a_link() throws Exception {
    Path backlog = project();
    Path mine = dir.resolve("mine");
    Files.createDirectory(mine);
    // an empty directory with a link as its .gitignore pointing at a file that does not exist
    Path outside = dir.resolve("outside.txt");
    Files.createSymbolicLink(mine.resolve(".gitignore"), outside);
    CliRunner.Result r = CliRunner.run("--state", mine.toString(), "run", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(Files.isSymbolicLink(mine.resolve(".gitignore")));
    assertFalse(Files.exists(outside, LinkOption.NOFOLLOW_LINKS));

    Path own = dir.resolve("own");
    Files.createDirectory(own);
    Files.writeString(own.resolve(".gitignore"), "state.db\n");
    assertEquals(0, CliRunner.run("--state", own.toString(), "run", backlog.toString()).exitCode());
    assertEquals("state.db\n", Files.readString(own.resolve(".gitignore")));
  }

  @Test
  void a_state_directory_that_already_holds_other_files_gets_no_gitignore() throws Exception {
    Path backlog = project();
    Path chosen = dir.resolve("chosen");
    Files.createDirectory(chosen);
    Files.writeString(chosen.resolve("notes.txt"), "mine\n");
    assertEquals(0, CliRunner.run("--state", chosen.toString(), "run", backlog.toString()).exitCode());
    assertFalse(Files.exists(chosen.resolve(".gitignore"), LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void memory_add_creating_a_state_git_ignores_it_too() throws Exception {
    Path state = dir.resolve("fresh/.orchestrate");
    CliRunner.Result r = CliRunner.run("--state", state.toString(), "memory", "add", "--kind", "semantic", "x");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("*"), ignoreLines(state));
  }
}
