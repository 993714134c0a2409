package dev.orchestrate.backlog;

/** Item priority; the order of the constants is the scheduling order. */
public enum Priority {
  HIGH, MEDIUM, LOW;

  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
