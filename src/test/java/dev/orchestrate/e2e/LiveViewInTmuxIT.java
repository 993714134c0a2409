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

  /**
   * The pane grows to 60 rows while the screen has scrolled nothing into its history: tmux adds the
   * rows at the bottom, so the old area stays where it was, in the middle, and the view must find it
   * there (from the cursor) to erase it; painted at the new bottom alone, it left a stale copy.
   */
  @Test
  void two_concurrent_jobs_keep_one_area_when_the_pane_grows_past_its_history() throws Exception {
    watch(2, 4, true, false, 60);
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
    Path socket = startRun(project, " backlog.yaml");
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

  /**
   * A backlog from a command whose {@code on_done} fails (issue 47): its warning is printed above
   * the status area as a line of its own, like the progress lines, never into the area.
   */
  @Test
  void a_transition_commands_warning_is_a_line_above_the_area() throws Exception {
    Path project = project(0);
    Files.writeString(project.resolve("issues.sh"), """
        printf '[{"number": 1, "title": "one"}, {"number": 2, "title": "two"}, {"number": 3, "title": "three"}]'
        """);
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          timeout: 60s
        execution: {max_concurrent: 2}
        backlog:
          source:
            command: ["bash", "issues.sh"]
            id_prefix: GH-
            on_done: "echo closing {source_id} >&2; exit 3"
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: work
                instructions: "Work."
        """);
    Path socket = startRun(project, "");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (capture(socket, false).lines().noneMatch(l -> l.startsWith("EXIT "))) {
        assertTrue(System.nanoTime() < deadline, "the run did not end in 120 s:\n" + capture(socket, false));
        String screen = capture(socket, false);
        for (String line : screen.lines().toList()) {
          assertTrue(!line.contains("warning:") || line.startsWith("warning: backlog.source.on_done for GH-"),
              "a warning inside another line:\n" + screen);
        }
        Thread.sleep(100);
      }
      List<String> all = capture(socket, true).lines().toList();
      for (int i = 1; i <= 3; i++) {
        String id = "GH-" + i;
        assertEquals(1, all.stream().filter(l -> l.startsWith("warning: backlog.source.on_done for " + id + " failed"))
            .count(), id + "'s warning, once, as a line of its own:\n" + String.join("\n", all));
      }
      assertTrue(all.stream().noneMatch(l -> !l.startsWith("warning:") && l.contains("warning:")),
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
   * A provider's pause as a person sees it (issue 44, item 5): an agent speaking Claude Code's
   * stream-json does items 1 and 2, then refuses items 3 and 4 (both running at once) with its usage
   * limit and a reset 5 s ahead, so claude pauses until the reset plus 30 s with
   * {@code on_usage_limit: wait}. While it waits the status area shows the pause with its end to the
   * second and a countdown that moves, the ETA is at least the pause's time left (it does not count
   * down through it), the refused attempts are no phases, and the lines above tell the pause once.
   * Then Ctrl-C: the pause is not waited out, to keep the suite short.
   */
  @Test
  void a_provider_pause_shows_its_end_and_a_countdown_and_holds_the_eta() throws Exception {
    Path project = limitedProject();
    Path socket = startRun(project, " backlog.yaml");
    try {
      Pattern row = Pattern
          .compile("⏸ claude paused until (\\d\\d:\\d\\d:\\d\\d) \\((\\d+):(\\d\\d) left\\), usage limit");
      Pattern eta = Pattern.compile(" · ETA (\\d+):(\\d\\d)$");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      List<Integer> lefts = new ArrayList<>();
      String end = null;
      while (lefts.size() < 2 || lefts.get(0).equals(lefts.get(lefts.size() - 1))) {
        String text = capture(socket, false);
        assertTrue(System.nanoTime() < deadline, "never saw the pause count down:\n" + text);
        assertTrue(text.lines().noneMatch(l -> l.startsWith("EXIT ")), "the run ended:\n" + text);
        var pause = text.lines().map(l -> row.matcher(l.strip())).filter(java.util.regex.Matcher::matches)
            .findFirst();
        if (pause.isPresent() && text.lines().noneMatch(l -> l.contains("▶"))) { // the second refusal seen too
          int left = Integer.parseInt(pause.get().group(2)) * 60 + Integer.parseInt(pause.get().group(3));
          assertTrue(end == null || end.equals(pause.get().group(1)), "one end:\n" + text);
          end = pause.get().group(1);
          String header = text.lines().filter(l -> l.startsWith("orchestrate run · ")).findFirst().orElseThrow();
          assertTrue(header.contains(" · 2/4 done · 2 phases · "), "the refused attempts are no phases:\n" + text);
          var e = eta.matcher(header.strip());
          assertTrue(e.find(), "an ETA after two jobs:\n" + text);
          int etaSeconds = Integer.parseInt(e.group(1)) * 60 + Integer.parseInt(e.group(2));
          assertTrue(etaSeconds >= left, "the ETA holds the pause:\n" + text);
          assertTrue(left > 0 && left <= 35, "the time left:\n" + text);
          lefts.add(left);
        }
        Thread.sleep(300);
      }
      assertTrue(lefts.get(lefts.size() - 1) < lefts.get(0), "the countdown moves: " + lefts);
      tmux(socket, "send-keys", "-t", "it", "C-c");
      while (capture(socket, false).lines().noneMatch(l -> l.startsWith("EXIT "))) {
        assertTrue(System.nanoTime() < deadline, "the run did not stop:\n" + capture(socket, false));
        Thread.sleep(200);
      }
      List<String> all = capture(socket, true).lines().toList();
      assertEquals(1, all.stream().filter(l -> l.matches("\\d\\d:\\d\\d:\\d\\d claude paused until .*, usage limit"))
          .count(), "the pause told once for the two jobs it refused:\n" + String.join("\n", all));
      assertEquals(2, all.stream().filter(l -> l.contains(" (usage_limit, not counted): ")).count(),
          String.join("\n", all));
      assertTrue(all.stream().anyMatch(l -> l.startsWith("EXIT 130")), String.join("\n", all));
      assertEquals(0, all.stream().filter(l -> l.contains("⏸")).count(),
          "the area is gone:\n" + String.join("\n", all));
    } finally {
      tmux(socket, "kill-server");
    }
  }

  /**
   * Four items of one phase, two at a time, done by a fake claude: calls 1 and 2 succeed, later ones
   * are refused with the usage limit until a reset 5 s after the first refusal (each refusal after
   * a second, so that the second job is refused while the first is, not held back by its pause).
   */
  private Path limitedProject() throws IOException {
    Path project = dir.resolve("project");
    Path provider = dir.resolve("provider");
    Files.createDirectories(project);
    Files.createDirectories(provider);
    Path claude = project.resolve("claude");
    Files.writeString(claude,
        """
            #!/usr/bin/env bash
            cat > /dev/null
            state='%s'
            until mkdir "$state/lock" 2>/dev/null; do sleep 0.01; done
            n=$(( $(cat "$state/calls" 2>/dev/null || echo 0) + 1 )); echo $n > "$state/calls"
            now=$(date +%%s)
            if [ $n -gt 2 ] && [ ! -f "$state/reset" ]; then echo $(( now + 5 )) > "$state/reset"; fi
            reset=$(cat "$state/reset" 2>/dev/null || echo 0)
            rmdir "$state/lock"
            echo '{"type":"system","subtype":"init","session_id":"s-'$n'"}'
            if [ $n -gt 2 ]; then
              sleep 1
              echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":'$reset',"rateLimitType":"five_hour"}}'
              echo '{"type":"result","subtype":"success","is_error":true,"result":"You'"'"'ve hit your 5-hour limit · resets soon","total_cost_usd":0}'
              exit 1
            fi
            sleep 0.3
            echo '{"type":"result","subtype":"success","is_error":false,"result":"did it","total_cost_usd":0.001,"usage":{"input_tokens":10,"output_tokens":2}}'
            """
            .formatted(provider));
    Files.setPosixFilePermissions(claude, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          preset: claude
          command: ["%s"]
          timeout: 60s
          on_usage_limit: wait
          max_wait: 10m
        execution: {max_concurrent: 2, max_wip: 2}
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: work
                instructions: "Work."
        """.formatted(claude));
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= 4; i++) {
      backlog.append("  - {id: WRK-").append(i).append(", title: item ").append(i).append("}\n");
    }
    Files.writeString(project.resolve("backlog.yaml"), backlog.toString());
    return project;
  }

  /**
   * Runs {@code items} items, {@code jobs} at once, in a 120x40 pane, checking every screen it
   * sees; with {@code evenOnly}, {@code --only tag=even} leaves the odd-numbered items out.
   */
  private void watch(int jobs, int items, boolean resize, boolean evenOnly) throws Exception {
    watch(jobs, items, resize, evenOnly, 24);
  }

  /** {@link #watch}, resized to {@code rows} rows (and 90 columns when fewer than 40), restored only after a shrink. */
  private void watch(int jobs, int items, boolean resize, boolean evenOnly, int rows) throws Exception {
    Path project = project(items);
    int worked = evenOnly ? items / 2 : items;
    Path socket = startRun(project, " --max-concurrent " + jobs + " --max-wip " + jobs
        + (evenOnly ? " --only tag=even" : "") + " backlog.yaml");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      int mostJobs = 0;
      int screens = 0;
      boolean resized = !resize;
      boolean restored = !resize || rows > 40;
      long resizedAt = System.nanoTime() - TimeUnit.SECONDS.toNanos(60);
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
          int shown;
          try {
            shown = check(screen, jobs, worked, text);
          } catch (AssertionError e) {
            // tmux's own reflow of a resized window shows until the view's redraw (its SIGWINCH, a
            // tick): on a loaded machine a capture can fall between them; a screen that stays wrong
            // past that fails
            if (System.nanoTime() - resizedAt > TimeUnit.SECONDS.toNanos(3)) {
              throw e;
            }
            Thread.sleep(150);
            continue;
          }
          mostJobs = Math.max(mostJobs, shown);
          if (!resized && shown == jobs) {
            tmux(socket, "resize-window", "-t", "it", "-x", rows < 40 ? "90" : "120", "-y", Integer.toString(rows));
            resized = true;
            resizedAt = System.nanoTime();
          } else if (resized && !restored && screens % 5 == 0) {
            tmux(socket, "resize-window", "-t", "it", "-x", "120", "-y", "40");
            restored = true;
            resizedAt = System.nanoTime();
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

  /**
   * {@code orchestrate run ARGS} in {@code project}, in a 120x40 pane of a tmux server of its own,
   * followed by "EXIT n" and a wait; returns the server's socket.
   */
  private Path startRun(Path project, String args) throws IOException, InterruptedException {
    Path socket = dir.resolve("tmux.sock");
    String command = "cd " + project + " && " + Launcher.BIN + " --state " + project.resolve("state") + " run" + args
        + "; echo \"EXIT $?\"; sleep 600";
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "it", "-x", "120", "-y", "40", "bash", "-c", command);
    return socket;
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
