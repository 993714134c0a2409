package dev.orchestrate.backlog;

/** Scheduler limits. {@code maxRetries} 2 means 3 attempts per phase. */
public record ExecutionConfig(int maxWip, int maxConcurrent, int maxRetries, int circuitBreaker, int phaseCap) {
  public static final int DEFAULT_MAX_WIP = 1;
  public static final int DEFAULT_MAX_CONCURRENT = 1;
  public static final int DEFAULT_MAX_RETRIES = 2;
  public static final int DEFAULT_CIRCUIT_BREAKER = 2;
  public static final int DEFAULT_PHASE_CAP = 100;

  public static ExecutionConfig defaults() {
    return new ExecutionConfig(DEFAULT_MAX_WIP, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_RETRIES,
        DEFAULT_CIRCUIT_BREAKER, DEFAULT_PHASE_CAP);
  }

  public ExecutionConfig withMaxRetries(int retries) {
    return new ExecutionConfig(maxWip, maxConcurrent, retries, circuitBreaker, phaseCap);
  }

  public ExecutionConfig withCircuitBreaker(int trips) {
    return new ExecutionConfig(maxWip, maxConcurrent, maxRetries, trips, phaseCap);
  }

  public ExecutionConfig withPhaseCap(int cap) {
    return new ExecutionConfig(maxWip, maxConcurrent, maxRetries, circuitBreaker, cap);
  }

  public ExecutionConfig withMaxWip(int wip) {
    return new ExecutionConfig(wip, maxConcurrent, maxRetries, circuitBreaker, phaseCap);
  }

  public ExecutionConfig withMaxConcurrent(int concurrent) {
    return new ExecutionConfig(maxWip, concurrent, maxRetries, circuitBreaker, phaseCap);
  }
}
