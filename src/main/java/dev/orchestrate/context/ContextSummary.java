package dev.orchestrate.context;

import java.time.Instant;
import java.util.Objects;

/**
 * The rolling summary of an item's older turns, with its provenance.
 *
 * @param fromSeq     first turn covered (1 once anything is covered)
 * @param toSeq       last turn covered; turns after it are not in the summary
 * @param sourceCount turns condensed into this summary over all its generations
 * @param generator   what wrote it: {@code builtin}, {@code openai:<model>}, {@code command:<program>}
 * @param degraded    true when the configured summarizer failed and the builtin one stood in
 */
public record ContextSummary(String itemId, String text, long fromSeq, long toSeq, int sourceCount,
    String generator, Instant createdAt, boolean degraded, int tokenEstimate) {

  public ContextSummary {
    Objects.requireNonNull(itemId, "itemId");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(generator, "generator");
    Objects.requireNonNull(createdAt, "createdAt");
    if (fromSeq < 1 || toSeq < fromSeq) {
      throw new IllegalArgumentException("bad turn range " + fromSeq + ".." + toSeq);
    }
  }
}
