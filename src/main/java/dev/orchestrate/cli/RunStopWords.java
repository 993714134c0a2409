package dev.orchestrate.cli;

import dev.orchestrate.scheduler.RunReport;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Why a run stopped, in the words of its report's first line, said as it is: "every item is done
 * or awaiting review" when items wait for a reviewer, never "done or blocked" when none is blocked;
 * what the remaining items of a {@code waiting_on_blocked} halt wait on (blocked items, items
 * awaiting review, items the run leaves out), from the report's {@code waitsOn}.
 */
final class RunStopWords {
  private RunStopWords() {
  }

  static String why(RunReport r, List<String> only) {
    return switch (r.haltReason()) {
      case ALL_DONE -> (only.isEmpty() ? "every item" : "every item selected by " + RunCommand.onlyFlags(only))
          + " is " + where(r);
      case WAITING_ON_BLOCKED -> r.waitsOn().isEmpty() ? r.haltReason().description()
          : "the remaining items wait on " + waitedOn(r.waitsOn());
      default -> r.haltReason().description();
    };
  }

  /** Where the items ended: {@code done}, {@code done or blocked}, {@code done, blocked or awaiting review}. */
  private static String where(RunReport r) {
    List<String> states = new ArrayList<>();
    if (r.done() > 0) {
      states.add("done");
    }
    if (r.blocked() > 0) {
      states.add("blocked");
    }
    if (!r.awaitingReview().isEmpty()) {
      states.add("awaiting review");
    }
    if (!r.awaitingChecks().isEmpty()) {
      states.add("awaiting its checks");
    }
    if (!r.landing().isEmpty()) {
      states.add("landing");
    }
    if (states.isEmpty()) {
      states.add("done"); // an empty backlog: nothing was left to do
    }
    return joined(states, "or");
  }

  /** {@code blocked items and items awaiting review}, from {@code WRK-3 (blocked)}, {@code WRK-4 (awaiting_review)}. */
  private static String waitedOn(List<String> waitsOn) {
    Set<String> kinds = new LinkedHashSet<>();
    for (String w : waitsOn) {
      String status = w.substring(w.lastIndexOf(" (") + 2, w.length() - 1);
      kinds.add(switch (status) {
        case "blocked" -> "blocked items";
        case "awaiting_review" -> "items awaiting review";
        case "awaiting_checks" -> "items awaiting their checks";
        case "not selected" -> "items this run leaves out";
        case "unknown" -> "items the backlog does not have";
        default -> "unfinished items";
      });
    }
    return joined(new ArrayList<>(kinds), "and");
  }

  private static String joined(List<String> words, String last) {
    if (words.size() == 1) {
      return words.get(0);
    }
    return String.join(", ", words.subList(0, words.size() - 1)) + " " + last + " " + words.get(words.size() - 1);
  }

}
