package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.serve.DashboardServer;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code orchestrate serve} over HTTP, started in-process on a free port over a state a real run
 * made: every page, its figures against {@code status --json} and {@code stats --json}, hostile
 * text escaped, the security headers, 405 for anything but GET and HEAD, the token rule,
 * pagination, and a state left byte for byte as it was.
 */
class ServeCliTest {
  static final String SCRIPT = "<script>window.pwned=1</script>";
  static final String IMG = "<img src=x onerror=\"document.title='pwned'\">";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir
  Path dir;

  private DashboardServer server;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /**
   * H's agent answers with markup and script in its summary, and blocks X with markup in the
   * context; 120 items are done from the start (a second page of items); P completes both phases.
   */
  @BeforeEach
  void project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        echo "log line with %1$s and %2$s"
        if [ "$ORCHESTRATE_ITEM_ID" = H ]; then
          printf '%%s' '{"result": "phase_complete", "summary": "summary %1$s %3$s"}' > "$ORCHESTRATE_RESULT_FILE"
          exit 0
        fi
        if [ "$ORCHESTRATE_ITEM_ID" = X ]; then
          printf '%%s' '{"result": "blocked", "context": "context %3$s %1$s"}' > "$ORCHESTRATE_RESULT_FILE"
          exit 0
        fi
        echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID done"
        """.formatted(SCRIPT, IMG, IMG.replace("\"", "\\\"")));
    Path config = TwoPhaseProject.config(dir, agent);
    StringBuilder backlog = new StringBuilder("items:\n");
    backlog.append("  - {id: H, title: \"Title with <b>bold</b> & \\\"quotes\\\"\", tags: [web]}\n");
    backlog.append("  - {id: X, title: Blocked one, priority: high}\n");
    backlog.append("  - {id: P, title: Plain one}\n");
    for (int i = 1; i <= 120; i++) {
      backlog.append("  - {id: D").append(i).append(", title: Done before ").append(i).append(", status: done}\n");
    }
    Path file = Files.writeString(dir.resolve("backlog.yaml"), backlog);
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", file.toString());
    assertEquals(0, run.exitCode(), run.err());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private String base(String token) throws IOException {
    server = DashboardServer.start(TestStores.backend(dir.resolve("state")), new InetSocketAddress("127.0.0.1", 0),
        token, Clock.systemUTC());
    return "http://127.0.0.1:" + server.port();
  }

  private static HttpResponse<String> get(String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> send(String method, String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .method(method, HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void every_page_answers_200_with_the_security_headers() throws Exception {
    String base = base(null);
    for (String path : List.of("/", "/items", "/items?status=done&offset=50", "/item?id=H", "/jobs", "/log?job=1",
        "/growth", "/memory", "/memory?keep=0")) {
      HttpResponse<String> r = get(base + path);
      assertEquals(200, r.statusCode(), path + ": " + r.body());
      assertEquals(DashboardServerHeaders.CSP, r.headers().firstValue("Content-Security-Policy").orElse(""), path);
      assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(""), path);
      assertEquals("no-referrer", r.headers().firstValue("Referrer-Policy").orElse(""), path);
      assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), path);
      assertFalse(r.body().contains("style=\""), path + ": an inline style the CSP would refuse");
      assertFalse(Pattern.compile("<script>").matcher(r.body()).find(), path + ": an inline script");
    }
    assertEquals(200, get(base + "/static/dashboard.js").statusCode());
    assertEquals(200, get(base + "/static/dashboard.css").statusCode());
    assertEquals(404, get(base + "/item?id=nope").statusCode());
    assertEquals(404, get(base + "/etc/passwd").statusCode());
    assertEquals(404, get(base + "/static/../../pom.xml").statusCode());
  }

  @Test
  void anything_but_get_and_head_is_refused_with_405() throws Exception {
    String base = base(null);
    for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
      HttpResponse<String> r = send(method, base + "/items");
      assertEquals(405, r.statusCode(), method);
      assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElse(""), method);
    }
    HttpResponse<String> head = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, head.statusCode());
    assertEquals("", head.body());
  }

  @Test
  void hostile_text_from_agents_and_the_backlog_is_shown_as_text() throws Exception {
    String base = base(null);
    for (String id : List.of("H", "X")) {
      String body = get(base + "/item?id=" + id).body();
      assertFalse(body.contains(SCRIPT), id + ": raw script in " + body);
      assertFalse(body.contains("<img"), id + ": raw img");
      assertTrue(body.contains("&lt;script&gt;window.pwned=1&lt;/script&gt;"), id + ": the script as text");
      assertTrue(body.contains("&lt;img src=x onerror="), id + ": the img as text");
    }
    String h = get(base + "/item?id=H").body();
    assertTrue(h.contains("Title with &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quotes&quot;"), h);
    assertTrue(h.contains("log line with &lt;script&gt;"), "the log tail, escaped: " + h);
    String x = get(base + "/items?status=blocked").body();
    assertTrue(x.contains("context &lt;img"), "the blocked reason in the list: " + x);
    String attribute = get(base + "/items?q=" + java.net.URLEncoder.encode("\"><script>alert(1)</script>",
        java.nio.charset.StandardCharsets.UTF_8)).body();
    assertTrue(attribute.contains("value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""), attribute);
    assertFalse(attribute.contains("<script>alert"), attribute);
  }

  @Test
  void the_overview_counts_are_those_of_status_json() throws Exception {
    JsonNode status = JSON.readTree(cli("status", "--json").out());
    String body = get(base(null) + "/").body();
    assertEquals(status.get("counts").get("total").asText(), figure(body, "data-figure=\"total\">"));
    for (String s : List.of("new", "scoping", "ready", "in_progress", "done", "blocked")) {
      JsonNode n = status.get("counts").get(s);
      assertEquals(n == null ? "0" : n.asText(), figure(body, "data-count=\"" + s + "\">"), s);
    }
    assertEquals("1", figure(body, "data-figure=\"run-id\">"));
    assertTrue(body.contains("data-figure=\"halt-reason\""), body);
  }

  @Test
  void the_growth_figures_are_those_of_stats_json() throws Exception {
    String body = get(base(null) + "/growth").body();
    JsonNode stats = JSON.readTree(cli("stats", "--json").out());
    int compared = 0;
    for (JsonNode s : stats.get("structures")) {
      String name = s.get("name").asText();
      if (name.equals("stats_samples")) {
        continue; // stats --json itself records a sample
      }
      Matcher m = Pattern.compile("data-structure=\"" + name + "\">.*?data-figure=\"rows\">(\\d+)<.*?"
          + "data-figure=\"pruned\">(\\d+)<").matcher(body);
      assertTrue(m.find(), name + " in " + body);
      assertEquals(s.get("rows").asText(), m.group(1), name);
      assertEquals(s.get("rows_pruned").asText(), m.group(2), name);
      compared++;
    }
    assertTrue(compared >= 6, "structures compared: " + compared);
    assertTrue(body.contains("<svg class=\"chart\""), "charts drawn");
    assertTrue(body.contains("class=\"limit\""), "a limit line on a bounded structure's chart");
    assertTrue(body.contains("band-critical"), "the pressure bands");
  }

  @Test
  void items_are_paginated_and_filtered() throws Exception {
    String base = base(null);
    String first = get(base + "/items").body();
    assertEquals("123", figure(first, "data-figure=\"matching\">"));
    assertEquals(PAGE_SIZE, count(first, "<tr><td><a href=\"/item?id="));
    assertTrue(first.contains("rel=\"next\" href=\"/items?offset=50\""), first);
    String last = get(base + "/items?offset=100").body();
    assertEquals(23, count(last, "<tr><td><a href=\"/item?id="));
    assertFalse(last.contains("rel=\"next\""));
    assertTrue(last.contains("D120"));
    String high = get(base + "/items?priority=high").body();
    assertEquals("1", figure(high, "data-figure=\"matching\">"));
    assertTrue(high.contains(">X<"));
    assertEquals("1", figure(get(base + "/items?tag=web").body(), "data-figure=\"matching\">"));
    assertEquals("2", figure(get(base + "/items?q=DONE+before+12").body(), "data-figure=\"matching\">"),
        "12 and 120, by text, whatever the case");
    String jobs = get(base + "/jobs").body();
    JsonNode json = JSON.readTree(cli("jobs", "--json", "--limit", "1000").out());
    assertEquals(json.get("jobs").size(), Integer.parseInt(figure(jobs, "data-figure=\"jobs\">")));
    assertEquals(json.get("jobs").size(), count(jobs, "<tr><td><a href=\"/log?job="));
    String log = get(base + "/log?job=" + json.get("jobs").get(0).get("id").asText()).body();
    assertTrue(log.contains("<pre class=\"log\">"), log);
    assertEquals(404, get(base + "/log?job=999999").statusCode());
  }

  @Test
  void an_items_filter_that_names_no_status_or_priority_is_answered_400_saying_which_values_exist()
      throws Exception {
    String base = base(null);
    HttpResponse<String> bogus = get(base + "/items?status=bogus");
    assertEquals(400, bogus.statusCode());
    assertTrue(
        bogus.body()
            .contains(
                "status 'bogus' is not one of new, scoping, ready, in_progress, awaiting_review, landing, awaiting_checks, done, blocked"),
        bogus.body());
    assertFalse(bogus.body().contains("data-figure=\"matching\""), "no list of every item under a dropped filter");
    HttpResponse<String> priority = get(base + "/items?priority=%3Cb%3Eurgent");
    assertEquals(400, priority.statusCode());
    assertTrue(priority.body().contains("priority '&lt;b&gt;urgent' is not one of high, medium, low"),
        priority.body());
    assertEquals(200, get(base + "/items?status=&priority=").statusCode(), "an empty filter is no filter");
  }

  @Test
  void reading_every_page_changes_nothing_in_the_state_directory() throws Exception {
    Map<String, String> before = listing(dir.resolve("state"));
    String base = base(null);
    for (String path : List.of("/", "/items", "/item?id=H", "/jobs", "/growth", "/memory")) {
      assertEquals(200, get(base + path).statusCode(), path);
    }
    assertEquals(before, listing(dir.resolve("state")));
  }

  @Test
  void a_token_is_asked_for_in_a_header_a_cookie_or_once_in_the_address() throws Exception {
    String token = "0123456789abcdef-token";
    String base = base(token);
    assertEquals(401, get(base + "/").statusCode());
    assertEquals(401, get(base + "/static/dashboard.js").statusCode());
    assertEquals(401, get(base + "/", "Authorization", "Bearer wrong-token-0123456789").statusCode());
    assertEquals(200, get(base + "/", "Authorization", "Bearer " + token).statusCode());
    HttpResponse<String> exchange = get(base + "/items?status=done&token=" + token);
    assertEquals(303, exchange.statusCode());
    assertEquals("/items?status=done", exchange.headers().firstValue("Location").orElse(""));
    String cookie = exchange.headers().firstValue("Set-Cookie").orElse("");
    assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
    assertEquals(200, get(base + "/items?status=done", "Cookie", cookie.split(";")[0]).statusCode());
    assertEquals(401, get(base + "/?token=wrong").statusCode());
    assertEquals("/", get(base + "//elsewhere.example/?token=" + token).headers().firstValue("Location").orElse(""),
        "the redirect stays on this server");
  }

  @Test
  void a_link_an_agent_planted_in_place_of_its_log_is_not_followed() throws Exception {
    JsonNode item = JSON.readTree(cli("status", "P", "--json").out());
    Path log = dir.resolve("state").resolve(item.get("jobs").get(0).get("log_path").asText());
    Path secret = Files.writeString(dir.resolve("outside.txt"), "a file outside the state directory");
    Files.delete(log);
    Files.createSymbolicLink(log, secret);
    String body = get(base(null) + "/item?id=P").body();
    assertFalse(body.contains("outside the state directory"), body);
    assertTrue(body.contains("(the log is not a regular file: not shown)"), body);
  }

  @Test
  void without_a_state_the_overview_says_so_and_nothing_is_created() throws Exception {
    Path none = dir.resolve("no-state-here");
    server = DashboardServer.start(TestStores.backend(none), new InetSocketAddress("127.0.0.1", 0), null,
        Clock.systemUTC());
    HttpResponse<String> r = get("http://127.0.0.1:" + server.port() + "/items");
    assertEquals(200, r.statusCode());
    assertTrue(r.body().contains("No state yet"), r.body());
    assertFalse(Files.exists(none), "serve created the state directory");
  }

  @Test
  void while_a_run_works_the_overview_gives_its_eta_at_the_pace_of_the_items_it_finished() throws Exception {
    Instant start = Instant.parse("2026-03-01T10:00:00Z");
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      // A run that started at start and has not ended; H and X finished since, P and D1-D3 are back to new.
      StateRepository items = store.items();
      items.runStarted(start, ProcessHandle.current().pid());
      for (ItemState item : items.items()) {
        boolean finishedInTheRun = Set.of("H", "X").contains(item.id());
        Progress progress = Set.of("P", "D1", "D2", "D3").contains(item.id()) ? Progress.of(ItemStatus.NEW)
            : item.progress();
        items.apply(new Step(item.with(progress), List.of()), start.plusMillis(finishedInTheRun ? 1 : -1));
      }
    }
    server = DashboardServer.start(TestStores.backend(dir.resolve("state")), new InetSocketAddress("127.0.0.1", 0),
        null, Clock.fixed(start.plus(Duration.ofMinutes(10)), ZoneOffset.UTC));
    String body = get("http://127.0.0.1:" + server.port() + "/").body();
    assertTrue(body.contains("<dt>Elapsed</dt><dd>10m 0s</dd>"), body);
    assertTrue(body.contains("<dt>ETA</dt><dd>about 20m 0s (4 items left at this run's pace)</dd>"),
        "2 items finished in 10 minutes, 4 left: " + body);
    assertFalse(body.contains("halt-reason"), "no halt reason while it runs");
  }

  @Test
  void spend_against_budget_and_job_costs_appear_once_agents_report_them() throws Exception {
    String base = base(null);
    String before = get(base + "/").body();
    assertFalse(before.contains("Spend"), before);
    assertFalse(get(base + "/jobs").body().contains("<th>Cost</th>"));
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      // What a run of an agent that reports its cost records (the script agent here reports none).
      StateRepository items = store.items();
      for (JobRecord job : items.recentJobs(Integer.MAX_VALUE)) {
        if (Set.of("H", "X").contains(job.itemId())) {
          items.jobEnded(job.id(), new JobEnd(job.state(), job.result(), job.exitCode(), job.reason(), job.endedAt(), 0,
              new Usage(null, null, null, null, 0.5)), null, job.endedAt());
        }
      }
      items.runSpend(items.lastRun().orElseThrow().id(), Usage.UNKNOWN, 2.0, null);
    }
    String overview = get(base + "/").body();
    assertTrue(overview.contains("data-figure=\"spend\">$1.50 of $2.00 budget (75 %), reported by 3 jobs"), overview);
    String jobs = get(base + "/jobs").body();
    assertTrue(jobs.contains("<th>Cost</th>") && jobs.contains("<td>$0.50</td>"), jobs);
  }

  @Test
  void serve_refuses_a_bad_port_a_short_token_and_an_unknown_address() {
    assertEquals(ExitCode.USAGE, cli("serve", "--port", "70000").exitCode());
    CliRunner.Result shortToken = cli("serve", "--token", "short");
    assertEquals(ExitCode.USAGE, shortToken.exitCode());
    assertTrue(shortToken.err().startsWith("orchestrate: error: --token"), shortToken.err());
    assertEquals(ExitCode.USAGE, cli("serve", "--bind", "no-such-host.invalid").exitCode());
  }

  @Test
  void serve_actions_beyond_loopback_without_a_token_is_refused_in_one_line() {
    CliRunner.Result refused = cli("serve", "--actions", "--bind", "0.0.0.0", "--port", "0");
    assertEquals(ExitCode.USAGE, refused.exitCode());
    assertEquals("", refused.out());
    assertEquals("orchestrate: error: serve --actions on 0.0.0.0 needs --token: whoever reaches the address could "
        + "approve, reject and unblock (bind 127.0.0.1, or give a token)\n", refused.err());
  }

  /** Rows per page of the items and jobs lists (Pages.PAGE_SIZE). */
  private static final int PAGE_SIZE = 50;

  private static String figure(String body, String marker) {
    int at = body.indexOf(marker);
    assertTrue(at >= 0, marker + " in " + body);
    int from = at + marker.length();
    return body.substring(from, body.indexOf('<', from));
  }

  private static int count(String body, String needle) {
    int n = 0;
    for (int at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 1)) {
      n++;
    }
    return n;
  }

  private static Map<String, String> listing(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        files.put(root.relativize(p).toString(), Files.isRegularFile(p)
            ? Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis() : "dir");
      }
    }
    return files;
  }

  /** The policy the dashboard promises, spelled out here so that a change to it is a change to a test. */
  static final class DashboardServerHeaders {
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
  }
}
