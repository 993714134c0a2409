package dev.orchestrate.app;

import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.context.ContextHistory;
import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.item.Housekeeping;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.jobs.Bubblewrap;
import dev.orchestrate.jobs.Secrets;
import dev.orchestrate.landing.Landing;
import dev.orchestrate.memory.MemoryService;
import dev.orchestrate.notify.DeliveryStats;
import dev.orchestrate.notify.Notifier;
import dev.orchestrate.retention.MaintenanceSchedule;
import dev.orchestrate.retention.Retention;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.scheduler.RunOptions;
import dev.orchestrate.scheduler.RunReport;
import dev.orchestrate.scheduler.Scheduler;
import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.workspace.Checkout;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code orchestrate run}: takes the run lease, opens the store, wires the scheduler (real
 * agents, the context history, project memory, retention maintenance, worktrees) and runs it until
 * it halts. What the operator sees and how a stop reaches the run are the caller's ({@link Ui}).
 */
public final class RunSession {
  /** The CLI's side of a run. */
  public interface Ui {
    /** The progress listener (a live view, plain lines or nothing), given the items to draw from. */
    RunListener progress(StateRepository items);

    /** The listener the scheduler reports to: {@code progress} plus what the run says besides it. */
    RunListener withNotices(RunListener progress);

    /** One line for the operator, e.g. that a write waits for another process's lock. */
    void notice(String line);

    /** Routes the operator's stop (Ctrl-C, TERM) to {@code requestStop} until closed. */
    StopHook onStop(Runnable requestStop);
  }

  /** A registration of {@link Ui#onStop}; closing it restores what was there before. */
  @FunctionalInterface
  public interface StopHook extends AutoCloseable {
    @Override
    void close();
  }

  private final StateBackend backend;
  private final Config config;
  private final Clock clock;

  public RunSession(StateBackend backend, Config config, Clock clock) {
    this.backend = backend;
    this.config = config;
    this.clock = clock;
  }

  /**
   * Of {@code targets}, those the backlog lists, and the ids the state knows (follow-ups, items no
   * longer listed), read without migrating or creating the state, and only when a target is not in
   * the backlog. Items are never deleted, so an id known now is known under the lease. Without
   * targets, none: a run of the whole backlog looks at no id here (a million of them cost a second).
   */
  public Set<String> knownIds(BacklogSource backlogs, List<String> targets) {
    Set<String> ids = new HashSet<>();
    if (targets.isEmpty()) {
      return ids;
    }
    Set<String> wanted = new HashSet<>(targets);
    backlogs.current().items().forEach(i -> {
      if (wanted.contains(i.id())) {
        ids.add(i.id());
      }
    });
    if (!ids.containsAll(targets) && backend.exists()) {
      try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
        ids.addAll(store.itemIds());
      }
    }
    return ids;
  }

  /**
   * Runs until every item (or target) is done or blocked, the phase cap, the circuit breaker, the
   * budget or a stop.
   *
   * @param repository the git repository items get worktrees in, or null without worktrees
   * @throws dev.orchestrate.state.StateLockedException when another run holds the lease
   */
  public RunReport run(BacklogSource backlogs, Repository repository, RunOptions options, Ui ui) {
    return run(backlogs, repository, options, ui, null);
  }

  /**
   * Says once, at the start, which pipelines land their items' work on the base branch with no
   * gate on it ({@code integration_verify: []}): their items are the ones that can turn it red.
   */
  private void warnUngated(Ui ui, String baseBranch) {
    if (config.execution().workspace().merge() == WorkspaceConfig.Merge.NONE
        || config.execution().workspace().merge() == WorkspaceConfig.Merge.PUSH) {
      return;
    }
    config.pipelines().values().stream()
        .filter(p -> p.integrationVerify() != null && p.integrationVerify().isEmpty())
        .forEach(p -> ui.notice("warning: pipeline " + p.name() + " has integration_verify: [], so its items' work "
            + "lands on " + baseBranch + " without a gate run on it as it lands"));
  }

  /**
   * The notifier of the config's {@code notify:} sinks (null without any), its delivery threads
   * started; {@link #run} closes it. Started before the state is locked, so that a webhook's unset
   * {@code secret_env} refuses the run with nothing created.
   *
   * @param env        where webhooks read their secrets
   * @param projectDir where notification commands run
   * @throws RunPreflight.Refused when a webhook's {@code secret_env} is not set (exit 2)
   */
  public Notifier startNotifier(Map<String, String> env, Path projectDir) {
    if (config.notifications().isEmpty()) {
      return null;
    }
    SecretEnv named = SecretEnv.of(config);
    Secrets secrets = Secrets.forAgent(env, config.agent(), named);
    try {
      return Notifier.start(config.notifications(), env, named.forCommands(env), projectDir,
          secrets::mask, clock);
    } catch (IllegalArgumentException e) { // a webhook's secret_env is not set
      throw new RunPreflight.Refused(e.getMessage());
    }
  }

  /**
   * {@link #run(BacklogSource, Repository, RunOptions, Ui)} telling {@code notifier} (null:
   * no one) what happens, then closing it: healthy sinks get at most {@link #NOTIFY_DRAIN} after the
   * run to deliver what is queued, and what they came to is recorded on the run for {@code stats}.
   */
  @SuppressWarnings("try") // the lease and the stop hook are held, never read
  public RunReport run(BacklogSource backlogs, Repository repository, RunOptions options, Ui ui,
      Notifier notifier) {
    try (RunLease lease = backend.acquireLease(clock.instant(), config.state().leaseTimeout());
        StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      Checkout checkout = Checkouts.check(lease, config.execution().workspace(), repository,
          backlogs.current().directory());
      RunListener progress = ui.progress(store.items());
      BacklogTransitions transitions = transitions(store, backlogs, ui);
      RunNotifications notifications = notifier == null ? null
          : new RunNotifications(notifier, clock, config.execution().workspace().checks() != null,
              id -> store.workspaces().workspace(id).map(ws -> ws.push() == null ? null : ws.push().url())
                  .orElse(null));
      try {
        RunListener listener = notifications == null ? ui.withNotices(progress)
            : RunListener.both(ui.withNotices(progress), notifications);
        if (transitions != null) {
          listener = RunListener.both(listener, transitions);
        }
        Scheduler scheduler = scheduler(config, backlogs, backend.directory(), clock, store, progress,
            listener, lease, transitions == null ? () -> {
            } : transitions::flush);
        // A write lock held by another process is waited out, said once; a stop ends the wait.
        store.busyWait(BusyWait.stoppable(ui::notice, scheduler::stopRequested));
        if (repository != null) {
          workspaces(scheduler, repository, store, checkout, ui);
        }
        RunReport report;
        try (StopHook stop = ui.onStop(scheduler::requestStop)) {
          report = scheduler.run(options);
        }
        if (transitions != null) {
          transitions.finish(report.haltReason() == HaltReason.INTERRUPTED ? TRANSITIONS_DRAIN_STOPPED
              : config.backlogSource().command().timeout().plus(TRANSITIONS_DRAIN_STOPPED));
        }
        if (notifications != null) {
          notifications.runEnded(report);
          DeliveryStats delivery = notifier.close(NOTIFY_DRAIN);
          store.items().runNotified(report.runId(), delivery.delivered(), delivery.failed(),
              delivery.dropped() + delivery.undelivered(), lastError(delivery));
        }
        return report;
      } finally {
        if (transitions != null) {
          transitions.finish(Duration.ZERO); // an error above: calls not yet made are the next run's
        }
        if (notifier != null) {
          notifier.close(Duration.ZERO); // an error above: what is queued is given up at once
        }
        if (progress instanceof AutoCloseable view) {
          closeQuietly(view);
        }
      }
    }
  }

  /** The items' worktrees in {@code repository}, and their landing, for {@code scheduler}. */
  private void workspaces(Scheduler scheduler, Repository repository, StateStore store, Checkout checkout, Ui ui) {
    SecretEnv named = SecretEnv.of(config);
    Secrets secrets = Secrets.forAgent(System.getenv(), config.agent(), named);
    warnUngated(ui, repository.baseBranch());
    Git git = new Git();
    Path stateRoot = backend.directory().root();
    Worktrees worktrees = new Worktrees(git, repository, config.execution().workspace(),
        config.retention().worktrees(), store.workspaces(), stateRoot.resolve("worktrees"), clock)
        .placedAt(checkout == null ? null : checkout.where()).keepingSpares().open();
    worktrees.cleanUp().forEach(ui::notice);
    scheduler.workspaces(worktrees, new Landing(git, worktrees, config.execution().workspace(),
        store.workspaces(), clock, stateRoot.resolve("jobs")).masking(secrets::mask)
        .environment(named.forCommands(System.getenv())).sandboxed(sandbox(config)).open());
  }

  /**
   * The integration gates' sandbox: the default agent's {@code agent.sandbox} (preflight found bwrap);
   * null without one.
   */
  private static Bubblewrap sandbox(Config config) {
    if (!config.agent().sandbox().on()) {
      return null;
    }
    return Bubblewrap.find(System.getenv("PATH")).map(bwrap -> new Bubblewrap(bwrap, config.agent().sandbox()))
        .orElse(null);
  }

  /** How long a stopped run's end waits for the transition commands of backlog.source it queued. */
  static final Duration TRANSITIONS_DRAIN_STOPPED = Duration.ofSeconds(5);

  /**
   * The transition commands of {@code backlog.source}, run in the project's directory with the
   * environment the project's commands get; null when the config sets none.
   */
  private BacklogTransitions transitions(StateStore store, BacklogSource backlogs, Ui ui) {
    if (config.backlogSource() == null || !config.backlogSource().hasHooks()) {
      return null;
    }
    SecretEnv named = SecretEnv.of(config);
    Secrets secrets = Secrets.forAgent(System.getenv(), config.agent(), named);
    return new BacklogTransitions(config.backlogSource(), store.backlogHooks(), backlogs.current().directory(),
        named.forCommands(System.getenv()), clock, config.execution().workspace().checks() != null,
        id -> store.workspaces().workspace(id).map(ws -> ws.push() == null ? null : ws.push().url()).orElse(null),
        ui::notice, secrets::mask);
  }

  /** How long a run's end waits at most for its notifications to be delivered. */
  public static final Duration NOTIFY_DRAIN = Duration.ofSeconds(5);

  /** The most recent failure text of any sink, named by its sink; null when none failed. */
  private static String lastError(DeliveryStats delivery) {
    DeliveryStats.SinkFigures last = null;
    for (DeliveryStats.SinkFigures sink : delivery.sinks()) {
      if (sink.lastError() != null && (last == null || last.lastErrorAt() == null
          || (sink.lastErrorAt() != null && sink.lastErrorAt().isAfter(last.lastErrorAt())))) {
        last = sink;
      }
    }
    return last == null ? null : last.name() + ": " + last.lastError();
  }

  /**
   * The scheduler exactly as a run wires it: real agents, the context history (summarizing with
   * {@code progress} told when it is a {@link SummarizationListener}), project memory and retention
   * maintenance. The soak test drives the same object with its own listener.
   */
  public static Scheduler scheduler(Config config, BacklogSource backlogs, StateDirectory dir, Clock clock,
      StateStore store, RunListener progress, RunListener listener) {
    return scheduler(config, backlogs, dir, clock, store, progress, listener, new RunLease() {
      @Override
      public void close() {
      }
    });
  }

  /**
   * The scheduler of a run under {@code lease}: when it names a runner (a shared state), the
   * scheduler claims items as that runner, its agents' job tokens name it, and retention runs only
   * while this runner holds the maintenance lock.
   */
  static Scheduler scheduler(Config config, BacklogSource backlogs, StateDirectory dir, Clock clock,
      StateStore store, RunListener progress, RunListener listener, RunLease lease) {
    return scheduler(config, backlogs, dir, clock, store, progress, listener, lease, () -> {
    });
  }

  /** As above, with {@code eachTick} run on the scheduler thread after every tick. */
  static Scheduler scheduler(Config config, BacklogSource backlogs, StateDirectory dir, Clock clock,
      StateStore store, RunListener progress, RunListener listener, RunLease lease, Runnable eachTick) {
    // A failed summarization's message may quote the endpoint's answer: the secrets the agents'
    // output is masked of are masked there too (the summarizer's key among them).
    SecretEnv named = SecretEnv.of(config);
    Secrets secrets = Secrets.forAgent(System.getenv(), config.agent(), named);
    ContextHistory history = ContextHistory.create(store.turns(), config.context(),
        backlogs.current().directory(), clock,
        progress instanceof SummarizationListener l ? l : SummarizationListener.NONE, System::getenv,
        secrets::mask);
    MaintenanceSchedule maintenance = new MaintenanceSchedule(config.retention().maintenanceInterval(),
        now -> new RunMaintenance(new Retention(store.retention()), config, now, history::condense,
            () -> store.stats().recordSample("run", now)));
    ItemLeases leases = store.leases(lease.runnerId(), lease.host(), config.state().leaseTimeout());
    Housekeeping housekeeping = new Housekeeping() {
      @Override
      public void afterTick(java.time.Instant now, java.util.function.BooleanSupplier waiting) {
        eachTick.run();
        if (lease.maintains()) {
          maintenance.afterTick(now, waiting);
        }
      }

      @Override
      public void atEnd(java.time.Instant now, java.util.function.BooleanSupplier stop) {
        if (lease.maintains()) {
          maintenance.atEnd(now, stop);
        }
      }
    };
    return Scheduler.builder(store.items(), config, backlogs, dir.jobs(),
        new AgentRunner(clock, System.getenv(), named).forRunner(lease.runnerId()),
        clock)
        .listener(listener)
        .history(history)
        .memory(new MemoryService(store.memory(), clock, config.memoryBootContextChars()))
        .housekeeping(housekeeping)
        .leases(leases)
        .pauses(store.pauses())
        .build();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // restoring the terminal must not hide the run's result or its error
    }
  }
}
