package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.TreeSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read commands on a state directory this process cannot write (a read-only mount, a copy
 * without write permission): they answer as {@code run --dry-run} and {@code serve} do, and leave
 * it as it was. Tests run as root in CI, where {@code chmod} stops nothing, so there the directory
 * is made immutable ({@code chattr +i}, which stops root too); otherwise its write bits are removed.
 */
class ReadOnlyStateCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  @TempDir
  Path dir;

  private boolean readOnly;

  private Path state() {
    return dir.resolve("state");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state().toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /** A state a real run of two items through two phases left. */
  private void ranProject() throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.sh"), "#!/usr/bin/env bash\necho \"$ORCHESTRATE_PHASE done\"\n");
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
  }

  /** Makes everything under {@code root} unwritable by this process, or skips the test saying why it cannot. */
  private void makeReadOnly(Path root) throws Exception {
    if (ROOT) {
      assumeTrue(chattr("+i", root), "needs chattr +i (root on a file system with immutable files, such as ext4) "
          + "to make a directory read-only for root");
    } else {
      permissions(root, false);
    }
    readOnly = true;
    assumeTrue(!Files.isWritable(root) && !Files.isWritable(root.resolve("state.db")),
        "the state directory is still writable");
  }

  @AfterEach
  void writableAgain() throws Exception {
    if (readOnly) {
      if (ROOT) {
        chattr("-i", state());
      } else {
        permissions(state(), true);
      }
    }
  }

  private static boolean chattr(String flag, Path root) throws Exception {
    Process p = new ProcessBuilder("chattr", "-R", flag, root.toString()).redirectErrorStream(true).start();
    p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  private static void permissions(Path root, boolean writable) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(p));
        if (writable) {
          perms.add(PosixFilePermission.OWNER_WRITE);
        } else {
          perms.removeAll(Set.of(PosixFilePermission.OWNER_WRITE, PosixFilePermission.GROUP_WRITE,
              PosixFilePermission.OTHERS_WRITE));
        }
        Files.setPosixFilePermissions(p, perms);
      }
    }
  }

  /**
   * A run killed before it recorded its end: {@code jobs} asks whether a run still holds the lock,
   * which it does on the read-only {@code run.lock} with a lock that only needs reading.
   */
  @Test
  void jobs_tells_a_killed_run_from_a_running_one_on_a_read_only_state() throws Exception {
    ranProject();
    try (StateStore store = TestStores.open(state())) {
      store.items().runStarted(Instant.parse("2026-03-01T10:00:00Z"), ProcessHandle.current().pid());
    }
    makeReadOnly(state());
    CliRunner.Result jobs = cli("jobs", "--json");
    assertEquals(0, jobs.exitCode(), jobs.err());
    assertEquals("died", JSON.readTree(jobs.out()).get("run").get("state").asText(), jobs.out());
  }

  @Test
  void status_jobs_and_stats_read_a_state_directory_they_cannot_write_and_change_nothing() throws Exception {
    ranProject();
    makeReadOnly(state());
    TreeSnapshot before = TreeSnapshot.of(state());

    CliRunner.Result status = cli("status", "--json");
    assertEquals(0, status.exitCode(), status.err());
    assertEquals(2, JSON.readTree(status.out()).get("counts").get("done").asInt(), status.out());
    CliRunner.Result item = cli("status", "A");
    assertEquals(0, item.exitCode(), item.err());
    CliRunner.Result jobs = cli("jobs", "--json");
    assertEquals(0, jobs.exitCode(), jobs.err());
    assertEquals(4, JSON.readTree(jobs.out()).get("jobs").size(), jobs.out());
    CliRunner.Result text = cli("jobs");
    assertEquals(0, text.exitCode(), text.err());

    CliRunner.Result stats = cli("stats", "--json");
    assertEquals(0, stats.exitCode(), stats.err());
    assertEquals("", stats.err(), "the skipped sample is said only at -v");
    JsonNode doc = JSON.readTree(stats.out());
    assertTrue(doc.get("database_exists").asBoolean(), stats.out());
    CliRunner.Result verbose = cli("-v", "stats");
    assertEquals(0, verbose.exitCode(), verbose.err());
    assertTrue(verbose.err().contains("no stats sample recorded: the state directory is read-only"), verbose.err());
    assertEquals(0, cli("stats", "--check").exitCode());

    assertEquals(before, TreeSnapshot.of(state()), "nothing written");
    assertFalse(Files.exists(state().resolve("state.db-wal")));
  }
}
