package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobDirectoryBytesTest {

  @TempDir
  Path dir;

  @Test
  void a_job_directory_counts_its_own_regular_files_and_not_what_a_planted_link_points_at() throws Exception {
    Path outside = Files.write(dir.resolve("big-outside.bin"), new byte[100_000]);
    Path job = Files.createDirectory(dir.resolve("job"));
    Files.writeString(job.resolve("prompt.md"), "12345");
    Files.writeString(job.resolve("output.log"), "123");
    Files.createSymbolicLink(job.resolve("result.json"), outside);
    Files.createDirectory(job.resolve("subdir"));

    assertEquals(8, EndingJob.directoryBytes(job));
  }

  @Test
  void an_unreadable_or_missing_directory_counts_zero() {
    assertEquals(0, EndingJob.directoryBytes(dir.resolve("gone")));
  }
}
