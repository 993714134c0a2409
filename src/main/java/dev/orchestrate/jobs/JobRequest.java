package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Everything needed to run one (item, phase, attempt). Immutable: whatever the scheduler changes
 * after the spawn (the phase-summary map, say) never reaches a running job.
 *
 * @param workDir  the agent's working directory (the backlog's directory)
 * @param jobDir   a fresh directory owned by this job: prompt.md, result.json and output.log live here
 * @param attempt  1-based
 * @param workspace the item's own git worktree (execution.workspace: worktree), named to the agent by
 *                  ORCHESTRATE_WORKSPACE; null when agents share the backlog's directory
 */
public record JobRequest(
    String itemId,
    String phase,
    int attempt,
    String prompt,
    AgentConfig agent,
    Path workDir,
    Path jobDir,
    Path workspace) {

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
  }

  /** A request for the shared workspace (no worktree of its own). */
  public JobRequest(String itemId, String phase, int attempt, String prompt, AgentConfig agent, Path workDir,
      Path jobDir) {
    this(itemId, phase, attempt, prompt, agent, workDir, jobDir, null);
  }

  public Path promptFile() {
    return jobDir.resolve("prompt.md");
  }

  public Path resultFile() {
    return jobDir.resolve("result.json");
  }

  public Path logFile() {
    return jobDir.resolve("output.log");
  }

  /** The ORCHESTRATE_* variables, on top of which agent.env is laid. */
  public Map<String, String> protocolEnv() {
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
