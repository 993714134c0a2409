package dev.orchestrate.item;

import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The jobs of the state: a job's start, its end with the item's resulting state in one transaction,
 * and the job history. Part of the run's port, {@link StateRepository}: each method is one transaction.
 */
public interface JobRepository {

  /** Records a job as running and returns its id. */
  long jobStarted(JobStart start);

  /** Records how a job ended and, in the same transaction, the item's resulting state (if any). */
  default void jobEnded(long jobId, JobEnd end, Step step, Instant now) {
    jobEnded(jobId, end, step, List.of(), now);
  }

  /**
   * Records how a job ended and, in the same transaction, the item's resulting state (if any) and
   * the follow-up items the agent reported, appended to backlog order. A follow-up whose id the
   * state already knows is skipped. Returns the items it added, in order.
   */
  List<ItemState> jobEnded(long jobId, JobEnd end, Step step, List<FollowUpItem> followUps, Instant now);

  /** Marks jobs still recorded as running (left by a crashed run) as interrupted; returns how many. */
  int interruptRunningJobs(Instant now);

  /** Job history, newest first, at most {@code limit} rows. */
  List<JobRecord> recentJobs(int limit);

  /**
   * The outcome classes of these jobs (jobs recorded without one, or before schema 10, are left
   * out): read apart from the job rows, so that a state older than the column still reads.
   */
  Map<Long, OutcomeClass> outcomes(Collection<Long> jobIds);

  /** The agent profile of each of these jobs (jobs recorded without one, or before schema 10, are left out). */
  Map<Long, String> agents(Collection<Long> jobIds);

  /**
   * The agent's session of each of these jobs (its id and how the attempt began), in one read; jobs
   * recorded without one (still running, a fresh start the agent printed no id for, before schema
   * 11) are left out.
   */
  Map<Long, AgentSession> sessions(Collection<Long> jobIds);

  /**
   * The project commands (set-up, gates) each of these jobs ran, in the order they ran, in one read;
   * jobs that ran none (or recorded before schema 11) are left out.
   */
  Map<Long, List<CheckRecord>> checks(Collection<Long> jobIds);
}
