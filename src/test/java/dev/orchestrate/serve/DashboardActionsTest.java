package dev.orchestrate.serve;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.reviewedProject;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Step;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --actions}: the review list, oldest first; the decision forms, each refused without
 * this server's secret, from another origin or as a GET; and each taken as the command takes it
 * (the same refusals, the notes on the item), what it came to shown on the item's page.
 */
class DashboardActionsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String TOKEN = "a-token-of-this-dashboard";
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([A-Za-z0-9_-]+)\"");

  @TempDir
  Path dir;

  private StateBackend backend;
  private DashboardServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    backend = TestStores.backend(dir.resolve("state"));
    Reviewing.Project project = reviewedProject(dir);
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      store.items().sync(List.of(item("A"), item("B"), item("C")), T0);
    }
    put("C", new Progress(ItemStatus.AWAITING_REVIEW, "docs", 0, null, null, null, "documented C", null), T0);
    put("A", new Progress(ItemStatus.AWAITING_REVIEW, "docs", 0, null, null, null, "documented A", null),
        T0.plusSeconds(60));
    put("B", new Progress(ItemStatus.BLOCKED, "build", 3, "tests <b>red</b>", ItemStatus.IN_PROGRESS, null, null,
        null), T0.plusSeconds(30));
    server = DashboardServer.start(backend, new InetSocketAddress("127.0.0.1", 0), TOKEN, Clock.systemUTC(),
        () -> project);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private void put(String id, Progress progress, Instant at) {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      ItemState item = store.items().item(id).orElseThrow();
      store.items().apply(new Step(item.with(progress), List.of()), at);
    }
  }

  private ItemState current(String id) {
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      return store.items().item(id).orElseThrow();
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String form, String origin) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-www-form-urlencoded")
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(form));
    if (origin != null) {
      b.header("Origin", origin);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private String csrf() throws Exception {
    Matcher m = CSRF.matcher(get("/item?id=A").body());
    assertTrue(m.find(), "the item page carries the form's secret");
    return m.group(1);
  }

  private String origin() {
    return "http://127.0.0.1:" + server.port();
  }

  @Test
  void the_review_view_lists_what_awaits_review_oldest_first_then_what_is_blocked() throws Exception {
    String body = get("/review").body();
    int c = body.indexOf("href=\"/item?id=C\"");
    int a = body.indexOf("href=\"/item?id=A\"");
    int b = body.indexOf("href=\"/item?id=B\"");
    assertTrue(c > 0 && a > c && b > a, "C waited longest, then A; blocked B after them: " + body);
    assertTrue(body.contains("<span data-figure=\"awaiting\">2</span> awaiting review"), body);
    assertTrue(body.contains("tests &lt;b&gt;red&lt;/b&gt;"), "the blocked reason, escaped: " + body);
    assertTrue(body.contains("2026-11-22 10:00:00Z"), "when C began to wait: " + body);
  }

  @Test
  void an_item_awaiting_review_offers_approve_and_reject_and_a_blocked_one_unblock() throws Exception {
    String a = get("/item?id=A").body();
    assertTrue(a.contains("action=\"/actions/approve\""), a);
    assertTrue(a.contains("action=\"/actions/reject\""), a);
    assertFalse(a.contains("action=\"/actions/unblock\""), a);
    String b = get("/item?id=B").body();
    assertTrue(b.contains("action=\"/actions/unblock\""), b);
    assertFalse(b.contains("action=\"/actions/approve\""), b);
  }

  @Test
  void an_action_without_the_servers_secret_from_another_origin_or_as_a_get_changes_nothing() throws Exception {
    String csrf = csrf();
    assertEquals(403, post("/actions/approve", "id=A", origin()).statusCode(), "no secret");
    assertEquals(403, post("/actions/approve", "id=A&csrf=" + csrf.substring(1) + "x", origin()).statusCode(),
        "a wrong secret");
    assertEquals(403, post("/actions/approve", "id=A&csrf=" + csrf, "http://evil.example").statusCode(),
        "another origin");
    assertEquals(403, post("/actions/approve", "id=A&csrf=" + csrf, "null").statusCode(), "an opaque origin");
    HttpResponse<String> asGet = get("/actions/approve?id=A&csrf=" + csrf);
    assertEquals(405, asGet.statusCode());
    assertEquals("POST", asGet.headers().firstValue("Allow").orElse(""));
    assertEquals(ItemStatus.AWAITING_REVIEW, current("A").status(), "nothing was approved");
  }

  /**
   * On loopback too (a security review's finding): any process of this machine, a sandboxed agent's
   * among them, reaches 127.0.0.1; without the token it reads no page with the forms' secret and
   * takes no action, and no server offers actions without a token.
   */
  @Test
  void actions_need_the_access_token_on_loopback_too() throws Exception {
    String base = "http://127.0.0.1:" + server.port();
    HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/item?id=A")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertFalse(CSRF.matcher(page.body()).find(), "no secret for a request without the token: " + page.body());
    HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/actions/approve"))
        .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", origin())
        .POST(HttpRequest.BodyPublishers.ofString("id=A&csrf=" + csrf())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertTrue(post.statusCode() == 401 || post.statusCode() == 403, "refused: " + post.statusCode());
    assertEquals(ItemStatus.AWAITING_REVIEW, current("A").status(), "nothing was approved");
    Reviewing.Project project = new Reviewing.Project(ConfigLoader.load(dir.resolve("orchestrate.yaml")), dir);
    assertThrows(IllegalArgumentException.class, () -> DashboardServer.start(backend,
        new InetSocketAddress("127.0.0.1", 0), null, Clock.systemUTC(), () -> project));
  }

  @Test
  void a_read_only_dashboard_has_no_form_and_refuses_a_post() throws Exception {
    try (DashboardServer readOnly = DashboardServer.start(backend, new InetSocketAddress("127.0.0.1", 0), null,
        Clock.systemUTC())) {
      String base = "http://127.0.0.1:" + readOnly.port();
      String page = http.send(HttpRequest.newBuilder(URI.create(base + "/item?id=A")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertFalse(page.contains("<form method=\"post\""), page);
      assertTrue(page.contains("orchestrate approve A"), "says which command decides: " + page);
      HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/actions/approve"))
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString("id=A")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode());
    }
    assertEquals(ItemStatus.AWAITING_REVIEW, current("A").status());
  }

  @Test
  void reject_sends_the_item_back_with_the_notes_and_the_page_it_leads_to_says_so() throws Exception {
    HttpResponse<String> reject = post("/actions/reject",
        "id=A&csrf=" + csrf() + "&notes=" + Query.encode("Rename <x> & add a test"), origin());
    assertEquals(303, reject.statusCode(), reject.body());
    String location = reject.headers().firstValue("Location").orElseThrow();
    assertTrue(location.startsWith("/item?id=A&result="), location);
    ItemState a = current("A");
    assertEquals(ItemStatus.IN_PROGRESS, a.status());
    assertEquals("docs", a.progress().phase(), "back to its last phase, as reject without --phase");
    assertEquals("Rename <x> & add a test", a.progress().unblockNotes());
    String page = get(location).body();
    assertTrue(page.contains("data-result>Rejected A: in_progress at phase docs; the notes go into its next prompt"),
        page);
  }

  @Test
  void a_refused_action_changes_nothing_and_says_why_as_the_command_would() throws Exception {
    String csrf = csrf();
    HttpResponse<String> blank = post("/actions/reject", "id=A&csrf=" + csrf + "&notes=++", origin());
    assertTrue(get(blank.headers().firstValue("Location").orElseThrow()).body()
        .contains("class=\"notice refused\" data-result>notes must not be empty"));
    HttpResponse<String> approveBlocked = post("/actions/approve", "id=B&csrf=" + csrf, origin());
    String page = get(approveBlocked.headers().firstValue("Location").orElseThrow()).body();
    assertTrue(page.contains("class=\"notice refused\" data-result>item B is blocked, not awaiting_review"), page);
    assertEquals(ItemStatus.AWAITING_REVIEW, current("A").status());
    assertEquals(ItemStatus.BLOCKED, current("B").status());
  }

  @Test
  void approve_makes_the_item_done_and_unblock_returns_a_blocked_one_with_its_notes() throws Exception {
    String csrf = csrf();
    assertEquals(303, post("/actions/approve", "id=C&csrf=" + csrf, null).statusCode(),
        "a client that sends no Origin (not a browser) is taken with the secret");
    assertEquals(ItemStatus.DONE, current("C").status());
    HttpResponse<String> unblock = post("/actions/unblock", "id=B&csrf=" + csrf + "&notes=fixed+on+main", origin());
    assertEquals(303, unblock.statusCode());
    ItemState b = current("B");
    assertEquals(ItemStatus.IN_PROGRESS, b.status());
    assertEquals("fixed on main", b.progress().unblockNotes());
    String page = get(unblock.headers().firstValue("Location").orElseThrow()).body();
    assertTrue(page.contains("data-result>Unblocked B: in_progress at phase build"), page);
    assertNotNull(get("/review").body());
  }

  @Test
  void beside_a_running_run_a_rejection_is_queued_for_it_and_an_unblock_refused_as_the_commands_do()
      throws Exception {
    String csrf = csrf();
    try (RunLease run = backend.acquireLease(T0, Duration.ofSeconds(60))) {
      HttpResponse<String> reject = post("/actions/reject", "id=A&csrf=" + csrf + "&notes=again", origin());
      String page = get(reject.headers().firstValue("Location").orElseThrow()).body();
      assertTrue(page.contains("data-result>Queued A: the running run applies it"), page);
      assertEquals(ItemStatus.AWAITING_REVIEW, current("A").status(), "the run applies it, not the dashboard");
      assertTrue(get("/review").body().contains("queued for a run"), "the review view says a decision is queued");

      HttpResponse<String> unblock = post("/actions/unblock", "id=B&csrf=" + csrf + "&notes=fixed", origin());
      String refused = get(unblock.headers().firstValue("Location").orElseThrow()).body();
      assertTrue(refused.contains("class=\"notice refused\""), refused);
      assertEquals(ItemStatus.BLOCKED, current("B").status());
    }
  }
}
