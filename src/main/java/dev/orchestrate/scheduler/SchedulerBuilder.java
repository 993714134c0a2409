package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.config.Config;
import dev.orchestrate.context.TurnHistory;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.Housekeeping;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.memory.ProjectMemory;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;

/**
 * The optional collaborators of a scheduler. A run wires all of them, while most tests need only
 * one or none; a builder lets each caller name just the ones it cares about, where a constructor
 * per combination had grown to six. Each one left out is a no-op: no listener, no turn history
 * (prompts carry no prior context), no project memory, no housekeeping.
 */
public final class SchedulerBuilder {
  final StateRepository store;
  final Config config;
  final BacklogSource backlogs;
  final Path jobsRoot;
  final AgentLauncher launcher;
  final Clock clock;
  RunListener listener = RunListener.NONE;
  TurnHistory history = TurnHistory.NONE;
  ProjectMemory memory = ProjectMemory.NONE;
  Housekeeping housekeeping = Housekeeping.NONE;
  ItemLeases leases = ItemLeases.SOLE;
  AgentPauses pauses = AgentPauses.inMemory();

  SchedulerBuilder(StateRepository store, Config config, BacklogSource backlogs, Path jobsRoot,
      AgentLauncher launcher, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.config = Objects.requireNonNull(config, "config");
    this.backlogs = Objects.requireNonNull(backlogs, "backlogs");
    this.jobsRoot = Objects.requireNonNull(jobsRoot, "jobsRoot");
    this.launcher = Objects.requireNonNull(launcher, "launcher");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Told of the run's progress (the terminal view, or a test watching it). */
  public SchedulerBuilder listener(RunListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * Records each attempt's turns and supplies the prior context of each prompt (summarizing
   * older turns just before a phase is spawned).
   */
  public SchedulerBuilder history(TurnHistory history) {
    this.history = Objects.requireNonNull(history, "history");
    return this;
  }

  /** Boot context in every prompt; outcome and agent memories afterwards. */
  public SchedulerBuilder memory(ProjectMemory memory) {
    this.memory = Objects.requireNonNull(memory, "memory");
    return this;
  }

  /** Given a slot at the end of every tick and once after the run (retention maintenance). */
  public SchedulerBuilder housekeeping(Housekeeping housekeeping) {
    this.housekeeping = Objects.requireNonNull(housekeeping, "housekeeping");
    return this;
  }

  /**
   * The item leases of this runner when several runners share the state: every item is claimed
   * before it is changed, items other runners hold are left alone, and the items are read again
   * from the state every {@link Claims#REFRESH_MS} ms. {@link ItemLeases#SOLE} (the default) for one.
   */
  public SchedulerBuilder leases(ItemLeases leases) {
    this.leases = Objects.requireNonNull(leases, "leases");
    return this;
  }

  /**
   * Where the agent profiles a provider's limit paused are kept (the state, so that a restarted
   * run honours a pause); in memory by default.
   */
  public SchedulerBuilder pauses(AgentPauses pauses) {
    this.pauses = Objects.requireNonNull(pauses, "pauses");
    return this;
  }

  public Scheduler build() {
    return new Scheduler(this);
  }
}
