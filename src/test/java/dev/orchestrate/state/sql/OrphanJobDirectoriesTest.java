package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.retention.RetentionStore.OrphanSweep;
import dev.orchestrate.state.StateDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sweep of job log directories no job row refers to, on real directories. */
class OrphanJobDirectoriesTest {
  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  @TempDir
  Path dir;

  /** The sweep a full compact makes, through the store of {@code state}. */
  private static OrphanSweep sweep(StateDirectory state, boolean dryRun) {
    try (SqlStateStore store = SqliteStores.open(state.database())) {
      return store.retention().sweepOrphanJobDirectories(dryRun);
    }
  }

  private Path jobDir(StateDirectory state, String name) throws Exception {
    Path job = state.jobs().resolve(name);
    Files.createDirectories(job);
    Files.writeString(job.resolve("output.log"), "log of " + name);
    Files.writeString(job.resolve("prompt.md"), "prompt");
    return job;
  }

  @Test
  void an_orphan_is_deleted_and_referenced_running_and_foreign_directories_are_kept() throws Exception {
    StateDirectory state = new StateDirectory(dir.resolve("state"));
    Path finished = jobDir(state, "run1-0001-WRK-1-design-1");
    Path running = jobDir(state, "run2-0001-WRK-2-build-1");
    Path orphan = jobDir(state, "run1-0002-WRK-1-build-2");
    Path foreign = Files.createDirectories(state.jobs().resolve("notes"));
    Path almost = jobDir(state, "run1-0003-WRK-1-build");
    Path file = Files.writeString(state.jobs().resolve("run1-0004-WRK-1-build-1"), "a file, not a directory");
    try (SqlStateRepository store = SqliteStores.repository(state.database())) {
      long job = store.jobStarted(new JobStart(1, "WRK-1", "design", 1, T0, finished.resolve("output.log")));
      store.jobEnded(job, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0, 0), null, List.of(), T0);
      store.jobStarted(new JobStart(2, "WRK-2", "build", 1, T0, running.resolve("output.log")));
    }

    assertEquals(new OrphanSweep(1, 0), sweep(state, true));
    assertTrue(Files.isDirectory(orphan), "a dry run deletes nothing");

    assertEquals(new OrphanSweep(1, 1), sweep(state, false));
    assertFalse(Files.exists(orphan));
    assertTrue(Files.exists(finished.resolve("output.log")), "a job row refers to it");
    assertTrue(Files.exists(running.resolve("output.log")), "a running job's directory");
    assertTrue(Files.isDirectory(foreign), "not named like a job directory");
    assertTrue(Files.isDirectory(almost), "not named like a job directory");
    assertTrue(Files.isRegularFile(file), "not a directory");
    assertEquals(OrphanSweep.NONE, sweep(state, false), "idempotent");
  }

  @Test
  void rows_are_matched_by_directory_name_so_a_moved_state_directory_keeps_its_logs() throws Exception {
    StateDirectory state = new StateDirectory(dir.resolve("moved"));
    Path kept = jobDir(state, "run3-0007-A-review-2");
    try (SqlStateRepository store = SqliteStores.repository(state.database())) {
      store.jobStarted(new JobStart(3, "A", "review", 2, T0,
          dir.resolve("where-it-was/jobs/run3-0007-A-review-2/output.log")));
    }
    assertEquals(OrphanSweep.NONE, sweep(state, false));
    assertTrue(Files.isDirectory(kept));
  }

  @Test
  void a_symbolic_link_named_like_a_job_directory_is_left_alone_and_so_is_its_target() throws Exception {
    StateDirectory state = new StateDirectory(dir.resolve("state"));
    SqliteStores.repository(state.database()).close();
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.writeString(elsewhere.resolve("precious.txt"), "keep me");
    Files.createDirectories(state.jobs());
    Path link = Files.createSymbolicLink(state.jobs().resolve("run1-0001-A-build-1"), elsewhere);
    assertEquals(OrphanSweep.NONE, sweep(state, false));
    assertTrue(Files.isSymbolicLink(link));
    assertTrue(Files.exists(elsewhere.resolve("precious.txt")));
  }

  @Test
  void the_directory_name_of_a_log_path() {
    assertEquals("run1-0001-A-b-1", OrphanJobDirectories.directoryName("/s/jobs/run1-0001-A-b-1/output.log"));
    assertNull(OrphanJobDirectories.directoryName("output.log"));
  }
}
