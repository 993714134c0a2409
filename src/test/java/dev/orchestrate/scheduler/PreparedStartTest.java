package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.Placement;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.jobs.AgentHandle;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.testing.TestAgents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A job whose worktree is prepared on a worker (issue 46): the scheduler's thread only records it;
 * the preparation, the request made for the worktree and the agent's start happen on the worker, in
 * that order; a worktree that cannot be prepared blocks the item as a failed set-up; a cancel before
 * the agent started ends the job without starting it.
 */
class PreparedStartTest {
  private final WorkspaceWorkers workers = new WorkspaceWorkers(2);
  private final List<JobRequest> started = new CopyOnWriteArrayList<>();
  private final List<String> threads = new CopyOnWriteArrayList<>();
  private final CompletableFuture<AgentOutcome> agentEnd = new CompletableFuture<>();
  private final List<String> cancels = new CopyOnWriteArrayList<>();

  private final AgentLauncher launcher = request -> {
    started.add(request);
    threads.add(Thread.currentThread().getName());
    return new AgentHandle() {
      @Override
      public CompletableFuture<AgentOutcome> finished() {
        return agentEnd;
      }

      @Override
      public void cancel() {
        cancels.add(request.itemId());
      }
    };
  };

  @AfterEach
  void close() {
    workers.close();
  }

  private static JobRequest request(String workDir) {
    return new JobRequest("A", "build", 1, "p", TestAgents.agent(Path.of("/bin/true")), Path.of(workDir),
        Path.of("/tmp/job"), null, JobRequest.Steps.NONE);
  }

  private static AgentOutcome done() {
    return new AgentOutcome(AgentResult.PHASE_COMPLETE, "ok", "", List.of(), List.of(), OptionalInt.of(0),
        AgentOutcome.Ending.EXITED, Duration.ofMillis(5));
  }

  @Test
  void the_worktree_is_prepared_and_the_agent_started_on_a_worker_with_the_request_made_for_it() throws Exception {
    String scheduler = Thread.currentThread().getName();
    List<String> prepared = new CopyOnWriteArrayList<>();
    PreparedStart start = PreparedStart.begin(workers, request("/backlog"), () -> {
      prepared.add(Thread.currentThread().getName());
      return new Placement(Path.of("/wt/A"), Path.of("/wt/A"), "orchestrate/A", false, List.of());
    }, placement -> request(placement.workDir().toString()), launcher);
    agentEnd.complete(done());

    AgentOutcome outcome = start.finished().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertEquals(1, started.size());
    assertEquals(Path.of("/wt/A"), started.get(0).workDir());
    assertSame(started.get(0), start.request());
    assertNotEquals(scheduler, prepared.get(0));
    assertTrue(threads.get(0).startsWith("orchestrate-worktrees-"), threads.toString());
  }

  @Test
  void a_worktree_that_cannot_be_prepared_blocks_the_item_and_starts_no_agent() throws Exception {
    PreparedStart start = PreparedStart.begin(workers, request("/backlog"), () -> {
      throw new WorkspaceUnavailableException("could not prepare the worktree of A: disk full");
    }, placement -> request(placement.workDir().toString()), launcher);

    AgentOutcome outcome = start.finished().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertEquals(AgentResult.BLOCKED, outcome.result());
    assertEquals("could not prepare the worktree of A: disk full", outcome.context());
    assertEquals(List.of(), started);
    assertEquals(Path.of("/backlog"), start.request().workDir(), "the provisional request stays");
  }

  @Test
  void a_cancel_during_the_preparation_ends_the_job_as_cancelled_without_its_agent() throws Exception {
    CountDownLatch preparing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    PreparedStart start = PreparedStart.begin(workers, request("/backlog"), () -> {
      preparing.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Placement(Path.of("/wt/A"), Path.of("/wt/A"), "orchestrate/A", false, List.of());
    }, placement -> request(placement.workDir().toString()), launcher);
    assertTrue(preparing.await(10, TimeUnit.SECONDS));

    start.cancel();
    release.countDown();
    AgentOutcome outcome = start.finished().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertEquals(AgentOutcome.Ending.CANCELLED, outcome.ending());
    assertEquals(List.of(), started);
  }

  @Test
  void a_cancel_after_the_agent_started_reaches_the_agent() throws Exception {
    PreparedStart start = PreparedStart.begin(workers, request("/backlog"),
        () -> new Placement(Path.of("/wt/A"), Path.of("/wt/A"), "orchestrate/A", false, List.of()),
        placement -> request(placement.workDir().toString()), launcher);
    for (int i = 0; i < 1000 && started.isEmpty(); i++) {
      Thread.sleep(5);
    }
    assertEquals(1, started.size());

    start.cancel();

    assertEquals(List.of("A"), cancels);
  }

  @Test
  void many_items_prepare_side_by_side_on_a_bounded_number_of_threads() throws Exception {
    WorkspaceWorkers four = new WorkspaceWorkers(4);
    CountDownLatch together = new CountDownLatch(4);
    List<PreparedStart> starts = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      starts.add(PreparedStart.begin(four, request("/backlog"), () -> {
        together.countDown();
        try {
          together.await(10, TimeUnit.SECONDS); // the first four wait for each other: four at once
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return Placement.shared(Path.of("/backlog"));
      }, placement -> request("/backlog"), launcher));
    }
    agentEnd.complete(done());
    for (PreparedStart start : starts) {
      start.finished().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
    four.close();

    assertEquals(40, started.size());
    assertEquals(4, threads.stream().distinct().count(), threads.stream().distinct().toList().toString());
  }
}
