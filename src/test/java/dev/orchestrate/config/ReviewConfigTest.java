package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
