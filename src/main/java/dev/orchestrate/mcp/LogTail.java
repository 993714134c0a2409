package dev.orchestrate.mcp;

import dev.orchestrate.limits.FileTail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The end of a job's log, at most {@code maxBytes} of it: a log is capped at
 * {@code agent.log_max_bytes} (megabytes), too much for one answer to a model. The file is opened
 * without following a link, as {@code logs} opens it: an agent can write in its job's directory.
 *
 * @param text      the bytes read as UTF-8, from the first whole line when the start was cut
 * @param sizeBytes the log's size
 * @param cut       whether the start of the log was left out
 */
record LogTail(String text, long sizeBytes, boolean cut) {
  /** How long a read may take: a FIFO swapped in after the check would block it for good. */
  static final java.time.Duration READ_TIMEOUT = java.time.Duration.ofSeconds(2);

  static LogTail read(Path log, int maxBytes) throws IOException {
    if (Files.isSymbolicLink(log) || (Files.exists(log, LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS))) {
      throw new ToolRefusal("the log " + log + " is a link or not a regular file: not shown");
    }
    try {
      FileTail.Tail read = FileTail.read(log, maxBytes, READ_TIMEOUT);
      byte[] bytes = read.bytes();
      long size = read.size();
      long start = read.start();
      int from = 0;
      if (start > 0) {
        while (from < bytes.length && bytes[from] != '\n') {
          from++;
        }
        from = Math.min(bytes.length, from + 1);
      }
      return new LogTail(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8), size, start > 0);
    } catch (NoSuchFileException e) {
      throw new ToolRefusal("the log " + log + " is gone: retention deletes old jobs' logs (retention.jobs), or it "
          + "was deleted by hand");
    } catch (java.nio.file.FileSystemException e) {
      throw new ToolRefusal("the log " + log + " could not be read: " + e.getMessage());
    } catch (IOException e) {
      throw new ToolRefusal("the log could not be read: " + e.getMessage());
    }
  }
}
