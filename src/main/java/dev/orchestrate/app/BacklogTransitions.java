package dev.orchestrate.app;

import dev.orchestrate.backlog.BacklogCommand;
import dev.orchestrate.config.BacklogSourceConfig;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.item.BacklogHooks;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.scheduler.RunListener;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The transition commands of {@code backlog.source} (docs/backlog.md, "A backlog from a command"):
 * {@code on_done}, {@code on_blocked} and {@code on_awaiting_review}, called once per stay of an
 * item of the source in that status. The scheduler's callbacks only queue a call; the commands run
 * one after another on a thread of their own, so a slow forge never holds the scheduler; what they
 * came to is written to the state ({@link BacklogHooks}) back on the scheduler thread, at its next
 * tick ({@link #flush}) and at the run's end ({@link #finish}). A command that fails is said once,
 * as a warning, and not recorded: the next run's start calls it again. A call is recorded after it
 * exited 0, so a run killed between the two calls it again (at least once).
 */
final class BacklogTransitions implements RunListener {
  static final List<String> HOOKS = List.of("on_done", "on_blocked", "on_awaiting_review");
  /** What a transition command may print before the rest is dropped: only its stderr's end is shown. */
  static final long OUTPUT_MAX_BYTES = 64 * 1024;

  private final BacklogSourceConfig source;
  private final BacklogHooks store;
  private final Path directory;
  private final Map<String, String> env;
  private final Clock clock;
  private final boolean doneAfterChecks;
  private final Function<String, String> pullRequests;
  private final Consumer<String> warn;
  private final UnaryOperator<String> mask;
  private final ExecutorService calls = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "backlog-transitions");
    thread.setDaemon(true);
    return thread;
  });
  /** {@code hook + " " + id}: called or queued in this stay; the scheduler thread's only. */
  private final Set<String> called = new HashSet<>();
  /** What the calling thread came to, to write (and say) on the scheduler thread. */
  private final ConcurrentLinkedQueue<Runnable> results = new ConcurrentLinkedQueue<>();

  /**
   * @param doneAfterChecks {@code execution.checks} is set: a pushed item passes through done on its
   *                        way to awaiting its checks, so {@code on_done} waits for them to be green
   * @param pullRequests    an item's pull request URL, or null
   * @param warn            tells the person running orchestrate (on the scheduler thread)
   */
  BacklogTransitions(BacklogSourceConfig source, BacklogHooks store, Path directory, Map<String, String> env,
      Clock clock, boolean doneAfterChecks, Function<String, String> pullRequests, Consumer<String> warn,
      UnaryOperator<String> mask) {
    this.source = source;
    this.store = store;
    this.directory = directory;
    this.env = Map.copyOf(env);
    this.clock = clock;
    this.doneAfterChecks = doneAfterChecks;
    this.pullRequests = pullRequests;
    this.warn = warn;
    this.mask = mask;
  }

  /**
   * The run's start: what the state recorded, and each item of the source that stands in a hook's
   * status without its call (a stopped run's, one whose command failed) gets it now; a record of an
   * item that left the status since (unblocked between runs) goes.
   */
  @Override
  public void runStarted(List<ItemState> items, ItemFilter filter) {
    for (String hook : HOOKS) {
      if (source.hook(hook) == null) {
        continue;
      }
      Set<String> recorded = store.called(hook);
      for (ItemState item : items) {
        boolean inStatus = item.status() == status(hook);
        if (recorded.contains(item.id())) {
          if (inStatus) {
            called.add(key(hook, item.id()));
          } else {
            store.clear(item.id(), hook);
          }
        } else if (inStatus && item.inBacklog() && ofSource(item)) {
          call(hook, item);
        }
      }
    }
  }

  @Override
  public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    statusChanged(before, after);
  }

  @Override
  public void statusChanged(ItemState before, ItemState after) {
    ItemStatus was = before == null ? null : before.status();
    ItemStatus now = after.status();
    if (was == now) {
      return;
    }
    String left = hook(was);
    if (left != null && called.remove(key(left, after.id()))) {
      results.add(() -> store.clear(after.id(), left));
    }
    String entered = hook(now);
    if (entered == null || !ofSource(after)
        || (now == ItemStatus.DONE && doneAfterChecks && was != ItemStatus.AWAITING_CHECKS)) {
      return;
    }
    call(entered, after);
  }

  /** Writes what the calls came to so far; on the scheduler thread. */
  void flush() {
    for (Runnable result = results.poll(); result != null; result = results.poll()) {
      result.run();
    }
  }

  /**
   * The run's end: the queued calls get up to {@code wait} to finish, then what they came to is
   * written; a call still running is stopped and left to the next run.
   */
  void finish(Duration wait) {
    calls.shutdown();
    try {
      calls.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    calls.shutdownNow();
    flush();
  }

  private void call(String hook, ItemState item) {
    ProjectCommand command = source.hook(hook);
    if (command == null || !called.add(key(hook, item.id()))) {
      return;
    }
    Map<String, String> values = values(item);
    String id = item.id();
    try {
      calls.execute(() -> {
        BacklogCommand.Result result;
        try {
          result = BacklogCommand.run(command, values, directory, env, OUTPUT_MAX_BYTES);
        } catch (RuntimeException e) {
          // A value the environment cannot hold (a NUL in a title) or the like: a failed call, said
          // as one, never a task that dies without a word (a review's finding).
          results.add(() -> warn.accept("warning: backlog.source." + hook + " for " + id + " could not run: "
              + mask.apply(String.valueOf(e.getMessage())) + " (the next run calls it again)"));
          return;
        }
        if (result.exitCode() != null && result.exitCode() == 0) {
          java.time.Instant at = clock.instant();
          results.add(() -> store.recordCalled(id, hook, at));
        } else {
          String problem = mask.apply(String.valueOf(result.problem(OUTPUT_MAX_BYTES)));
          results.add(() -> warn.accept("warning: backlog.source." + hook + " for " + id + " failed: " + problem
              + " (the next run calls it again)"));
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      called.remove(key(hook, item.id())); // the run is ending: the next one calls it
    }
  }

  private Map<String, String> values(ItemState item) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("id", item.id());
    values.put("source_id", item.id().startsWith(source.idPrefix())
        ? item.id().substring(source.idPrefix().length()) : item.id());
    values.put("title", item.definition().title());
    values.put("reason", item.progress().blockedReason() == null ? "" : item.progress().blockedReason());
    String url;
    try {
      url = pullRequests.apply(item.id());
    } catch (RuntimeException e) {
      url = null; // the call goes out without it
    }
    values.put("pull_request", url == null ? "" : url);
    return values;
  }

  /** An item the source listed: not an agent's follow-up, and named with the source's prefix. */
  private boolean ofSource(ItemState item) {
    return item.origin() == null && item.id().startsWith(source.idPrefix());
  }

  private String hook(ItemStatus status) {
    String hook = status == ItemStatus.DONE ? "on_done" : status == ItemStatus.BLOCKED ? "on_blocked"
        : status == ItemStatus.AWAITING_REVIEW ? "on_awaiting_review" : null;
    return hook == null || source.hook(hook) == null ? null : hook;
  }

  private static ItemStatus status(String hook) {
    return switch (hook) {
      case "on_done" -> ItemStatus.DONE;
      case "on_blocked" -> ItemStatus.BLOCKED;
      default -> ItemStatus.AWAITING_REVIEW;
    };
  }

  private static String key(String hook, String id) {
    return hook + " " + id;
  }
}
