package dev.orchestrate.app;

import dev.orchestrate.item.InvalidTransitionException;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ReviewQueue;
import dev.orchestrate.item.Step;
import dev.orchestrate.limits.Quote;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The all-or-nothing step of a command over several items (unblock, approve, reject): every id's
 * step, or one refusal that names every id that cannot take it, unknown ones first.
 */
final class ItemSteps {
  private ItemSteps() {
  }

  /** What the ids came to: their steps when every one can take its step, else the problems in words. */
  record Outcome(List<Step> steps, String problems) {
    boolean refused() {
      return problems != null;
    }
  }

  static Outcome of(Function<String, Optional<ItemState>> lookup, List<String> wanted,
      Function<ItemState, Step> transition) {
    List<Step> steps = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (String id : wanted) {
      Optional<ItemState> item = lookup.apply(id);
      if (item.isEmpty()) {
        unknown.add(id);
        continue;
      }
      try {
        steps.add(transition.apply(item.get()));
      } catch (InvalidTransitionException e) {
        refused.add(e.getMessage());
      }
    }
    List<String> problems = new ArrayList<>();
    if (!unknown.isEmpty()) {
      problems.add("unknown item " + quoted(unknown));
    }
    problems.addAll(refused);
    return problems.isEmpty() ? new Outcome(steps, null) : new Outcome(List.of(), String.join("; ", problems));
  }

  /**
   * Why a command lost its items to another decision that came first (issue 43), one clause an
   * item: the decision that won and the item as it is now, e.g. "item B-7 is no longer awaiting
   * review: another decision came first, and it is done now (last change: approved)".
   *
   * @param expected what the command needed the items to be, in words ("awaiting review", "blocked")
   * @param running  whether a run holds the state (else a queued decision waits for the next run)
   */
  static String taken(List<ReviewQueue.Taken> taken, String expected, boolean running) {
    List<String> out = new ArrayList<>();
    for (ReviewQueue.Taken t : taken) {
      String now;
      if (t.queued() != null) {
        now = "it was " + ("approve".equals(t.queued()) ? "approved" : "rejected") + " by another command, queued"
            + (running ? " for the running run to apply"
                : " for a run to apply (the next run applies it at its start)");
      } else {
        now = "another decision came first, and it is " + t.status().key()
            + (t.phase() == null ? "" : " at phase " + t.phase()) + " now"
            + (t.lastChange() == null ? "" : " (last change: " + t.lastChange() + ")");
      }
      out.add("item " + t.itemId() + " is no longer " + expected + ": " + now);
    }
    return String.join("; ", out);
  }

  /** Ids as a user wrote them, quoted, comma-separated. */
  static String quoted(List<String> ids) {
    return ids.stream().map(Quote::value).collect(Collectors.joining(", "));
  }
}
