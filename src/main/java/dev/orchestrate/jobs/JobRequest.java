package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.outcome.AgentSession;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * Everything needed to run one (item, phase, attempt). Immutable: whatever the scheduler changes
 * after the spawn (the phase-summary map, say) never reaches a running job.
 *
 * @param workDir  the agent's working directory (the backlog's directory)
 * @param jobDir   a fresh directory owned by this job: prompt.md, result.json and output.log live here
 * @param attempt  1-based
 * @param workspace the item's own git worktree (execution.workspace: worktree), named to the agent by
 *                  ORCHESTRATE_WORKSPACE; null when agents share the backlog's directory
 * @param steps    what the job does besides running the agent once with {@code prompt}: set-up
 *                 before it, a session to resume, gates after it
 */
public record JobRequest(
    String itemId,
    String phase,
    int attempt,
    String prompt,
    AgentConfig agent,
    Path workDir,
    Path jobDir,
    Path workspace,
    Steps steps) {

  public JobRequest {
    Objects.requireNonNull(itemId, "itemId");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(jobDir, "jobDir");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt is 1-based, got " + attempt);
    }
    if (agent.command().isEmpty()) {
      throw new IllegalArgumentException("agent.command is empty");
    }
    steps = steps == null ? Steps.NONE : steps;
  }

  JobRequest(String itemId, String phase, int attempt, String prompt, AgentConfig agent, Path workDir,
      Path jobDir, Path workspace) {
    this(itemId, phase, attempt, prompt, agent, workDir, jobDir, workspace, Steps.NONE);
  }

  /**
   * The job around the agent (docs/verification.md).
   *
   * @param setup         {@code workspace.setup} commands to run first (a new worktree); a failure
   *                      ends the job without running the agent
   * @param resumeSession the session of the last attempt to continue ({@code prompt} is then the short
   *                      resume prompt), or null to start fresh
   * @param freshPrompt   with {@code resumeSession}: the full prompt, for a fresh start when the CLI no
   *                      longer knows the session
   * @param verify        the phase's gates, run after the agent reports success
   * @param setUpDone     run once the set-up passed, before the agent (the workspace records what the
   *                      set-up left); a failure of it fails the set-up
   * @param protectedChanged asked once the agent reported success, before the gates run: why the
   *                      attempt changed what the gates run or protect (then the gates do not run, and
   *                      the attempt is refused as {@code protected_changed}), or null; null: no check
   */
  public record Steps(List<ProjectCommand> setup, String resumeSession, String freshPrompt,
      List<ProjectCommand> verify, Runnable setUpDone, java.util.function.Supplier<String> protectedChanged) {
    public static final Steps NONE = new Steps(List.of(), null, null, List.of());

    public Steps(List<ProjectCommand> setup, String resumeSession, String freshPrompt, List<ProjectCommand> verify) {
      this(setup, resumeSession, freshPrompt, verify, null, null);
    }

    /**
     * {@link #protectedChanged}, asked: why the gates may not run, or null. A check that could not
     * be made refuses too (an agent could break what the check reads, then have its rewritten gate
     * put everything back as it runs).
     */
    String protectedRefusal() {
      if (protectedChanged == null) {
        return null;
      }
      try {
        return protectedChanged.get();
      } catch (RuntimeException e) {
        LoggerFactory.getLogger(JobRequest.class).warn("could not check the gates' files before they ran: {}",
            e.getMessage());
        return "You reported the phase complete, but the files the project's gates run could not be checked "
            + "before they ran (" + e.getMessage() + "), so they did not run and this attempt's work was not "
            + "kept. Leave the worktree's git state (.git, HEAD, the index) as you found it.";
      }
    }

    public Steps {
      setup = setup == null ? List.of() : List.copyOf(setup);
      verify = verify == null ? List.of() : List.copyOf(verify);
      setUpDone = setUpDone == null ? () -> {} : setUpDone;
      if (resumeSession != null && (freshPrompt == null || !AgentSession.valid(resumeSession))) {
        throw new IllegalArgumentException("a resume needs a valid session id and the full prompt");
      }
    }

    /** Runs {@link #setUpDone}: null when it recorded what the set-up left, else why the agent may not run. */
    String setUpRecorded() {
      try {
        setUpDone.run();
        return null;
      } catch (RuntimeException e) {
        return "workspace.setup passed, but what it left in the worktree could not be recorded, so the agent did "
            + "not run: " + e.getMessage();
      }
    }
  }

  /** A request for the shared workspace (no worktree of its own). */
  JobRequest(String itemId, String phase, int attempt, String prompt, AgentConfig agent, Path workDir,
      Path jobDir) {
    this(itemId, phase, attempt, prompt, agent, workDir, jobDir, null, Steps.NONE);
  }

  Path promptFile() {
    return jobDir.resolve("prompt.md");
  }

  Path resultFile() {
    return jobDir.resolve("result.json");
  }

  public Path logFile() {
    return jobDir.resolve("output.log");
  }

  /** The ORCHESTRATE_* variables, on top of which agent.env is laid. */
  Map<String, String> protocolEnv() {
    if (workspace != null) {
      return Map.of(
          "ORCHESTRATE_ITEM_ID", itemId,
          "ORCHESTRATE_PHASE", phase,
          "ORCHESTRATE_ATTEMPT", Integer.toString(attempt),
          "ORCHESTRATE_PROMPT_FILE", promptFile().toString(),
          "ORCHESTRATE_RESULT_FILE", resultFile().toString(),
          "ORCHESTRATE_WORKSPACE", workspace.toString());
    }
    return Map.of(
        "ORCHESTRATE_ITEM_ID", itemId,
        "ORCHESTRATE_PHASE", phase,
        "ORCHESTRATE_ATTEMPT", Integer.toString(attempt),
        "ORCHESTRATE_PROMPT_FILE", promptFile().toString(),
        "ORCHESTRATE_RESULT_FILE", resultFile().toString());
  }
}
