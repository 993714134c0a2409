package dev.orchestrate.mcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
  static LogTail read(Path log, int maxBytes) throws IOException {
    if (Files.isSymbolicLink(log) || (Files.exists(log, LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS))) {
      throw new ToolRefusal("the log " + log + " is a link or not a regular file: not shown");
    }
    try (SeekableByteChannel channel = Files.newByteChannel(log, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) {
      long size = channel.size();
      long start = Math.max(0, size - maxBytes);
      channel.position(start);
      ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(maxBytes, size));
      while (buffer.hasRemaining() && channel.read(buffer) > 0) {
        // read until full or at the end (the log may still grow: what was there is enough)
      }
      byte[] bytes = new byte[buffer.position()];
      buffer.flip().get(bytes);
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
    }
  }
}
