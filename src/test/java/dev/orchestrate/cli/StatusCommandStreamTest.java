package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status} and {@code status --json} stream their rows (issue 33): the output of a varied
 * state is byte for byte what the list-based command printed (the golden files were recorded with
 * it, before the change), and a state of 100,000 items is listed by a JVM of 64 MiB of heap, which
 * the list-based command (about 480 MB at that size) could not do.
 */
class StatusCommandStreamTest {
  /** Set to write the golden files from the command as it is (how they were recorded). */
  private static final boolean RECORD = Boolean.getBoolean("status.golden.record");

  @TempDir
  Path dir;

  private Path state() {
    return dir.resolve("state");
  }

  /** A state the app created at the latest schema, with {@code sql}'s rows written into it directly. */
  private void seed(String sql) throws Exception {
    TestStores.open(state()).close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + state().resolve("state.db"));
        Statement st = c.createStatement()) {
      String script = sql.lines().filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n"));
      for (String statement : script.split(";\n")) {
        if (!statement.isBlank()) {
          st.executeUpdate(statement);
        }
      }
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = StatusCommandStreamTest.class.getResourceAsStream("/status/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private void assertGolden(String name, String actual) throws IOException {
    if (RECORD) {
      Files.writeString(Path.of("src/test/resources/status", name), actual);
    }
    assertEquals(resource(name), actual, name);
  }

  @Test
  void status_json_of_a_varied_state_is_byte_for_byte_the_documented_document() throws Exception {
    seed(resource("varied-state.sql"));
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "status", "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertGolden("varied-state.json", r.out());
  }

  @Test
  void status_text_of_a_varied_state_is_the_table_summary_and_notes_it_was() throws Exception {
    seed(resource("varied-state.sql"));
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "status");
    assertEquals(0, r.exitCode(), r.err());
    // A pause's line shows its end in the machine's time zone: left out of the comparison.
    String text = r.out().lines().filter(l -> !l.contains(" paused until ")).map(l -> l + "\n")
        .collect(Collectors.joining());
    assertTrue(r.out().contains("claude paused until "), r.out());
    assertGolden("varied-state.txt", text);
  }

  @Test
  void an_empty_state_still_says_there_are_no_items_and_counts_zero() throws Exception {
    seed("");
    CliRunner.Result text = CliRunner.run("--state", state().toString(), "status");
    assertTrue(text.out().startsWith("No items yet in "), text.out());
    JsonNode doc = new ObjectMapper().readTree(CliRunner.run("--state", state().toString(), "status", "--json").out());
    assertEquals(0, doc.get("items").size());
    assertEquals(0, doc.get("counts").get("total").asInt());
  }

  /** 100,000 items, a quarter of each of four statuses, every tenth (from the eleventh) waiting on the one before. */
  static final String BULK = """
      INSERT INTO items (id, seq, title, pipeline, priority, depends_on, tags, status, attempts, blocked_reason,
                         created_at, updated_at)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
      SELECT 'BULK-' || i, i, 'Bulk item number ' || i || ' with a title of some length', 'feature', 'medium',
             CASE WHEN i %% 10 = 1 AND i > 1 THEN '["BULK-' || (i - 1) || '"]' ELSE '[]' END, '["bulk"]',
             CASE i %% 4 WHEN 0 THEN 'done' WHEN 1 THEN 'new' WHEN 2 THEN 'blocked' ELSE 'ready' END, i %% 3,
             CASE WHEN i %% 4 = 2 THEN 'blocked because of ' || i END, 0, 0 FROM n;
      INSERT INTO runs (id, started_at, pid) VALUES (1, 0, 1);
      INSERT INTO jobs (run_id, item_id, phase, attempt, state, result, started_at)
      SELECT 1, id, 'code', 5, 'completed', 'phase_complete', 0 FROM items WHERE seq %% 4 = 0;
      """;

  @Test
  void status_json_and_text_of_100000_items_run_in_64_mib_of_heap() throws Exception {
    int n = 100_000;
    seed(BULK.formatted(n));
    for (List<String> command : List.of(List.of("status", "--json"), List.of("status"))) {
      Path out = dir.resolve("out.txt");
      List<String> args = new java.util.ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
          "-cp", System.getProperty("java.class.path"), "dev.orchestrate.Main", "--state", state().toString()));
      args.addAll(command);
      Process p = new ProcessBuilder(args).redirectOutput(out.toFile()).redirectError(dir.resolve("err.txt").toFile())
          .start();
      assertTrue(p.waitFor(300, TimeUnit.SECONDS), "status did not finish");
      assertEquals(0, p.exitValue(), command + ": " + Files.readString(dir.resolve("err.txt")));
      if (command.contains("--json")) {
        JsonNode doc = new ObjectMapper().readTree(out.toFile());
        assertEquals(n, doc.get("items").size());
        assertEquals(n, doc.get("counts").get("total").asInt());
        assertEquals(n / 4, doc.get("counts").get("done").asInt());
        JsonNode eleventh = doc.get("items").get(10);
        assertEquals("BULK-11", eleventh.get("id").asText());
        assertEquals("[\"BULK-10 (blocked)\"]", eleventh.get("waiting_on").toString());
        assertEquals("BULK-21", doc.get("items").get(20).get("id").asText());
        assertEquals(0, doc.get("items").get(20).get("waiting_on").size(), "BULK-20, its dependency, is done");
        assertEquals(5, doc.get("items").get(3).get("attempts").asInt());
      } else {
        try (var lines = Files.lines(out)) {
          assertEquals(n + 2, lines.count(), "a header, a row per item and the summary");
        }
        assertTrue(Files.readString(out).contains(n + " items: 25000 new, 25000 ready, 25000 done, 25000 blocked"));
      }
    }
  }
}
