package dev.orchestrate.serve;

import dev.orchestrate.limits.FileTail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The last bytes of a job's output.log, which the jobs package masked as it wrote it. Read only
 * when it is a regular file inside the state directory, without following a link an agent may
 * have planted in its place (nor blocking on a FIFO).
 */
final class LogTail {
  static final int MAX_BYTES = 64 * 1024;
  /** How long a read may take: a FIFO swapped in after the check would block the request for good. */
  static final java.time.Duration READ_TIMEOUT = java.time.Duration.ofSeconds(2);

  private LogTail() {
  }

  /** The text, or a note saying why there is none. */
  static String read(Path stateRoot, Path logPath) {
    if (logPath == null) {
      return "(no log)";
    }
    try {
      Path root = stateRoot.toRealPath();
      Path log = stateRoot.resolve(logPath).normalize();
      if (!Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS)) {
        return Files.exists(log, LinkOption.NOFOLLOW_LINKS) ? "(the log is not a regular file: not shown)"
            : "(the log is gone: retention deletes old jobs' logs)";
      }
      Path parent = log.getParent().toRealPath();
      if (!parent.startsWith(root)) {
        return "(the log is outside the state directory: not shown)";
      }
      FileTail.Tail read = FileTail.read(log, MAX_BYTES, READ_TIMEOUT);
      String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(read.bytes())).toString();
      return read.start() > 0 ? "(… the first " + read.start() + " bytes are not shown)\n" + text : text;
    } catch (IOException e) {
      return "(the log cannot be read: " + e.getMessage() + ")";
    }
  }
}
