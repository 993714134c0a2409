package dev.orchestrate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

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

  @Test
  void a_given_id_is_kept() {
    NewMemory m = JsonLinesImport.parse("{\"id\": \"db\", \"kind\": \"semantic\", \"content\": \"x\"}", FILE, 1);
    assertEquals("db", m.id());
    assertNotEquals(null, m.id());
  }
}
