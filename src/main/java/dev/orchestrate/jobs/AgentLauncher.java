package dev.orchestrate.jobs;

/**
 * Starts agent attempts. {@link AgentRunner} spawns real processes; tests of the scheduler at
 * scale (thousands of items) use an in-process launcher with the same contract.
 */
public interface AgentLauncher {
  /** Starts one attempt and returns at once; a failure to spawn is an outcome, not an exception. */
  AgentHandle start(JobRequest request);

  /**
   * Stops what agents of an earlier, killed run on the same state left running, waiting at most
   * {@code grace} before killing; returns how many processes were found. Called once when a run
   * starts, holding the state's lock. Launchers that start no processes have nothing to stop.
   */
  default int stopLeftovers(java.nio.file.Path jobsRoot, java.time.Duration grace) {
    return 0;
  }

  /**
   * Stops what the agents of a dead runner of a shared state left running on this host (found by
   * the runner named in their job tokens); returns how many processes were found.
   */
  default int stopLeftovers(java.nio.file.Path jobsRoot, String runnerId, java.time.Duration grace) {
    return 0;
  }
}
