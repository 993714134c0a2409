package dev.orchestrate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesImportTest {
  private static final Path FILE = Path.of("seed.jsonl");

  @Test
  void a_line_without_an_id_gets_one_derived_from_its_content_and_the_same_line_gets_the_same_id() {
    NewMemory one = JsonLinesImport.parse("{\"kind\": \"semantic\", \"content\": \"We use Postgres\"}", FILE, 1);
    NewMemory same = JsonLinesImport.parse("{ \"content\": \"We use Postgres\", \"kind\": \"semantic\" }", FILE, 9);
    assertTrue(one.id().matches("i-[0-9a-f]{20}"), one.id());
    assertEquals(one.id(), same.id(), "the id depends on what the line says, not on where it is or how it is spaced");
  }

  @Test
  void kind_title_content_and_tags_each_change_the_derived_id() {
    List<String> ids = List.of(
        "{\"kind\": \"semantic\", \"content\": \"x\"}",
        "{\"kind\": \"episodic\", \"content\": \"x\"}",
        "{\"kind\": \"semantic\", \"title\": \"t\", \"content\": \"x\"}",
        "{\"kind\": \"semantic\", \"content\": \"x\", \"tags\": [\"a\"]}",
        "{\"kind\": \"semantic\", \"content\": \"x\", \"tags\": [\"a\", \"b\"]}",
        "{\"kind\": \"semantic\", \"content\": \"x\", \"tags\": [\"a\\u0000b\"]}").stream()
        .map(line -> JsonLinesImport.parse(line, FILE, 1).id()).toList();
    assertEquals(ids.size(), ids.stream().distinct().count(), ids.toString());
  }

  @TempDir
  Path dir;

  @Test
  void the_derived_id_is_the_one_stored_states_already_hold() {
    // Computed outside Java (Python's hashlib) from "semantic" 0xff "" 0xff "We use Postgres" 0xff:
    // the ids of schema 7, which a re-import must find again.
    assertEquals("i-187a803789ce1c529a04",
        JsonLinesImport.parse("{\"kind\": \"semantic\", \"content\": \"We use Postgres\"}", FILE, 1).id());
  }

  /**
   * The digest is reused from line to line (cloned from one looked up once): over thousands of
   * lines, new, repeated and with multibyte text, every id is the one a fresh SHA-256 gives, and
   * the check of {@code validate} (which derives none) counts the same lines.
   */
  @Test
  void thousands_of_lines_each_get_the_id_a_fresh_digest_gives_and_validate_counts_them_all() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      int n = i % 4 == 3 ? i / 2 : i; // one line in four says what an earlier one said
      lines.add(i % 10 == 0 ? "{\"id\": \"given-" + i + "\", \"kind\": \"semantic\", \"content\": \"fact " + i + "\"}"
          : "{\"kind\": \"episodic\", \"title\": \"WRK-" + n + " done\", \"content\": \"é " + n
              + " — done\", \"tags\": [\"outcome\", \"t" + n % 3 + "\"]}");
    }
    Path file = Files.write(dir.resolve("many.jsonl"), lines, StandardCharsets.UTF_8);

    assertEquals(5000, JsonLinesImport.validate(file));
    List<String> ids = new ArrayList<>();
    try (JsonLinesImport.Records records = JsonLinesImport.open(file)) {
      records.forEachRemaining(m -> {
        assertEquals(m.id().startsWith("given-") ? m.id() : freshDigestId(m), m.id());
        ids.add(m.id());
      });
    }
    assertEquals(5000, ids.size());
    long distinctLines = lines.stream().distinct().count();
    assertTrue(distinctLines < 4500, "the file repeats lines: " + distinctLines);
    assertEquals(distinctLines, ids.stream().distinct().count(), "a repeated line is one memory, two lines two");
  }

  private static String freshDigestId(NewMemory m) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      List<String> parts = new ArrayList<>(List.of(m.kind().key(), m.title(), m.content()));
      parts.addAll(m.tags());
      for (String part : parts) {
        sha.update(part.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0xff);
      }
      return "i-" + HexFormat.of().formatHex(sha.digest(), 0, 10);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void validate_still_names_a_bad_line_after_good_ones_without_ids() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.jsonl"), """
        {"kind": "episodic", "content": "fine"}
        {"kind": "episodic", "content": "fine too"}
        {"kind": "nonsense", "content": "x"}
        """);
    MemoryException e = org.junit.jupiter.api.Assertions.assertThrows(MemoryException.class,
        () -> JsonLinesImport.validate(file));
    assertTrue(e.getMessage().startsWith(file + ":3: "), e.getMessage());
  }

  @Test
  void a_given_id_is_kept() {
    NewMemory m = JsonLinesImport.parse("{\"id\": \"db\", \"kind\": \"semantic\", \"content\": \"x\"}", FILE, 1);
    assertEquals("db", m.id());
    assertNotEquals(null, m.id());
  }
}
