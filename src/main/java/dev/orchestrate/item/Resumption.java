package dev.orchestrate.item;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.outcome.AgentOutcome;

/**
 * When a retry continues the agent's conversation (docs/verification.md, "Resuming the agent's
 * session"), as pure functions: which endings leave a session worth continuing, and whether the
 * next attempt may continue it.
 */
public final class Resumption {
  private Resumption() {
  }

  /**
   * The session the next attempt of the same phase may continue after {@code outcome}, or null.
   * A failure the agent can mend with the failure in hand (its own {@code failed}, a red gate, no
   * changes, a stall, a provider's limit) leaves one, and so does a cut by the agent's own budget
   * flag, so that the next attempt goes on from the work that was paid for (Claude Code's
   * {@code --max-budget-usd} is the run's, not the session's: recorded,
   * agent-outputs/claude-code-2.1.330/resume-after-budget-exhausted); a timeout, a crash (killed by
   * a signal), a cancel, a spawn failure, a refused key or a denial does not: that attempt's state
   * is not to be trusted, and the next one starts fresh with the full prompt in a reset worktree.
   *
   * @param profile the agent profile that ran the attempt
   */
  public static Progress.Resume after(AgentOutcome outcome, String profile) {
    String id = outcome.session().id();
    if (id == null || profile == null) {
      return null;
    }
    boolean keep = switch (outcome.kind()) {
      case FAILED -> !crashed(outcome);
      case VERIFY_FAILED, NO_CHANGES, STALLED, USAGE_LIMIT, RATE_LIMITED, BUDGET_EXHAUSTED -> true;
      default -> false;
    };
    return keep ? new Progress.Resume(profile, id) : null;
  }

  /** An agent that died of a signal (an exit status above 128 is the shell's way of saying so). */
  static boolean crashed(AgentOutcome outcome) {
    return outcome.exitCode().isPresent() && outcome.exitCode().getAsInt() > 128;
  }

  /**
   * The session {@code agent} continues on the item's next attempt, or null to start fresh: there
   * is one, it was the same profile's, and the profile resumes ({@code agent.resume} and a preset
   * that can).
   */
  public static String sessionFor(Progress progress, AgentConfig agent) {
    Progress.Resume resume = progress.resume();
    if (resume == null || !agent.resumes() || !resume.profile().equals(agent.profileName())) {
      return null;
    }
    return resume.session();
  }
}
