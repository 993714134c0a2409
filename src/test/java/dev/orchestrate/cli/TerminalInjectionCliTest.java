package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.cli.live.TerminalText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents are untrusted: what they report (failure context, summaries, follow-up titles, blocked
 * reasons, memories) reaches people's terminals made visible, never obeyed, and {@code --json}
 * keeps it exact.
 */
class TerminalInjectionCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Retitles the window, rings, clears the screen, then forges a progress line, then reverses the text. */
  private static final String EVIL = "boom\u001b]0;pwned\u0007\u001b[2J\r\n99:99:99 FORGED A second: phase_complete"
      + "\u202egnp.exe";
  /** The same, as a JSON string body. */
  private static final String EVIL_JSON = "boom\\u001b]0;pwned\\u0007\\u001b[2J\\r\\n99:99:99 FORGED A second: "
      + "phase_complete\\u202egnp.exe";

  @TempDir
  Path dir;

  private Path state() {
    return dir.resolve("state");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state().toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /** No escape, bell, carriage return, C1 control or bidi override; no line of its own for the forgery. */
  private static void assertHarmless(String what, String text) {
    assertFalse(text.contains("\u001b"), what + " has an ESC:\n" + text);
    assertFalse(text.contains("\u0007"), what + " has a BEL:\n" + text);
    assertFalse(text.contains("\r"), what + " has a CR:\n" + text);
    assertFalse(text.contains("\u202e"), what + " has a bidi override:\n" + text);
    assertTrue(text.chars().noneMatch(c -> c >= 0x80 && c <= 0x9f), what + " has a C1 control:\n" + text);
    assertTrue(text.lines().noneMatch(l -> l.startsWith("99:99:99 FORGED")), what + " has the forged line:\n" + text);
  }

  @Test
  void agent_text_is_shown_escaped_by_run_status_jobs_and_memory_list_and_exact_in_their_json() throws Exception {
    Path agent = dir.resolve("agent.sh");
    // A, first phase: fails once with the text as context and on stdout, then completes with it
    // as summary, follow-up title and memory; second phase: blocked with it as reason.
    Files.writeString(agent, """
        [ "$ORCHESTRATE_ITEM_ID" = A ] || exit 0
        if [ "$ORCHESTRATE_PHASE" = first ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
          printf 'boom\\033]0;pwned\\007\\033[2J\\r\\n99:99:99 FORGED A second: phase_complete\\n'
          printf '%%s' '{"result": "failed", "context": "%1$s"}' > "$ORCHESTRATE_RESULT_FILE"
          exit 1
        fi
        if [ "$ORCHESTRATE_PHASE" = first ]; then
          printf '%%s' '{"result": "phase_complete", "summary": "%1$s", "follow_ups": [{"title": "%1$s"}],
            "memories": [{"kind": "semantic", "content": "%1$s"}]}' > "$ORCHESTRATE_RESULT_FILE"
          exit 0
        fi
        printf '%%s' '{"result": "blocked", "context": "%1$s"}' > "$ORCHESTRATE_RESULT_FILE"
        """.formatted(EVIL_JSON));
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - id: A\n    title: a\n");

    CliRunner.Result run = cli("--config", config.toString(), "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    assertHarmless("run's progress lines", run.err());
    assertHarmless("run's report", run.out());
    assertTrue(run.err().contains("(will retry): boom\\x1b]0;pwned\\x07\\x1b[2J"), run.err());
    assertTrue(run.err().contains("added, follow-up of A/first: boom\\x1b]0;pwned\\x07"), run.err());
    assertTrue(run.err().contains("\\u202egnp.exe"), "the bidi override shows as what it is:\n" + run.err());

    CliRunner.Result status = cli("status");
    assertEquals(0, status.exitCode(), status.err());
    assertHarmless("status", status.out());
    assertTrue(status.out().contains("boom\\x1b]0;pwned\\x07\\x1b[2J"), status.out());

    CliRunner.Result one = cli("status", "A");
    assertEquals(0, one.exitCode(), one.err());
    assertHarmless("status A", one.out());
    assertTrue(one.out().contains("boom\\x1b]0;pwned\\x07\\x1b[2J"), one.out());

    JsonNode items = JSON.readTree(cli("status", "--json").out()).get("items");
    JsonNode a = items.get(0);
    assertEquals("blocked", a.get("status").asText());
    assertTrue(a.get("blocked_reason").asText().contains(EVIL), a.get("blocked_reason").asText());
    assertEquals(EVIL, items.get(1).get("title").asText(), "the follow-up's title, exact");

    CliRunner.Result jobs = cli("jobs");
    assertEquals(0, jobs.exitCode(), jobs.err());
    assertHarmless("jobs", jobs.out());

    CliRunner.Result memories = cli("memory", "list");
    assertEquals(0, memories.exitCode(), memories.err());
    assertHarmless("memory list", memories.out());
    assertTrue(memories.out().contains("boom\\x1b]0;pwned"), memories.out());
    JsonNode listed = JSON.readTree(cli("memory", "list", "--json").out());
    assertTrue(listed.toString().contains(JSON.writeValueAsString(EVIL)), listed.toString());

    CliRunner.Result compact = cli("compact", "--dry-run");
    assertEquals(0, compact.exitCode(), compact.err());
    assertHarmless("compact --dry-run", compact.out() + compact.err());

    CliRunner.Result unblock = cli("unblock", "A", "--notes", EVIL);
    assertEquals(0, unblock.exitCode(), unblock.err());
    assertHarmless("unblock", unblock.out() + unblock.err());
  }

  @Test
  void an_error_line_quoting_what_was_typed_stays_one_harmless_line() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, "exit 0\n"); // the preflight finds the agent; the typed --target is what is refused
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - id: A\n    title: a\n");

    CliRunner.Result r = cli("--config", config.toString(), "run", backlog.toString(), "--target",
        "X\u001b]0;pwned\u0007\nY");
    assertEquals(2, r.exitCode(), r.err());
    assertHarmless("the error line", r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("orchestrate: error: "), r.err());
    assertTrue(r.err().contains("X\\x1b]0;pwned\\x07\\nY"), r.err());
  }

  @Test
  void terminal_text_shows_each_control_character_as_a_visible_escape() {
    assertEquals("a\\x1b[2Jb\\x07 c\\r\\nd\\x7f\\u009b\\u202e\\u2066e\\u2028", TerminalText.safe(
        "a\u001b[2Jb\u0007\tc\r\nd\u007f\u009b\u202e\u2066e\u2028"));
    assertEquals("plain · text ▶ C:\\path", TerminalText.safe("plain · text ▶ C:\\path"));
    assertEquals("", TerminalText.safe(null));
  }

  @Test
  void a_table_cell_cannot_break_the_table_or_reach_the_terminal_raw() {
    Table table = new Table("ID", "NOTE");
    table.add("A", "one\nFORGED\u001b[31m");
    java.io.StringWriter out = new java.io.StringWriter();
    table.print(new java.io.PrintWriter(out, true));
    assertEquals(List.of("ID  NOTE", "A   one\\nFORGED\\x1b[31m"), out.toString().lines().toList());
  }

  @Test
  void a_log_line_quoting_agent_text_reaches_stderr_made_visible() {
    java.io.PrintStream before = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      org.slf4j.Logger probe = org.slf4j.LoggerFactory.getLogger("InjectionProbe");
      // Its own level: an earlier test's -q in this JVM leaves the root logger at ERROR.
      ((ch.qos.logback.classic.Logger) probe).setLevel(ch.qos.logback.classic.Level.WARN);
      probe.warn("summarizer said {}", EVIL);
    } finally {
      System.setErr(before);
    }
    String err = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertHarmless("a log line", err);
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.contains("InjectionProbe: summarizer said boom\\x1b]0;pwned\\x07\\x1b[2J\\r\\n99:99:99 FORGED"),
        err);
  }
}
