package dev.orchestrate.memory;

import dev.orchestrate.limits.Quote;
import java.util.Locale;

/** What a memory is: a fact (semantic), a how-to (procedural) or a record of what happened (episodic). */
public enum MemoryKind {
  SEMANTIC, PROCEDURAL, EPISODIC;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind named {@code key}; throws {@link IllegalArgumentException} naming the valid kinds. */
  public static MemoryKind fromKey(String key) {
    for (MemoryKind k : values()) {
      if (k.key().equals(key)) {
        return k;
      }
    }
    throw new IllegalArgumentException(
        "unknown memory kind " + Quote.value(key) + " (use semantic, procedural or episodic)");
  }
}
