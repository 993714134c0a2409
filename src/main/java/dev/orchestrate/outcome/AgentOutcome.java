package dev.orchestrate.outcome;

import dev.orchestrate.limits.SizeCap;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What one agent attempt came to.
 *
 * @param result    the result reported in the result file, or derived from the exit code, or
 *                  FAILED for a timeout, spawn failure or malformed result file
 * @param summary   what was done (result file "summary", else the tail of stdout on success)
 * @param context   why it failed / what is needed (result file "context", else a specific reason
 *                  such as the stderr tail, "timed out after 30m", "result file is not valid JSON …")
 * @param exitCode  the process exit code; empty when it never started or was killed
 * @param ending    how the process ended
 * @param truncatedValues how many of the texts above (summary, context, memory contents,
 *                  follow-up titles and descriptions) were cut to their size cap when the result
 *                  file was read or the output captured; the job's end counts as one truncated
 *                  write when this is not 0
 * @param usage     tokens and cost the agent reported (a preset's output); unknown figures are null
 * @param provider  the agent's provider, not its work, ended the attempt (a usage or rate limit, a
 *                  refused key, permission denials); null otherwise. Decides {@link #kind()}.
 * @param session   the agent's session (its id, if the CLI printed one, and whether this attempt
 *                  resumed the last one's); {@link AgentSession#NONE} when nothing is known
 * @param checks    the project's commands the job ran around the agent: the worktree's set-up
 *                  before it, the phase's {@code verify:} gates after it, in order
 * @param verdict   what orchestrate's own checks made of a reported success ({@code verify_failed},
 *                  {@code no_changes}), or null; set, it is the class of a failed outcome; {@code
 *                  blocked} on a blocked outcome: orchestrate blocked it (its workspace guard), not
 *                  the agent
 * @param answer    the agent's final answer in its own words, as its preset's reader parsed it from
 *                  the event stream (within {@link #TEXT_MAX_CHARS}); null for a plain command, whose
 *                  output is not read, and when the agent gave none. Never raw events: this, not the
 *                  output log, is what the turn history keeps of the agent's output.
 */
public record AgentOutcome(
    AgentResult result,
    String summary,
    String context,
    List<MemoryNote> memories,
    List<FollowUp> followUps,
    OptionalInt exitCode,
    Ending ending,
    Duration elapsed,
    int truncatedValues,
    Usage usage,
    ProviderFailure provider,
    AgentSession session,
    List<CommandRun> checks,
    OutcomeClass verdict,
    String answer) {

  /**
   * Cap of each text an agent reports (summary, context, a memory's content, a follow-up's title
   * and description) and of the failure context built from its output. It goes into prompts and
   * the state, so it stays bounded whatever the agent writes.
   */
  public static final int TEXT_MAX_CHARS = 8_000;

  /** The context of a job stopped before its agent answered ({@link #cancelled}). */
  public static final String CANCELLED = "cancelled";

  /** How the agent process ended, independent of the result it reported. */
  public enum Ending {
    EXITED, TIMED_OUT, CANCELLED, SPAWN_FAILED,
    /** Stopped because it wrote nothing to stdout or stderr for agent.stall_timeout. */
    STALLED,
    /** Stopped because its provider refused it in a way no retry mends (a key the CLI kept retrying). */
    REFUSED
  }

  public AgentOutcome {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(ending, "ending");
    summary = summary == null ? "" : summary;
    context = context == null ? "" : context;
    memories = List.copyOf(memories);
    followUps = List.copyOf(followUps);
    usage = usage == null ? Usage.UNKNOWN : usage;
    session = session == null ? AgentSession.NONE : session;
    checks = checks == null ? List.of() : List.copyOf(checks);
    if (truncatedValues < 0) {
      throw new IllegalArgumentException("truncatedValues must not be negative, got " + truncatedValues);
    }
  }

  public AgentOutcome(AgentResult result, String summary, String context, List<MemoryNote> memories,
      List<FollowUp> followUps, OptionalInt exitCode, Ending ending, Duration elapsed, int truncatedValues,
      Usage usage, ProviderFailure provider) {
    this(result, summary, context, memories, followUps, exitCode, ending, elapsed, truncatedValues, usage, provider,
        AgentSession.NONE, List.of(), null, null);
  }

  public AgentOutcome(AgentResult result, String summary, String context, List<MemoryNote> memories,
      List<FollowUp> followUps, OptionalInt exitCode, Ending ending, Duration elapsed, int truncatedValues,
      Usage usage) {
    this(result, summary, context, memories, followUps, exitCode, ending, elapsed, truncatedValues, usage, null);
  }

  /**
   * The class of this outcome (docs/agents.md, "Outcome classes"): how the process ended first
   * (a stop, a timeout, a stall, a spawn failure), then what the provider said, then the result.
   * A provider failure counts only for an attempt that did not succeed: a result file's
   * phase_complete wins over a limit hit on the way.
   */
  public OutcomeClass kind() {
    switch (ending) {
      case CANCELLED :
        return OutcomeClass.CANCELLED;
      case SPAWN_FAILED :
        return OutcomeClass.SPAWN_FAILED;
      case TIMED_OUT :
        return OutcomeClass.TIMED_OUT;
      case STALLED :
        return provider != null ? provider.kind() : OutcomeClass.STALLED;
      default :
        break;
    }
    return switch (result) {
      case PHASE_COMPLETE, SUBPHASE_COMPLETE -> OutcomeClass.SUCCEEDED;
      case BLOCKED -> OutcomeClass.BLOCKED;
      case FAILED -> verdict != null ? verdict : provider != null ? provider.kind() : OutcomeClass.FAILED;
    };
  }

  /** This outcome with the agent's final answer, as its preset read it (cut to {@link #TEXT_MAX_CHARS}). */
  public AgentOutcome withAnswer(String finalText) {
    String text = finalText == null || finalText.isBlank() ? null
        : SizeCap.cap(finalText.strip(), TEXT_MAX_CHARS);
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, usage, provider, session, checks, verdict, text);
  }

  /** This outcome with the provider's failure that ended it. */
  public AgentOutcome withProvider(ProviderFailure failure) {
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, usage, failure, session, checks, verdict, answer);
  }

  /** This outcome with what is known of the agent's session. */
  public AgentOutcome withSession(AgentSession agentSession) {
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, usage, provider, agentSession, checks, verdict, answer);
  }

  /** This outcome with {@code verdict}: what orchestrate's own checks made of it. */
  public AgentOutcome withVerdict(OutcomeClass verdict) {
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, usage, provider, session, checks, verdict, answer);
  }

  /** This outcome with the project commands its job ran (set-up before the agent, gates after it). */
  public AgentOutcome withChecks(List<CommandRun> runs) {
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, usage, provider, session, runs, verdict, answer);
  }

  /**
   * A reported success that orchestrate's own checks refused ({@code verify_failed}, {@code no_changes}):
   * a failed attempt whose context (the next prompt's Previous Failure) is {@code failure}.
   */
  public AgentOutcome refutedAs(OutcomeClass kind, String failure) {
    return new AgentOutcome(AgentResult.FAILED, summary, failure, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, usage, provider, session, checks, kind, answer);
  }

  /** A job whose agent never ran: the worktree's set-up failed, and the item is blocked with {@code reason}. */
  public static AgentOutcome setupFailed(String reason, List<CommandRun> runs, Duration elapsed) {
    return new AgentOutcome(AgentResult.BLOCKED, "", reason, List.of(), List.of(), OptionalInt.empty(),
        Ending.EXITED, elapsed, 0, Usage.UNKNOWN, null, AgentSession.NONE, runs, null, null);
  }

  /** A job stopped before its agent answered (a stop, a cancel): a failure whose context says so. */
  public static AgentOutcome cancelled(Duration elapsed) {
    return new AgentOutcome(AgentResult.FAILED, "", CANCELLED, List.of(), List.of(), OptionalInt.empty(),
        Ending.CANCELLED, elapsed);
  }

  /** An outcome whose agent reported no usage. */
  public AgentOutcome(AgentResult result, String summary, String context, List<MemoryNote> memories,
      List<FollowUp> followUps, OptionalInt exitCode, Ending ending, Duration elapsed, int truncatedValues) {
    this(result, summary, context, memories, followUps, exitCode, ending, elapsed, truncatedValues, Usage.UNKNOWN);
  }

  public AgentOutcome withUsage(Usage spent) {
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, spent, provider, session, checks, verdict, answer);
  }

  /** An outcome none of whose texts was cut. */
  public AgentOutcome(AgentResult result, String summary, String context, List<MemoryNote> memories,
      List<FollowUp> followUps, OptionalInt exitCode, Ending ending, Duration elapsed) {
    this(result, summary, context, memories, followUps, exitCode, ending, elapsed, 0);
  }

  /** A memory the agent asked to record ({@code kind}: semantic, procedural or episodic). */
  public record MemoryNote(String kind, String content, List<String> tags) {
    public MemoryNote {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(content, "content");
      tags = List.copyOf(tags);
    }
  }

  /** A new work item the agent proposes. */
  public record FollowUp(String title, String description) {
    public FollowUp {
      Objects.requireNonNull(title, "title");
      description = description == null ? "" : description;
    }
  }
}
