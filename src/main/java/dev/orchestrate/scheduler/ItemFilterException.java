package dev.orchestrate.scheduler;

import dev.orchestrate.error.OrchestrateException;

/**
 * A filter value that cannot be used: a criterion ({@link Part#CRITERION}, e.g. {@code status=new})
 * or a target item id ({@link Part#TARGET}). The message is one line about the value, e.g.
 * {@code unknown key 'colour' (use status, priority, tag or pipeline)}; it does not name a
 * command-line flag: the CLI says which of its flags the value came from.
 */
public final class ItemFilterException extends OrchestrateException {
  /** Which part of the filter the value belongs to. */
  public enum Part {
    CRITERION, TARGET
  }

  private final Part part;

  public ItemFilterException(Part part, String message) {
    super(Kind.USAGE, message);
    this.part = java.util.Objects.requireNonNull(part, "part");
  }

  public Part part() {
    return part;
  }
}
