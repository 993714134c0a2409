package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.FollowUp;
import dev.orchestrate.outcome.AgentOutcome.MemoryNote;
import dev.orchestrate.outcome.AgentResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ResultFileTest {

  private static final Path FILE = Path.of("/x/result.json");

  private final ResultFile resultFile = new ResultFile();

  private ResultFile.Reading parse(String json) {
    return resultFile.parse(json.getBytes(StandardCharsets.UTF_8), FILE);
  }

  private ResultFile.Reported reported(String json) {
    return assertInstanceOf(ResultFile.Reported.class, parse(json));
  }

  private String problem(String json) {
    return assertInstanceOf(ResultFile.Invalid.class, parse(json)).problem();
  }

  @ParameterizedTest
  @EnumSource(AgentResult.class)
  void every_result_value_is_read_by_its_wire_name(AgentResult result) {
    assertEquals(result, reported("{\"result\": \"" + result.key() + "\"}").result());
  }

  @Test
  void a_bare_result_has_empty_summary_context_memories_and_follow_ups() {
    ResultFile.Reported report = reported("{\"result\": \"phase_complete\"}");
    assertEquals("", report.summary());
    assertEquals("", report.context());
    assertEquals(List.of(), report.memories());
    assertEquals(List.of(), report.followUps());
  }

  @Test
  void summary_context_memories_and_follow_ups_are_read() {
    ResultFile.Reported report = reported("""
        {"result": "blocked", "summary": "built the parser", "context": "need the API key",
         "memories": [
           {"kind": "semantic", "content": "We use Postgres 16", "tags": ["db", "infra"]},
           {"kind": "procedural", "content": "Run make gen before tests"},
           {"kind": "episodic", "content": "The flaky test is test_io", "tags": []}],
         "follow_ups": [{"title": "Add retries", "description": "the client gives up too soon"},
                        {"title": "Document the flag"}]}
        """);
    assertEquals(AgentResult.BLOCKED, report.result());
    assertEquals("built the parser", report.summary());
    assertEquals("need the API key", report.context());
    assertEquals(List.of(
        new MemoryNote("semantic", "We use Postgres 16", List.of("db", "infra")),
        new MemoryNote("procedural", "Run make gen before tests", List.of()),
        new MemoryNote("episodic", "The flaky test is test_io", List.of())), report.memories());
    assertEquals(List.of(
        new FollowUp("Add retries", "the client gives up too soon"),
        new FollowUp("Document the flag", "")), report.followUps());
  }

  @Test
  void unknown_fields_are_ignored_so_newer_agents_keep_working() {
    ResultFile.Reported report = reported("""
        {"result": "phase_complete", "confidence": 0.9, "artifacts": {"pr": 12},
         "memories": [{"kind": "semantic", "content": "c", "source": "docs"}]}
        """);
    assertEquals(AgentResult.PHASE_COMPLETE, report.result());
    assertEquals(1, report.memories().size());
  }

  @Test
  void null_optional_fields_count_as_absent() {
    ResultFile.Reported report = reported("{\"result\": \"failed\", \"summary\": null, \"memories\": null}");
    assertEquals("", report.summary());
    assertEquals(List.of(), report.memories());
  }

  @Test
  void malformed_json_names_the_file_and_the_position() {
    String problem = problem("{\"result\": x}");
    assertEquals("result file /x/result.json is not valid JSON (line 1, column 12): "
        + "Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token"
        + " 'null', 'true' or 'false')", problem);
  }

  @Test
  void truncated_json_is_not_valid_json() {
    assertStartsWith("result file /x/result.json is not valid JSON (line 2,",
        problem("{\"result\": \"failed\",\n \"summary\": \"half"));
  }

  @Test
  void trailing_garbage_after_the_object_is_not_valid_json() {
    assertStartsWith("result file /x/result.json is not valid JSON",
        problem("{\"result\": \"failed\"} and then some"));
  }

  @Test
  void a_duplicated_field_is_not_valid_json() {
    assertStartsWith("result file /x/result.json is not valid JSON",
        problem("{\"result\": \"failed\", \"result\": \"phase_complete\"}"));
  }

  @Test
  void an_unknown_result_value_lists_the_valid_ones() {
    assertEquals("result file /x/result.json: \"result\" must be one of phase_complete,"
        + " subphase_complete, failed, blocked, got \"done\"", problem("{\"result\": \"done\"}"));
  }

  @Test
  void a_missing_result_is_an_error() {
    assertEquals("result file /x/result.json: \"result\" is required",
        problem("{\"summary\": \"did it\"}"));
  }

  @Test
  void a_result_of_the_wrong_type_is_an_error() {
    assertEquals("result file /x/result.json: \"result\" must be a string, got a boolean",
        problem("{\"result\": true}"));
  }

  @Test
  void a_summary_of_the_wrong_type_is_an_error() {
    assertEquals("result file /x/result.json: \"summary\" must be a string, got a number",
        problem("{\"result\": \"failed\", \"summary\": 3}"));
  }

  @Test
  void a_top_level_array_is_an_error() {
    assertEquals("result file /x/result.json must hold a JSON object, got an array",
        problem("[{\"result\": \"failed\"}]"));
  }

  @Test
  void memories_that_are_not_an_array_are_an_error() {
    assertEquals("result file /x/result.json: \"memories\" must be an array, got an object",
        problem("{\"result\": \"failed\", \"memories\": {\"kind\": \"semantic\"}}"));
  }

  @Test
  void a_memory_that_is_not_an_object_is_an_error() {
    assertEquals("result file /x/result.json: \"memories[0]\" must be an object, got a string",
        problem("{\"result\": \"failed\", \"memories\": [\"remember this\"]}"));
  }

  @Test
  void a_bad_memory_kind_is_an_error() {
    assertEquals("result file /x/result.json: \"memories[1].kind\" must be one of semantic,"
        + " procedural, episodic, got \"feeling\"", problem("""
            {"result": "phase_complete", "memories": [
              {"kind": "semantic", "content": "ok"}, {"kind": "feeling", "content": "meh"}]}
            """));
  }

  @Test
  void a_memory_without_content_is_an_error() {
    assertEquals("result file /x/result.json: \"memories[0].content\" is required",
        problem("{\"result\": \"failed\", \"memories\": [{\"kind\": \"semantic\"}]}"));
  }

  @Test
  void a_memory_with_blank_content_is_an_error() {
    assertEquals("result file /x/result.json: \"memories[0].content\" must not be empty",
        problem("{\"result\": \"failed\", \"memories\": [{\"kind\": \"episodic\","
            + " \"content\": \" \"}]}"));
  }

  @Test
  void a_tag_that_is_not_a_string_is_an_error() {
    assertEquals("result file /x/result.json: \"memories[0].tags[1]\" must be a string,"
        + " got a number",
        problem("{\"result\": \"failed\", \"memories\": [{\"kind\": \"semantic\","
            + " \"content\": \"c\", \"tags\": [\"a\", 2]}]}"));
  }

  @Test
  void a_follow_up_without_title_is_an_error() {
    assertEquals("result file /x/result.json: \"follow_ups[0].title\" is required",
        problem("{\"result\": \"failed\", \"follow_ups\": [{\"description\": \"d\"}]}"));
  }

  @Test
  void a_follow_up_description_of_the_wrong_type_is_an_error() {
    assertEquals("result file /x/result.json: \"follow_ups[0].description\" must be a string,"
        + " got an array",
        problem("{\"result\": \"failed\", \"follow_ups\": [{\"title\": \"t\","
            + " \"description\": [\"d\"]}]}"));
  }

  @Test
  void a_long_bad_value_is_shortened_in_the_message() {
    String problem = problem("{\"result\": \"" + "y".repeat(5000) + "\"}");
    assertTrue(problem.length() < 300, problem);
  }

  @Test
  void a_missing_file_means_no_result_file(@TempDir Path dir) {
    assertInstanceOf(ResultFile.Absent.class, resultFile.read(dir.resolve("result.json")));
  }

  @Test
  void an_empty_file_means_no_result_file(@TempDir Path dir) throws IOException {
    Path file = Files.createFile(dir.resolve("result.json"));
    assertInstanceOf(ResultFile.Absent.class, resultFile.read(file));
  }

  @Test
  void a_file_of_only_whitespace_means_no_result_file(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("result.json"), "\n");
    assertInstanceOf(ResultFile.Absent.class, resultFile.read(file));
  }

  @Test
  void a_file_is_read_from_disk(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("result.json"),
        "{\"result\": \"subphase_complete\", \"summary\": \"step 1 of 3 ✓\"}");
    ResultFile.Reported report = assertInstanceOf(ResultFile.Reported.class, resultFile.read(file));
    assertEquals("step 1 of 3 ✓", report.summary());
  }

  @Test
  void an_oversized_file_is_refused_without_reading_it_all(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("result.json");
    Files.write(file, new byte[ResultFile.MAX_BYTES + 10]);
    assertEquals("result file " + file + " is larger than the limit of " + ResultFile.MAX_BYTES
        + " bytes", assertInstanceOf(ResultFile.Invalid.class, resultFile.read(file)).problem());
  }

  private static void assertStartsWith(String prefix, String actual) {
    assertTrue(actual.startsWith(prefix), () -> "expected to start with <" + prefix
        + "> but was <" + actual + ">");
  }

  @Test
  void every_text_field_over_the_cap_is_cut_with_the_marker_and_counted() {
    String big = "B" + "x".repeat(AgentOutcome.TEXT_MAX_CHARS * 2) + "E";
    ResultFile.Reported report = reported("{\"result\": \"phase_complete\", \"summary\": \"" + big
        + "\", \"context\": \"" + big + "\", \"memories\": [{\"kind\": \"semantic\", \"content\": \"" + big
        + "\"}, {\"kind\": \"semantic\", \"content\": \"short\"}], \"follow_ups\": [{\"title\": \"" + big
        + "\", \"description\": \"" + big + "\"}]}");
    List<String> texts = List.of(report.summary(), report.context(), report.memories().get(0).content(),
        report.followUps().get(0).title(), report.followUps().get(0).description());
    for (String text : texts) {
      assertTrue(text.length() <= AgentOutcome.TEXT_MAX_CHARS, text.length() + "");
      assertEquals(dev.orchestrate.limits.SizeCap.cap(big, AgentOutcome.TEXT_MAX_CHARS), text);
      assertTrue(text.startsWith("B") && text.endsWith("E") && text.contains("…[truncated "));
    }
    assertEquals("short", report.memories().get(1).content());
    assertEquals(5, report.truncatedValues());
  }

  @Test
  void a_report_whose_texts_fit_counts_no_truncation() {
    String fits = "y".repeat(AgentOutcome.TEXT_MAX_CHARS);
    ResultFile.Reported report = reported("{\"result\": \"failed\", \"context\": \"" + fits + "\"}");
    assertEquals(fits, report.context());
    assertEquals(0, report.truncatedValues());
  }

  // --- files that are not what they seem: none may hang the read or be followed (issue 13.1)

  private static String invalid(ResultFile.Reading reading) {
    return assertInstanceOf(ResultFile.Invalid.class, reading).problem();
  }

  private static void mkfifo(Path fifo) throws IOException, InterruptedException {
    assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor(), "mkfifo");
  }

  @Test
  void a_fifo_is_refused_at_once_without_opening_it(@TempDir Path dir) throws Exception {
    Path fifo = dir.resolve("result.json");
    mkfifo(fifo);
    long start = System.nanoTime();
    String problem = invalid(resultFile.read(fifo));
    assertTrue(problem.endsWith("is not a regular file (a FIFO, socket or device); write the JSON report"
        + " to a regular file"), problem);
    assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(ResultFile.READ_TIMEOUT) < 0,
        "refused before any read could block");
  }

  @Test
  void a_read_that_blocks_is_given_up_after_the_timeout(@TempDir Path dir) throws Exception {
    Path fifo = dir.resolve("result.json");
    mkfifo(fifo); // opening a FIFO without a writer blocks: the race a checked file could lose
    ResultFile.Loaded loaded = ResultFile.readBounded(fifo, Duration.ofMillis(300));
    assertEquals(null, loaded.bytes());
    assertTrue(loaded.problem().contains("could not be read within 300ms (is it a FIFO or a device?)"),
        loaded.problem());
    assertTrue(awaitNoThread("result-file-reader", Duration.ofSeconds(10)),
        "the reader blocked on the FIFO was released, not left blocked for the life of the run");
  }

  @Test
  void a_symbolic_link_is_not_followed_inside_or_out_of_the_job_directory(@TempDir Path dir) throws Exception {
    Path outside = dir.resolve("outside.json");
    Files.writeString(outside, "{\"result\": \"phase_complete\", \"summary\": \"from outside\"}");
    Path jobDir = Files.createDirectories(dir.resolve("job"));
    for (Path target : List.of(Path.of("/etc/passwd"), outside, jobDir.resolve("real.json"))) {
      Files.writeString(jobDir.resolve("real.json"), "{\"result\": \"phase_complete\"}");
      Path link = jobDir.resolve("result.json");
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, target);
      assertTrue(invalid(resultFile.read(link)).endsWith("is a symbolic link; orchestrate reads only a regular"
          + " file written in place, never through a link"), target.toString());
    }
  }

  @Test
  void a_job_directory_replaced_by_a_link_is_not_read_through(@TempDir Path dir) throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.writeString(elsewhere.resolve("result.json"), "{\"result\": \"phase_complete\"}");
    Path jobDir = Files.createSymbolicLink(dir.resolve("job"), elsewhere);
    assertTrue(invalid(resultFile.read(jobDir.resolve("result.json")))
        .endsWith("its job directory was replaced by a symbolic link"));
  }

  @Test
  void a_directory_is_refused(@TempDir Path dir) throws Exception {
    Path result = Files.createDirectories(dir.resolve("result.json"));
    assertTrue(invalid(resultFile.read(result)).endsWith("is a directory; write the JSON report to a regular file"));
  }

  @Test
  void a_huge_sparse_file_is_refused_by_its_size_before_any_read(@TempDir Path dir) throws Exception {
    Path result = dir.resolve("result.json");
    try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(result.toFile(), "rw")) {
      file.setLength(64L * 1024 * 1024 * 1024); // 64 GiB of holes
    }
    long start = System.nanoTime();
    assertTrue(invalid(resultFile.read(result)).endsWith("is larger than the limit of " + ResultFile.MAX_BYTES
        + " bytes"));
    assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(5)) < 0);
  }

  @Test
  void a_file_that_grows_forever_is_read_only_up_to_the_cap(@TempDir Path dir) throws Exception {
    Path result = dir.resolve("result.json");
    Files.writeString(result, "{");
    // yes itself appends, no shell between: a shell's orphaned child would go on filling the disk
    // through the deleted file after the test (it filled it once and failed a later test with ENOSPC).
    Process writer = new ProcessBuilder("yes", "\"x\",")
        .redirectOutput(ProcessBuilder.Redirect.appendTo(result.toFile()))
        .start();
    try {
      // small when checked, then growing while it is read
      String problem = invalid(resultFile.read(result));
      assertTrue(problem.endsWith("is larger than the limit of " + ResultFile.MAX_BYTES + " bytes")
          || problem.contains("is not valid JSON"), problem);
    } finally {
      writer.descendants().forEach(ProcessHandle::destroyForcibly);
      writer.destroyForcibly().waitFor();
    }
  }

  @Test
  void a_stored_file_holding_a_secret_is_rewritten_masked_and_still_parses(@TempDir Path dir) throws Exception {
    Path result = dir.resolve("result.json");
    Files.writeString(result, "{\"result\": \"phase_complete\", \"summary\": \"key sk-live-9876 used\"}");
    ResultFile.Reported report = assertInstanceOf(ResultFile.Reported.class,
        resultFile.read(result, Secrets.of(List.of("sk-live-9876"))));
    assertEquals("key sk-live-9876 used", report.summary(), "the outcome is masked where it leaves jobs/");
    assertEquals("{\"result\": \"phase_complete\", \"summary\": \"key *** used\"}", Files.readString(result));
    try (var files = Files.list(dir)) {
      assertEquals(List.of(result), files.toList(), "no temporary copy left");
    }
  }

  private static boolean awaitNoThread(String name, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive())) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }
}
