package dev.orchestrate.backlog;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How agents are run.
 *
 * @param command        argv, no shell; empty when no config provides one
 * @param timeout        per attempt
 * @param killGrace      time between TERM and KILL when an agent is stopped
 * @param env            extra environment for the agent
 * @param resultFallback meaning of an attempt without a result file
 * @param logMaxBytes    cap of each per-job log file
 * @param outputTailChars how much of the end of stdout/stderr is kept in memory and used as the
 *                       summary / failure context
 */
public record AgentConfig(
    List<String> command,
    Duration timeout,
    Duration killGrace,
    Map<String, String> env,
    ResultFallback resultFallback,
    long logMaxBytes,
    int outputTailChars) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(10);
  public static final long DEFAULT_LOG_MAX_BYTES = 10L * 1024 * 1024;
  public static final int DEFAULT_OUTPUT_TAIL_CHARS = 4000;

  public AgentConfig {
    command = List.copyOf(command);
    env = Map.copyOf(env);
  }

  public static AgentConfig defaults() {
    return new AgentConfig(List.of(), DEFAULT_TIMEOUT, DEFAULT_KILL_GRACE, Map.of(),
        ResultFallback.EXIT_CODE, DEFAULT_LOG_MAX_BYTES, DEFAULT_OUTPUT_TAIL_CHARS);
  }
}
