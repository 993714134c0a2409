package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.memory.JsonLinesImport;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 points 16 and 19: memory import names bad bytes precisely, and a re-import converges. */
class MemoryImportCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private CliRunner.Result run(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--state";
    all[1] = dir.resolve("state").toString();
    System.arraycopy(args, 0, all, 2, args.length);
    return CliRunner.run(all);
  }

  /** Every memory stored, superseded ones included. */
  private long rows() {
    return TestStores.read(dir.resolve("state"), store -> store.memory().size());
  }

  @Test
  void invalid_utf8_is_named_by_file_line_and_byte_column_exits_2_and_imports_nothing() throws Exception {
    run("memory", "add", "--kind", "semantic", "--id", "before", "x");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes("{\"kind\": \"semantic\", \"content\": \"fine\"}\n".getBytes(StandardCharsets.UTF_8));
    bytes.writeBytes("{\"kind\": \"semantic\", \"content\": \"caf".getBytes(StandardCharsets.UTF_8));
    bytes.write(0xE9); // Latin-1 é
    bytes.writeBytes("\"}\n".getBytes(StandardCharsets.UTF_8));
    Path file = Files.write(dir.resolve("latin1.jsonl"), bytes.toByteArray());

    CliRunner.Result r = run("memory", "import", file.toString());

    assertEquals(2, r.exitCode());
    assertEquals(List.of("orchestrate: error: " + file + ":2:37: not valid UTF-8 (byte 0xe9); save the file as UTF-8"),
        r.err().lines().toList());
    assertEquals("", r.out());
    assertEquals(1, rows(), "nothing imported");
  }

  @Test
  void a_utf8_byte_order_mark_and_multibyte_text_are_read_as_text() throws Exception {
    Path file = Files.writeString(dir.resolve("bom.jsonl"),
        "\uFEFF{\"kind\": \"semantic\", \"content\": \"café ☕ 𝄞\"}\n", StandardCharsets.UTF_8);
    CliRunner.Result r = run("memory", "import", file.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(1, rows());
    assertEquals(List.of("café ☕ 𝄞"), TestStores.read(dir.resolve("state"),
        store -> store.memory().listActive(null, null).stream().map(MemoryItem::content).toList()));
  }

  @Test
  void a_line_longer_than_the_limit_is_named_and_nothing_is_imported() throws Exception {
    String big = "{\"kind\": \"semantic\", \"content\": \"" + "x".repeat(JsonLinesImport.MAX_LINE_BYTES) + "\"}\n";
    Path file = Files.writeString(dir.resolve("big.jsonl"), "{\"kind\": \"semantic\", \"content\": \"ok\"}\n" + big);
    CliRunner.Result r = run("memory", "import", file.toString());
    assertEquals(2, r.exitCode());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("orchestrate: error: " + file + ":2: the line is longer than 4 MiB"), r.err());
    assertFalse(TestStores.backend(dir.resolve("state")).exists() && rows() > 0);
  }

  @Test
  void importing_the_same_file_twice_adds_its_memories_once_and_says_so() throws Exception {
    Path file = Files.writeString(dir.resolve("seed.jsonl"), """
        {"id": "a", "kind": "semantic", "content": "fact"}
        {"kind": "episodic", "content": "happened"}
        {"kind": "episodic", "content": "happened", "tags": ["other"]}
        {"kind": "procedural", "title": "how", "content": "do it"}
        """);

    JsonNode first = JSON.readTree(run("memory", "import", file.toString(), "--json").out());
    CliRunner.Result again = run("memory", "import", file.toString());

    assertEquals(4, first.get("imported").asInt());
    assertEquals(4, first.get("added").asInt());
    assertEquals(0, again.exitCode(), again.err());
    assertEquals("imported 4 memories from " + file + ": 0 new, 4 already there (updated)", again.out().strip());
    assertEquals(4, rows());
  }
}
