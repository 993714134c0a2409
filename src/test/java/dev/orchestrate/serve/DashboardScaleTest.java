package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.testing.TestStores;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard over a state of 100,000 items written with plain SQL (issue 33), over real HTTP:
 * counts by status, a page of 50 saying which of how many it shows with links to the pages around
 * it, a status filter's last page, a follow-up found through its index, a filter no index answers
 * counted up to a cap and shown as "more than" it; and the reads the pages make use the indexes of
 * schema 19, not a scan of every item.
 */
class DashboardScaleTest {
  private static final int N = 100_000;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir
  Path dir;

  private DashboardServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private Path db() {
    return dir.resolve("state").resolve("state.db");
  }

  /** N items, a quarter of each of four statuses; BULK-7 has a follow-up, the last item. */
  private String seed() throws Exception {
    TestStores.open(dir.resolve("state")).close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("""
          INSERT INTO items (id, seq, title, pipeline, priority, status, blocked_reason, created_at, updated_at, origin)
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
          SELECT 'BULK-' || i, i, 'Bulk item number ' || i, 'feature', 'medium',
                 CASE i %% 4 WHEN 0 THEN 'done' WHEN 1 THEN 'new' WHEN 2 THEN 'blocked' ELSE 'ready' END,
                 CASE WHEN i %% 4 = 2 THEN 'stuck' END, 0, 0, CASE WHEN i = %d THEN 'BULK-7/code' END FROM n"""
          .formatted(N, N));
    }
    server = DashboardServer.start(TestStores.backend(dir.resolve("state")), new InetSocketAddress("127.0.0.1", 0),
        null, Clock.systemUTC());
    return "http://127.0.0.1:" + server.port();
  }

  private static String get(String url) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), url);
    return r.body();
  }

  private static int count(String body, String needle) {
    int n = 0;
    for (int at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void the_pages_of_100000_items_count_by_status_and_show_50_at_a_time_with_links_around_them() throws Exception {
    String base = seed();
    String overview = get(base + "/");
    for (String status : List.of("new", "ready", "done", "blocked")) {
      assertTrue(overview.contains("data-count=\"" + status + "\">" + N / 4 + "<"), status + " in " + overview);
    }
    assertTrue(overview.contains("data-figure=\"total\">" + N + "<"), overview);

    String first = get(base + "/items");
    assertEquals(Pages.PAGE_SIZE, count(first, "<tr><td><a href=\"/item?id="));
    assertTrue(first.contains("showing 1–50 of " + N), first);
    assertTrue(first.contains("rel=\"next\" href=\"/items?offset=50\""), first);
    assertFalse(first.contains("rel=\"prev\""), first);

    String middle = get(base + "/items?offset=50000");
    assertTrue(middle.contains("showing 50001–50050 of " + N), middle);
    assertTrue(middle.contains(">BULK-50001<") && middle.contains(">BULK-50050<"), middle);
    assertTrue(middle.contains("rel=\"prev\" href=\"/items?offset=49950\""), middle);
    assertTrue(middle.contains("rel=\"next\" href=\"/items?offset=50050\""), middle);

    String lastDone = get(base + "/items?status=done&offset=" + (N / 4 - Pages.PAGE_SIZE));
    assertTrue(lastDone.contains("showing 24951–25000 of " + N / 4), lastDone);
    assertTrue(lastDone.contains(">BULK-" + N + "<"), "the last item is done");
    assertFalse(lastDone.contains("rel=\"next\""), lastDone);

    String text = get(base + "/items?q=number+9999");
    assertTrue(text.contains("data-figure=\"matching\">11<"), "9999 and 99990-99999: " + text);

    // Every item matches: the count stops past the cap and the page says so, and links on.
    String common = get(base + "/items?q=number");
    assertTrue(common.contains("data-figure=\"matching\">more than " + DashboardQueries.ITEM_COUNT_CAP + "<"), common);
    assertTrue(common.contains("showing 1–50 of more than " + DashboardQueries.ITEM_COUNT_CAP + "<"), common);
    assertTrue(common.contains(">BULK-1<") && common.contains(">BULK-50<"), common);
    assertTrue(common.contains("rel=\"next\" href=\"/items?q=number&amp;offset=50\""), common);
    String beyondCap = get(base + "/items?q=number&offset=5000");
    assertTrue(beyondCap.contains("showing 5001–5050 of more than 5050<"), beyondCap);
    assertTrue(beyondCap.contains(">BULK-5001<") && beyondCap.contains(">BULK-5050<"), beyondCap);
    assertTrue(beyondCap.contains("rel=\"next\""), beyondCap);
    // Its last page knows where the list ends: the number is exact again.
    String lastMedium = get(base + "/items?priority=medium&offset=" + (N - Pages.PAGE_SIZE));
    assertTrue(lastMedium.contains("data-figure=\"matching\">" + N + "<"), lastMedium);
    assertTrue(lastMedium.contains("showing 99951–100000 of " + N + "<"), lastMedium);
    assertFalse(lastMedium.contains("rel=\"next\""), lastMedium);
    String rare = get(base + "/items?q=number+99999");
    assertTrue(rare.contains("data-figure=\"matching\">1<") && rare.contains(">BULK-99999<"), rare);
    String none = get(base + "/items?q=nothing+like+it");
    assertTrue(none.contains("data-figure=\"matching\">0<") && none.contains("showing 0–0 of 0<"), none);

    String item = get(base + "/item?id=BULK-7");
    assertTrue(item.contains(">BULK-" + N + "<"), "its follow-up: " + item);
  }

  @Test
  void the_counts_the_status_filter_and_the_follow_ups_read_an_index_not_every_item() throws Exception {
    seed();
    // The dashboard's queries as SqlDashboard asks them, planned by SQLite over the migrated state.
    assertEquals(List.of("SCAN items USING COVERING INDEX items_finished"),
        plan("SELECT status, COUNT(*) FROM items GROUP BY status"));
    // A page steps over the entries before it in the index alone, then reads its own rows.
    assertEquals(List.of("SEARCH items USING INDEX items_by_status (status=? AND seq>?)", "SCALAR SUBQUERY 1",
        "SEARCH items USING COVERING INDEX items_by_status (status=?)"), plan("""
            SELECT * FROM items WHERE status = 'done' AND seq >= (SELECT seq FROM items WHERE status = 'done'
             ORDER BY seq LIMIT 1 OFFSET 24950) ORDER BY seq LIMIT 50"""));
    assertEquals("SEARCH items USING INDEX items_follow_ups (origin>?)", plan("""
        SELECT * FROM items WHERE origin IS NOT NULL AND (origin = 'A' OR substr(origin, 1, 2) = 'A/')
         ORDER BY seq + 0 LIMIT 50""").get(0));
    assertEquals(List.of("SEARCH items USING COVERING INDEX items_finished (status=? AND updated_at>?)"),
        plan("SELECT COUNT(*) FROM items WHERE status IN ('done', 'blocked') AND updated_at >= 5"));
  }

  @Test
  void a_counted_filter_lists_its_matches_in_backlog_order_whatever_order_the_table_holds_them_in() throws Exception {
    TestStores.open(dir.resolve("state")).close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      // Rows written last to first: a scan meets them against the backlog's order.
      st.executeUpdate("""
          INSERT INTO items (id, seq, title, pipeline, priority, status, created_at, updated_at)
          WITH RECURSIVE n(i) AS (SELECT 120 UNION ALL SELECT i - 1 FROM n WHERE i > 1)
          SELECT 'R-' || i, i, CASE WHEN i % 2 = 0 THEN 'even ' ELSE 'odd ' END || i, 'feature',
                 CASE WHEN i % 3 = 0 THEN 'high' ELSE 'low' END, 'new', 0, 0 FROM n""");
    }
    server = DashboardServer.start(TestStores.backend(dir.resolve("state")), new InetSocketAddress("127.0.0.1", 0),
        null, Clock.systemUTC());
    String base = "http://127.0.0.1:" + server.port();
    String second = get(base + "/items?q=even&offset=50");
    assertTrue(second.contains("data-figure=\"matching\">60<"), second);
    assertTrue(second.contains("showing 51–60 of 60<"), second);
    List<String> ids = new ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(">(R-\\d+)</a>").matcher(second);
    while (m.find()) {
      ids.add(m.group(1));
    }
    assertEquals(List.of("R-102", "R-104", "R-106", "R-108", "R-110", "R-112", "R-114", "R-116", "R-118", "R-120"),
        ids);
    String high = get(base + "/items?priority=high");
    assertTrue(high.contains("data-figure=\"matching\">40<") && high.contains(">R-3<"), high);
    assertTrue(high.indexOf(">R-3<") < high.indexOf(">R-6<"), high);
  }

  private List<String> plan(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
      List<String> steps = new ArrayList<>();
      while (rs.next()) {
        steps.add(rs.getString("detail"));
      }
      return steps;
    }
  }
}
