package dev.orchestrate.context;

import java.time.Instant;
import java.util.Objects;

/**
 * One recorded turn of an item's history: the task given to the agent (USER) or what the agent
 * answered (ASSISTANT).
 *
 * @param seq           1, 2, 3… per item, in the order the turns happened
 * @param tokenEstimate {@link Tokens#estimate} of {@code text}
 */
public record Turn(String itemId, long seq, String phase, int attempt, Role role, String text,
    int tokenEstimate, Instant at) {

  /** Who spoke. */
  public enum Role {
    USER, ASSISTANT;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Role fromKey(String key) {
      return valueOf(key.toUpperCase(java.util.Locale.ROOT));
    }
  }

  public Turn {
    Objects.requireNonNull(itemId, "itemId");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(at, "at");
    if (seq < 1) {
      throw new IllegalArgumentException("turn seq is 1-based, got " + seq);
    }
  }

  /** The heading of this turn in prompts and summarization input. */
  String heading() {
    return "Turn " + seq + " · " + role.key() + " · " + phase + " attempt " + attempt;
  }
}
