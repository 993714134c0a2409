package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {

  private final List<String> lines = new ArrayList<>();
  private final LineSplitter splitter = new LineSplitter(10, lines::add);

  private void feed(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    splitter.append(bytes, 0, bytes.length);
  }

  @Test
  void lines_split_across_chunks_arrive_whole_and_the_last_one_at_the_end() {
    feed("ab");
    feed("c\nd");
    feed("é\n\nlast");
    splitter.finish();
    assertEquals(List.of("abc", "dé", "", "last"), lines);
  }

  @Test
  void a_line_longer_than_the_cap_is_skipped_whole_and_the_next_one_arrives() {
    feed("0123456789ABCDEF");
    feed("GHIJ\nshort\n");
    assertEquals(List.of("short"), lines);
    assertEquals(1, splitter.skipped());
  }
}
