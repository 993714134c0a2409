package dev.orchestrate.backlog;

/** The optional {@code status:} hint of a backlog item, applied only when the item is first seen. */
public enum InitialStatus {
  NEW, READY, DONE, BLOCKED;

  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
