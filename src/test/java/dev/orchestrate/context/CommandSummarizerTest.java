package dev.orchestrate.context;

import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command client with real bash scripts. */
class CommandSummarizerTest {
  @TempDir
  Path dir;

  private CommandSummarizer command(String body, Duration timeout) {
    return new CommandSummarizer(List.of("bash", script(dir, "summarize.sh", body).toString()), dir, timeout);
  }

  @Test
  void the_prompt_goes_to_stdin_and_stdout_is_the_summary() throws Exception {
    CommandSummarizer summarizer = command("""
        cat > prompt.txt
        echo "- summary of $(wc -l < prompt.txt) lines"
        """, Duration.ofSeconds(10));
    assertEquals("- summary of 3 lines", summarizer.summarize("one\ntwo\nthree\n"));
    assertEquals("one\ntwo\nthree\n", Files.readString(dir.resolve("prompt.txt")));
    assertEquals("command:bash", summarizer.name());
  }

  @Test
  void a_non_zero_exit_is_a_summarization_exception_with_the_end_of_stderr() {
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> command("echo 'rate limited' >&2; exit 4", Duration.ofSeconds(10)).summarize("p"));
    assertTrue(e.getMessage().contains("exited with code 4: rate limited"), e.getMessage());
  }

  @Test
  void no_output_is_a_summarization_exception() {
    SummarizationException e = assertThrows(SummarizationException.class,
        () -> command("cat > /dev/null", Duration.ofSeconds(10)).summarize("p"));
    assertTrue(e.getMessage().contains("printed nothing"), e.getMessage());
  }

  @Test
  void a_program_that_cannot_start_is_a_summarization_exception() {
    CommandSummarizer missing = new CommandSummarizer(List.of(dir.resolve("nope").toString()), dir,
        Duration.ofSeconds(1));
    assertThrows(SummarizationException.class, () -> missing.summarize("p"));
  }

  @Test
  void a_program_that_runs_past_the_timeout_is_killed_with_its_children() throws Exception {
    CommandSummarizer slow = command("""
        sleep 30 &
        echo $! > child.pid
        wait
        """, Duration.ofMillis(500));
    long start = System.nanoTime();
    SummarizationException e = assertThrows(SummarizationException.class, () -> slow.summarize("p"));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(e.getMessage().contains("did not finish within 500 ms"), e.getMessage());
    assertTrue(millis < 5_000, "took " + millis + " ms");
    long child = Long.parseLong(Files.readString(dir.resolve("child.pid")).strip());
    long deadline = System.nanoTime() + 3_000_000_000L;
    while (isRunning(child) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertFalse(isRunning(child), "the summarizer's child survived");
  }

  private static boolean isRunning(long pid) {
    return ProcessHandle.of(pid).map(p -> {
      if (!p.isAlive()) {
        return false;
      }
      try {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
      } catch (Exception e) {
        return false;
      }
    }).orElse(false);
  }
}
