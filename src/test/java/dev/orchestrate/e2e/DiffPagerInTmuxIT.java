package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code orchestrate diff ID} in a real terminal (issue 45, item 2): through the real launcher in a
 * tmux pane, a change longer than the screen is paged like {@code git diff} (by {@code less -FRX}
 * when neither {@code ORCHESTRATE_PAGER} nor {@code PAGER} is set): the first screen shows the
 * patch's start, the command waits in the pager until {@code q}, then exits 0; what the agent wrote
 * to make the terminal retitle itself arrives as visible text (the
 * pane's title untouched). Piped, the same command pages
 * nothing.
 */
class DiffPagerInTmuxIT {
  private static String tmux;

  @TempDir
  Path dir;

  @BeforeAll
  static void needsTmux() {
    tmux = OnPath.require("the pager's terminal test is skipped; DiffCommandTest still covers the pager's choice",
        OnPath.Tool.TMUX)[0].toString();
  }

  /** A worktree project whose item A awaits review with 300 new lines and a hostile line. */
  private GitRepo project() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Files.writeString(dir.resolve("agent.sh"), """
        seq 1 300 | sed 's/^/line /' > long.txt
        printf 'title \\033]2;pwned\\007 end\\n' > hostile.txt
        echo done
        """);
    repo.write("README.md", "a project\n");
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a long change}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            review: required
            phases:
              - {name: work, instructions: "Work."}
        """.formatted(dir.resolve("agent.sh")));
    repo.commitAll("project");
    Launcher.Result run = Launcher.run(repo.dir, "--state", repo.dir.resolve(".orchestrate").toString(), "--quiet",
        "run", "--no-live", "backlog.yaml");
    assertEquals(0, run.exitCode(), run.out() + run.err());
    return repo;
  }

  @Test
  void a_long_diff_waits_in_the_pager_on_a_terminal_and_pages_nothing_when_piped() throws Exception {
    GitRepo repo = project();
    String diff = Launcher.BIN + " --state " + repo.dir.resolve(".orchestrate") + " diff A";
    Path socket = dir.resolve("tmux.sock");
    String command = "cd " + repo.dir + " && env -u PAGER -u ORCHESTRATE_PAGER -u LESS " + diff
        + "; echo \"EXIT $?\"; " + diff + " | wc -l | sed 's/^/PIPED /'; sleep 600";
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "it", "-x", "100", "-y", "30", "bash", "-c", command);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      String screen = capture(socket);
      while (!screen.contains("+line 10")) {
        assertTrue(System.nanoTime() < deadline, "the diff never showed:\n" + screen
            + tmux(socket, "capture-pane", "-p", "-t", "it", "-S", "-", "-E", "-"));
        Thread.sleep(200);
        screen = capture(socket);
      }
      Thread.sleep(500); // the command would have ended by now were it not in the pager
      screen = capture(socket);
      assertTrue(screen.lines().anyMatch(l -> l.startsWith("diff --git a/")), "the patch's start:\n" + screen);
      assertTrue(screen.lines().noneMatch(l -> l.startsWith("EXIT ")), "it waits in the pager:\n" + screen);
      assertTrue(!screen.contains("+line 300"), "one screen, not the whole patch:\n" + screen);
      String title = tmux(socket, "display-message", "-p", "-t", "it", "#{pane_title}").strip();
      assertTrue(!title.contains("pwned"), "the pane's title is untouched: " + title);

      assertTrue(screen.contains("+title \\x1b]2;pwned\\x07 end"), "the agent's escape as text:\n" + screen);
      tmux(socket, "send-keys", "-t", "it", "q");
      while (capture(socket).lines().noneMatch(l -> l.startsWith("PIPED "))) {
        assertTrue(System.nanoTime() < deadline, "the pager did not end on q:\n" + capture(socket));
        Thread.sleep(200);
      }
      screen = capture(socket);
      assertTrue(screen.lines().anyMatch(l -> l.equals("EXIT 0")), screen);
      int piped = screen.lines().filter(l -> l.startsWith("PIPED ")).map(l -> Integer.parseInt(l.substring(6).strip()))
          .findFirst().orElseThrow();
      assertTrue(piped > 300, "piped, the whole patch went through: " + piped + " lines");
      title = tmux(socket, "display-message", "-p", "-t", "it", "#{pane_title}").strip();
      assertTrue(!title.contains("pwned"), "the pane's title is untouched after the end: " + title);
    } finally {
      tmux(socket, "kill-server");
    }
  }

  private static String capture(Path socket) throws IOException, InterruptedException {
    return tmux(socket, "capture-pane", "-p", "-t", "it");
  }

  private static String tmux(Path socket, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(tmux, "-S", socket.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove("TMUX");
    pb.environment().put("TERM", "xterm-256color");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("tmux " + String.join(" ", args) + " hung");
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
