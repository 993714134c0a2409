package dev.orchestrate.context;

import dev.orchestrate.error.OrchestrateException;

/**
 * A summarizer gave no usable summary. The message is one line and never contains a secret. The
 * history catches it and falls back to the last turns; it never reaches the command line.
 */
public final class SummarizationException extends OrchestrateException {
  private static final long serialVersionUID = 1L;

  public SummarizationException(String message) {
    super(Kind.FAILED, message);
  }

  public SummarizationException(String message, Throwable cause) {
    super(Kind.FAILED, message, cause);
  }
}
