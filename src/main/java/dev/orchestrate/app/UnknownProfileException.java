package dev.orchestrate.app;

import dev.orchestrate.error.OrchestrateException;

/** {@code agents resume} of a profile the config does not define and no pause names; nothing was changed. */
public final class UnknownProfileException extends OrchestrateException {
  public UnknownProfileException(String message) {
    super(Kind.USAGE, message);
  }
}
