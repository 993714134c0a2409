package dev.orchestrate.serve;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard shows each job's outcome class, how its agent's session began and the set-up
 * steps and gates it ran, with a link to each one's log and, on the item page, the tail of the
 * log of a check that did not pass; a gate's name and output are escaped like every agent text.
 */
class DashboardVerifiedJobsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  /** A gate name as hostile as a state written by hand can hold (config names are stricter). */
  private static final String HOSTILE = "t<script>x</script>";

  @TempDir
  Path dir;

  private Path state;
  private DashboardServer server;
  private long failedJob;

  private Path jobDir(String name) {
    return state.resolve("jobs").resolve(name);
  }

  @BeforeEach
  void start() throws Exception {
    state = dir.resolve("state");
    try (StateStore store = TestStores.open(state)) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      long run = items.runStarted(T0, 7);
      failedJob = items.jobStarted(new JobStart(run, "A", "build", 1, T0, jobDir("a-1").resolve("output.log")));
      items.jobEnded(failedJob, new JobEnd(JobState.FAILED, "failed", 0, "gate 'tests' failed", T0.plusSeconds(9), 0,
          Usage.UNKNOWN, OutcomeClass.VERIFY_FAILED)
          .with(new AgentSession("sess-1", AgentSession.Start.RESUME_FAILED), List.of(
              new CommandRun(CommandRun.Kind.SETUP, "deps", 0, CommandRun.Ending.PASSED, Duration.ofMillis(800),
                  jobDir("a-1").resolve("setup-deps.log"), ""),
              new CommandRun(CommandRun.Kind.GATE, "tests", 1, CommandRun.Ending.FAILED, Duration.ofMillis(3200),
                  jobDir("a-1").resolve("gate-tests.log"), ""),
              new CommandRun(CommandRun.Kind.GATE, HOSTILE, null, CommandRun.Ending.TIMED_OUT,
                  Duration.ofSeconds(90), jobDir("a-1").resolve("gate-hostile.log"), ""))),
          null, List.of(), T0.plusSeconds(9));
      long plain = items.jobStarted(new JobStart(run, "B", "build", 1, T0.plusSeconds(10), null));
      items.jobEnded(plain, new JobEnd(JobState.FAILED, "failed", 0, "nothing changed", T0.plusSeconds(11), 0,
          Usage.UNKNOWN, OutcomeClass.NO_CHANGES), null, List.of(), T0.plusSeconds(11));
    }
    Files.createDirectories(jobDir("a-1"));
    Files.writeString(jobDir("a-1").resolve("output.log"), "agent said done\n");
    Files.writeString(jobDir("a-1").resolve("setup-deps.log"), "added 12 packages\n");
    Files.writeString(jobDir("a-1").resolve("gate-tests.log"), "FAILED test_export <b>bold</b>\n");
    Files.writeString(jobDir("a-1").resolve("gate-hostile.log"), "still running <img src=x>\n");
    server = DashboardServer.start(TestStores.backend(state), new InetSocketAddress("127.0.0.1", 0), null,
        Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> get(String pathAndQuery) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.port() + pathAndQuery)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void the_jobs_page_shows_outcome_session_and_a_link_per_check() throws Exception {
    HttpResponse<String> page = get("/jobs");
    assertEquals(200, page.statusCode());
    String body = page.body();
    assertTrue(body.contains("<th>Outcome</th><th>Session</th><th>Checks</th><th>Started</th>"), body);
    assertTrue(body.contains("<td>verify_failed</td><td title=\"session sess-1\" data-session=\"" + failedJob
        + "\">fresh_after_failed_resume</td>"), body);
    assertTrue(body.contains("<td>no_changes</td>"), body);
    assertTrue(body.contains("<a class=\"check c-passed\" data-check=\"setup deps\" href=\"/log?job=" + failedJob
        + "&amp;setup=deps\">setup deps: passed, 800ms</a><br><a class=\"check c-failed\" data-check=\"gate tests\" "
        + "href=\"/log?job=" + failedJob + "&amp;gate=tests\">gate tests: failed (exit 1), 3.2s</a>"), body);
    assertTrue(body.contains(">gate t&lt;script&gt;x&lt;/script&gt;: timed out, 1m 30s</a>"), body);
    assertFalse(body.contains("<script>x"), "a gate name is text");
  }

  @Test
  void a_checks_log_page_shows_its_tail_escaped_and_an_unknown_one_is_404() throws Exception {
    HttpResponse<String> gate = get("/log?job=" + failedJob + "&gate=tests");
    assertEquals(200, gate.statusCode());
    assertTrue(gate.body().contains("<h1>Log of gate tests of job " + failedJob + "</h1>"), gate.body());
    assertTrue(gate.body().contains("<span data-figure=\"ending\">failed (exit 1)</span> after 3.2s"), gate.body());
    assertTrue(gate.body().contains("<pre class=\"log\">FAILED test_export &lt;b&gt;bold&lt;/b&gt;\n</pre>"),
        gate.body());

    HttpResponse<String> setup = get("/log?job=" + failedJob + "&setup=deps");
    assertEquals(200, setup.statusCode());
    assertTrue(setup.body().contains("<pre class=\"log\">added 12 packages\n</pre>"), setup.body());

    HttpResponse<String> unknown = get("/log?job=" + failedJob + "&gate=lint");
    assertEquals(404, unknown.statusCode());
    assertTrue(unknown.body().contains("Job " + failedJob + " ran no gate lint."), unknown.body());
  }

  @Test
  void a_gate_log_an_agent_replaced_with_a_link_is_not_followed() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret.txt"), "the user's secret");
    Files.delete(jobDir("a-1").resolve("gate-tests.log"));
    Files.createSymbolicLink(jobDir("a-1").resolve("gate-tests.log"), secret);
    String body = get("/log?job=" + failedJob + "&gate=tests").body();
    assertFalse(body.contains("the user's secret"), body);
    assertTrue(body.contains("(the log is not a regular file: not shown)"), body);
  }

  @Test
  void the_item_page_shows_the_tail_of_each_check_that_did_not_pass() throws Exception {
    String body = get("/item?id=A").body();
    assertTrue(body.contains("<summary>Log of gate tests of job " + failedJob + " (failed (exit 1))</summary>"
        + "<pre class=\"log\">FAILED test_export &lt;b&gt;bold&lt;/b&gt;\n</pre>"), body);
    assertTrue(body.contains("<summary>Log of gate t&lt;script&gt;x&lt;/script&gt; of job " + failedJob
        + " (timed out)</summary><pre class=\"log\">still running &lt;img src=x&gt;\n</pre>"), body);
    assertFalse(body.contains("Log of setup deps"), "a passed step is a link away, not inline");
    assertEquals(2, body.split("data-check-log=", -1).length - 1);
  }

  /** The address a user guesses, /items/ID, is the item page; the old one still works; nothing else under /items/ is a page. */
  @Test
  void an_item_added_through_mcp_is_said_so_not_called_a_follow_up_of_an_item_named_mcp() throws Exception {
    new dev.orchestrate.app.Inbox(TestStores.backend(state), Clock.systemUTC()).add(
        new dev.orchestrate.app.Inbox.NewItem(
            "M-1", "from an assistant", null, null, null, null, null),
        dev.orchestrate.config.Config.defaults(),
        dev.orchestrate.app.Inbox.MCP);
    String list = get("/items").body();
    assertTrue(list.contains("added through orchestrate mcp"), list);
    assertFalse(list.contains("follow-up of mcp"), list);
    String page = get("/item?id=M-1").body();
    assertTrue(page.contains("<dt>Added through</dt><dd>orchestrate mcp"), page);
    assertFalse(page.contains("/item?id=mcp"), "no link to an item named mcp: " + page);
  }

  @Test
  void items_slash_id_is_the_item_page_and_item_query_still_works() throws Exception {
    HttpResponse<String> guessed = get("/items/A");
    assertEquals(200, guessed.statusCode());
    assertEquals(get("/item?id=A").body(), guessed.body());
    assertTrue(guessed.body().contains("<h1>A</h1>"), guessed.body());
    HttpResponse<String> unknown = get("/items/%3Cb%3Ez");
    assertEquals(404, unknown.statusCode());
    assertTrue(unknown.body().contains("No item &lt;b&gt;z."), unknown.body());
    assertFalse(unknown.body().contains("<b>z"), unknown.body());
    assertEquals(404, get("/items/A/jobs").statusCode());
    assertEquals(200, get("/items").statusCode());
  }

  @Test
  void a_page_of_jobs_without_sessions_or_checks_has_no_such_columns() throws Exception {
    String body = get("/item?id=B").body();
    assertTrue(body.contains("<th>Outcome</th><th>Started</th>"), body);
    assertFalse(body.contains("<th>Checks</th>"), body);
  }
}
