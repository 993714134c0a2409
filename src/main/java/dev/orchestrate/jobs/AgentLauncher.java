package dev.orchestrate.jobs;

/**
 * Starts agent attempts. {@link AgentRunner} spawns real processes; tests of the scheduler at
 * scale (thousands of items) use an in-process launcher with the same contract.
 */
public interface AgentLauncher {
  /** Starts one attempt and returns at once; a failure to spawn is an outcome, not an exception. */
  AgentHandle start(JobRequest request);
}
