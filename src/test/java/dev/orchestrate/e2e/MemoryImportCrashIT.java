package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.TestStores;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 19: a memory import killed part-way, then the same file imported again, converges. */
class MemoryImportCrashIT {
  private static final int LINES = 200_000;

  @TempDir
  Path dir;

  /** 200,000 lines: every tenth with an id of its own, the others without (an id derived from the content). */
  private Path seed() throws Exception {
    Path file = dir.resolve("seed.jsonl");
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (int i = 0; i < LINES; i++) {
        out.write(i % 10 == 0
            ? "{\"id\": \"fact-" + i + "\", \"kind\": \"semantic\", \"content\": \"fact number " + i + "\"}\n"
            : "{\"kind\": \"episodic\", \"content\": \"event " + i + " happened\", \"tags\": [\"t" + i % 7 + "\"]}\n");
      }
    }
    return file;
  }

  /** Every memory stored, read as the next command finds them. */
  private long rows() {
    try {
      return TestStores.read(dir.resolve("state"), store -> store.memory().size());
    } catch (RuntimeException e) {
      return 0; // not created yet, or the table not yet migrated
    }
  }

  /**
   * The memory's counters as {@code stats --json} reads them (kept by triggers, or counted once
   * per batch with the triggers paused): its rows and its load-bearing rows (the semantic ones).
   */
  private void assertCountersMatch(long rows, long semantic) throws Exception {
    Launcher.Result stats = Launcher.run(dir, "--state", "state", "stats", "--json");
    assertEquals(0, stats.exitCode(), stats.err());
    com.fasterxml.jackson.databind.JsonNode memory = null;
    for (com.fasterxml.jackson.databind.JsonNode s : new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(stats.out()).get("structures")) {
      memory = s.get("name").asText().equals("memory") ? s : memory;
    }
    assertEquals(rows, memory.get("rows").asLong(), stats.out());
    if (semantic >= 0) {
      assertEquals(semantic, memory.get("rows_kept_always").asLong(), stats.out());
    }
  }

  @Test
  void a_kill_9_part_way_then_a_second_import_of_the_same_file_leaves_exactly_its_200000_memories() throws Exception {
    Path file = seed();
    Process first = Launcher.builder(dir, "--state", "state", "memory", "import", file.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("first.txt").toFile()).start();
    assertTrue(Processes.await(Duration.ofSeconds(120), () -> rows() > 0 || !first.isAlive()),
        "the first batch was committed");
    Processes.crash(first);
    long partWay = rows();
    assertTrue(partWay > 0 && partWay < LINES, "killed part-way: " + partWay + " rows");
    assertCountersMatch(partWay, -1); // the killed batch's paused triggers came back with its rollback

    Launcher.Result second = Launcher.run(dir, "--state", "state", "memory", "import", file.toString());
    assertEquals(0, second.exitCode(), second.err());
    assertEquals(LINES, rows());
    assertCountersMatch(LINES, LINES / 10);
    assertEquals("imported 200000 memories from " + file + ": " + (LINES - partWay) + " new, " + partWay
        + " already there (updated)", second.out().strip());

    Launcher.Result third = Launcher.run(dir, "--state", "state", "memory", "import", file.toString(), "--json");
    assertEquals(0, third.exitCode(), third.err());
    assertEquals(LINES, rows());
    assertCountersMatch(LINES, LINES / 10);
    assertTrue(third.out().contains("\"added\":0") || third.out().contains("\"added\" : 0"), third.out());
  }
}
