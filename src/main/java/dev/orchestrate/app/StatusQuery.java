package dev.orchestrate.app;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.scheduler.Dependencies;
import dev.orchestrate.state.ItemHistory;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StatusRows;
import dev.orchestrate.workspace.BranchSummary;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.WorkspacePlace;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What {@code status} shows: every item with what its row needs (streamed, {@link Listing}), or
 * one item in full. Reads the state only (opened to read, {@link StateBackend#openToRead}); an absent state is an empty one.
 */
public final class StatusQuery {
  private StatusQuery() {
  }

  /**
   * One row of {@code status}: the item, the attempts of its current (or last) phase, what it waits
   * on (its unmet dependencies, none once it is done or blocked), its usage over all its jobs and its
   * worktree (null: none).
   */
  public record ItemRow(ItemState item, int attempts, List<String> waitingOn, Usage usage,
      WorkspaceRecord workspace) {
    public ItemRow {
      waitingOn = Frozen.list(waitingOn);
    }
  }

  /**
   * Every item, read a page at a time and handed on as it is read, so that listing a million items
   * holds one page of them (issue 33); with the worktrees not integrated yet and the agent pauses.
   * Open while the caller renders; each {@link #forEach} reads the items afresh. An absent state
   * lists nothing and is not created.
   */
  public static final class Listing implements AutoCloseable {
    private final StateStore store;

    private Listing(StateStore store) {
      this.store = store;
    }

    /** Every item, in the store's order, handed to {@code each} as read. */
    public void forEach(Consumer<ItemRow> each) {
      if (store != null) {
        store.statusRows().forEach(row -> each.accept(row(row)));
      }
    }

    /** The worktrees not integrated yet with a note saying why, by item id. */
    public void forEachDeferred(Consumer<WorkspaceRecord> each) {
      if (store != null) {
        store.statusRows().forEachDeferred(each);
      }
    }

    /** The agent profiles a provider's limit paused. */
    public List<AgentPauses.Pause> pauses() {
      return store == null ? List.of() : store.pauses().all();
    }

    @Override
    public void close() {
      if (store != null) {
        store.close();
      }
    }
  }

  /** Every item, a page at a time: see {@link Listing}. */
  public static Listing listing(StateBackend backend) {
    return new Listing(backend.exists() ? backend.openToRead() : null);
  }

  private static ItemRow row(StatusRows.Row row) {
    ItemState item = row.item();
    int recorded = item.progress().attempts();
    int attempts = item.status().isTerminal() && row.latestAttempt() != null
        ? Math.max(recorded, row.latestAttempt()) : recorded;
    return new ItemRow(item, attempts, item.status().isTerminal() ? List.of() : unmet(item, row.dependencies()),
        row.usage(), row.workspace());
  }

  /**
   * The ids of {@code item}'s dependencies that are not done, with their status, e.g.
   * {@code WRK-4 (blocked)}: what {@link Dependencies#unmet} says, from the statuses alone.
   */
  static List<String> unmet(ItemState item, Map<String, ItemStatus> statuses) {
    List<String> out = new ArrayList<>();
    for (String dep : item.definition().dependsOn()) {
      ItemStatus s = statuses.get(dep);
      if (s == null) {
        out.add(dep + " (unknown)");
      } else if (s != ItemStatus.DONE) {
        out.add(dep + " (" + s.key() + ")");
      }
    }
    return out;
  }

  /** What {@code status ID} found: no state yet, no such item (with the known ids), or the item. */
  public sealed interface Lookup permits NoState, Unknown, Found {
  }

  public record NoState() implements Lookup {
  }

  /** The ids the state knows, in the store's order. */
  public record Unknown(List<String> known) implements Lookup {
    public Unknown {
      known = Frozen.list(known);
    }
  }

  public record Found(ItemDetail detail) implements Lookup {
  }

  /** A phase the item's jobs went through, in the order first run. */
  public record PhaseView(String name, int attempts, String lastResult, boolean completed, String summary) {
  }

  /**
   * One item in full: its phases, jobs (with their details), follow-ups, summary, worktree and
   * usage, and what its branch holds against its base ({@code branchSummary}: null without a
   * worktree, once integrated, or when git cannot tell).
   */
  public record ItemDetail(ItemState item, int attempts, List<String> waitingOn, List<PhaseView> phases,
      List<JobRecord> jobs, List<ItemState> followUps, String contextSummary, JobDetails details,
      WorkspaceRecord workspace, Usage usage, BranchSummary branchSummary, List<ItemHistory.Landing> landings,
      String heldBy, WorkspacePlace place) {
    public ItemDetail {
      place = place == null ? WorkspacePlace.NONE : place;
      landings = landings == null ? List.of() : List.copyOf(landings);
      waitingOn = Frozen.list(waitingOn);
      phases = Frozen.list(phases);
      jobs = Frozen.list(jobs);
      followUps = Frozen.list(followUps);
    }
  }

  /** The landing attempts {@code status ID} shows, the most recent. */
  static final int LANDINGS_SHOWN = 10;

  /** How many ids on each side of an unknown one its did-you-mean looks at (a million cost nothing). */
  static final int NEAR = 500;

  /** The item {@code id} in full. */
  public static Lookup item(StateBackend backend, String id) {
    if (!backend.exists()) {
      return new NoState();
    }
    try (StateStore store = backend.openToRead()) {
      // The item, its dependencies' statuses and its follow-ups read alone: a million other items cost nothing.
      StatusRows.Row row = store.statusRows().row(id).orElse(null);
      if (row == null) {
        return new Unknown(store.idsNear(id, NEAR));
      }
      ItemDetail detail = detail(row, store.history(), store, store.workspaces());
      WorkspaceRecord ws = detail.workspace();
      if (ws == null || ws.integration() == WorkspaceRecord.Integration.INTEGRATED) {
        return new Found(detail);
      }
      return new Found(new ItemDetail(detail.item(), detail.attempts(), detail.waitingOn(), detail.phases(),
          detail.jobs(), detail.followUps(), detail.contextSummary(), detail.details(), ws, detail.usage(),
          BranchSummary.of(new Git(), ws).orElse(null), detail.landings(), detail.heldBy(), detail.place()));
    }
  }

  private static ItemDetail detail(StatusRows.Row row, ItemHistory history, StateStore store,
      WorkspaceStore workspaces) {
    ItemState item = row.item();
    List<JobRecord> jobs = history.jobs(item.id());
    Map<String, String> lastAnswer = new LinkedHashMap<>();
    history.answers(item.id()).forEach(a -> lastAnswer.put(a.phase(), a.text()));
    Map<String, List<JobRecord>> byPhase = new LinkedHashMap<>();
    jobs.forEach(job -> byPhase.computeIfAbsent(job.phase(), p -> new ArrayList<>()).add(job));
    List<PhaseView> phases = new ArrayList<>();
    byPhase.forEach((phase, runs) -> {
      JobRecord last = runs.get(runs.size() - 1);
      boolean completed = runs.stream().anyMatch(j -> "phase_complete".equals(j.result()));
      int attempts = runs.stream().mapToInt(JobRecord::attempt).max().orElse(0);
      phases.add(new PhaseView(phase, attempts, last.result() == null ? last.state().key() : last.result(),
          completed, lastAnswer.get(phase)));
    });
    Map<String, JobRecord> latest = jobs.isEmpty() ? Map.of() : Map.of(item.id(), jobs.get(jobs.size() - 1));
    return new ItemDetail(item, attempts(item, latest),
        item.status().isTerminal() ? List.of() : unmet(item, row.dependencies()), phases, jobs,
        store.statusRows().followUps(item.id()), history.contextSummary(item.id()).orElse(null),
        JobDetails.of(store.items(), workspaces, jobs), workspaces.workspace(item.id()).orElse(null), row.usage(),
        null, history.landings(item.id(), LANDINGS_SHOWN), store.statusRows().holder(item.id()).orElse(null),
        workspaces.place(item.id()));
  }

  /**
   * The attempts of the item's current phase; for a done or blocked item (whose count the state
   * resets or keeps at the phase it stopped in), those of its last job's phase when retention kept it.
   */
  public static int attempts(ItemState item, Map<String, JobRecord> latestJobs) {
    int recorded = item.progress().attempts();
    JobRecord last = latestJobs.get(item.id());
    if (item.status().isTerminal() && last != null) {
      return Math.max(recorded, last.attempt());
    }
    return recorded;
  }
}
