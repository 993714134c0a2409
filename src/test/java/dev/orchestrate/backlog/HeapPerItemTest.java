package dev.orchestrate.backlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live heap of a run of 100,000 items, per item, stays under {@link #BOUND} (docs/benchmarks.md,
 * "Memory per item"). Measured by {@link RunHeapProbe} in a JVM of its own, with a fixed heap and
 * the serial collector as {@code bin/orchestrate} starts it, so that it depends on neither this test
 * JVM's heap nor on what other tests left in it. One copy of each item is held, the state's; with
 * the parsed backlog kept as well (the scheduler not calling {@code BacklogSource.synced}) it
 * measured 405 bytes an item, and before this bound 522; with one copy, 294. The scheduler's
 * {@code SelectionIndex} (ordered sets of the ready and new items, issue 33) added about 62: 356
 * measured with it, so a second copy (about 111 more) would now measure about 467.
 */
class HeapPerItemTest {
  static final int ITEMS = 100_000;
  /** Bytes per item: 356 measured, room for a few small fields, and well under a second copy's 467. */
  static final long BOUND = 420;

  @TempDir
  Path dir;

  @Test
  void a_run_of_100000_items_holds_each_item_once() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process probe = new ProcessBuilder(List.of(java, "-Xmx512m", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), RunHeapProbe.class.getName(), dir.toString(), String.valueOf(ITEMS)))
        .redirectErrorStream(true).start();
    probe.getOutputStream().close();
    String out = read(probe);
    assertTrue(probe.waitFor(5, TimeUnit.MINUTES), "the probe did not end");
    assertEquals(0, probe.exitValue(), out);
    String line = out.lines().filter(l -> l.startsWith("heap-bytes-per-item ")).findFirst()
        .orElseThrow(() -> new AssertionError("no measurement in: " + out));
    long perItem = Long.parseLong(line.substring("heap-bytes-per-item ".length()).strip());
    assertTrue(perItem > 0 && perItem < BOUND, perItem + " bytes per item, bound " + BOUND + "\n" + out);
  }

  /**
   * A backlog of 100,000 items with a title and a tag each (7 MB) loads in a 64 MiB heap: its items
   * are checked as they are read and their nodes let go (YamlReader.Streamed), and the text is
   * read as the string it is, not as an array of code points. Holding the file's nodes all at once,
   * and its code points, it needed about 104 MiB; now about 40.
   */
  @Test
  void a_backlog_of_100000_items_loads_in_a_64_mib_heap() throws Exception {
    Path backlog = dir.resolve("backlog.yaml");
    try (java.io.Writer out = java.nio.file.Files.newBufferedWriter(backlog)) {
      out.write("items:\n");
      for (int i = 1; i <= ITEMS; i++) {
        out.write(String.format("  - {id: I%07d, title: Title of item %d, tags: [a], depends_on: []}%n", i, i));
      }
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process probe = new ProcessBuilder(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), BacklogLoadProbe.class.getName(), backlog.toString()))
        .redirectErrorStream(true).start();
    probe.getOutputStream().close();
    String out = read(probe);
    assertTrue(probe.waitFor(5, TimeUnit.MINUTES), "the probe did not end");
    assertEquals(0, probe.exitValue(), out);
    assertEquals("loaded " + ITEMS, out.strip());
  }

  private static String read(Process process) throws IOException {
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
