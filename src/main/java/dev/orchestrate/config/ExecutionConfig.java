package dev.orchestrate.config;

/**
 * Scheduler limits. {@code maxRetries} 2 means 3 attempts per phase. {@code maxCostUsd} and
 * {@code maxTokens} are the run's budget (null: no limit): the run halts once recorded spend
 * reaches either. {@code workspace}: where agents work (shared directory or a git worktree per
 * item).
 */
public record ExecutionConfig(int maxWip, int maxConcurrent, int maxRetries, int circuitBreaker, int phaseCap,
    Double maxCostUsd, Long maxTokens, WorkspaceConfig workspace) {
  public static final int DEFAULT_MAX_WIP = 1;
  public static final int DEFAULT_MAX_CONCURRENT = 1;
  public static final int DEFAULT_MAX_RETRIES = 2;
  public static final int DEFAULT_CIRCUIT_BREAKER = 2;
  public static final int DEFAULT_PHASE_CAP = 100;

  public ExecutionConfig {
    workspace = workspace == null ? WorkspaceConfig.defaults() : workspace;
  }

  /** Limits with no budget and the default workspace (shared). */
  ExecutionConfig(int maxWip, int maxConcurrent, int maxRetries, int circuitBreaker, int phaseCap) {
    this(maxWip, maxConcurrent, maxRetries, circuitBreaker, phaseCap, null, null, WorkspaceConfig.defaults());
  }

  public ExecutionConfig withMaxCostUsd(Double usd) {
    return new ExecutionConfig(maxWip, maxConcurrent, maxRetries, circuitBreaker, phaseCap, usd, maxTokens, workspace);
  }

  public ExecutionConfig withMaxTokens(Long tokens) {
    return new ExecutionConfig(maxWip, maxConcurrent, maxRetries, circuitBreaker, phaseCap, maxCostUsd, tokens,
        workspace);
  }

  ExecutionConfig withWorkspace(WorkspaceConfig workspace) {
    return new ExecutionConfig(maxWip, maxConcurrent, maxRetries, circuitBreaker, phaseCap, maxCostUsd, maxTokens,
        workspace);
  }

  public static ExecutionConfig defaults() {
    return new ExecutionConfig(DEFAULT_MAX_WIP, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_RETRIES,
        DEFAULT_CIRCUIT_BREAKER, DEFAULT_PHASE_CAP);
  }

  public ExecutionConfig withMaxWip(int wip) {
    return new ExecutionConfig(wip, maxConcurrent, maxRetries, circuitBreaker, phaseCap, maxCostUsd, maxTokens,
        workspace);
  }

  public ExecutionConfig withMaxConcurrent(int concurrent) {
    return new ExecutionConfig(maxWip, concurrent, maxRetries, circuitBreaker, phaseCap, maxCostUsd, maxTokens,
        workspace);
  }
}
