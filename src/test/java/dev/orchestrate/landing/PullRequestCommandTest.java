package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ProjectCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** execution.pull_request as a real process: its environment, its timeout, a program that is not there. */
class PullRequestCommandTest {
  @TempDir
  Path tmp;

  private static final Map<String, String> VALUES = Map.of("branch", "orchestrate/A", "base", "main", "item", "A",
      "title", "T", "body_file", "/b");

  @Test
  void it_sees_the_placeholders_as_variables_and_no_git_variable() {
    PullRequestCommand.Outcome run = PullRequestCommand.run(ProjectCommand.shell("pull_request",
        "echo \"$ORCHESTRATE_PR_ITEM $ORCHESTRATE_PR_BRANCH $ORCHESTRATE_PR_BODY_FILE\"; env | grep -c '^GIT_' || true",
        Duration.ofSeconds(30)), VALUES, tmp);
    assertTrue(run.ok(), run.toString());
    assertEquals(List.of("A orchestrate/A /b", "0"), run.output().lines().toList());
  }

  @Test
  void a_command_past_its_timeout_is_stopped_with_what_it_started() throws Exception {
    Path pid = tmp.resolve("child.pid");
    long start = System.nanoTime();
    PullRequestCommand.Outcome run = PullRequestCommand.run(ProjectCommand.shell("pull_request",
        "echo started; sleep 60 & echo $! > " + pid + "; wait", Duration.ofSeconds(1)), VALUES, tmp);
    assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(20)) < 0);
    assertFalse(run.ok());
    assertNull(run.exitCode());
    assertEquals("execution.pull_request did not finish within 1 s and was stopped", run.failure());
    assertEquals("started", run.output().strip());
    long child = Long.parseLong(Files.readString(pid).strip());
    for (int i = 0; i < 50 && ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false); i++) {
      Thread.sleep(100);
    }
    assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "its child was stopped too");
  }

  @Test
  void a_stop_from_another_thread_gives_term_then_kill_to_the_command_and_its_children() throws Exception {
    Path pid = tmp.resolve("child.pid");
    Path termed = tmp.resolve("termed");
    PullRequestCommand.Stopper stopper = new PullRequestCommand.Stopper();
    java.util.concurrent.CompletableFuture<PullRequestCommand.Outcome> running = java.util.concurrent.CompletableFuture
        .supplyAsync(() -> PullRequestCommand.run(ProjectCommand.shell("checks",
            // the shell notes the TERM and goes on; its child ignores it: only the KILL ends them
            "trap 'echo term > " + termed + "' TERM; sh -c 'trap \"\" TERM; sleep 60' & echo $! > " + pid
                + "; while :; do wait; done",
            Duration.ofSeconds(120)), VALUES, tmp, stopper));
    for (int i = 0; i < 100 && !Files.exists(pid); i++) {
      Thread.sleep(50);
    }
    long start = System.nanoTime();
    stopper.stop();
    PullRequestCommand.Outcome run = running.get(30, java.util.concurrent.TimeUnit.SECONDS);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(took.compareTo(PullRequestCommand.Stopper.GRACE) >= 0, "KILL after the grace: " + took);
    assertTrue(took.compareTo(Duration.ofSeconds(15)) < 0, took.toString());
    assertNull(run.exitCode());
    assertEquals("execution.checks was stopped", run.failure());
    assertTrue(Files.exists(termed), "TERM came first");
    long child = Long.parseLong(Files.readString(pid).strip());
    for (int i = 0; i < 50 && ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false); i++) {
      Thread.sleep(100);
    }
    assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "its child was killed too");

    PullRequestCommand.Outcome never = PullRequestCommand.run(ProjectCommand.shell("checks", "touch "
        + tmp.resolve("ran"), Duration.ofSeconds(5)), VALUES, tmp, stopper);
    assertNull(never.exitCode());
    assertFalse(Files.exists(tmp.resolve("ran")), "a stopped command never starts");
  }

  /** A stop between a command's start and its registration (the verify of 2026-12-01 met it): TERM, the grace, then KILL all the same. */
  @Test
  void a_stop_that_comes_between_the_start_and_its_registration_gives_term_then_kill() throws Exception {
    Path termed = tmp.resolve("termed");
    Path ready = tmp.resolve("ready");
    Process p = new ProcessBuilder("sh", "-c", "trap 'echo term > " + termed + "' TERM; touch " + ready
        + "; while :; do sleep 0.05; done").redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    for (int i = 0; i < 100 && !Files.exists(ready); i++) {
      Thread.sleep(50);
    }
    PullRequestCommand.Stopper stopper = new PullRequestCommand.Stopper();
    long start = System.nanoTime();
    stopper.stop(); // nothing registered yet
    stopper.started(p);
    assertTrue(p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS), "ended");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(took.compareTo(PullRequestCommand.Stopper.GRACE) >= 0, "KILL after the grace: " + took + " exit "
        + p.exitValue());
    assertTrue(Files.exists(termed), "TERM came first");
  }

  @Test
  void a_stopped_shell_runs_no_further_line_when_its_child_dies_first() throws Exception {
    // The TERM reached the child before the shell, once in a while, and the shell ran its next
    // line (ChecksOffThreadIT saw it): the command now gets the TERM first. Ten stops in a row.
    for (int round = 0; round < 10; round++) {
      Path pid = tmp.resolve("sleep-" + round + ".pid");
      Path after = tmp.resolve("after-" + round);
      PullRequestCommand.Stopper stopper = new PullRequestCommand.Stopper();
      java.util.concurrent.CompletableFuture<PullRequestCommand.Outcome> running = java.util.concurrent.CompletableFuture
          .supplyAsync(() -> PullRequestCommand.run(ProjectCommand.shell("checks",
              "echo $$ > " + pid + "; sleep 60; echo end > " + after, Duration.ofSeconds(120)), VALUES, tmp, stopper));
      for (int i = 0; i < 100 && !Files.exists(pid); i++) {
        Thread.sleep(20);
      }
      Thread.sleep(50); // the sleep has started
      stopper.stop();
      PullRequestCommand.Outcome run = running.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals("execution.checks was stopped", run.failure());
      assertFalse(Files.exists(after), "round " + round + ": the shell ran its next line after the stop");
    }
  }

  @Test
  void a_program_that_is_not_there_is_a_failure_with_its_reason() {
    PullRequestCommand.Outcome run = PullRequestCommand.run(new ProjectCommand("pull_request",
        List.of(tmp.resolve("no-such-forge-cli").toString(), "{title}"), "no-such-forge-cli", Duration.ofSeconds(5)),
        VALUES, tmp);
    assertFalse(run.ok());
    String why = run.failure() != null ? run.failure() : run.output(); // java's refusal, or setsid's
    assertTrue(why.contains("no-such-forge-cli"), run.toString());
  }

  /**
   * Issue 43: only the first 64 KiB of a checks or pull-request command's output was kept, so a CI
   * report's verdict printed last was lost. Its beginning and its end are kept now.
   */
  @Test
  void a_long_output_keeps_its_beginning_and_its_end() {
    PullRequestCommand.Outcome run = PullRequestCommand.run(ProjectCommand.shell("checks",
        "echo 'https://forge.example/pr/7'; i=0; while [ $i -lt 5000 ]; do"
            + " echo \"job $i: ok ..................................\"; i=$((i+1)); done; echo 'VERDICT: red (lint)'",
        Duration.ofSeconds(30)), VALUES, tmp);

    assertTrue(run.ok(), run.toString());
    String out = run.output();
    assertTrue(out.startsWith("https://forge.example/pr/7\n"), out.substring(0, 100));
    assertTrue(out.strip().endsWith("job 4999: ok ..................................\nVERDICT: red (lint)"),
        out.substring(out.length() - 200));
    assertTrue(out.matches("(?s).*\\n\\[\\.\\.\\. \\d+ bytes of output left out \\.\\.\\.\\]\\n.*"), "the gap is said");
    assertTrue(out.length() <= PullRequestCommand.OUTPUT_MAX_BYTES + 100, String.valueOf(out.length()));
  }

  @Test
  void the_ends_of_a_stream_are_kept_exactly_across_the_ring() {
    PullRequestCommand.Ends ends = new PullRequestCommand.Ends(4, 6);
    byte[] all = "0123456789abcdefghij".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int at = 0; at < all.length; at += 3) {
      ends.add(java.util.Arrays.copyOfRange(all, at, Math.min(all.length, at + 3)), Math.min(3, all.length - at));
    }
    assertEquals("0123\n[... 10 bytes of output left out ...]\nefghij", ends.text());
    PullRequestCommand.Ends small = new PullRequestCommand.Ends(4, 6);
    small.add("0123456".getBytes(java.nio.charset.StandardCharsets.UTF_8), 7);
    assertEquals("0123456", small.text());
  }
}
