package dev.orchestrate.testing;

import dev.orchestrate.jobs.AgentHandle;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An agent launcher without processes, for scheduler tests at scale: each attempt runs {@code agent}
 * on a pool thread (so outcomes arrive from another thread, as with real agents). Records how many
 * attempts ran at once and the prompt of each attempt.
 */
public final class InProcessLauncher implements AgentLauncher, AutoCloseable {
  private final Function<JobRequest, AgentOutcome> agent;
  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "in-process-agent");
    t.setDaemon(true);
    return t;
  });
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final AtomicInteger started = new AtomicInteger();
  private final Map<String, String> prompts = new ConcurrentHashMap<>();

  public InProcessLauncher(Function<JobRequest, AgentOutcome> agent) {
    this.agent = agent;
  }

  /** Every attempt completes its phase with the summary "ITEM PHASE done". */
  public static InProcessLauncher succeeding() {
    return new InProcessLauncher(r -> outcome(AgentResult.PHASE_COMPLETE, r.itemId() + " " + r.phase() + " done"));
  }

  public static AgentOutcome outcome(AgentResult result, String summary) {
    return new AgentOutcome(result, summary, result == AgentResult.FAILED ? "it failed" : "", List.of(), List.of(),
        OptionalInt.of(result == AgentResult.FAILED ? 1 : 0), AgentOutcome.Ending.EXITED, Duration.ofMillis(1));
  }

  @Override
  public AgentHandle start(JobRequest request) {
    started.incrementAndGet();
    prompts.put(request.itemId() + "/" + request.phase() + "/" + request.attempt(), request.prompt());
    CompletableFuture<AgentOutcome> done = new CompletableFuture<>();
    int now = running.incrementAndGet();
    maxRunning.accumulateAndGet(now, Math::max);
    pool.execute(() -> {
      try {
        AgentOutcome outcome = agent.apply(request);
        running.decrementAndGet();
        done.complete(outcome);
      } catch (RuntimeException e) {
        running.decrementAndGet();
        done.completeExceptionally(e);
      }
    });
    return new AgentHandle() {
      @Override
      public CompletionStage<AgentOutcome> finished() {
        return done;
      }

      @Override
      public void cancel() {
        // in-process attempts are short; a cancel marks nothing
      }
    };
  }

  public int maxRunning() {
    return maxRunning.get();
  }

  public int started() {
    return started.get();
  }

  /** The prompt of one attempt, or null. */
  public String prompt(String itemId, String phase, int attempt) {
    return prompts.get(itemId + "/" + phase + "/" + attempt);
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
