package dev.orchestrate.yaml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YamlReaderTest {
  @TempDir
  Path dir;

  private Optional<YamlNode> read(Path file, Problems problems) {
    return YamlReader.read(file, problems, YamlReader.MAX_BACKLOG_BYTES, "split it");
  }

  private List<String> problemsOf(Path file) {
    Problems problems = new Problems(file.toString());
    read(file, problems);
    return TestFiles.problems(problems::throwIfAny);
  }

  @Test
  void every_node_knows_its_line_and_column() {
    Path file = new TestFiles(dir).write("a.yaml", """
        agent:
          command: ["bash", "x.sh"]
          timeout: 30m
        items:
          - id: A
        """);
    YamlNode.Mapping root = (YamlNode.Mapping) read(file, new Problems("a.yaml")).orElseThrow();
    YamlNode.Entry agent = root.entry("agent").orElseThrow();
    assertEquals(new YamlNode.Key("agent", 1, 1), agent.key());
    YamlNode.Mapping agentMap = (YamlNode.Mapping) agent.value();
    YamlNode.Sequence command = (YamlNode.Sequence) agentMap.get("command").orElseThrow();
    assertEquals(2, command.line());
    assertEquals(12, command.column());
    assertEquals(new YamlNode.Scalar(2, 21, YamlNode.Scalar.Kind.STRING, "x.sh", null), command.items().get(1));
    assertEquals(new YamlNode.Key("timeout", 3, 3), agentMap.entry("timeout").orElseThrow().key());
    YamlNode.Sequence items = (YamlNode.Sequence) root.get("items").orElseThrow();
    YamlNode.Mapping item = (YamlNode.Mapping) items.items().get(0);
    assertEquals(5, item.line());
    assertEquals(5, item.column());
  }

  @Test
  void scalars_keep_the_text_as_written_and_their_kind() {
    Path file = new TestFiles(dir).write("a.yaml", """
        a: 007
        b: true
        c: 1.50
        d:
        e: ""
        f: "12"
        """);
    YamlNode.Mapping root = (YamlNode.Mapping) read(file, new Problems("a.yaml")).orElseThrow();
    YamlNode.Scalar a = (YamlNode.Scalar) root.get("a").orElseThrow();
    assertEquals(YamlNode.Scalar.Kind.INTEGER, a.kind());
    assertEquals("007", a.text());
    assertEquals(7, a.integer().intValue());
    assertEquals(YamlNode.Scalar.Kind.BOOLEAN, ((YamlNode.Scalar) root.get("b").orElseThrow()).kind());
    assertEquals("1.50", ((YamlNode.Scalar) root.get("c").orElseThrow()).text());
    assertTrue(((YamlNode.Scalar) root.get("d").orElseThrow()).isNull());
    YamlNode.Scalar e = (YamlNode.Scalar) root.get("e").orElseThrow();
    assertEquals(YamlNode.Scalar.Kind.STRING, e.kind());
    assertEquals("", e.text());
    assertEquals(YamlNode.Scalar.Kind.STRING, ((YamlNode.Scalar) root.get("f").orElseThrow()).kind());
  }

  @Test
  void a_duplicate_key_is_a_problem_at_the_second_key_and_the_first_value_is_kept() {
    Path file = new TestFiles(dir).write("a.yaml", """
        agent:
          timeout: 30m
          kill_grace: 5s
          timeout: 1h
        """);
    Problems problems = new Problems(file.toString());
    YamlNode.Mapping root = (YamlNode.Mapping) read(file, problems).orElseThrow();
    YamlNode.Mapping agent = (YamlNode.Mapping) root.get("agent").orElseThrow();
    assertEquals("30m", ((YamlNode.Scalar) agent.get("timeout").orElseThrow()).text());
    assertEquals(List.of("4:3: duplicate key 'timeout' (first defined at line 2)"),
        TestFiles.problems(problems::throwIfAny));
  }

  /**
   * A text with a character beyond the BMP (a surrogate pair in Java) is read as code points:
   * columns count the emoji once, as everywhere else; a text without one is read as it is.
   */
  @Test
  void columns_count_code_points_with_or_without_a_character_beyond_the_basic_plane() {
    Path wide = new TestFiles(dir).write("wide.yaml", "a: x\nb: [\uD83D\uDE00, 2]: 3\n");
    Path plain = new TestFiles(dir).write("plain.yaml", "a: x\nb: [\u00E9, 2]: 3\n");
    assertEquals(List.of("2:10: invalid YAML: mapping values are not allowed here; check the indentation"),
        problemsOf(wide));
    assertEquals(problemsOf(wide), problemsOf(plain));
    Path title = new TestFiles(dir).write("title.yaml", "a: \uD83D\uDE00 x\nb: c\n");
    YamlNode.Mapping root = (YamlNode.Mapping) read(title, new Problems("title.yaml")).orElseThrow();
    assertEquals("\uD83D\uDE00 x", ((YamlNode.Scalar) root.get("a").orElseThrow()).text());
    assertEquals(new YamlNode.Key("b", 2, 1), root.entry("b").orElseThrow().key());
  }

  /**
   * The list under the streamed key is handed over element by element and left empty in the tree;
   * the same key elsewhere (nested, or a second time at the top) is a tree as before.
   */
  @Test
  void a_streamed_list_is_handed_over_element_by_element_and_not_kept() {
    Path file = new TestFiles(dir).write("a.yaml", """
        other: {items: [x]}
        items:
          - {id: A}
          - id: B
        after: 1
        """);
    List<YamlNode> seen = new java.util.ArrayList<>();
    Problems problems = new Problems(file.toString());
    YamlNode.Mapping root = (YamlNode.Mapping) YamlReader.read(file, problems, YamlReader.MAX_BACKLOG_BYTES, "split it",
        "split it", new YamlReader.Streamed("items", seen::add)).orElseThrow();
    assertTrue(problems.isEmpty());
    assertEquals(List.of("A", "B"), seen.stream()
        .map(n -> ((YamlNode.Scalar) ((YamlNode.Mapping) n).get("id").orElseThrow()).text()).toList());
    assertEquals(4, seen.get(1).line());
    YamlNode.Sequence items = (YamlNode.Sequence) root.get("items").orElseThrow();
    assertEquals(List.of(), items.items());
    assertEquals(3, items.line());
    YamlNode.Mapping other = (YamlNode.Mapping) root.get("other").orElseThrow();
    assertEquals(1, ((YamlNode.Sequence) other.get("items").orElseThrow()).items().size());
    assertTrue(root.get("after").isPresent());
  }

  @Test
  void a_duplicate_key_in_a_flow_mapping_is_found_too() {
    Path file = new TestFiles(dir).write("a.yaml", "env: {A: 1, A: 2}\n");
    assertEquals(List.of("1:13: duplicate key 'A' (first defined at line 1)"), problemsOf(file));
  }

  @Test
  void a_syntax_error_is_one_short_problem_at_the_position_the_parser_reports() {
    Path file = new TestFiles(dir).write("a.yaml", """
        agent:
          timeout: 30m: 1h
        """);
    assertEquals(List.of("2:15: invalid YAML: mapping values are not allowed here; check the indentation"),
        problemsOf(file));
  }

  @Test
  void a_syntax_error_names_the_construct_it_was_reading_when_that_started_earlier() {
    Path file = new TestFiles(dir).write("a.yaml", "a: [1, 2\n");
    assertEquals(List.of("2:1: invalid YAML: expected ',' or ']', but got <stream end> "
        + "(while parsing a flow sequence that starts at line 1)"), problemsOf(file));
  }

  @Test
  void a_tab_used_for_indentation_is_a_syntax_error_that_says_so() {
    Path file = new TestFiles(dir).write("a.yaml", "a:\n\tb: 1\n");
    List<String> problems = problemsOf(file);
    assertEquals(1, problems.size());
    assertEquals("2:1: invalid YAML: found character '\\t(TAB)' that cannot start any token. "
        + "(Do not use \\t(TAB) for indentation)", problems.get(0));
  }

  @Test
  void a_syntax_error_message_is_a_single_line() {
    Path file = new TestFiles(dir).write("a.yaml", "items:\n  - id: A\n  title: x\n");
    List<String> problems = problemsOf(file);
    assertEquals(1, problems.size());
    assertFalse(problems.get(0).contains("\n"), problems.get(0));
    assertEquals("3:3: invalid YAML: expected <block end>, but found '?' "
        + "(while parsing a block collection that starts at line 2); check the indentation", problems.get(0));
  }

  @Test
  void an_empty_file_is_a_problem() {
    assertEquals(List.of("0:0: file is empty"), problemsOf(new TestFiles(dir).write("a.yaml", "")));
  }

  @Test
  void a_file_with_only_comments_or_an_empty_document_is_empty() {
    TestFiles files = new TestFiles(dir);
    assertEquals(List.of("0:0: file is empty"), problemsOf(files.write("a.yaml", "# nothing yet\n")));
    assertEquals(List.of("0:0: file is empty"), problemsOf(files.write("b.yaml", "---\n")));
  }

  @Test
  void a_missing_file_is_a_problem_with_its_name_as_given() {
    Path file = Path.of("no/such/backlog.yaml");
    Problems problems = new Problems(file.toString());
    read(file, problems);
    List<Problem> reported = TestFiles.rawProblems(problems::throwIfAny);
    assertEquals(List.of(new Problem("no/such/backlog.yaml", 0, 0, "file not found")), reported);
    assertEquals("no/such/backlog.yaml: file not found", reported.get(0).toString());
  }

  @Test
  void a_second_document_is_a_problem() {
    Path file = new TestFiles(dir).write("a.yaml", "a: 1\n---\nb: 2\n");
    assertEquals(List.of("3:1: more than one YAML document in the file ('---'); orchestrate reads exactly one"),
        problemsOf(file));
  }

  @Test
  void an_alias_is_a_problem_at_the_alias() {
    Path file = new TestFiles(dir).write("a.yaml", "a: &x 1\nb: *x\n");
    assertEquals(List.of("2:4: YAML aliases are not supported (*x); write the value out"), problemsOf(file));
  }

  @Test
  void a_list_as_a_mapping_key_is_a_syntax_problem() {
    Path file = new TestFiles(dir).write("a.yaml", "? [a, b]\n: 1\n");
    assertEquals(List.of("1:4: invalid YAML: mapping keys must be plain values, not lists or maps"),
        problemsOf(file));
  }

  @Test
  void bytes_that_are_not_utf_8_are_a_problem_at_their_line_and_column() throws Exception {
    Path file = dir.resolve("a.yaml");
    Files.write(file, "items:\n  - id: é".getBytes(StandardCharsets.UTF_8));
    Files.write(file, new byte[] {'x', (byte) 0xff, (byte) 0xfe, '\n'}, StandardOpenOption.APPEND);
    assertEquals(List.of("2:11: not valid UTF-8 (byte 0xFF); save the file as UTF-8 text"), problemsOf(file));
  }

  @Test
  void a_utf_16_file_is_a_problem_that_says_so() throws Exception {
    Path file = dir.resolve("a.yaml");
    Files.write(file, "\uFEFFa: 1\n".getBytes(StandardCharsets.UTF_16LE));
    assertEquals(List.of("0:0: file is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8"),
        problemsOf(file));
  }

  @Test
  void a_utf_8_byte_order_mark_is_skipped_and_columns_count_from_after_it() {
    Path file = new TestFiles(dir).write("a.yaml", "\uFEFFa: 1\nb: [x, *y]\n");
    assertEquals(List.of("2:8: YAML aliases are not supported (*y); write the value out"), problemsOf(file));
  }

  @Test
  void crlf_line_ends_count_lines_as_editors_do() {
    Path file = new TestFiles(dir).write("a.yaml", "a: 1\r\nb: 2\r\na: 3\r\n");
    assertEquals(List.of("3:1: duplicate key 'a' (first defined at line 1)"), problemsOf(file));
  }

  @Test
  void a_control_character_is_a_problem_at_its_line_and_column() {
    Path file = new TestFiles(dir).write("a.yaml", "a: 1\nb: x\u0000y\n");
    assertEquals(List.of("2:5: character U+0000 is not allowed in YAML (a control character: is this a binary "
        + "file?); remove it"), problemsOf(file));
  }

  @Test
  void nesting_deeper_than_the_limit_is_a_problem_at_the_first_level_too_deep() {
    String open = "[".repeat(YamlReader.MAX_DEPTH + 1);
    Path file = new TestFiles(dir).write("a.yaml", "a: " + open + "1" + "]".repeat(YamlReader.MAX_DEPTH + 1) + "\n");
    assertEquals(List.of("1:" + (3 + YamlReader.MAX_DEPTH) + ": maps and lists nested more than "
        + YamlReader.MAX_DEPTH + " levels deep; orchestrate files need a handful (check the indentation and the "
        + "brackets)"), problemsOf(file));
  }

  @Test
  void a_million_open_brackets_stop_at_the_depth_limit() {
    Path file = new TestFiles(dir).write("a.yaml", "a: " + "[".repeat(1_000_000) + "\n");
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertEquals(1, problemsOf(file).size()));
  }

  @Test
  void a_file_over_the_limit_is_refused_unread_naming_its_size_and_the_limit() throws Exception {
    Path file = dir.resolve("a.yaml");
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(YamlReader.MAX_BACKLOG_BYTES + 1);
    }
    assertEquals(List.of("0:0: file is 16777217 bytes, over the limit of 16MiB (16777216 bytes); split it"),
        problemsOf(file));
  }

  @Test
  void a_multi_megabyte_scalar_without_a_space_is_read_in_linear_time() {
    // snakeyaml's own reader takes minutes over this (its buffer refills copy the whole token).
    String title = "x".repeat(7_000_000);
    Path file = new TestFiles(dir).write("a.yaml", "a: " + title + "\nb: \"" + title + "\"\nc: *z\n");
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      Problems problems = new Problems(file.toString());
      YamlNode.Mapping root = (YamlNode.Mapping) read(file, problems).orElseThrow(
          () -> new AssertionError(TestFiles.problems(problems::throwIfAny)));
      assertEquals(title, ((YamlNode.Scalar) root.get("a").orElseThrow()).text());
      assertEquals(title, ((YamlNode.Scalar) root.get("b").orElseThrow()).text());
      assertEquals(List.of("3:4: YAML aliases are not supported (*z); write the value out"),
          TestFiles.problems(problems::throwIfAny));
    });
  }

  @Test
  void integers_of_many_digits_read_as_huge_numbers_of_their_sign_without_parsing_them() {
    Path file = new TestFiles(dir).write("a.yaml", "a: " + "9".repeat(41) + "\nb: -" + "9".repeat(41)
        + "\nc: " + "9".repeat(1_000_000) + "\n");
    assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
      YamlNode.Mapping root = (YamlNode.Mapping) read(file, new Problems("a.yaml")).orElseThrow();
      assertTrue(((YamlNode.Scalar) root.get("a").orElseThrow()).integer().bitLength() > 64);
      assertTrue(((YamlNode.Scalar) root.get("b").orElseThrow()).integer().signum() < 0);
      assertEquals(1_000_000, ((YamlNode.Scalar) root.get("c").orElseThrow()).text().length());
    });
  }

  @Test
  void a_key_of_a_megabyte_is_one_short_problem() {
    Path file = new TestFiles(dir).write("a.yaml", "k" + "e".repeat(1_000_000) + ": 1\nk" + "e".repeat(1_000_000)
        + ": 2\n");
    List<String> problems = problemsOf(file);
    assertEquals(1, problems.size());
    assertTrue(problems.get(0).startsWith("1:1000002: invalid YAML: mapping values are not allowed"),
        problems.get(0));
    assertTrue(problems.get(0).length() < 200, problems.get(0));
  }

  @Test
  void a_directory_is_not_a_file() {
    assertEquals(List.of("0:0: is a directory, not a file"), problemsOf(dir));
  }

  @Test
  void a_file_of_more_values_than_the_limit_stops_at_the_first_one_over() {
    Path file = new TestFiles(dir).write("a.yaml", "- x\n".repeat(YamlReader.MAX_VALUES + 10));
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertEquals(List.of((YamlReader.MAX_VALUES) + ":3: "
        + "more than " + YamlReader.MAX_VALUES + " values (maps, lists and scalars) in the file; split it"),
        problemsOf(file)));
  }
}
