package dev.orchestrate.app;

import dev.orchestrate.item.InvalidTransitionException;
import dev.orchestrate.item.ItemState;
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

  /** Ids as a user wrote them, quoted, comma-separated. */
  static String quoted(List<String> ids) {
    return ids.stream().map(Quote::value).collect(Collectors.joining(", "));
  }
}
