package dev.orchestrate.testing;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ContextConfig;
import dev.orchestrate.config.ExecutionConfig;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.SummarizerConfig;
import dev.orchestrate.config.WorkspaceConfig;
import java.time.Duration;

/**
 * Copies of the configuration records with one value changed, which only tests make (a loaded
 * configuration is never changed field by field): kept here, not on the records.
 */
public final class ConfigWithers {
  private ConfigWithers() {
  }

  public static WorkspaceConfig withBaseBranch(WorkspaceConfig x, String branch) {
    return new WorkspaceConfig(x.mode(), branch, x.merge(), x.deleteMergedBranches(), x.commitAuthor(),
        x.destructiveRunsAlone(), x.setup(),
        x.copy(), x.remote(), x.pullRequest(), x.checks(), x.integrationBatch(), x.landOn());
  }

  public static Config withBudget(Config x, BudgetConfig budget) {
    return new Config(x.source(), x.agent(), x.execution(), x.defaultPipeline(), x.pipelines(), x.context(),
        x.memoryKeepRecent(), x.memoryBootContextChars(), x.retention(), x.state(), budget, x.agents(),
        x.notifications(), x.backlogMaxBytes());
  }

  public static ExecutionConfig withCircuitBreaker(ExecutionConfig x, int trips) {
    return new ExecutionConfig(x.maxWip(), x.maxConcurrent(), x.maxRetries(), trips, x.phaseCap(), x.maxCostUsd(),
        x.maxTokens(), x.workspace());
  }

  public static Config withContext(Config x, ContextConfig context) {
    return new Config(x.source(), x.agent(), x.execution(), x.defaultPipeline(), x.pipelines(), context,
        x.memoryKeepRecent(), x.memoryBootContextChars(), x.retention(), x.state(), x.budget(), x.agents(),
        x.notifications(), x.backlogMaxBytes());
  }

  public static WorkspaceConfig withDeleteMergedBranches(WorkspaceConfig x, boolean delete) {
    return new WorkspaceConfig(x.mode(), x.baseBranch(), x.merge(), delete, x.commitAuthor(), x.destructiveRunsAlone(),
        x.setup(), x.copy(), x.remote(),
        x.pullRequest(), x.checks(), x.integrationBatch(), x.landOn());
  }

  public static Pipeline withIntegrationMaxRounds(Pipeline x, int rounds) {
    return new Pipeline(x.name(), x.prePhases(), x.phases(), x.agent(), x.fallback(), x.verify(), x.review(),
        x.reviewTimeout(), x.integrationVerify(),
        rounds, x.verifyProtected());
  }

  public static ExecutionConfig withMaxRetries(ExecutionConfig x, int retries) {
    return new ExecutionConfig(x.maxWip(), x.maxConcurrent(), retries, x.circuitBreaker(), x.phaseCap(), x.maxCostUsd(),
        x.maxTokens(),
        x.workspace());
  }

  public static WorkspaceConfig withMerge(WorkspaceConfig x, WorkspaceConfig.Merge merge) {
    return new WorkspaceConfig(x.mode(), x.baseBranch(), merge, x.deleteMergedBranches(), x.commitAuthor(),
        x.destructiveRunsAlone(), x.setup(),
        x.copy(), x.remote(), x.pullRequest(), x.checks(), x.integrationBatch(), x.landOn());
  }

  public static WorkspaceConfig withMode(WorkspaceConfig x, WorkspaceConfig.Mode mode) {
    return new WorkspaceConfig(mode, x.baseBranch(), x.merge(), x.deleteMergedBranches(), x.commitAuthor(),
        x.destructiveRunsAlone(), x.setup(),
        x.copy(), x.remote(), x.pullRequest(), x.checks(), x.integrationBatch(), x.landOn());
  }

  public static Pipeline withReviewTimeout(Pipeline x, Pipeline.ReviewTimeout next) {
    return new Pipeline(x.name(), x.prePhases(), x.phases(), x.agent(), x.fallback(), x.verify(), x.review(), next,
        x.integrationVerify(),
        x.integrationMaxRounds(), x.verifyProtected());
  }

  public static AgentConfig withStallTimeout(AgentConfig x, Duration stall) {
    return new AgentConfig(x.command(), x.timeout(), x.killGrace(), x.env(), x.resultFallback(), x.logMaxBytes(),
        x.outputTailChars(), x.preset(),
        x.args(), stall, x.secretEnv(), x.stopLeftoverProcesses(), x.passSummarizerKey(), x.onUsageLimit(), x.maxWait(),
        x.name(), x.maxConcurrent(),
        x.resume());
  }

  public static ContextConfig withSummarizer(ContextConfig x, SummarizerConfig config) {
    return new ContextConfig(x.windowSize(), x.turnMaxChars(), x.summaryMaxChars(), config);
  }

  public static ContextConfig withWindowSize(ContextConfig x, int size) {
    return new ContextConfig(size, x.turnMaxChars(), x.summaryMaxChars(), x.summarizer());
  }
}
