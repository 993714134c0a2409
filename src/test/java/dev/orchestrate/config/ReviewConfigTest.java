package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.yaml.TestFiles;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code review:} of a pipeline (issue 32, item 3). */
class ReviewConfigTest {
  @TempDir
  Path dir;
  private TestFiles files;

  @BeforeEach
  void setUp() {
    files = new TestFiles(dir);
  }

  private Config load(String yaml) {
    return ConfigLoader.load(files.write("orchestrate.yaml", yaml));
  }

  @Test
  void review_is_required_or_none_per_pipeline_and_none_by_default() {
    Config config = load("""
        default_pipeline: plain
        pipelines:
          gated:
            review: required
            phases: [{name: build, instructions: Build it.}]
          open:
            review: none
            phases: [{name: build, instructions: Build it.}]
          plain:
            phases: [{name: build, instructions: Build it.}]
        """);
    assertEquals(Pipeline.Review.REQUIRED, config.pipeline("gated").review());
    assertEquals(Pipeline.Review.NONE, config.pipeline("open").review());
    assertEquals(Pipeline.Review.NONE, config.pipeline("plain").review());
    assertEquals(Pipeline.Review.NONE, load("agent: {command: [true]}\n").pipeline(Config.DEFAULT_PIPELINE).review());
  }

  @Test
  void another_word_is_refused_where_it_is_written() {
    Path file = files.write("orchestrate.yaml", """
        default_pipeline: gated
        pipelines:
          gated:
            review: always
            phases: [{name: build, instructions: Build it.}]
        """);
    assertEquals(List.of("4:13: review of pipeline 'gated' must be none or required, got 'always'"),
        problems(() -> ConfigLoader.load(file)));
  }

  private List<String> problemsOf(String yaml) {
    Path file = files.write("orchestrate.yaml", yaml);
    return problems(() -> ConfigLoader.load(file));
  }

  @Test
  void review_timeout_takes_a_duration_and_an_action_that_defaults_to_block() {
    Config config = load("""
        default_pipeline: a
        pipelines:
          a:
            review: required
            review_timeout: 2h
            on_review_timeout: reject
            phases: [{name: build, instructions: Build it.}]
          b:
            review: required
            review_timeout: 30m
            phases: [{name: build, instructions: Build it.}]
          c:
            review: required
            phases: [{name: build, instructions: Build it.}]
        """);
    assertEquals(new Pipeline.ReviewTimeout(java.time.Duration.ofHours(2), Pipeline.TimeoutAction.REJECT),
        config.pipeline("a").reviewTimeout());
    assertEquals(new Pipeline.ReviewTimeout(java.time.Duration.ofMinutes(30), Pipeline.TimeoutAction.BLOCK),
        config.pipeline("b").reviewTimeout());
    assertEquals(null, config.pipeline("c").reviewTimeout());
  }

  @Test
  void review_timeout_needs_review_required_the_action_needs_a_timeout_and_both_are_checked() {
    assertEquals(List.of("4:21: review_timeout of pipeline 'a' needs review: required (without it no item awaits "
        + "review)"), problemsOf("""
            default_pipeline: a
            pipelines:
              a:
                review_timeout: 1h
                phases: [{name: build, instructions: Build it.}]
            """));
    assertEquals(List.of("5:24: on_review_timeout of pipeline 'a' needs review_timeout: the action is what happens "
        + "once an item has awaited review that long"), problemsOf("""
            default_pipeline: a
            pipelines:
              a:
                review: required
                on_review_timeout: approve
                phases: [{name: build, instructions: Build it.}]
            """));
    List<String> bad = problemsOf("""
        default_pipeline: a
        pipelines:
          a:
            review: required
            review_timeout: soon
            on_review_timeout: merge
            phases: [{name: build, instructions: Build it.}]
        """);
    assertEquals(2, bad.size(), bad.toString());
    assertTrue(bad.get(0).startsWith("5:21: review_timeout of pipeline 'a': "), bad.toString());
    assertEquals("6:24: on_review_timeout of pipeline 'a' must be approve, reject or block, got 'merge'", bad.get(1));
    assertEquals(List.of("5:21: review_timeout of pipeline 'a': bad duration '0s': must be more than zero"),
        problemsOf("""
            default_pipeline: a
            pipelines:
              a:
                review: required
                review_timeout: 0s
                phases: [{name: build, instructions: Build it.}]
            """));
  }
}
