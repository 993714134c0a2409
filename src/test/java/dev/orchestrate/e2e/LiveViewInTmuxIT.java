package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live view as a person sees it: {@code orchestrate run} through the real launcher in a real
 * terminal (a tmux pane of a fixed size), its screen read with {@code capture-pane} while jobs run
 * and the window is resized, and its scrollback read at the end.
 */
class LiveViewInTmuxIT {
  private static String tmux;
  private static final Pattern HEADER = Pattern.compile(
      "orchestrate run · (\\d+)/(\\d+) done( · \\d+ blocked)? · \\d+ phases? · \\d+:\\d\\d elapsed( · ETA \\d+:\\d\\d)?");
  private static final Pattern JOB = Pattern.compile("▶ WRK-\\d+ work \\(attempt 1\\) \\d+:\\d\\d");
  private static final Pattern BAR = Pattern.compile("[█░]+ \\d+%");

  @TempDir
  Path dir;

  @BeforeAll
  static void needsTmux() {
    tmux = OnPath.require("the live view's terminal tests are skipped; the VT100 model test (LiveViewTest) still runs",
        OnPath.Tool.TMUX)[0].toString();
  }

  @Test
  void one_job_at_a_time_keeps_one_header_and_one_job_line() throws Exception {
    watch(1, 3, false, false);
  }

  @Test
  void two_concurrent_jobs_each_keep_their_line_under_an_intact_header_through_a_resize() throws Exception {
    watch(2, 4, true, false);
  }

  @Test
  void four_concurrent_jobs_each_keep_their_line_under_an_intact_header_through_a_resize() throws Exception {
    watch(4, 8, true, false);
  }

  @Test
  void agent_text_cannot_retitle_the_window_clear_it_or_forge_a_line() throws Exception {
    Path project = project(1);
    Files.writeString(project.resolve("agent.sh"),
        """
            if [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
              printf '%s' '{"result": "failed", "context": "boom\\u001b]2;pwned\\u0007\\u001b[2J\\r\\n99:99:99 FORGED line"}' \\
                > "$ORCHESTRATE_RESULT_FILE"
              exit 1
            fi
            printf '{"result": "phase_complete"}' > "$ORCHESTRATE_RESULT_FILE"
            """);
    Path socket = dir.resolve("tmux.sock");
    String command = "cd " + project + " && " + Launcher.BIN + " --state " + project.resolve("state")
        + " run backlog.yaml; echo \"EXIT $?\"; sleep 600";
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "it", "-x", "120", "-y", "40", "bash", "-c", command);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (capture(socket, false).lines().noneMatch(l -> l.startsWith("EXIT "))) {
        assertTrue(System.nanoTime() < deadline, "the run did not end in 120 s:\n" + capture(socket, false));
        Thread.sleep(200);
      }
      String title = tmux(socket, "display-message", "-p", "-t", "it", "#{pane_title}").strip();
      assertTrue(!title.contains("pwned"), "the pane's title is untouched: " + title);
      List<String> all = capture(socket, true).lines().toList();
      assertTrue(all.stream().noneMatch(l -> l.startsWith("99:99:99 FORGED")), String.join("\n", all));
      assertTrue(all.stream().anyMatch(l -> l.contains("(will retry): boom\\x1b]2;pwned\\x07\\x1b[2J")),
          String.join("\n", all));
      assertTrue(all.stream().anyMatch(l -> l.startsWith("EXIT 0")), String.join("\n", all));
    } finally {
      tmux(socket, "kill-server");
    }
  }

  @Test
  void with_only_the_header_counts_the_items_the_run_works_on() throws Exception {
    watch(2, 6, false, true);
  }

  /**
   * Runs {@code items} items, {@code jobs} at once, in a 120x40 pane, checking every screen it
   * sees; with {@code evenOnly}, {@code --only tag=even} leaves the odd-numbered items out.
   */
  private void watch(int jobs, int items, boolean resize, boolean evenOnly) throws Exception {
    Path project = project(items);
    int worked = evenOnly ? items / 2 : items;
    Path socket = dir.resolve("tmux.sock");
    String command = "cd " + project + " && " + Launcher.BIN + " --state " + project.resolve("state")
        + " run --max-concurrent " + jobs + " --max-wip " + jobs + (evenOnly ? " --only tag=even" : "")
        + " backlog.yaml; echo \"EXIT $?\"; sleep 600";
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "it", "-x", "120", "-y", "40", "bash", "-c", command);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      int mostJobs = 0;
      int screens = 0;
      boolean resized = !resize;
      boolean restored = !resize;
      List<String> screen;
      while (true) {
        assertTrue(System.nanoTime() < deadline, "the run did not end in 120 s:\n" + capture(socket, false));
        String text = capture(socket, false);
        screen = text.lines().toList();
        if (screen.stream().anyMatch(l -> l.startsWith("EXIT "))) {
          break;
        }
        if (screen.stream().anyMatch(l -> l.startsWith("orchestrate run · ") && !l.contains("loading"))) {
          screens++;
          int shown = check(screen, jobs, worked, text);
          mostJobs = Math.max(mostJobs, shown);
          if (!resized && shown == jobs) {
            tmux(socket, "resize-window", "-t", "it", "-x", "90", "-y", "24");
            resized = true;
          } else if (resized && !restored && screens % 5 == 0) {
            tmux(socket, "resize-window", "-t", "it", "-x", "120", "-y", "40");
            restored = true;
          }
        }
        Thread.sleep(150);
      }
      assertTrue(screens > 0, "never saw the live view:\n" + String.join("\n", screen));
      assertEquals(jobs, mostJobs, "never saw " + jobs + " jobs at once");
      String exit = screen.stream().filter(l -> l.startsWith("EXIT ")).findFirst().orElseThrow();
      assertEquals("EXIT 0", exit, String.join("\n", screen));

      List<String> all = capture(socket, true).lines().toList();
      assertEquals(0, all.stream().filter(l -> l.contains("orchestrate run · ")).count(),
          "the area is gone at the end and never went to the scrollback:\n" + String.join("\n", all));
      for (int i = evenOnly ? 2 : 1; i <= items; i += evenOnly ? 2 : 1) {
        String id = "WRK-" + i;
        assertEquals(1,
            all.stream().filter(l -> l.matches("\\d\\d:\\d\\d:\\d\\d " + id + " work \\(attempt 1\\) started"))
                .count(),
            id + "'s start line, once, intact:\n" + String.join("\n", all));
        assertEquals(1, all.stream().filter(l -> l.matches("\\d\\d:\\d\\d:\\d\\d " + id
            + " work: phase_complete in \\d+\\.\\ds -> done")).count(), id + "'s end line, once, intact:\n"
                + String.join("\n", all));
      }
      assertTrue(all.stream().noneMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d WRK-\\d*[13579] .*")) || !evenOnly,
          "the odd items are left alone:\n" + String.join("\n", all));
      assertTrue(all.stream().anyMatch(l -> l.contains("items: " + items + " total, " + worked + " done")),
          String.join("\n", all));
    } finally {
      tmux(socket, "kill-server");
    }
  }

  /** Checks one screen of a run in progress; returns how many job lines it shows. */
  private static int check(List<String> screen, int jobs, int items, String text) {
    List<String> headers = screen.stream().filter(l -> l.contains("orchestrate run · ")).toList();
    assertEquals(1, headers.size(), "one header:\n" + text);
    var header = HEADER.matcher(headers.get(0).strip());
    if (!header.matches()) {
      // a cut header ends in "…" on a narrow screen; the counts are at its start
      assertTrue(headers.get(0).endsWith("…") && headers.get(0).startsWith("orchestrate run · "),
          "an intact header:\n" + text);
    } else {
      assertEquals(Integer.toString(items), header.group(2), "the total is the items of the run:\n" + text);
    }
    int at = screen.indexOf(headers.get(0));
    assertTrue(BAR.matcher(screen.get(at + 1).strip()).matches(), "the progress bar under the header:\n" + text);
    List<String> jobLines = screen.stream().filter(l -> l.contains("▶")).toList();
    assertTrue(jobLines.size() <= jobs, "at most " + jobs + " job lines:\n" + text);
    for (String line : jobLines) {
      assertTrue(JOB.matcher(line.strip()).matches(), "an intact job line: '" + line + "'\n" + text);
    }
    assertEquals(jobLines.size(), jobLines.stream().map(l -> l.substring(0, l.indexOf(" work"))).distinct().count(),
        "one line per job:\n" + text);
    for (String line : screen) {
      assertTrue(!line.strip().matches("\\d+") && !line.strip().matches("[\\d:]+"), "a stray number:\n" + text);
    }
    for (String line : screen.subList(0, at)) {
      assertTrue(line.isBlank() || line.matches("\\d\\d:\\d\\d:\\d\\d WRK-\\d+ .*"),
          "above the area only progress lines: '" + line + "'\n" + text);
    }
    return jobLines.size();
  }

  private Path project(int items) throws IOException {
    Path project = dir.resolve("project");
    Files.createDirectories(project);
    Files.writeString(project.resolve("agent.sh"), """
        echo "working on $ORCHESTRATE_ITEM_ID"
        sleep 2
        printf '{"result": "phase_complete", "summary": "did it"}' > "$ORCHESTRATE_RESULT_FILE"
        """);
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          timeout: 60s
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: work
                instructions: "Work."
        """);
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= items; i++) {
      backlog.append("  - id: WRK-").append(i).append("\n    title: item ").append(i)
          .append("\n    tags: [").append(i % 2 == 0 ? "even" : "odd").append("]\n");
    }
    Files.writeString(project.resolve("backlog.yaml"), backlog.toString());
    return project;
  }

  private static String capture(Path socket, boolean withHistory) throws IOException, InterruptedException {
    return withHistory ? tmux(socket, "capture-pane", "-p", "-t", "it", "-S", "-", "-E", "-")
        : tmux(socket, "capture-pane", "-p", "-t", "it");
  }

  private static String tmux(Path socket, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(tmux, "-S", socket.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove("TMUX");
    pb.environment().remove("ORCHESTRATE_NO_LIVE");
    pb.environment().remove("NO_COLOR");
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
