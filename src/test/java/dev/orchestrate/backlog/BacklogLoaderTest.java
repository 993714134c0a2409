package dev.orchestrate.backlog;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.TestFiles;
import dev.orchestrate.yaml.ValidationException;
import dev.orchestrate.yaml.YamlReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BacklogLoaderTest {
  @TempDir
  Path dir;
  private TestFiles files;

  /** The built-in config plus a second pipeline, {@code hotfix}, and {@code hotfix} as the default. */
  private static Config twoPipelines() {
    Config defaults = Config.defaults();
    Map<String, Pipeline> pipelines = new LinkedHashMap<>(defaults.pipelines());
    pipelines.put("hotfix", new Pipeline("hotfix", List.of(),
        List.of(new PhaseDef("fix", "Fix it.", null, true))));
    return new Config(defaults.source(), defaults.agent(), defaults.execution(), "hotfix", pipelines,
        defaults.context(), defaults.memoryKeepRecent(), defaults.memoryBootContextChars());
  }

  @BeforeEach
  void setUp() {
    files = new TestFiles(dir);
  }

  private Backlog load(String yaml) {
    return BacklogLoader.load(files.write("backlog.yaml", yaml), Config.defaults());
  }

  private List<String> problemsOf(String yaml) {
    return problemsOf(yaml, Config.defaults());
  }

  private List<String> problemsOf(String yaml, Config config) {
    Path file = files.write("backlog.yaml", yaml);
    return problems(() -> BacklogLoader.load(file, config));
  }

  // --- valid backlogs ---

  @Test
  void loads_the_example_of_the_design_to_the_expected_items() {
    Path file = files.copyResource("backlog.yaml");
    Backlog backlog = BacklogLoader.load(file, Config.defaults());
    assertEquals(new Backlog(file, List.of(
        new BacklogItem("WRK-000", "Set up the project", "feature", Priority.MEDIUM, List.of(), List.of(),
            "", InitialStatus.DONE),
        new BacklogItem("WRK-001", "Add login rate limiting", "feature", Priority.HIGH, List.of("WRK-000"),
            List.of("auth"), "Free text for the agent.\n", InitialStatus.READY))),
        backlog);
    assertEquals(dir.toAbsolutePath(), backlog.directory());
  }

  @Test
  void missing_optional_fields_take_their_defaults_and_the_configs_default_pipeline() {
    Backlog backlog = BacklogLoader.load(files.write("backlog.yaml", """
        items:
          - id: A
            title: Do A
        """), twoPipelines());
    assertEquals(List.of(new BacklogItem("A", "Do A", "hotfix", Priority.MEDIUM, List.of(), List.of(), "",
        InitialStatus.NEW)), backlog.items());
  }

  @Test
  void every_priority_and_status_word_is_read() {
    Backlog backlog = load("""
        items:
          - {id: A, title: a, priority: high, status: new}
          - {id: B, title: b, priority: medium, status: ready}
          - {id: C, title: c, priority: low, status: done}
          - {id: D, title: d, status: blocked, pipeline: feature, tags: [x, y], description: ~}
        """);
    assertEquals(List.of(Priority.HIGH, Priority.MEDIUM, Priority.LOW, Priority.MEDIUM),
        backlog.items().stream().map(BacklogItem::priority).toList());
    assertEquals(List.of(InitialStatus.NEW, InitialStatus.READY, InitialStatus.DONE, InitialStatus.BLOCKED),
        backlog.items().stream().map(BacklogItem::initialStatus).toList());
    assertEquals(List.of("x", "y"), backlog.items().get(3).tags());
    assertEquals("", backlog.items().get(3).description());
  }

  @Test
  void ids_keep_their_text_as_written() {
    Backlog backlog = load("""
        items:
          - {id: 007, title: seven}
          - {id: 42, title: answer, depends_on: [007]}
          - {id: 1.5, title: one and a half, depends_on: [42]}
        """);
    assertEquals(List.of("007", "42", "1.5"), backlog.items().stream().map(BacklogItem::id).toList());
    assertEquals(List.of("007"), backlog.items().get(1).dependsOn());
  }

  @Test
  void an_empty_items_list_is_an_empty_backlog() {
    assertEquals(List.of(), load("schema_version: 1\nitems: []\n").items());
    assertEquals(List.of(), load("items:\n").items());
  }

  @Test
  void a_backlog_larger_than_snakeyamls_default_limit_of_3_mb_loads() {
    StringBuilder yaml = new StringBuilder("items:\n");
    String description = "x".repeat(400);
    for (int i = 0; i < 10_000; i++) {
      yaml.append("  - id: WRK-").append(i).append("\n    title: Item ").append(i)
          .append("\n    description: ").append(description).append('\n');
      if (i > 0) {
        yaml.append("    depends_on: [WRK-").append(i - 1).append("]\n");
      }
    }
    Backlog backlog = load(yaml.toString());
    assertEquals(10_000, backlog.items().size());
    assertEquals(List.of("WRK-9998"), backlog.items().get(9_999).dependsOn());
  }

  // --- the top level ---

  @Test
  void an_unsupported_schema_version_is_an_error() {
    assertEquals(List.of("1:17: unsupported schema_version 2 (this version reads 1)"),
        problemsOf("schema_version: 2\nitems: []\n"));
    assertEquals(List.of("1:17: unsupported schema_version 'one' (this version reads 1)"),
        problemsOf("schema_version: one\nitems: []\n"));
  }

  @Test
  void a_backlog_without_items_is_an_error() {
    assertEquals(List.of("1:1: missing key 'items' (the list of work items)"), problemsOf("schema_version: 1\n"));
  }

  @Test
  void an_unknown_top_level_key_is_an_error_with_a_suggestion() {
    assertEquals(List.of(
        "1:1: unknown key 'itemz' in the backlog; did you mean 'items'?",
        "1:1: missing key 'items' (the list of work items)"),
        problemsOf("itemz: []\n"));
  }

  @Test
  void items_must_be_a_list_of_maps() {
    assertEquals(List.of("1:8: items must be a list of items, got a map"), problemsOf("items: {id: A}\n"));
    assertEquals(List.of(
        "2:5: items[0] must be a map with id and title, got 'WRK-001'",
        "3:5: items[1] must be a map with id and title, got a list"),
        problemsOf("items:\n  - WRK-001\n  - [a]\n"));
    assertEquals(List.of("1:1: a backlog file must be a map with an items list, got a list"),
        problemsOf("- id: A\n"));
  }

  // --- fields of an item ---

  @Test
  void an_unknown_field_is_an_error_with_a_suggestion() {
    assertEquals(List.of("4:5: unknown field 'depends' in item WRK-001; did you mean 'depends_on'?"),
        problemsOf("""
            items:
              - id: WRK-001
                title: Do it
                depends: [WRK-000]
            """));
  }

  @Test
  void an_unknown_field_without_a_close_match_lists_the_fields() {
    assertEquals(List.of("3:5: unknown field 'owner' in item A; expected one of: id, title, pipeline, "
        + "priority, depends_on, tags, description, status"),
        problemsOf("""
            items:
              - id: A
                owner: me
                title: Do it
            """));
  }

  @Test
  void an_item_needs_an_id_made_of_the_allowed_characters() {
    assertEquals(List.of(
        "2:5: items[0] has no id",
        "3:9: items[1] has no id",
        "5:10: bad id 'WRK 002': use only letters, digits, '.', '_' and '-'",
        "6:10: id in items[3] must be an id like WRK-001, got a list",
        "7:10: items[4] has no id"),
        problemsOf("""
            items:
              - title: no id
              - id: ""
                title: blank id
              - {id: WRK 002, title: space}
              - {id: [a], title: list}
              - {id: ~, title: null id}
            """));
  }

  @Test
  void an_item_needs_a_title() {
    assertEquals(List.of(
        "2:5: item A has no title",
        "3:20: item B has a blank title",
        "4:19: item C has no title",
        "5:20: title in item D must be text, got a map"),
        problemsOf("""
            items:
              - id: A
              - {id: B, title: "  "}
              - {id: C, title: }
              - {id: D, title: {a: b}}
            """));
  }

  @Test
  void a_duplicate_id_is_reported_at_the_second_with_the_line_of_the_first() {
    assertEquals(List.of("6:9: duplicate id 'WRK-001' (first defined at line 2)"),
        problemsOf("""
            items:
              - id: WRK-001
                title: First
              - id: WRK-002
                title: Second
              - id: WRK-001
                title: Third
            """));
  }

  @Test
  void bad_priority_and_status_values_list_the_allowed_ones() {
    assertEquals(List.of(
        "2:33: priority in item A must be high, medium or low, got 'urgent'",
        "3:31: status in item B must be new, ready, done or blocked, got 'todo'",
        "4:31: status in item C must be new, ready, done or blocked, got 'in_progress'"),
        problemsOf("""
            items:
              - {id: A, title: a, priority: urgent}
              - {id: B, title: b, status: todo}
              - {id: C, title: c, status: in_progress}
            """));
  }

  @Test
  void an_unknown_pipeline_lists_the_defined_ones() {
    assertEquals(List.of("2:33: unknown pipeline 'bugfix' in item A; defined pipelines: feature, hotfix"),
        problemsOf("items:\n  - {id: A, title: a, pipeline: bugfix}\n  - {id: B, title: b, pipeline: hotfix}\n",
            twoPipelines()));
  }

  @Test
  void fields_of_the_wrong_type_are_errors() {
    assertEquals(List.of(
        "4:17: depends_on in item A must be a list of item ids, e.g. [B], got 'B'",
        "5:11: tags in item A must be a list of tags, got a map",
        "6:18: description in item A must be text, got a list",
        "7:15: pipeline in item A must be a pipeline name, got a list",
        "10:21: depends_on[1] in item B must be a non-empty item id, got a map"),
        problemsOf("""
            items:
              - id: A
                title: a
                depends_on: B
                tags: {a: 1}
                description: [x]
                pipeline: [feature]
              - id: B
                title: b
                depends_on: [A, {id: A}]
            """));
  }

  // --- dependencies ---

  @Test
  void a_dependency_on_an_unknown_id_is_an_error_at_the_reference() {
    assertEquals(List.of("3:39: item B depends on unknown item 'WRK-999'"),
        problemsOf("""
            items:
              - {id: A, title: a}
              - {id: B, title: b, depends_on: [A, WRK-999]}
            """));
  }

  @Test
  void a_dependency_on_itself_is_an_error() {
    assertEquals(List.of("2:36: item A depends on itself"),
        problemsOf("items:\n  - {id: A, title: a, depends_on: [A]}\n"));
  }

  @Test
  void a_dependency_cycle_is_named_in_full_starting_at_its_first_item() {
    assertEquals(List.of("2:36: dependency cycle: A -> B -> C -> A"),
        problemsOf("""
            items:
              - {id: A, title: a, depends_on: [B]}
              - {id: C, title: c, depends_on: [A]}
              - {id: B, title: b, depends_on: [C]}
              - {id: D, title: d, depends_on: [A, C]}
            """));
  }

  @Test
  void each_distinct_cycle_is_reported_once() {
    assertEquals(List.of(
        "2:36: dependency cycle: A -> B -> A",
        "4:36: dependency cycle: C -> D -> E -> C",
        "6:39: dependency cycle: E -> F -> E"),
        problemsOf("""
            items:
              - {id: A, title: a, depends_on: [B]}
              - {id: B, title: b, depends_on: [A, A]}
              - {id: C, title: c, depends_on: [D]}
              - {id: D, title: d, depends_on: [E]}
              - {id: E, title: e, depends_on: [C, F]}
              - {id: F, title: f, depends_on: [E]}
            """));
  }

  @Test
  void a_very_long_dependency_chain_closing_into_a_cycle_is_found_without_overflowing_the_stack() {
    int n = 20_000;
    StringBuilder yaml = new StringBuilder("items:\n");
    for (int i = 0; i < n; i++) {
      yaml.append("  - {id: I").append(i).append(", title: t, depends_on: [I").append((i + 1) % n).append("]}\n");
    }
    List<String> problems = problemsOf(yaml.toString());
    assertEquals(List.of("2:37: dependency cycle of 20000 items: I0 -> I1 -> I2 -> I3 -> I4 -> I5 -> I6 -> "
        + "I7 -> I8 -> I9 -> I10 -> I11 -> I12 -> I13 -> I14 -> I15 -> I16 -> I17 -> I18 -> I19 -> "
        + "... 19970 more ... -> I19990 -> I19991 -> I19992 -> I19993 -> I19994 -> I19995 -> I19996 -> "
        + "I19997 -> I19998 -> I19999 -> I0"), problems);
  }

  // --- the file as a whole ---

  @Test
  void reports_every_problem_at_once_with_line_and_column() {
    Path file = files.write("backlog.yaml", """
        schema_version: 1
        items:
          - id: WRK-001
            title: Add login rate limiting
            priority: urgent
            depends: [WRK-000]
          - id: WRK-002
            title: "  "
            depends_on: [WRK-003]
          - id: WRK-001
            title: Again
          - id: WRK-003
            title: Three
            status: started
            depends_on: [WRK-002]
        """);
    String name = file.toString();
    assertEquals(List.of(
        new Problem(name, 5, 15, "priority in item WRK-001 must be high, medium or low, got 'urgent'"),
        new Problem(name, 6, 5, "unknown field 'depends' in item WRK-001; did you mean 'depends_on'?"),
        new Problem(name, 8, 12, "item WRK-002 has a blank title"),
        new Problem(name, 9, 18, "dependency cycle: WRK-002 -> WRK-003 -> WRK-002"),
        new Problem(name, 10, 9, "duplicate id 'WRK-001' (first defined at line 3)"),
        new Problem(name, 14, 13, "status in item WRK-003 must be new, ready, done or blocked, got 'started'")),
        TestFiles.rawProblems(() -> BacklogLoader.load(file, Config.defaults())));
  }

  @Test
  void a_syntax_error_is_reported_alone_as_one_line() {
    assertEquals(List.of("3:3: invalid YAML: expected <block end>, but found '?' "
        + "(while parsing a block collection that starts at line 2); check the indentation"),
        problemsOf("items:\n  - id: A\n  title: x\n"));
  }

  /**
   * Items are checked as they are read (the reader streams them); what those checks found before a
   * syntax error further on is dropped: the syntax error is reported alone, as when the whole file
   * was parsed before any check.
   */
  @Test
  void a_syntax_error_after_wrong_items_is_still_reported_alone() {
    assertEquals(List.of("5:3: invalid YAML: expected <block end>, but found '?' "
        + "(while parsing a block collection that starts at line 2); check the indentation"),
        problemsOf("items:\n  - id: A\n  - {id: B, title: b, priority: urgent}\n  - id: C\n  title: x\n"));
  }

  /**
   * The file's own problems come before its items' (whose checks run as the items are read), so
   * that past the problems kept an unsupported schema version still shows.
   */
  @Test
  void a_newer_schema_version_shows_among_thousands_of_item_problems() {
    StringBuilder yaml = new StringBuilder("schema_version: 2\nitems:\n");
    for (int i = 0; i < 1_500; i++) {
      yaml.append("  - {id: I").append(i).append(", title: t, estimate: 3}\n");
    }
    List<String> problems = problemsOf(yaml.toString());
    assertTrue(problems.contains("1:17: unsupported schema_version 2 (this version reads 1)"),
        problems.subList(0, 3).toString());
  }

  /** Items come from the first items key; a second one is a duplicate key, its items unread. */
  @Test
  void the_items_of_a_second_items_key_are_not_read() {
    assertEquals(List.of("4:1: duplicate key 'items' (first defined at line 1)"),
        problemsOf("items:\n  - {id: A, title: a}\n  - {id: B, title: b, depends_on: [A]}\n"
            + "items:\n  - {id: C}\n"));
    // Elements without an id still count in the index of those after them.
    Path file = files.write("backlog.yaml", "items:\n  - {id: A, title: a}\n  - {title: b}\n"
        + "  - {title: c}\n  - {title: d, depends_on: [Z]}\n");
    assertEquals(List.of("3:5: items[1] has no id", "4:5: items[2] has no id", "5:5: items[3] has no id"),
        problems(() -> BacklogLoader.load(file, Config.defaults())));
  }

  @Test
  void an_empty_backlog_file_is_an_error() {
    assertEquals(List.of("0:0: file is empty"), problemsOf(""));
  }

  @Test
  void a_duplicate_key_in_an_item_is_an_error() {
    assertEquals(List.of("4:5: duplicate key 'title' (first defined at line 3)"),
        problemsOf("items:\n  - id: A\n    title: a\n    title: b\n"));
  }

  // --- hostile input ---

  @Test
  void an_id_of_the_longest_length_loads_and_one_longer_is_a_problem_quoted_short() {
    String longest = "A".repeat(BacklogItem.MAX_ID_CHARS);
    assertEquals(longest, load("items:\n  - {id: " + longest + ", title: t}\n").items().get(0).id());
    String tooLong = "B".repeat(300);
    assertEquals(
        List.of("2:10: id 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB…' (300 characters) is longer "
            + "than 100 characters; shorten it (ids name the job directories)"),
        problemsOf("items:\n  - {id: " + tooLong + ", title: t}\n"));
  }

  @Test
  void a_megabyte_bad_id_is_quoted_by_its_first_characters_only() {
    List<String> problems = problemsOf("items:\n  - id: \"" + "x y".repeat(350_000) + "\"\n    title: t\n");
    assertEquals(1, problems.size());
    assertEquals("2:9: id 'x yx yx yx yx yx yx yx yx yx yx yx yx yx yx yx yx yx yx yx y…' (1050000 characters) "
        + "is longer than 100 characters; shorten it (ids name the job directories)", problems.get(0));
  }

  @Test
  void an_id_with_a_newline_is_one_line_with_the_newline_escaped() {
    assertEquals(List.of("2:10: bad id 'A\\nB': use only letters, digits, '.', '_' and '-'"),
        problemsOf("items:\n  - {id: \"A\\nB\", title: t}\n"));
  }

  @Test
  void a_backlog_with_a_20_megabyte_title_is_refused_by_its_size() throws Exception {
    Path file = files.write("backlog.yaml", "items:\n  - id: A\n    title: " + "x".repeat(20_000_000) + "\n");
    assertEquals(List.of("0:0: file is 20000029 bytes, over the limit of 16MiB (16777216 bytes); split the "
        + "backlog, shorten the longest descriptions, or raise backlog.max_bytes in the config"),
        problems(() -> BacklogLoader.load(file, Config.defaults())));
  }

  @Test
  void backlog_max_bytes_admits_a_larger_file_and_names_itself_when_exceeded() throws Exception {
    Path file = files.write("backlog.yaml", "items:\n  - id: A\n    title: " + "x".repeat(20_000_000) + "\n");
    Config raised = ConfigLoader.load(files.write("orchestrate.yaml", "backlog: {max_bytes: 32MiB}\n"));
    assertEquals(20_000_000, BacklogLoader.load(file, raised).items().get(0).title().length());

    Config lowered = ConfigLoader.load(files.write("orchestrate.yaml", "backlog: {max_bytes: 1KiB}\n"));
    Path small = files.write("small.yaml", "items:\n  - {id: A, title: " + "x".repeat(2000) + "}\n");
    assertEquals(List.of("0:0: file is 2028 bytes, over the limit of 1KiB (1024 bytes); split the backlog, shorten "
        + "the longest descriptions, or raise backlog.max_bytes in the config"),
        problems(() -> BacklogLoader.load(small, lowered)));
  }

  @Test
  void the_cap_on_values_grows_with_backlog_max_bytes_and_its_error_names_the_setting() {
    assertEquals(YamlReader.MAX_VALUES, YamlReader.maxValues(YamlReader.MAX_BACKLOG_BYTES));
    assertEquals(YamlReader.MAX_VALUES, YamlReader.maxValues(1024));
    assertEquals(4_194_304, YamlReader.maxValues(64L << 20)); // 1,000,000 items of id and title: 3,000,001
    Config lowered = ConfigLoader.load(files.write("orchestrate.yaml", "backlog: {max_bytes: 16MiB}\n"));
    StringBuilder yaml = new StringBuilder("items:\n");
    for (int i = 0; i < 340_000; i++) {
      yaml.append("- {id: I").append(i).append(", title: t}\n");
    }
    Path file = files.write("many.yaml", yaml.toString());
    List<String> problems = problems(() -> BacklogLoader.load(file, lowered));
    assertEquals(1, problems.size());
    assertTrue(problems.get(0).endsWith("more than 1000000 values (maps, lists and scalars) in the file; split the "
        + "backlog, or raise backlog.max_bytes in the config (16MiB allows 1000000)"), problems.get(0));
    assertEquals(340_000, BacklogLoader.load(file, ConfigLoader.load(
        files.write("orchestrate.yaml", "backlog: {max_bytes: 17MiB}\n"))).items().size());
  }

  @Test
  void a_backlog_with_a_15_megabyte_title_and_one_error_validates_in_linear_time() {
    Path file = files.write("backlog.yaml", "items:\n  - id: A\n    title: " + "x".repeat(15_000_000)
        + "\n  - {id: B, title: t, depends_on: [Z]}\n");
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertEquals(
        List.of("4:36: item B depends on unknown item 'Z'"),
        problems(() -> BacklogLoader.load(file, Config.defaults()))));
  }

  @Test
  void problems_beyond_the_first_thousand_are_counted_not_kept() {
    Path file = files.write("backlog.yaml", "items:\n" + "- x\n".repeat(5000));
    ValidationException e = org.junit.jupiter.api.Assertions.assertThrows(ValidationException.class,
        () -> BacklogLoader.load(file, Config.defaults()));
    assertEquals(Problems.MAX_KEPT, e.problems().size());
    assertEquals(5000, e.total());
  }
}
