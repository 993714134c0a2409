package dev.orchestrate.jobs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Cuts a byte stream into lines for a preset's reader, holding at most {@code maxLineBytes} of one
 * line: a longer line is skipped whole (its reader never sees it), so no agent output can grow
 * this buffer past the cap. Also what {@code orchestrate logs} reads a job's log with.
 */
public final class LineSplitter {

  private final int maxLineBytes;
  private final Consumer<String> lines;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private boolean skipping;
  private long skipped;

  public LineSplitter(int maxLineBytes, Consumer<String> lines) {
    this.maxLineBytes = maxLineBytes;
    this.lines = lines;
  }

  public void append(byte[] bytes, int offset, int length) {
    int start = offset;
    for (int i = offset; i < offset + length; i++) {
      if (bytes[i] == '\n') {
        take(bytes, start, i - start);
        emit();
        start = i + 1;
      }
    }
    take(bytes, start, offset + length - start);
  }

  /** The last line, when the stream ended without a line break. */
  public void finish() {
    if (line.size() > 0 && !skipping) {
      emit();
    }
  }

  /** Lines skipped because they were longer than the cap. */
  public long skipped() {
    return skipped;
  }

  private void take(byte[] bytes, int offset, int length) {
    if (skipping || length == 0) {
      return;
    }
    if (line.size() + length > maxLineBytes) {
      skipping = true;
      skipped++;
      line.reset();
      return;
    }
    line.write(bytes, offset, length);
  }

  private void emit() {
    if (!skipping) {
      lines.accept(line.toString(StandardCharsets.UTF_8));
    }
    skipping = false;
    line.reset();
  }
}
