package dev.orchestrate.jobs;

import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.ProviderFailure;

/**
 * Reads one attempt's stdout line by line as it is written, keeping only what the report needs
 * (running usage totals, the last answer and error, each within a cap), so that no amount of output
 * grows its memory. Lines come from one thread; {@link #report()} is called after the last line.
 */
interface OutputReader {
  /** For agents whose output is not read: every report is {@link AgentReport#NONE}. */
  OutputReader NONE = new OutputReader() {
    @Override
    public void line(String line) {
    }

    @Override
    public AgentReport report() {
      return AgentReport.NONE;
    }
  };

  /** One complete line of stdout, without its line break; lines over the reader's limit never arrive. */
  void line(String line);

  AgentReport report();

  /**
   * The agent's session id, as its CLI printed it (docs/verification.md), or null. Only an id of the
   * form {@link AgentSession#valid} is ever returned: it goes back on a command line.
   */
  default String sessionId() {
    return null;
  }

  /**
   * A failure seen in the output so far that no waiting can mend (a key the provider refused while
   * the CLI keeps retrying it): the agent is stopped at once. Null while there is none.
   */
  default ProviderFailure stopNow() {
    return null;
  }

  /**
   * Whether this reader writes stdout to the job's log itself, as readable lines given to
   * {@code log} (which masks secrets and keeps them as the stdout tail), instead of stdout's raw
   * bytes: an ACP agent's stdout is a JSON-RPC conversation. False: the bytes are logged as they come.
   */
  default boolean logsTo(java.util.function.Consumer<String> log) {
    return false;
  }

  /** A line of stdout was longer than the cap and skipped: it never arrives. */
  default void oversized() {
  }

  /** Stdout ended (the agent closed it, or exited). */
  default void ended() {
  }
}
