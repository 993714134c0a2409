package dev.orchestrate.scheduler;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.jobs.AgentHandle;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.Usage;

/**
 * A job of this session: its agent, what it was asked, and the pipeline it was spawned under. A job
 * whose worktree is prepared off the scheduler thread ({@link PreparedStart}) is asked what its
 * worktree made of the request.
 */
record Job(AgentHandle agent, JobRequest request, Pipeline pipeline, boolean destructive,
    AgentConfig profile, Usage sessionBefore) {
  @Override
  public JobRequest request() {
    return agent instanceof PreparedStart prepared ? prepared.request() : request;
  }
}
