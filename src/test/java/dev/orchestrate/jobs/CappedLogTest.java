package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CappedLogTest {

  @TempDir
  Path dir;

  private static void write(CappedLog log, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    log.write(bytes, 0, bytes.length);
  }

  @Test
  void output_under_the_cap_is_written_as_is_without_a_marker() throws IOException {
    Path file = dir.resolve("output.log");
    CappedLog log = CappedLog.create(file, 100);
    write(log, "line one\n");
    write(log, "line two\n");
    log.close("line two\n");
    assertEquals("line one\nline two\n", Files.readString(file));
  }

  @Test
  void output_past_the_cap_is_counted_and_followed_by_the_stdout_tail() throws IOException {
    Path file = dir.resolve("output.log");
    CappedLog log = CappedLog.create(file, 10);
    write(log, "0123456789abcdef");
    write(log, "ghij");
    log.close("tail of stdout");
    assertEquals("0123456789\n…[10 bytes omitted: output exceeded the log limit of 10 bytes]\n"
        + "tail of stdout", Files.readString(file));
  }

  @Test
  void a_huge_stdout_tail_still_fits_in_the_closing_room() throws IOException {
    Path file = dir.resolve("output.log");
    CappedLog log = CappedLog.create(file, 1000);
    write(log, "y".repeat(5000));
    log.close("€".repeat(100_000));
    long size = Files.size(file);
    assertTrue(size <= 1000 + CappedLog.CLOSING_ROOM, "log has " + size + " bytes");
    String content = Files.readString(file);
    assertTrue(content.endsWith("€€€"), "tail starts on a character boundary and is kept");
  }

  @Test
  void writes_after_close_are_ignored() throws IOException {
    Path file = dir.resolve("output.log");
    CappedLog log = CappedLog.create(file, 100);
    write(log, "before\n");
    log.close("");
    write(log, "after\n");
    assertEquals("before\n", Files.readString(file));
  }
}
