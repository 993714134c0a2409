package dev.orchestrate.workspace;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What {@code execution.review_feedback} and {@code land: auto} keep of an item (columns
 * {@code review_*} and {@code land_failures} of {@code workspaces}).
 *
 * @param sent         the keys of the reviews and comments already sent to the item's agent, oldest
 *                     first, at most {@link #MAX_SENT}: a review is sent once, never again
 * @param rounds       rounds of changes requested so far
 * @param landFailures failures in a row of {@code execution.land_command}
 */
public record ReviewRecord(List<String> sent, int rounds, int landFailures) {
  public static final ReviewRecord NONE = new ReviewRecord(List.of(), 0, 0);
  /** The most keys remembered; the oldest are forgotten first (a forge lists new reviews last). */
  public static final int MAX_SENT = 500;

  public ReviewRecord {
    sent = List.copyOf(sent == null ? List.of() : sent);
    if (sent.size() > MAX_SENT) {
      sent = List.copyOf(sent.subList(sent.size() - MAX_SENT, sent.size()));
    }
  }

  /** This record with {@code keys} sent too (kept once, in order). */
  public ReviewRecord withSent(Collection<String> keys) {
    LinkedHashSet<String> all = new LinkedHashSet<>(sent);
    all.addAll(keys);
    return new ReviewRecord(new ArrayList<>(all), rounds, landFailures);
  }

  public ReviewRecord withRounds(int next) {
    return new ReviewRecord(sent, next, landFailures);
  }

  public ReviewRecord withLandFailures(int next) {
    return new ReviewRecord(sent, rounds, next);
  }

  /** The keys as the column stores them: one a line. */
  public String sentText() {
    return sent.isEmpty() ? null : String.join("\n", sent);
  }

  /** The keys of a {@link #sentText()} column. */
  public static List<String> sentOf(String text) {
    return text == null || text.isBlank() ? List.of() : List.of(text.split("\n"));
  }
}
