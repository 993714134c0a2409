package dev.orchestrate.memory;

import dev.orchestrate.limits.Quote;
import java.util.Locale;

/** What a memory is: a fact (semantic), a how-to (procedural) or a record of what happened (episodic). */
public enum MemoryKind {
  SEMANTIC, PROCEDURAL, EPISODIC;

  /** Computed once: an import asks for it several times a line (a million lines: 0.3 s of CPU lowering names). */
  private final String key = name().toLowerCase(Locale.ROOT);

  public String key() {
    return key;
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
