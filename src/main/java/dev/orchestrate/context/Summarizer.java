package dev.orchestrate.context;

/** Turns a summarization prompt into a summary. Implementations enforce their own timeout. */
public interface Summarizer {

  /**
   * @return the summary, never blank
   * @throws SummarizationException when no usable summary came back (error, timeout, empty answer)
   */
  String summarize(String prompt) throws SummarizationException;

  /** What goes into a summary's provenance, e.g. {@code openai:gpt-4o-mini}. Never a secret. */
  String name();
}
