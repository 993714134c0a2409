package dev.orchestrate.item;

import java.util.Locale;
import java.util.Optional;

/** Item statuses. {@code new → scoping → ready → in_progress → done}, any non-terminal → blocked. */
public enum ItemStatus {
  NEW, SCOPING, READY, IN_PROGRESS, DONE, BLOCKED;

  /** The spelling used in output, the database and the backlog ({@code in_progress}). */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isTerminal() {
    return this == DONE || this == BLOCKED;
  }

  /** Statuses in which a phase of the item is being worked on. */
  public boolean isRunningPhases() {
    return this == SCOPING || this == IN_PROGRESS;
  }

  public static Optional<ItemStatus> parse(String key) {
    for (ItemStatus s : values()) {
      if (s.key().equals(key)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  public static ItemStatus fromKey(String key) {
    return parse(key).orElseThrow(() -> new IllegalArgumentException("unknown item status '" + key + "'"));
  }
}
