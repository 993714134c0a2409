package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 17: job log paths relative to the state directory, and deletes that stay inside it. */
class JobLogPathsTest {
  @TempDir
  Path dir;

  @Test
  void a_log_inside_the_state_directory_is_stored_relative_and_resolves_back() {
    Path root = dir.resolve("state");
    Path log = root.resolve("jobs/run1-0001-A-build-1/output.log");
    assertEquals("jobs/run1-0001-A-build-1/output.log", JobLogPaths.relative(root, log));
    assertEquals(log, JobLogPaths.resolve(root, "jobs/run1-0001-A-build-1/output.log"));
  }

  @Test
  void a_log_of_another_copy_of_the_state_is_stored_as_this_states_job_directory() {
    Path copy = dir.resolve("copy");
    assertEquals("jobs/run1-0001-A-build-1/output.log",
        JobLogPaths.relative(copy, Path.of("/elsewhere/original/jobs/run1-0001-A-build-1/output.log")));
    assertEquals("/elsewhere/notes.txt", JobLogPaths.relative(copy, Path.of("/elsewhere/notes.txt")),
        "not shaped like a job log: kept as it is");
    assertEquals(Path.of("/elsewhere/notes.txt"), JobLogPaths.resolve(copy, "/elsewhere/notes.txt"));
  }

  @Test
  void a_new_job_row_stores_its_log_relative_to_the_state_directory() throws Exception {
    Path root = dir.resolve("state");
    try (SqlStateRepository store = SqliteStores.repository(root.resolve("state.db"))) {
      long run = store.runStarted(java.time.Instant.EPOCH, 1);
      store.jobStarted(new dev.orchestrate.item.JobStart(run, "A", "build", 1, java.time.Instant.EPOCH,
          root.resolve("jobs/run1-0001-A-build-1/output.log")));
      assertEquals(root.resolve("jobs/run1-0001-A-build-1/output.log"), store.recentJobs(1).get(0).logPath());
    }
    assertEquals(List.of("jobs/run1-0001-A-build-1/output.log"), Db.column(root.resolve("state.db"),
        "SELECT log_path FROM jobs"));
  }

  @Test
  void delete_refuses_a_directory_outside_the_jobs_directory_and_a_link_in_it() throws Exception {
    Path jobs = Files.createDirectories(dir.resolve("state/jobs"));
    Path outside = Files.createDirectories(dir.resolve("original/jobs/run1-0001-A-build-1"));
    Files.writeString(outside.resolve("output.log"), "keep me");
    Path link = Files.createSymbolicLink(jobs.resolve("run1-0002-A-build-2"), outside);
    Path own = Files.createDirectories(jobs.resolve("run1-0003-A-build-3"));
    Files.writeString(own.resolve("output.log"), "mine");

    assertFalse(JobDirectories.delete(jobs, outside, "test"));
    assertFalse(JobDirectories.delete(jobs, link, "test"));
    assertTrue(Files.exists(outside.resolve("output.log")));
    assertTrue(JobDirectories.delete(jobs, own, "test"));
    assertFalse(Files.exists(own));
  }
}
