package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code orchestrate memory} and {@code orchestrate compact}: output, JSON and exit codes, in-process. */
class MemoryCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private CliRunner.Result run(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  private static void assertOneErrorLine(CliRunner.Result r, String expected) {
    assertEquals(2, r.exitCode(), r.err());
    assertEquals("", r.out(), "stdout stays empty on error");
    assertEquals(List.of("orchestrate: error: " + expected), r.err().lines().toList());
  }

  private List<String> listedIds() throws Exception {
    CliRunner.Result r = run("memory", "list", "--json");
    assertEquals(0, r.exitCode(), r.err());
    List<String> ids = new ArrayList<>();
    JSON.readTree(r.out()).get("items").forEach(i -> ids.add(i.get("id").asText()));
    return ids;
  }

  @Test
  void memory_add_prints_the_id_and_list_json_prints_the_documented_envelope() throws Exception {
    CliRunner.Result added = run("memory", "add", "--kind", "semantic", "--tag", "db", "--id", "pg",
        "--title", "Database", "We use Postgres 16");
    assertEquals(0, added.exitCode(), added.err());
    assertEquals("pg\n", added.out());
    run("memory", "add", "--kind", "episodic", "WRK-1 done: it worked");

    CliRunner.Result listed = run("memory", "list", "--json");
    assertEquals(0, listed.exitCode());
    JsonNode doc = JSON.readTree(listed.out());
    assertEquals(1, doc.get("schema_version").asInt());
    assertEquals("memory", doc.get("kind").asText());
    JsonNode first = doc.get("items").get(0);
    assertEquals(List.of("id", "kind", "title", "content", "tags", "created_at", "load_bearing"),
        iterable(first.fieldNames()));
    assertEquals("pg", first.get("id").asText());
    assertEquals("semantic", first.get("kind").asText());
    assertEquals("Database", first.get("title").asText());
    assertEquals("db", first.get("tags").get(0).asText());
    assertTrue(first.get("load_bearing").asBoolean());
    assertFalse(doc.get("items").get(1).get("load_bearing").asBoolean());

    assertEquals(List.of("pg"), ids(run("memory", "list", "--json", "--kind", "semantic")));
    assertEquals(List.of("pg"), ids(run("memory", "list", "--json", "--tag", "db")));
    CliRunner.Result text = run("memory", "list");
    assertTrue(text.out().contains("We use Postgres 16") && text.out().contains("2 memories"), text.out());
  }

  private static List<String> ids(CliRunner.Result r) throws Exception {
    List<String> ids = new ArrayList<>();
    JSON.readTree(r.out()).get("items").forEach(i -> ids.add(i.get("id").asText()));
    return ids;
  }

  private static List<String> iterable(java.util.Iterator<String> it) {
    List<String> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  @Test
  void a_bad_kind_exits_2_with_one_line() {
    assertOneErrorLine(run("memory", "add", "--kind", "gossip", "x"),
        "--kind: unknown memory kind 'gossip' (use semantic, procedural or episodic)");
    assertOneErrorLine(run("memory", "list", "--kind", "gossip"),
        "--kind: unknown memory kind 'gossip' (use semantic, procedural or episodic)");
  }

  @Test
  void memory_without_a_subcommand_or_with_a_missing_kind_exits_2() {
    CliRunner.Result r = run("memory");
    assertEquals(2, r.exitCode());
    assertEquals("", r.out());
    CliRunner.Result noKind = run("memory", "add", "text");
    assertEquals(2, noKind.exitCode());
    assertEquals("", noKind.out());
  }

  @Test
  void import_reads_json_lines_in_file_order() throws Exception {
    Path file = dir.resolve("seed.jsonl");
    Files.writeString(file, """
        {"id": "a", "kind": "semantic", "title": "T", "content": "fact", "tags": ["x"]}

        {"kind": "episodic", "content": "happened"}
        {"id": "c", "kind": "procedural", "content": "how"}
        """);
    CliRunner.Result r = run("memory", "import", file.toString(), "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(3, JSON.readTree(r.out()).get("imported").asInt());
    List<String> ids = listedIds();
    assertEquals(3, ids.size());
    assertEquals("a", ids.get(0));
    assertEquals("c", ids.get(2));
  }

  @Test
  void import_names_the_bad_line_and_imports_nothing() throws Exception {
    run("memory", "add", "--kind", "semantic", "--id", "before", "x");
    Path file = dir.resolve("bad.jsonl");
    Files.writeString(file, """
        {"kind": "semantic", "content": "ok"}
        {"kind": "episodic", "content": "ok too"}
        {"kind": "rumour", "content": "bad"}
        """);
    assertOneErrorLine(run("memory", "import", file.toString()),
        file + ":3: unknown memory kind 'rumour' (use semantic, procedural or episodic)");
    Files.writeString(file, "{\"kind\": \"semantic\", \"content\": \"ok\"}\n{not json\n");
    CliRunner.Result r = run("memory", "import", file.toString());
    assertEquals(2, r.exitCode());
    assertTrue(r.err().startsWith("orchestrate: error: " + file + ":2: not valid JSON"), r.err());
    assertEquals(List.of("before"), listedIds());
    assertOneErrorLine(run("memory", "import", dir.resolve("missing.jsonl").toString()),
        "import file " + dir.resolve("missing.jsonl") + " does not exist");
  }

  @Test
  void supersede_hides_the_item_and_needs_an_existing_replacement() throws Exception {
    run("memory", "add", "--kind", "semantic", "--id", "old", "Postgres 15");
    run("memory", "add", "--kind", "semantic", "--id", "new", "Postgres 16");
    assertOneErrorLine(run("memory", "supersede", "old", "--by", "nope"),
        "no memory with id 'nope' (the replacement must exist)");
    CliRunner.Result r = run("memory", "supersede", "old", "--by", "new");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("new"), listedIds());
  }

  @Test
  void compact_json_reports_counts_per_structure_and_a_second_run_deletes_nothing() throws Exception {
    run("memory", "add", "--kind", "semantic", "--id", "s1", "fact");
    run("memory", "add", "--kind", "procedural", "--id", "p1", "how");
    for (int i = 1; i <= 5; i++) {
      run("memory", "add", "--kind", "episodic", "--id", "e" + i, "episode " + i);
    }
    CliRunner.Result r = run("compact", "--keep-recent", "2", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(1, doc.get("schema_version").asInt());
    assertEquals("compact", doc.get("kind").asText());
    assertFalse(doc.get("dry_run").asBoolean());
    assertEquals(3, doc.get("memory").get("deleted").asInt());
    assertEquals(2, doc.get("memory").get("kept_load_bearing").asInt());
    assertEquals(2, doc.get("memory").get("kept_recent").asInt());
    assertTrue(doc.get("events").has("deleted"));
    assertTrue(doc.get("database").get("bytes_after").asLong() > 0);
    assertEquals(List.of("s1", "p1", "e4", "e5"), listedIds());

    JsonNode again = JSON.readTree(run("compact", "--keep-recent", "2", "--json").out());
    assertEquals(0, again.get("memory").get("deleted").asInt());
    assertEquals(List.of("s1", "p1", "e4", "e5"), listedIds());
  }

  @Test
  void compact_dry_run_lists_what_would_go_and_why_the_rest_stays_without_changing_anything() throws Exception {
    run("memory", "add", "--kind", "semantic", "--id", "s1", "fact");
    run("memory", "add", "--kind", "episodic", "--tag", "rejected-path", "--id", "r1", "tried X");
    for (int i = 1; i <= 3; i++) {
      run("memory", "add", "--kind", "episodic", "--id", "e" + i, "episode " + i);
    }
    CliRunner.Result text = run("compact", "--keep-recent", "1", "--dry-run", "-v");
    assertEquals(0, text.exitCode(), text.err());
    assertTrue(text.out().contains("memory: would delete 2 episodic"), text.out());
    assertTrue(text.out().contains("would delete (oldest first): e1, e2"), text.out());
    assertTrue(text.out().contains("load-bearing, never deleted: 1 semantic 1 rejected-path")
        || text.out().contains("load-bearing, never deleted: 1 rejected-path 1 semantic"), text.out());
    assertTrue(text.out().contains("r1 (rejected-path)") && text.out().contains("s1 (semantic)"), text.out());

    JsonNode doc = JSON.readTree(run("compact", "--keep-recent", "1", "--dry-run", "--json").out());
    assertTrue(doc.get("dry_run").asBoolean());
    assertEquals(2, doc.get("memory").get("deleted").asInt());
    assertEquals("e1", doc.get("memory").get("would_delete_ids").get(0).asText());
    assertEquals(1, doc.get("memory").get("protected_by").get("rejected-path").asInt());
    assertEquals(5, listedIds().size());
  }

  @Test
  void compact_rejects_a_negative_keep_recent_with_exit_2() {
    assertOneErrorLine(run("compact", "--keep-recent", "-1"), "--keep-recent must be 0 or more, got -1");
    assertOneErrorLine(run("compact", "--keep-recent", "-1", "--json"), "--keep-recent must be 0 or more, got -1");
  }

  @Test
  void compact_on_a_missing_state_reports_zeros_and_creates_nothing() throws Exception {
    CliRunner.Result r = run("compact", "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(0, JSON.readTree(r.out()).get("memory").get("deleted").asInt());
    assertFalse(Files.exists(dir.resolve("state/state.db")));
  }

  @Test
  void compact_vacuum_shrinks_the_file_and_reports_bytes_before_and_after() throws Exception {
    Path file = dir.resolve("many.jsonl");
    StringBuilder lines = new StringBuilder();
    String filler = "x".repeat(500);
    for (int i = 0; i < 4000; i++) {
      lines.append("{\"kind\": \"episodic\", \"content\": \"").append(i).append(filler).append("\"}\n");
    }
    Files.writeString(file, lines);
    assertEquals(0, run("memory", "import", file.toString()).exitCode());
    CliRunner.Result r = run("compact", "--keep-recent", "0", "--vacuum", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode db = JSON.readTree(r.out()).get("database");
    assertTrue(db.get("vacuumed").asBoolean());
    long before = db.get("bytes_before").asLong();
    long after = db.get("bytes_after").asLong();
    assertTrue(after < before / 4, before + " -> " + after);
    assertTrue(Files.size(dir.resolve("state/state.db")) < 1_000_000, "the file itself shrank");
    assertEquals(0, listedIds().size());
  }

  @Test
  void compact_takes_keep_recent_from_the_config_when_not_given() throws Exception {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, "memory:\n  keep_recent: 1\nretention:\n  events:\n    keep_recent: 0\n");
    for (int i = 1; i <= 3; i++) {
      run("memory", "add", "--kind", "episodic", "--id", "e" + i, "episode " + i);
    }
    CliRunner.Result r = run("--config", config.toString(), "compact", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(1, doc.get("memory").get("keep_recent").asInt());
    assertEquals(2, doc.get("memory").get("deleted").asInt());
    assertEquals(0, doc.get("events").get("keep_recent").asInt());
    assertEquals(List.of("e3"), listedIds());
  }
}
