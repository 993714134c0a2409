package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Issue 13 point 8: a job file that cannot be written on a full disk says what is full and where. */
class DiskFullMessageTest {
  private static final Path FULL = Path.of("/dev/full"); // every write fails with ENOSPC

  @Test
  void a_job_directory_that_cannot_be_prepared_on_a_full_disk_says_where_and_that_the_disk_is_full() {
    assumeTrue(Files.isWritable(FULL), "needs /dev/full (Linux)");
    IOException enospc = assertThrows(IOException.class, () -> Files.writeString(FULL, "the prompt"));
    UncheckedIOException failure = new UncheckedIOException(
        "could not prepare job directory /state/jobs/run1-0001-A-build-1", enospc);

    assertEquals("could not prepare job directory /state/jobs/run1-0001-A-build-1: No space left on device"
        + " (the disk is full: free space there and run the command again; everything recorded before is kept)",
        ErrorHandler.withIoCause(failure));
  }

  @Test
  void a_message_that_already_names_its_cause_is_left_alone() {
    IOException cause = new IOException("/x/output.log: Permission denied");
    assertEquals("cannot write /x/output.log: Permission denied",
        ErrorHandler.withIoCause(new UncheckedIOException("cannot write /x/output.log: Permission denied", cause)));
  }
}
