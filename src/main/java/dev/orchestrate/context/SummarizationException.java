package dev.orchestrate.context;

/** A summarizer gave no usable summary. The message is one line and never contains a secret. */
public final class SummarizationException extends Exception {
  private static final long serialVersionUID = 1L;

  public SummarizationException(String message) {
    super(message);
  }

  public SummarizationException(String message, Throwable cause) {
    super(message, cause);
  }
}
