package dev.orchestrate.jobs;

import dev.orchestrate.outcome.AgentOutcome.Ending;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Why a running agent is being stopped, decided once: a cancel and a timeout can race, and the
 * first one wins. Any further cancel means "stop waiting for it to clean up".
 */
final class StopSignal {

  private final AtomicReference<Ending> reason = new AtomicReference<>();
  private final CompletableFuture<Void> cancelRequested = new CompletableFuture<>();
  private final CountDownLatch hurry = new CountDownLatch(1);

  void cancel() {
    if (reason.compareAndSet(null, Ending.CANCELLED)) {
      cancelRequested.complete(null);
    } else {
      hurry.countDown();
    }
  }

  /** Claims the stop for the timeout unless a cancel got there first; returns the winner. */
  Ending timeOut() {
    reason.compareAndSet(null, Ending.TIMED_OUT);
    return reason.get();
  }

  /** Claims the stop for a stall unless a cancel got there first; returns the winner. */
  Ending stall() {
    reason.compareAndSet(null, Ending.STALLED);
    return reason.get();
  }

  /** Claims the stop for a provider's refusal unless a cancel got there first; returns the winner. */
  Ending refuse() {
    reason.compareAndSet(null, Ending.REFUSED);
    return reason.get();
  }

  CompletableFuture<Void> cancelRequested() {
    return cancelRequested;
  }

  /** Counted down when the grace period should be cut short. */
  CountDownLatch hurry() {
    return hurry;
  }
}
