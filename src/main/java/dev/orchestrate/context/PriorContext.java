package dev.orchestrate.context;

import java.util.List;

/**
 * What of an item's history goes into its next prompt: the summary of older turns (null when
 * there is none) and the recent turns, verbatim, oldest first.
 */
public record PriorContext(String summary, List<Turn> recentTurns) {
  public static final PriorContext EMPTY = new PriorContext(null, List.of());

  public PriorContext {
    recentTurns = List.copyOf(recentTurns);
  }
}
