package dev.orchestrate.jobs;

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
    Usage usage) {

  /**
   * Cap of each text an agent reports (summary, context, a memory's content, a follow-up's title
   * and description) and of the failure context built from its output. It goes into prompts and
   * the state, so it stays bounded whatever the agent writes.
   */
  public static final int TEXT_MAX_CHARS = 8_000;

  /** How the agent process ended, independent of the result it reported. */
  public enum Ending {
    EXITED, TIMED_OUT, CANCELLED, SPAWN_FAILED,
    /** Stopped because it wrote nothing to stdout or stderr for agent.stall_timeout. */
    STALLED
  }

  public AgentOutcome {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(ending, "ending");
    summary = summary == null ? "" : summary;
    context = context == null ? "" : context;
    memories = List.copyOf(memories);
    followUps = List.copyOf(followUps);
    usage = usage == null ? Usage.UNKNOWN : usage;
    if (truncatedValues < 0) {
      throw new IllegalArgumentException("truncatedValues must not be negative, got " + truncatedValues);
    }
  }

  /** An outcome whose agent reported no usage. */
  public AgentOutcome(AgentResult result, String summary, String context, List<MemoryNote> memories,
      List<FollowUp> followUps, OptionalInt exitCode, Ending ending, Duration elapsed, int truncatedValues) {
    this(result, summary, context, memories, followUps, exitCode, ending, elapsed, truncatedValues, Usage.UNKNOWN);
  }

  public AgentOutcome withUsage(Usage spent) {
    return new AgentOutcome(result, summary, context, memories, followUps, exitCode, ending, elapsed,
        truncatedValues, spent);
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
