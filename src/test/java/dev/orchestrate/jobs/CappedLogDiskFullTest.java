package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Issue 13 point 8: a job log on a full disk stops logging, says where once, and fails nothing. */
class CappedLogDiskFullTest {
  @Test
  void writing_a_job_log_on_a_full_disk_warns_once_naming_the_file_and_the_attempt_goes_on() throws Exception {
    Path full = Path.of("/dev/full");
    assumeTrue(Files.isWritable(full), "needs /dev/full (Linux)");
    Logger logger = (Logger) LoggerFactory.getLogger(CappedLog.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try {
      CappedLog log = CappedLog.create(full, 1_000_000);
      for (int i = 0; i < 100; i++) {
        log.writeLine("line " + i + " of a chatty agent ".repeat(200)); // past any stream buffer
      }
      log.close("tail");
    } finally {
      logger.detachAppender(lines);
    }
    List<String> warnings = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertEquals(List.of("could not write agent log /dev/full, dropping the rest of the output: No space left on device"),
        warnings);
  }
}
