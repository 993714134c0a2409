package dev.orchestrate.item;

import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.List;

/**
 * How a job ended, as recorded in job history.
 *
 * @param result   the agent result key, e.g. {@code phase_complete}, or null when cancelled
 * @param exitCode null when the process never exited by itself
 * @param reason   failure context or cancellation note, null on success; followed by the usage's
 *                 note when figures the agent reported were refused ({@link Usage#note})
 * @param truncatedValues how many of the agent's texts were cut to their size cap (see
 *                 {@link AgentOutcome#truncatedValues}); the store counts the job's end as one
 *                 truncated write of {@code jobs} when it is not 0
 * @param usage    tokens and cost the agent reported; unknown figures are null
 * @param outcome  the attempt's outcome class (docs/agents.md, "Outcome classes"); null when not known
 * @param session  the agent's session of the job (its id, whether it resumed the last one)
 * @param checks   the project commands the job ran (set-up, gates), in order
 * @param logBytes the size of the job's directory (its output log, prompt, result), written in the
 *                 same transaction as the rest; null when not measured
 */
public record JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt,
    int truncatedValues, Usage usage, OutcomeClass outcome, AgentSession session,
    List<CommandRun> checks, Long logBytes) {

  public JobEnd {
    usage = usage == null ? Usage.UNKNOWN : usage;
    session = session == null ? AgentSession.NONE : session;
    checks = checks == null ? List.of() : List.copyOf(checks);
    if (truncatedValues < 0) {
      throw new IllegalArgumentException("truncatedValues must not be negative, got " + truncatedValues);
    }
  }

  public JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt,
      int truncatedValues, Usage usage, OutcomeClass outcome, AgentSession session, List<CommandRun> checks) {
    this(state, result, exitCode, reason, endedAt, truncatedValues, usage, outcome, session, checks, null);
  }

  public JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt,
      int truncatedValues, Usage usage, OutcomeClass outcome) {
    this(state, result, exitCode, reason, endedAt, truncatedValues, usage, outcome, null, null);
  }

  /** This end with the job's session and the project commands it ran. */
  public JobEnd with(AgentSession agentSession, List<CommandRun> runs) {
    return new JobEnd(state, result, exitCode, reason, endedAt, truncatedValues, usage, outcome, agentSession, runs,
        logBytes);
  }

  /** This end with the size of the job's directory, {@code bytes}. */
  public JobEnd withLogBytes(long bytes) {
    return new JobEnd(state, result, exitCode, reason, endedAt, truncatedValues, usage, outcome, session, checks,
        bytes);
  }

  public JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt,
      int truncatedValues, Usage usage) {
    this(state, result, exitCode, reason, endedAt, truncatedValues, usage,
        state == JobState.CANCELLED ? OutcomeClass.CANCELLED : null);
  }

  /** An end whose agent reported no usage. */
  public JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt, int truncatedValues) {
    this(state, result, exitCode, reason, endedAt, truncatedValues, Usage.UNKNOWN);
  }

  /** This end with {@code spent}, whose note (if any) the reason then ends with. */
  public JobEnd withUsage(Usage spent) {
    return new JobEnd(state, result, exitCode, noted(reason, spent), endedAt, truncatedValues, spent, outcome, session,
        checks, logBytes);
  }

  /** An end with nothing truncated, such as a cancellation. */
  public JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt) {
    this(state, result, exitCode, reason, endedAt, 0);
  }

  public static JobEnd of(AgentOutcome outcome, JobState state, Instant endedAt) {
    String reason = state == JobState.COMPLETED ? null : outcome.context();
    String result = state == JobState.CANCELLED ? null : outcome.result().key();
    Integer code = outcome.exitCode().isPresent() ? outcome.exitCode().getAsInt() : null;
    return new JobEnd(state, result, code, noted(reason, outcome.usage()), endedAt, outcome.truncatedValues(),
        outcome.usage(), state == JobState.CANCELLED ? OutcomeClass.CANCELLED : outcome.kind(), outcome.session(),
        outcome.checks());
  }

  /** The job says why a figure it reported is unknown: the reason, then the usage's note. */
  private static String noted(String reason, Usage usage) {
    if (usage.note() == null) {
      return reason;
    }
    return reason == null || reason.isBlank() ? usage.note() : reason + "\n" + usage.note();
  }
}
