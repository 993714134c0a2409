package dev.orchestrate.app;

import dev.orchestrate.error.OrchestrateException;

/** An item {@link Inbox#add} refused (a bad or taken id, an unknown pipeline or dependency); nothing was written. */
public final class ItemRefusedException extends OrchestrateException {
  public ItemRefusedException(String message) {
    super(Kind.USAGE, message);
  }
}
